"""A board message as drawn (`Board`), and what each board message shows: the key it was drawn from and the game
version, so that an unchanged board is not edited again, now or after a restart.

The words (README, "Words the code keeps to"): a board is one message of a game for one audience, drawn from that
audience's view (the game as it may know it); its buttons and menus, a `discord.ui.View`, are its controls.

Every presenter asks `current(message, key, game)` before drawing a board and calls `remember(...)` once Discord
accepted the edit (or the new message). This process keeps the keys in memory (a front of the table, filled at
start with the rows of the active games); what is remembered is written to `drawn_boards` by `flush`, which the bot
calls as each drawing of a game ends, under that game's drawing lock. A record is written only after its edit
succeeded: a process that stops before (a crash) leaves the older version in the table, and the next start redraws
that board (storage/drawn_boards.py `stale_games`). A record lost before its flush costs only one redundant edit.

Several processes draw the same boards, each under its own lock, so their edits can land in any order (process A's
edit of version 5 after process B's of version 6). The record therefore only moves forward (a compare-and-set on the
version), and a drawing whose record was refused, or whose game is already at a newer version, may have landed last:
its messages are in doubt, and the bot draws the game again from what is stored until its record holds (the last
edit to land is always checked by the process that made it). Each drawing first takes in what other processes
recorded (`refresh`), so this process never skips an edit because it drew that same board itself, earlier. The same
read brings the game's private board rows (`seats`), which the drawing's private boards are drawn from.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from storage.drawn_boards import DrawnBoard, DrawnBoardStore
from storage.private_boards import LiveBoard, PrivateBoard

if TYPE_CHECKING:
    from bot.service import GameInfo

IMAGE_NAME = "board.png"


@dataclass(frozen=True)
class Board:
    """One board message ready to send or edit: text, embed, controls and an optional picture."""

    content: str | None
    embed: discord.Embed
    controls: discord.ui.View | None
    image: bytes | None = None
    key: str = ""  # what it was drawn from, when the presenter skips redrawing unchanged messages

    def attachments(self) -> list[discord.File]:
        if self.image is None:
            return []
        return [discord.File(io.BytesIO(self.image), filename=IMAGE_NAME)]


def drawn_key(*parts: Any) -> str:
    """A key for what a board is drawn from: equal keys, equal messages."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def board_key(board: Board) -> str:
    """The board's own key if its presenter gave one (computed without drawing its picture), else a key of the
    message itself: its text, embed, controls and picture bytes."""
    if board.key:
        return board.key
    image = hashlib.sha256(board.image).hexdigest() if board.image is not None else None
    controls = board.controls.to_components() if board.controls is not None else None
    return drawn_key(board.content, board.embed.to_dict(), controls, image)


class DrawnBoards:
    """Which key and game version each board message was last drawn from (see the module's docstring)."""

    LIMIT = 100_000  # messages kept in memory; forgetting one costs one redundant edit, never a stale board

    def __init__(self, store: DrawnBoardStore) -> None:
        self.store = store
        self._shown: dict[int, DrawnBoard] = {}
        self._unsaved: dict[int, list[DrawnBoard]] = {}  # game -> its boards remembered since its last flush
        # Messages whose content is in doubt: an edit of an older position of their game may have landed after a
        # newer one (two processes). Never taken as current, whatever is recorded, until drawn again here.
        self._doubtful: set[int] = set()
        # game -> its seats' board rows and latest ephemeral boards, as read by the refresh of its drawing under way
        self._seats: dict[int, tuple[dict[int, PrivateBoard], dict[int, LiveBoard]]] = {}

    def get(self, message_id: int) -> str | None:
        """The key `message_id` was last drawn from, if known."""
        shown = self._shown.get(message_id)
        return shown.key if shown is not None else None

    def current(self, message_id: int, key: str, game: GameInfo) -> bool:
        """Whether `message_id` shows `key` already (an edit would change nothing). If it does but was recorded at
        an older version of `game` (a change that left this board as it was), it is recorded at this one, so that a
        restart does not look at it again."""
        shown = self._shown.get(message_id)
        if shown is None or shown.key != key:
            return False
        if shown.version != game.version or (game.status == "active") != shown.active:
            self.remember(message_id, key, game)
        return True

    def remember(self, message_id: int, key: str, game: GameInfo) -> None:
        """`message_id` now shows `game` (as at its version) drawn from `key`: call only once Discord accepted the
        edit or the message. Written to the database by the next `flush`."""
        board = DrawnBoard(message_id, game.id, game.version, key, active=game.status == "active")
        self._shown.pop(message_id, None)  # re-inserted last: the oldest entries are the ones dropped
        self._shown[message_id] = board
        while len(self._shown) > self.LIMIT:
            del self._shown[next(iter(self._shown))]
        self._unsaved.setdefault(game.id, []).append(board)
        self._doubtful.discard(message_id)

    async def flush(self, game_id: int | None = None, known_version: int | None = None) -> bool:
        """Write what was remembered since the last flush (of game `game_id`; None: of every game), in one
        transaction. Returns whether a board just recorded may show an older position than its game's latest (see
        `DrawnBoardStore.save`; `known_version`: the version of game `game_id` this process has, which it draws
        next itself): its messages are then in doubt, and the caller draws the game again."""
        if game_id is None:
            unsaved = [board for boards in self._unsaved.values() for board in boards]
            self._unsaved = {}
            self._seats = {}
        else:
            unsaved = self._unsaved.pop(game_id, [])
            self._seats.pop(game_id, None)  # the drawing is over: the next one reads them again
        known = {game_id: known_version} if game_id is not None and known_version is not None else None
        behind = await self.store.save(unsaved, known)
        for board in unsaved:
            if board.game_id in behind:
                self._shown.pop(board.message_id, None)
                self._doubtful.add(board.message_id)
        return bool(behind)

    async def refresh(self, game_id: int) -> None:
        """Take in what other processes recorded of game `game_id`'s boards since this one drew them (call under the
        game's drawing lock, before drawing it): a board another process drew later is not taken as still showing
        what this process drew, even if the game comes back to a position this process drew last. The game's private
        board rows are read with them and kept for this drawing (`seats`) until its `flush`."""
        read = await self.store.boards_of_game(game_id)
        self._seats[game_id] = (read.private, read.live)
        for board in read.drawn:
            if board.message_id in self._doubtful:
                continue
            known = self._shown.get(board.message_id)
            if known is None or board.version > known.version or (
                    board.version == known.version and board.key != known.key):
                self._shown[board.message_id] = board

    def seats(self, game_id: int) -> tuple[dict[int, PrivateBoard], dict[int, LiveBoard]] | None:
        """The game's private board rows and latest ephemeral boards by seat, as read when the drawing under way
        began (under the game's drawing lock, with `refresh`); None outside a drawing. The drawing that writes one of
        them puts it here too, so that its later steps draw from what it wrote."""
        return self._seats.get(game_id)

    async def load(self) -> None:
        """Fill memory with the rows of the active games (at start, before any drawing); rows of games that are over
        are removed first."""
        await self.store.forget_games_over()
        for board in await self.store.of_active_games():
            self._shown.setdefault(board.message_id, board)

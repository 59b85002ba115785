"""Private boards: each player's own board, delivered only to that player.

The bot DMs each player their board and keeps it up to date; if the DM cannot be delivered, the player is told
in the channel and uses **My board** (the same board and controls, ephemerally) until they ask for the DM again
with **Send my board by DM**. A board is drawn only from its owner's `OwnView` and sent only to `own.user_id`.
Messages already showing what would be drawn are not edited again (`Drawn`); a board drawn with a chosen piece
(see play.py) has its own key, so the next redraw of that message always replaces it.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.games.generals.board import private_embed, private_view, selectable_piece
from bot.games.generals.components import GeneralsButton
from bot.games.generals.pictures import picture
from bot.presenter import Board, seat_names
from bot.service import GameInfo, OwnView, ServiceError
from games.generals.views import PlayerView, PublicView
from storage.private_boards import PrivateBoardStore

if TYPE_CHECKING:
    from bot.games.generals.presenter import GeneralsPresenter, GeneralsResult

log = logging.getLogger(__name__)
OPEN_DMS = ("in this server's menu open **Privacy Settings** and allow **Direct Messages** from server members "
            "(and do not block me)")
DM_HELP = f"To get it by DM instead: {OPEN_DMS}, then press **My board** → **Send my board by DM**."


class Drawn:
    """Which key each message was last drawn from: an unchanged key means an edit would change nothing."""

    LIMIT = 10_000

    def __init__(self) -> None:
        self._keys: dict[int, str] = {}

    def get(self, message_id: int) -> str | None:
        return self._keys.get(message_id)

    def remember(self, message_id: int, key: str) -> None:
        if len(self._keys) > self.LIMIT:  # only a cache: forgetting costs one redundant edit
            self._keys.clear()
        self._keys[message_id] = key


def _key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def channel_key(game: GameInfo, view: PublicView, images: bool) -> str:
    """What the channel board is drawn from: the same key means the same message."""
    return _key(view.to_dict(), game.status, game.deadline, game.draw_offer, images)


def private_key(game: GameInfo, view: PlayerView, saved: list[str], images: bool, offer_dm: bool,
                selected: str | None = None) -> str:
    """What a private board is drawn from: the same key means the same message."""
    return _key(view.to_dict(), game.status, game.deadline, game.draw_offer, saved, images, offer_dm, selected)


class PrivateBoards:
    """Draws and delivers the players' own boards (DM, or the ephemeral My board)."""

    def __init__(self, presenter: GeneralsPresenter, store: PrivateBoardStore) -> None:
        self.presenter = presenter
        self.store = store
        self.drawn = Drawn()

    async def drawing(self, result: GeneralsResult, own: OwnView[PlayerView], saved: list[str], images: bool, *,
                      offer_dm: bool = False, selected: str | None = None) -> Board:
        """`own`'s board: their embed, their controls and their picture; `selected` is the square of the piece
        they chose to move (dropped if it can no longer move)."""
        game, view = result.game, own.view
        selected = selectable_piece(view, selected)
        image, text = await picture(view, images, selected=selected)
        controls = private_view(game, view, saved, selected)
        if offer_dm and game.status == "active" and view.outcome is None:
            controls = controls or discord.ui.View(timeout=None)
            controls.add_item(GeneralsButton.of(game=game.id, verb="dm", label="Send my board by DM",
                                                style=discord.ButtonStyle.secondary, row=3))
        embed = private_embed(game, view, seat_names(self.presenter, result), text, selected)
        return Board(None, embed, controls, image, private_key(game, view, saved, images, offer_dm, selected))

    async def show(self, interaction: discord.Interaction[Any], game_id: int, *, edit: bool,
                   selected: str | None = None) -> Board:
        """The player's board as an ephemeral message (My board), or the board they used (`edit`), from the
        latest state."""
        async with self.presenter.bot.drawing(game_id) as result:
            own = self.presenter.own_seat(result, interaction.user.id)
            if result.game.status == "pending":
                raise ServiceError("This game starts once the challenge is accepted.")
            stored = await self.store.get(game_id, own.seat)
            offer_dm = interaction.guild_id is not None and (stored is None or not stored.delivered)
            saved = await self.presenter.setup_tools.saved_names(own.user_id, own.view)
            board = await self.drawing(result, own, saved, await self.presenter.images_on(result), offer_dm=offer_dm,
                                       selected=selected)
            if edit:
                await interaction.response.edit_message(embed=board.embed, view=board.view,
                                                        attachments=board.attachments())
            else:
                await interaction.response.send_message(embed=board.embed, view=board.view or discord.utils.MISSING,
                                                        files=board.attachments(), ephemeral=True)
        return board

    async def answer(self, interaction: discord.Interaction[Any], game_id: int, *, selected: str | None = None) -> None:
        """After a setup action, a move or a chosen piece (`selected`): redraw the board the player used (their DM
        or their ephemeral board); a form sent from a board answers with a fresh ephemeral board."""
        message = interaction.message  # set for a click on a board, and for a form opened from one
        if message is None:
            await self.show(interaction, game_id, edit=False, selected=selected)
            return
        board = await self.show(interaction, game_id, edit=True, selected=selected)
        self.drawn.remember(message.id, board.key)  # when it is the DM board, the redraw that follows can skip it

    async def send_by_dm(self, interaction: discord.Interaction[Any], game_id: int) -> None:
        """Send my board by DM: try the DM again (the player may have opened their DMs) and say how it went."""
        user = interaction.user.id
        result = await self.presenter.service.require_player(game_id, user)
        seat = result.game.seat_of(user)
        assert seat is not None
        await self.store.forget(game_id, seat)
        await interaction.response.defer(ephemeral=True, thinking=True)
        await self.open(game_id, announce_failure=False)
        stored = await self.store.get(game_id, seat)
        text = ("Sent: your board is in our DMs now, and I keep it up to date there." if stored and stored.delivered
                else f"I still cannot DM you. To fix it: {OPEN_DMS}, then try again.")
        await interaction.followup.send(text, ephemeral=True)

    async def open(self, game_id: int, *, announce_failure: bool = True) -> None:
        """Deliver the private boards of a game that just started (or whose player asked for the DM again)."""
        async with self.presenter.bot.drawing(game_id) as result:
            await self.draw_all(result, await self.presenter.images_on(result), announce_failure=announce_failure)

    async def draw_all(self, result: GeneralsResult, images: bool, *, announce_failure: bool) -> None:
        """Bring every player's DM board up to date; a board not yet delivered is sent (while the game is on)."""
        for own in result.private:
            stored = await self.store.get(result.id, own.seat)
            if stored is not None and not stored.delivered:
                continue  # the player uses My board (or asks for the DM again)
            saved = await self.presenter.setup_tools.saved_names(own.user_id, own.view)
            board: Board | None = None
            if stored is not None and stored.message_id is not None and stored.channel_id is not None:
                if self.drawn.get(stored.message_id) == private_key(result.game, own.view, saved, images, False):
                    continue
                board = await self.drawing(result, own, saved, images)
                dm = self.presenter.bot.get_partial_messageable(stored.channel_id)
                try:
                    await dm.get_partial_message(stored.message_id).edit(
                        embed=board.embed, view=board.view, attachments=board.attachments())
                    self.drawn.remember(stored.message_id, board.key)
                    continue
                except discord.NotFound:  # the player deleted it: send a new one
                    pass
                except discord.HTTPException as exc:
                    log.info("could not update the DM board of game %s seat %s: %s", result.id, own.seat, exc)
                    continue
            if result.game.status != "active":
                continue  # no new DMs for a finished game
            board = board or await self.drawing(result, own, saved, images)
            await self._send(result, own, board, announce_failure)

    async def _send(self, result: GeneralsResult, own: OwnView[PlayerView], board: Board,
                    announce_failure: bool) -> None:
        """DM `own`'s board to its owner; if Discord refuses, remember that and tell them how to play instead."""
        now = self.presenter.service.clock()
        try:
            dm = await self.presenter.bot.create_dm(discord.Object(own.user_id))
            sent = await dm.send(content=f"Game of the Generals #{result.id}: your board. I keep it up to date here.",
                                 embed=board.embed, view=board.view or discord.utils.MISSING,
                                 files=board.attachments())
        except discord.HTTPException as exc:
            log.info("could not DM user %s for game %s: %s", own.user_id, result.id, exc)
            await self.store.set(result.id, own.seat, None, None, now)
            if announce_failure:
                await self.presenter.channel(result).send(
                    f"<@{own.user_id}>, I could not send you a direct message, so your board for Game of the "
                    f"Generals #{result.id} is not in your DMs. Press **My board** on the game message to set up "
                    f"and play here; only you will see it. {DM_HELP}",
                    allowed_mentions=discord.AllowedMentions(users=[discord.Object(own.user_id)]))
            return
        await self.store.set(result.id, own.seat, dm.id, sent.id, now)
        self.drawn.remember(sent.id, board.key)

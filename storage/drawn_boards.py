"""What each board message of an active game was last drawn from (`drawn_boards`), and which active games a start
must redraw: those with a board that does not show the game's current version."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from storage.database import Store
from storage.private_boards import SENDING, LiveBoard, PrivateBoard
from storage.sql import Plan, Sql, select, statement

UPSERT_ROWS = 500  # boards per statement of a save (4 parameters each: well within both databases' limits)


@dataclass(frozen=True)
class DrawnBoard:
    """Message `message_id` shows game `game_id` as it was at `version`, drawn from `key`."""

    message_id: int
    game_id: int
    version: int
    key: str
    active: bool = True  # False: the game is over, and its rows are no longer needed


@dataclass(frozen=True)
class GameBoards:
    """What a drawing of one game starts from, read together: every process's records of its board messages, and (a
    game whose players each have a private board) its seats' board rows and latest ephemeral boards, by seat."""

    drawn: list[DrawnBoard]
    private: dict[int, PrivateBoard]
    live: dict[int, LiveBoard]


class DrawnBoardStore(Store):
    async def save(self, boards: Sequence[DrawnBoard], known: Mapping[int, int] | None = None) -> set[int]:
        """Record boards just drawn, in one transaction: a row per board of an active game, and no rows for a game
        that is over. A row only moves forward (compare-and-set on the version): a drawing recorded after a newer
        one (another process's, whose edit may have landed first) is not recorded over it.

        Returns the games whose boards may not show their latest version (the caller draws them again from what is
        stored): a board's record was refused because a newer drawing was recorded, or the game is already at a
        newer version than the one drawn and than `known` says (the version the caller's process has itself, whose
        own drawing of it comes next). Either way an edit of an older position may have landed last."""
        if not boards:
            return set()
        return await self._db.run(_save(boards, known or {}))

    async def of_game(self, game_id: int) -> list[DrawnBoard]:
        """The rows of one game: what every process recorded of its boards (a drawing first looks at them, since
        another process may have drawn them since this one did)."""
        return await self._db.query(_of_game(game_id))

    async def boards_of_game(self, game_id: int) -> GameBoards:
        """`of_game`, with the game's private board rows and latest ephemeral boards, in one read: a drawing begins
        with it, and draws the private boards from the same rows."""
        rows = await self._db.query(select(
            # In this order: each column's type is settled by a branch that has it (PostgreSQL takes NULLs as text).
            "SELECT 2, seat, message_id, NULL, token, expires_at FROM live_boards WHERE game_id = ?"
            " UNION ALL SELECT 0, NULL, message_id, version, key, NULL FROM drawn_boards WHERE game_id = ?"
            " UNION ALL SELECT 1, seat, channel_id, message_id, NULL, NULL FROM private_boards WHERE game_id = ?",
            (game_id, game_id, game_id)))
        return GameBoards(
            [DrawnBoard(int(r[2]), game_id, int(r[3]), str(r[4])) for r in rows if int(r[0]) == 0],
            {int(r[1]): PrivateBoard(game_id, int(r[1]), r[2], r[3]) for r in rows if int(r[0]) == 1},
            {int(r[1]): LiveBoard(game_id, int(r[1]), r[2], r[4], r[5]) for r in rows if int(r[0]) == 2})

    async def of_active_games(self) -> list[DrawnBoard]:
        """The rows of every active game (a few per game: what a start needs to know what its boards show)."""
        rows = await self._db.query(select(
            "SELECT d.message_id, d.game_id, d.version, d.key FROM games g"
            " JOIN drawn_boards d ON d.game_id = g.id WHERE g.status = 'active'"))
        return [DrawnBoard(int(r[0]), int(r[1]), int(r[2]), str(r[3])) for r in rows]

    async def forget_games_over(self) -> int:
        """Remove the rows of games that are no longer active (their last drawing was not seen: a stop, another
        process); returns how many. The table then holds only rows of active games, so this stays cheap."""
        done = await self._db.run(statement(
            "DELETE FROM drawn_boards WHERE game_id IN (SELECT d.game_id FROM drawn_boards d"
            " JOIN games g ON g.id = d.game_id WHERE g.status != 'active')"))
        return done.rowcount

    async def stale_games(self, written_before: float, now: float, private_kinds: Sequence[str]) -> list[int]:
        """Active games last written before `written_before` (by an earlier process) that some board may show at an
        older version, most recently written first: the channel message is not recorded at the game's version (or
        was never stored), or a DM board or an ephemeral board still editable at `now` is not, or (a kind in
        `private_kinds`, whose players each get a private board) a player's board was never delivered, or its DM was
        claimed but never stored (storage/private_boards.py `claim`: the sender stopped).

        Only active games are read (the games_by_status index), each checked through primary keys: the cost
        follows the active games, never the stored ones."""
        current = "SELECT 1 FROM drawn_boards d WHERE d.message_id = {} AND d.game_id = g.id AND d.version = g.version"
        kinds = ", ".join("?" for _ in private_kinds) or "NULL"
        rows = await self._db.query(select(
                "SELECT g.id FROM games g WHERE g.status = 'active' AND g.updated_at < ? AND ("
                " g.message_id IS NULL"
                f" OR NOT EXISTS ({current.format('g.message_id')})"
                " OR EXISTS (SELECT 1 FROM private_boards p WHERE p.game_id = g.id AND p.message_id IS NOT NULL"
                f"  AND NOT EXISTS ({current.format('p.message_id')}))"
                " OR EXISTS (SELECT 1 FROM live_boards b WHERE b.game_id = g.id AND b.expires_at > ?"
                f"  AND NOT EXISTS ({current.format('b.message_id')}))"
                f" OR (g.kind IN ({kinds}) AND EXISTS (SELECT 1 FROM game_players s WHERE s.game_id = g.id"
                "  AND s.user_id IS NOT NULL"
                "  AND NOT EXISTS (SELECT 1 FROM private_boards p WHERE p.game_id = g.id AND p.seat = s.seat)))"
                " OR EXISTS (SELECT 1 FROM private_boards p WHERE p.game_id = g.id AND p.channel_id = ?"
                "  AND p.message_id IS NULL)"
                ") ORDER BY g.updated_at DESC, g.id DESC",
                (written_before, now, *private_kinds, SENDING)))
        return [int(r[0]) for r in rows]


def _save(boards: Sequence[DrawnBoard], known: Mapping[int, int]) -> Plan[set[int]]:
    """One upsert of every board still recorded (each row only moving forward), which also returns the stored version of
    its game: no other statement unless a game is over (its rows go) or none of its boards was written."""
    drawn: dict[int, int] = {}  # game -> the oldest version it was drawn at here
    over: set[int] = set()  # games whose rows go: a board was drawn once they were over
    latest: dict[int, DrawnBoard] = {}  # message -> what it shows last (its newest drawing here; the latest on a tie)
    refused: set[int] = set()  # games with a board drawn here after a newer drawing of it here
    for board in boards:
        drawn[board.game_id] = min(board.version, drawn.get(board.game_id, board.version))
        if not board.active:
            over.add(board.game_id)
            latest = {m: b for m, b in latest.items() if b.game_id != board.game_id}  # rows drawn before go too
            continue
        earlier = latest.pop(board.message_id, None)
        if earlier is not None and board.version < earlier.version:  # refused, as by a newer row written already
            refused.add(board.game_id)
            board = earlier
        latest[board.message_id] = board
    for game_id in sorted(over):
        yield Sql("DELETE FROM drawn_boards WHERE game_id = ?", (game_id,))
    behind = set(refused)
    stored: dict[int, int] = {}  # game -> its version, as the upsert read it
    rows = list(latest.values())
    for start in range(0, len(rows), UPSERT_ROWS):
        chunk = rows[start:start + UPSERT_ROWS]
        done = yield Sql(
            "INSERT INTO drawn_boards (message_id, game_id, version, key) VALUES "
            + ", ".join("(?, ?, ?, ?)" for _ in chunk)
            + " ON CONFLICT (message_id) DO UPDATE SET game_id = excluded.game_id,"
            " version = excluded.version, key = excluded.key"
            " WHERE excluded.version >= drawn_boards.version"
            " RETURNING message_id, (SELECT g.version FROM games g WHERE g.id = drawn_boards.game_id)",
            tuple(value for b in chunk for value in (b.message_id, b.game_id, b.version, b.key)))
        written = {int(r[0]) for r in done.rows}
        for row in done.rows:
            if row[1] is not None:
                stored[latest[int(row[0])].game_id] = int(row[1])
        # a newer drawing is recorded: this older one may still have landed after it
        behind.update(b.game_id for b in chunk if b.message_id not in written)
    for game_id, version in drawn.items():
        if game_id not in stored and game_id not in behind:  # nothing written to read it with
            done = yield Sql("SELECT version FROM games WHERE id = ?", (game_id,))
            if done.value() is not None:
                stored[game_id] = int(done.value())
        if game_id in stored and stored[game_id] > max(version, known.get(game_id, version)):
            behind.add(game_id)
    return behind


def _of_game(game_id: int) -> Plan[list[DrawnBoard]]:
    done = yield Sql("SELECT message_id, version, key FROM drawn_boards WHERE game_id = ?", (game_id,))
    return [DrawnBoard(int(r[0]), game_id, int(r[1]), str(r[2])) for r in done.rows]

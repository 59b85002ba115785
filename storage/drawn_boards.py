"""What each board message of an active game was last drawn from (`drawn_boards`), and which active games a start
must redraw: those with a board that does not show the game's current version."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from storage.db import Database


@dataclass(frozen=True)
class DrawnBoard:
    """Message `message_id` shows game `game_id` as it was at `version`, drawn from `key`."""

    message_id: int
    game_id: int
    version: int
    key: str
    active: bool = True  # False: the game is over, and its rows are no longer needed


class DrawnBoardStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def save(self, boards: Sequence[DrawnBoard]) -> None:
        """Record boards just drawn, in one transaction: a row per board of an active game, and no rows for a game
        that is over. A row never goes back to an older version (drawings recorded out of order)."""
        if not boards:
            return
        async with self._db.transaction() as conn:
            for board in boards:
                if board.active:
                    await conn.execute(
                        "INSERT INTO drawn_boards (message_id, game_id, version, key) VALUES (?, ?, ?, ?)"
                        " ON CONFLICT (message_id) DO UPDATE SET game_id = excluded.game_id,"
                        " version = excluded.version, key = excluded.key"
                        " WHERE excluded.version >= drawn_boards.version",
                        (board.message_id, board.game_id, board.version, board.key))
                else:
                    await conn.execute("DELETE FROM drawn_boards WHERE game_id = ?", (board.game_id,))

    async def of_active_games(self) -> list[DrawnBoard]:
        """The rows of every active game (a few per game: what a start needs to know what its boards show)."""
        async with self._db.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT d.message_id, d.game_id, d.version, d.key FROM games g"
                " JOIN drawn_boards d ON d.game_id = g.id WHERE g.status = 'active'")
        return [DrawnBoard(int(r[0]), int(r[1]), int(r[2]), str(r[3])) for r in rows]

    async def forget_games_over(self) -> int:
        """Remove the rows of games that are no longer active (their last drawing was not seen: a stop, another
        process); returns how many. The table then holds only rows of active games, so this stays cheap."""
        async with self._db.transaction() as conn:
            cursor = await conn.execute(
                "DELETE FROM drawn_boards WHERE game_id IN (SELECT d.game_id FROM drawn_boards d"
                " JOIN games g ON g.id = d.game_id WHERE g.status != 'active')")
            return cursor.rowcount

    async def stale_games(self, written_before: float, now: float, private_kinds: Sequence[str]) -> list[int]:
        """Active games last written before `written_before` (by an earlier process) that some board may show at an
        older version, most recently written first: the channel message is not recorded at the game's version (or
        was never stored), or a DM board or an ephemeral board still editable at `now` is not, or (a kind in
        `private_kinds`, whose players each get a private board) a player's board was never delivered.

        Only active games are read (the games_by_status index), each checked through primary keys: the cost
        follows the active games, never the stored ones."""
        current = "SELECT 1 FROM drawn_boards d WHERE d.message_id = {} AND d.game_id = g.id AND d.version = g.version"
        kinds = ", ".join("?" for _ in private_kinds) or "NULL"
        async with self._db.reading() as conn:
            rows = await conn.execute_fetchall(
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
                ") ORDER BY g.updated_at DESC, g.id DESC",
                (written_before, now, *private_kinds))
        return [int(r[0]) for r in rows]

"""Where each player's private board lives: the DM message the bot edits after every move, or the fact that
the DM could not be delivered (the player then uses the ephemeral "My board"); and the player's latest ephemeral
board, kept current while Discord lets the bot edit it (`LiveBoard`)."""

from __future__ import annotations

from dataclasses import dataclass

from storage.db import Database


@dataclass(frozen=True)
class PrivateBoard:
    game_id: int
    seat: int
    channel_id: int | None
    message_id: int | None  # None: the DM failed

    @property
    def delivered(self) -> bool:
        return self.message_id is not None


@dataclass(frozen=True)
class LiveBoard:
    """An ephemeral board the bot can still edit: through `token` (the interaction that showed it, whose response
    it is) until `expires_at` (epoch seconds)."""

    game_id: int
    seat: int
    message_id: int
    token: str
    expires_at: float


class PrivateBoardStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, game_id: int, seat: int) -> PrivateBoard | None:
        async with self._db.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT channel_id, message_id FROM private_boards WHERE game_id = ? AND seat = ?", (game_id, seat)))
        return PrivateBoard(game_id, seat, rows[0][0], rows[0][1]) if rows else None

    async def set(self, game_id: int, seat: int, channel_id: int | None, message_id: int | None, now: float) -> None:
        """Remember the DM message of a seat (message_id None: the DM failed)."""
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO private_boards (game_id, seat, channel_id, message_id, updated_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id, seat) DO UPDATE SET channel_id = excluded.channel_id,"
                " message_id = excluded.message_id, updated_at = excluded.updated_at",
                (game_id, seat, channel_id, message_id, now),
            )

    async def forget(self, game_id: int, seat: int) -> None:
        """Forget a seat's board, so that the next drawing tries a DM again."""
        async with self._db.transaction() as conn:
            await conn.execute("DELETE FROM private_boards WHERE game_id = ? AND seat = ?", (game_id, seat))

    async def live(self, game_id: int, seat: int) -> LiveBoard | None:
        async with self._db.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT message_id, token, expires_at FROM live_boards WHERE game_id = ? AND seat = ?",
                (game_id, seat)))
        return LiveBoard(game_id, seat, rows[0][0], rows[0][1], rows[0][2]) if rows else None

    async def set_live(self, board: LiveBoard) -> LiveBoard | None:
        """Remember `board` as the seat's ephemeral board; returns the one it replaces (another message), if any."""
        async with self._db.transaction(read_first=True) as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT message_id, token, expires_at FROM live_boards WHERE game_id = ? AND seat = ?",
                (board.game_id, board.seat)))
            await conn.execute(
                "INSERT INTO live_boards (game_id, seat, message_id, token, expires_at) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (game_id, seat) DO UPDATE SET message_id = excluded.message_id,"
                " token = excluded.token, expires_at = excluded.expires_at",
                (board.game_id, board.seat, board.message_id, board.token, board.expires_at))
        if not rows or rows[0][0] == board.message_id:
            return None
        return LiveBoard(board.game_id, board.seat, rows[0][0], rows[0][1], rows[0][2])

    async def forget_live(self, game_id: int, seat: int, message_id: int) -> None:
        """The board `message_id` can no longer be edited (expired, dismissed): stop trying."""
        async with self._db.transaction() as conn:
            await conn.execute("DELETE FROM live_boards WHERE game_id = ? AND seat = ? AND message_id = ?",
                               (game_id, seat, message_id))

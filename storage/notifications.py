"""Who wants to be told how, and in which language (user_settings), each game's one live turn notification
(turn_pings), and the one it holds back while its person is at the table (held_pings)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from storage.database import Connection, Store
from storage.sql import Plan, Sql, statement


class NotifyMode(StrEnum):
    MENTION = "mention"  # a message mentioning them in the game's channel or thread
    DM = "dm"  # a direct message
    OFF = "off"  # nothing (the turn timer's reminder still comes)


@dataclass(frozen=True)
class TurnPing:
    game_id: int
    user_id: int
    channel_id: int
    message_id: int


class NotificationStore(Store):
    async def mode(self, user_id: int) -> NotifyMode:
        value = (await self._db.query(statement("SELECT notify FROM user_settings WHERE user_id = ?",
                                                  (user_id,)))).value()
        return NotifyMode(value) if value is not None else NotifyMode.MENTION

    async def set_mode(self, user_id: int, mode: NotifyMode, now: float) -> None:
        await self._db.run(statement(
            "INSERT INTO user_settings (user_id, notify, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET notify = excluded.notify, updated_at = excluded.updated_at",
            (user_id, mode.value, now)))

    async def language(self, user_id: int) -> str | None:
        """The language a person's latest interaction showed (None: none seen yet)."""
        value = (await self._db.query(statement("SELECT language FROM user_settings WHERE user_id = ?",
                                                  (user_id,)))).value()
        return str(value) if value is not None else None

    async def set_language(self, user_id: int, language: str, now: float) -> None:
        await self._db.run(statement(
            "INSERT INTO user_settings (user_id, language, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET language = excluded.language, updated_at = excluded.updated_at",
            (user_id, language, now)))

    async def live_ping(self, game_id: int) -> TurnPing | None:
        def read() -> Plan[TurnPing | None]:
            done = yield Sql("SELECT user_id, channel_id, message_id FROM turn_pings WHERE game_id = ?", (game_id,))
            row = done.one()
            return TurnPing(game_id, int(row[0]), int(row[1]), int(row[2])) if row is not None else None

        return await self._db.query(read())

    async def set_live_ping(self, ping: TurnPing, now: float) -> None:
        await self._db.run(statement(
            "INSERT INTO turn_pings (game_id, user_id, channel_id, message_id, created_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (game_id) DO UPDATE SET user_id = excluded.user_id, channel_id = excluded.channel_id,"
            " message_id = excluded.message_id, created_at = excluded.created_at",
            (ping.game_id, ping.user_id, ping.channel_id, ping.message_id, now)))

    async def forget_live_ping(self, game_id: int) -> None:
        await self._db.run(statement("DELETE FROM turn_pings WHERE game_id = ?", (game_id,)))

    async def last_move_and_live_ping(self, game_id: int, user_id: int) -> tuple[float | None, TurnPing | None]:
        """When `user_id` last made a move in the game (None: never), and the game's live turn notification (None:
        none), in one read: whether to hold a notification back, and which one a new one replaces."""
        def read() -> Plan[tuple[float | None, TurnPing | None]]:
            done = yield Sql(
                "SELECT m.created_at, t.user_id, t.channel_id, t.message_id FROM (SELECT (SELECT created_at FROM moves"
                " WHERE game_id = ? AND user_id = ? ORDER BY ply DESC LIMIT 1) AS created_at) AS m"
                " LEFT JOIN turn_pings t ON t.game_id = ?", (game_id, user_id, game_id))
            row = done.one()
            assert row is not None  # the one row of `m`
            moved_at = float(row[0]) if row[0] is not None else None
            ping = TurnPing(game_id, int(row[1]), int(row[2]), int(row[3])) if row[1] is not None else None
            return moved_at, ping

        return await self._db.query(read())

    async def hold_ping(self, ping: HeldPing) -> None:
        """Hold a turn notification back until `ping.due_at` (it replaces one the game held before)."""
        await self._db.run(statement(
            "INSERT INTO held_pings (game_id, user_id, seat, turn, due_at) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (game_id) DO UPDATE SET user_id = excluded.user_id, seat = excluded.seat,"
            " turn = excluded.turn, due_at = excluded.due_at",
            (ping.game_id, ping.user_id, ping.seat, ping.turn, ping.due_at)))


@dataclass(frozen=True)
class HeldPing:
    """A turn notification held back while its person is at the table (they moved in the game a moment ago): sent at
    `due_at` if the decision is still `seat`'s at turn `turn` (the game's turn token)."""

    game_id: int
    user_id: int
    seat: int
    turn: int
    due_at: float


async def take_held_ping(conn: Connection, game_id: int, now: float) -> HeldPing | None:
    """The game's held notification if it is due at `now`, forgotten (inside the caller's transaction: the timer's,
    which owes it if it still applies)."""
    done = await conn.run(statement(
        "DELETE FROM held_pings WHERE game_id = ? AND due_at <= ? RETURNING user_id, seat, turn, due_at",
        (game_id, now)))
    row = done.one()
    return HeldPing(game_id, int(row[0]), int(row[1]), int(row[2]), float(row[3])) if row is not None else None

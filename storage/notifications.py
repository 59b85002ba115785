"""Who wants to be told how, and in which language (user_settings), and each game's one live turn notification
(turn_pings)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from storage.connection import AnyDatabase
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


class NotificationStore:
    def __init__(self, db: AnyDatabase) -> None:
        self._db = db

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

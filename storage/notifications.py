"""Who wants to be told how, and in which language (user_settings), and each game's one live turn notification
(turn_pings)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from storage.db import Database


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
    def __init__(self, db: Database) -> None:
        self._db = db

    async def mode(self, user_id: int) -> NotifyMode:
        async with self._db.reading() as conn:
            rows = list(await conn.execute_fetchall("SELECT notify FROM user_settings WHERE user_id = ?", (user_id,)))
        return NotifyMode(rows[0][0]) if rows else NotifyMode.MENTION

    async def set_mode(self, user_id: int, mode: NotifyMode, now: float) -> None:
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO user_settings (user_id, notify, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET notify = excluded.notify, updated_at = excluded.updated_at",
                (user_id, mode.value, now))

    async def language(self, user_id: int) -> str | None:
        """The language a person's latest interaction showed (None: none seen yet)."""
        async with self._db.reading() as conn:
            rows = list(await conn.execute_fetchall("SELECT language FROM user_settings WHERE user_id = ?",
                                                    (user_id,)))
        return str(rows[0][0]) if rows and rows[0][0] is not None else None

    async def set_language(self, user_id: int, language: str, now: float) -> None:
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO user_settings (user_id, language, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET language = excluded.language, updated_at = excluded.updated_at",
                (user_id, language, now))

    async def live_ping(self, game_id: int) -> TurnPing | None:
        async with self._db.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT user_id, channel_id, message_id FROM turn_pings WHERE game_id = ?", (game_id,)))
        return TurnPing(game_id, *rows[0]) if rows else None

    async def set_live_ping(self, ping: TurnPing, now: float) -> None:
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT OR REPLACE INTO turn_pings (game_id, user_id, channel_id, message_id, created_at)"
                " VALUES (?, ?, ?, ?, ?)", (ping.game_id, ping.user_id, ping.channel_id, ping.message_id, now))

    async def forget_live_ping(self, game_id: int) -> None:
        async with self._db.transaction() as conn:
            await conn.execute("DELETE FROM turn_pings WHERE game_id = ?", (game_id,))

"""What each server's admins chose with /settings."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from storage.db import Database


@dataclass(frozen=True)
class ServerSettings:
    guild_id: int
    turn_timeout: float | None = None
    images: bool = True
    threads: bool = True
    disabled_games: frozenset[str] = frozenset()
    channel_id: int | None = None


class ServerSettingsStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, guild_id: int) -> ServerSettings:
        async with self._db.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT turn_timeout, images, threads, disabled_games, channel_id FROM server_settings"
                " WHERE guild_id = ?", (guild_id,)))
        if not rows:
            return ServerSettings(guild_id)
        r = rows[0]
        return ServerSettings(guild_id, r[0], r[1] is None or bool(r[1]), r[2] is None or bool(r[2]),
                              frozenset(json.loads(r[3])), r[4])

    async def update(self, guild_id: int, **changes: Any) -> ServerSettings:
        settings = replace(await self.get(guild_id), **changes)
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT OR REPLACE INTO server_settings (guild_id, turn_timeout, images, threads, disabled_games,"
                " channel_id) VALUES (?, ?, ?, ?, ?, ?)",
                (guild_id, settings.turn_timeout, int(settings.images), int(settings.threads),
                 json.dumps(sorted(settings.disabled_games)), settings.channel_id),
            )
        return settings

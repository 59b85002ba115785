"""What each server's admins chose with /settings."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from storage.database import Connection, Store
from storage.sql import READ_FIRST, Plan, Sql


@dataclass(frozen=True)
class ServerSettings:
    guild_id: int
    turn_timeout: float | None = None
    images: bool = True
    threads: bool = True
    disabled_games: frozenset[str] = frozenset()
    channel_id: int | None = None
    language: str | None = None  # of public messages; None: the server's preferred locale
    private_tables: bool = False  # So Long Sucker: each table's thread private to its players (else public)
    organiser_role: int | None = None  # its members run tournaments, besides those with Manage Server


class ServerSettingsStore(Store):
    """Every change is one read-modify-write inside one write transaction (begun before the read): two admins
    changing different settings at the same moment, in one process or two, both keep what they changed."""

    async def get(self, guild_id: int) -> ServerSettings:
        return await self._db.query(_load(guild_id))

    async def update(self, guild_id: int, **changes: Any) -> ServerSettings:
        """Set the given fields, keeping every other one as it is stored at the moment of the write."""
        return await self.change(guild_id, lambda settings: replace(settings, **changes))

    async def switch_game(self, guild_id: int, kind: str, enabled: bool) -> ServerSettings:
        """Switch one game kind on or off, keeping the others as they are stored at the moment of the write."""
        def switched(settings: ServerSettings) -> ServerSettings:
            disabled = settings.disabled_games - {kind} if enabled else settings.disabled_games | {kind}
            return replace(settings, disabled_games=frozenset(disabled))
        return await self.change(guild_id, switched)

    async def change(self, guild_id: int, edit: Callable[[ServerSettings], ServerSettings]) -> ServerSettings:
        """Apply `edit` to the server's settings as stored, and store the result, atomically."""
        def change() -> Plan[ServerSettings]:
            yield READ_FIRST
            settings = edit((yield from _load(guild_id)))
            yield Sql(
                "INSERT INTO server_settings (guild_id, turn_timeout, images, threads, disabled_games, channel_id,"
                " language, private_tables, organiser_role) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (guild_id) DO UPDATE SET"
                " turn_timeout = excluded.turn_timeout, images = excluded.images, threads = excluded.threads,"
                " disabled_games = excluded.disabled_games, channel_id = excluded.channel_id,"
                " language = excluded.language, private_tables = excluded.private_tables,"
                " organiser_role = excluded.organiser_role",
                (guild_id, settings.turn_timeout, int(settings.images), int(settings.threads),
                 json.dumps(sorted(settings.disabled_games)), settings.channel_id, settings.language,
                 int(settings.private_tables), settings.organiser_role),
            )
            return settings

        return await self._db.run(change())


async def settings_in(conn: Connection, guild_id: int) -> ServerSettings:
    """The server's settings, read inside the transaction `conn` has open (a new game's, which they allow or refuse)."""
    return await conn.run(_load(guild_id))


def _load(guild_id: int) -> Plan[ServerSettings]:
    done = yield Sql("SELECT turn_timeout, images, threads, disabled_games, channel_id, language, private_tables,"
                     " organiser_role FROM server_settings WHERE guild_id = ?", (guild_id,))
    r = done.one()
    if r is None:
        return ServerSettings(guild_id)
    return ServerSettings(guild_id, r[0], r[1] is None or bool(r[1]), r[2] is None or bool(r[2]),
                          frozenset(json.loads(r[3])), r[4], r[5], bool(r[6]), None if r[7] is None else int(r[7]))

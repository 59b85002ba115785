"""Seasons of a server's ladders (migration 0020): the server's choice, its seasons, and which are due to be announced.

A season's ratings are rows of `ratings` whose guild_id is `season_scope(id)` (minus the season's id: real servers
have positive ids, the global ladder 0), so they are kept on the ladder by the same triggers as every other rating and
read with `storage.ratings.RatingStore` at the same cost. What a season is (its calendar period, its name) is decided
by bot/service/seasons.py; this module only stores it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from storage.database import Store
from storage.sql import READ_FIRST, Plan, Sql


@dataclass(frozen=True)
class SeasonSetting:
    """A server's seasons: their length ('monthly' or 'quarterly'), since when."""

    guild_id: int
    length: str
    since: float


@dataclass(frozen=True)
class Season:
    id: int
    guild_id: int
    length: str
    period: str  # which month or quarter: '2026-11', '2026-Q4'
    starts_at: float
    ends_at: float
    channel_id: int | None  # where its latest rated game was played
    announced: bool

    @property
    def scope(self) -> int:
        """The guild_id of its rating rows and ladder."""
        return season_scope(self.id)


def season_scope(season_id: int) -> int:
    return -season_id


_COLUMNS = "id, guild_id, length, period, starts_at, ends_at, channel_id, announced"


def _season(r: Sequence[Any]) -> Season:
    return Season(int(r[0]), int(r[1]), str(r[2]), str(r[3]), float(r[4]), float(r[5]),
                  None if r[6] is None else int(r[6]), bool(r[7]))


def setting_of(guild_id: int) -> Plan[SeasonSetting | None]:
    done = yield Sql("SELECT length, since FROM season_settings WHERE guild_id = ?", (guild_id,))
    r = done.one()
    return None if r is None else SeasonSetting(guild_id, str(r[0]), float(r[1]))


def open_season(guild_id: int, length: str, period: str, starts_at: float, ends_at: float,
                channel_id: int | None = None) -> Plan[Season]:
    """The server's season of that length and period, started now if it was not (from `starts_at`); a rated game's
    `channel_id` is remembered as its latest. One statement, so two processes starting it at once make one."""
    channel = "excluded.channel_id" if channel_id is not None else "seasons.channel_id"
    done = yield Sql(
        f"INSERT INTO seasons (guild_id, length, period, starts_at, ends_at, channel_id) VALUES (?, ?, ?, ?, ?, ?)"
        f" ON CONFLICT (guild_id, length, period) DO UPDATE SET channel_id = {channel} RETURNING {_COLUMNS}",
        (guild_id, length, period, starts_at, ends_at, channel_id))
    return _season(done.rows[0])


def choose(guild_id: int, length: str | None, now: float) -> Plan[tuple[SeasonSetting | None, bool]]:
    """Set the server's season length (None: no seasons); returns the setting as stored afterwards and whether it
    changed. Choosing the length already chosen keeps its `since`."""
    yield READ_FIRST
    before = yield from setting_of(guild_id)
    if length is None:
        yield Sql("DELETE FROM season_settings WHERE guild_id = ?", (guild_id,))
        return None, before is not None
    if before is not None and before.length == length:
        return before, False
    yield Sql("INSERT INTO season_settings (guild_id, length, since) VALUES (?, ?, ?) ON CONFLICT (guild_id)"
              " DO UPDATE SET length = excluded.length, since = excluded.since", (guild_id, length, now))
    return SeasonSetting(guild_id, length, now), True


def season_by_period(guild_id: int, length: str, period: str) -> Plan[Season | None]:
    done = yield Sql(f"SELECT {_COLUMNS} FROM seasons WHERE guild_id = ? AND length = ? AND period = ?",
                     (guild_id, length, period))
    r = done.one()
    return None if r is None else _season(r)


class SeasonStore(Store):
    async def setting(self, guild_id: int) -> SeasonSetting | None:
        return await self._db.query(setting_of(guild_id))

    async def get(self, season_id: int) -> Season | None:
        """The season with that id; None for no such season (an id no season can have included: a number typed or
        carried by a custom id may be out of a database integer's range)."""
        if not 0 < season_id < 2**63:
            return None

        def read() -> Plan[Season | None]:
            done = yield Sql(f"SELECT {_COLUMNS} FROM seasons WHERE id = ?", (season_id,))
            r = done.one()
            return None if r is None else _season(r)

        return await self._db.query(read())

    async def of_server(self, guild_id: int, limit: int = 25) -> list[Season]:
        """The server's seasons, the latest first."""
        def read() -> Plan[list[Season]]:
            done = yield Sql(f"SELECT {_COLUMNS} FROM seasons WHERE guild_id = ? ORDER BY starts_at DESC, id DESC"
                             " LIMIT ?", (guild_id, limit))
            return [_season(r) for r in done.rows]

        return await self._db.query(read())

    async def ended_unannounced(self, now: float) -> list[Season]:
        """Seasons over by `now` whose top three were not posted yet, the earliest first (the partial index
        seasons_unannounced: one short read when there are none)."""
        def read() -> Plan[list[Season]]:
            done = yield Sql(f"SELECT {_COLUMNS} FROM seasons WHERE announced = 0 AND ends_at <= ?"
                             " ORDER BY ends_at, id", (now,))
            return [_season(r) for r in done.rows]

        return await self._db.query(read())

    async def kinds_rated(self, season: Season, kinds: Sequence[str]) -> list[str]:
        """Those of `kinds` with rated games in the season (on its ladders), in the order given."""
        def read() -> Plan[list[str]]:
            marks = ",".join("?" * len(kinds))
            done = yield Sql(f"SELECT DISTINCT kind FROM ladder_buckets WHERE kind IN ({marks}) AND guild_id = ?",
                             (*kinds, season.scope))
            found = {str(r[0]) for r in done.rows}
            return [kind for kind in kinds if kind in found]

        return await self._db.query(read())


def mark_announced(season_id: int) -> Plan[bool]:
    """The season's end was announced: False if it already was (another process did it)."""
    done = yield Sql("UPDATE seasons SET announced = 1 WHERE id = ? AND announced = 0", (season_id,))
    return done.rowcount > 0

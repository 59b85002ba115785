"""Seasons of a server's ladders (no Discord here): calendar months or quarters in UTC, chosen with /settings season.

A rated game on a server with seasons counts in the season in which it ended, in the same transaction as the
all-time ratings (`season_writer`, run by bot/service/ratings.py `result_writer`), so exactly once. The all-time
ladders are untouched; the global ladder has no seasons (a season is a server's event: its calendar and its
announcement are the server's).

A player's first rated game of a season starts their season rating from their all-time rating on the server as it
was before that game: the same mu, with sigma widened to `season_sigma` (see there for the rule and why).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from games.text import Text, TextIn
from storage.database import Database
from storage.leases import claiming, holding, release
from storage.ratings import RatingRow, read_ratings, write_ratings
from storage.seasons import (
    Season,
    SeasonSetting,
    SeasonStore,
    choose,
    mark_announced,
    open_season,
    season_by_period,
    setting_of,
)
from storage.sql import READ_FIRST, Plan, Sql

MONTHLY, QUARTERLY = "monthly", "quarterly"
LENGTHS = (MONTHLY, QUARTERLY)
# How a game's result orders its players' new rows (bot/service/ratings.py `rate`), given to `season_writer`.
Rate = Callable[[list[RatingRow], tuple[int, ...]], list[RatingRow]]


@dataclass(frozen=True)
class Period:
    """One calendar month or quarter, in UTC."""

    length: str
    key: str  # '2026-11', '2026-Q4': the season's `period`
    starts_at: float
    ends_at: float


def _epoch(year: int, month: int) -> float:
    """The first instant of a month, in UTC (month 13: January of the next year)."""
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    return datetime(year, month, 1, tzinfo=UTC).timestamp()


def period_of(length: str, at: float) -> Period:
    """The month or quarter (by `length`) that the instant `at` falls in."""
    when = datetime.fromtimestamp(at, UTC)
    if length == MONTHLY:
        return Period(length, f"{when.year}-{when.month:02d}", _epoch(when.year, when.month),
                      _epoch(when.year, when.month + 1))
    if length == QUARTERLY:
        quarter = (when.month - 1) // 3
        return Period(length, f"{when.year}-Q{quarter + 1}", _epoch(when.year, 3 * quarter + 1),
                      _epoch(when.year, 3 * quarter + 4))
    raise ValueError(f"no such season length: {length!r}")


_MONTHS = (TextIn("month", "January"), TextIn("month", "February"), TextIn("month", "March"),
           TextIn("month", "April"), TextIn("month", "May"), TextIn("month", "June"), TextIn("month", "July"),
           TextIn("month", "August"), TextIn("month", "September"), TextIn("month", "October"),
           TextIn("month", "November"), TextIn("month", "December"))


def season_name(season: Season | Period) -> Text:
    """The season as players call it: "November 2026", "2026 Q4" (in the reader's language when shown)."""
    key = season.period if isinstance(season, Season) else season.key
    year, _, part = key.partition("-")
    if part.startswith("Q"):
        return Text("{year} Q{quarter}", year=year, quarter=part[1:])
    return Text("{month} {year}", month=_MONTHS[int(part) - 1], year=year)


# How far a season widens a player's all-time sigma at its start: a quarter of a newcomer's variance (sigma0 / 2).
SEASON_TAU = 25.0 / 3 / 2


def season_sigma(sigma: float, default: float) -> float:
    """A player's sigma at the start of a season, from their all-time `sigma`: min(default, sqrt(sigma^2 + tau^2))
    with tau = default / 2 (`SEASON_TAU`).

    Why: the season keeps the all-time mu, so the first games of a season pair people by what is known of them rather
    than by a reset that makes every early result noise and lets a strong player farm newcomers' points. Widening
    sigma says that a new season is new evidence: a settled player (sigma 1-2) starts at about 4.3-4.6, so the season
    rating follows this season's results within a few games, and the ladder, which shows mu - 3 sigma, ranks those
    who played this season above those who only played before (a season's ladder rewards playing in the season). It
    is never wider than a newcomer's (`default`): a player with few games starts exactly where a newcomer would."""
    return min(default, math.sqrt(sigma * sigma + SEASON_TAU * SEASON_TAU))


def season_start(alltime: RatingRow | None, kind: str, scope: int, user_id: int, mu: float,
                 sigma: float) -> RatingRow:
    """A player's season row before their first game of the season: their all-time mu with a widened sigma (a newcomer's
    rating, `mu` and `sigma`, without an all-time row); no games counted yet."""
    if alltime is None:
        return RatingRow(kind, scope, user_id, mu, sigma)
    return RatingRow(kind, scope, user_id, alltime.mu, season_sigma(alltime.sigma, sigma))


def current_period(setting: SeasonSetting, now: float) -> tuple[Period, float]:
    """The period current at `now`, and when its season started (the moment seasons were turned on, if later)."""
    period = period_of(setting.length, now)
    return period, max(period.starts_at, setting.since)


def season_writer(kind: str, guild_id: int, channel_id: int | None, users: list[int],
                  alltime: dict[int, RatingRow], places: tuple[int, ...], now: float, mu: float, sigma: float,
                  rate: Rate) -> Plan[None]:
    """The season's share of a rated game's result, in its write transaction: nothing without seasons on the server;
    else the season current at `now` (started now if no game counted in it yet) and each player's row of it
    (`alltime`: the players' server rows as they were before this game)."""
    setting = yield from setting_of(guild_id)
    if setting is None:
        return
    period, since = current_period(setting, now)
    season = yield from open_season(guild_id, setting.length, period.key, since, period.ends_at, channel_id)
    scope = season.scope
    known = yield from read_ratings(kind, scope, users)
    rows = [known.get(u) or season_start(alltime.get(u), kind, scope, u, mu, sigma) for u in users]
    yield from write_ratings(rate(rows, places), now)


def current_season(guild_id: int, now: float) -> Plan[tuple[SeasonSetting, Period, Season | None] | None]:
    """The server's season current at `now`: its setting, its period and its row (None until it was started), or None
    without seasons."""
    setting = yield from setting_of(guild_id)
    if setting is None:
        return None
    period, _ = current_period(setting, now)
    season = yield from season_by_period(guild_id, setting.length, period.key)
    return setting, period, season


def start_current(setting: SeasonSetting, now: float) -> Plan[Season]:
    """Start the season current at `now` (seasons were just turned on): it exists from this moment, games or not."""
    period, since = current_period(setting, now)
    return (yield from open_season(setting.guild_id, setting.length, period.key, since, period.ends_at))


# The lease of announcing a season's end (storage/leases.py): one process posts it.
def season_end_key(season_id: int) -> str:
    return f"season-end:{season_id}"


SEASON_END_LEASE = 120.0  # a bound on posting one season's top three


class Seasons:
    """A server's seasons as /settings season and /leaderboard use them, and the announcement of their ends."""

    def __init__(self, db: Database, clock: Callable[[], float], holder: str) -> None:
        self._db = db
        self._clock = clock  # the service's: a test moves it across a month's end
        self._holder = holder  # this process, in the leases it holds
        self.store = SeasonStore(db)

    async def choose(self, guild_id: int, length: str | None) -> SeasonSetting | None:
        """Seasons of `length` on the server from now (None: none; past seasons stay readable). Turning them on, or
        to another length, starts the season current now, from now."""
        if length is not None and length not in LENGTHS:
            raise ValueError(f"no such season length: {length!r}")
        now = self._clock()

        def change() -> Plan[SeasonSetting | None]:
            setting, _ = yield from choose(guild_id, length, now)
            if setting is not None:
                yield from start_current(setting, now)
            return setting

        return await self._db.run(change())

    async def current(self, guild_id: int) -> tuple[SeasonSetting, Period, Season | None] | None:
        return await self._db.query(current_season(guild_id, self._clock()))

    async def started(self, guild_id: int) -> Season | None:
        """The server's current season, started now if no game counted in it yet (a new month whose ladder is asked
        for before its first game); None without seasons."""
        current = await self.current(guild_id)
        if current is None:
            return None
        if current[2] is not None:
            return current[2]
        now = self._clock()

        def start() -> Plan[Season | None]:
            setting = yield from setting_of(guild_id)  # as stored now: it may have changed since the read
            return None if setting is None else (yield from start_current(setting, now))

        return await self._db.run(start())

    async def past(self, guild_id: int) -> list[Season]:
        """The server's seasons other than the current one, the latest first."""
        current = await self.current(guild_id)
        now_id = current[2].id if current is not None and current[2] is not None else None
        return [s for s in await self.store.of_server(guild_id) if s.id != now_id]

    async def ended(self) -> list[Season]:
        """Seasons over by now whose end is still to be announced."""
        return await self.store.ended_unannounced(self._clock())

    async def claim_end(self, season_id: int) -> int | None:
        """Claim the announcement of a season's end for this process: its lease's token, or None while another live
        process holds it (storage/leases.py)."""
        def plan() -> Plan[int | None]:
            yield READ_FIRST
            return (yield from claiming(self._db.dialect, season_end_key(season_id), self._holder,
                                        SEASON_END_LEASE))

        return await self._db.run(plan())

    async def still_announcing(self, season_id: int, token: int) -> bool:
        """The fence right before the post: this process still holds the season's lease, and nobody announced it."""
        def read() -> Plan[bool]:
            if not (yield from holding(self._db.dialect, season_end_key(season_id), self._holder, token)):
                return False
            done = yield Sql("SELECT announced FROM seasons WHERE id = ?", (season_id,))
            return not bool(done.value())

        return await self._db.query(read())

    async def announced(self, season_id: int) -> None:
        """The season's end was posted (or there was nothing to post): never again, and its lease is free."""
        async with self._db.transaction() as conn:
            await conn.run(mark_announced(season_id))
            await release(conn, season_end_key(season_id), self._holder)

    async def let_go(self, season_id: int) -> None:
        """A post that failed: the season's end stays to be announced, by whichever process tries next."""
        async with self._db.transaction() as conn:
            await release(conn, season_end_key(season_id), self._holder)

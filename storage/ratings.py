"""Rating rows: one per player per game kind, per server and global."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from storage.database import Connection, Database, Store
from storage.sql import READ_FIRST, Dialect, Plan, Sql

GLOBAL = 0  # the guild_id of the global ladder


@dataclass(frozen=True)
class RatingRow:
    kind: str
    guild_id: int
    user_id: int
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    streak: int = 0
    best_streak: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma


_COLUMNS = "kind, guild_id, user_id, mu, sigma, games, wins, draws, losses, streak, best_streak"


def _row(r: Sequence[Any]) -> RatingRow:
    return RatingRow(str(r[0]), int(r[1]), int(r[2]), float(r[3]), float(r[4]), int(r[5]),
                     int(r[6]), int(r[7]), int(r[8]), int(r[9]), int(r[10]))


# The statements of a game's result, as plans (storage/sql.py): they run inside the final move's write, on either
# database. An upsert, not INSERT OR REPLACE: the same on both, and the ladder's triggers follow either.
_SAVE = (f"INSERT INTO ratings ({_COLUMNS}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
         " ON CONFLICT (kind, guild_id, user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,"
         " games = excluded.games, wins = excluded.wins, draws = excluded.draws, losses = excluded.losses,"
         " streak = excluded.streak, best_streak = excluded.best_streak, updated_at = excluded.updated_at")
_MARK_RATED = "UPDATE games SET rated = 1 WHERE id = ?"


def read_ratings(kind: str, guild_id: int, users: Iterable[int]) -> Plan[dict[int, RatingRow]]:
    """The players' rows, to be written back changed in the same transaction (so read first: another process's
    update of them waits for the commit rather than being overwritten, new rows included)."""
    yield READ_FIRST
    wanted = list(users)
    marks = ",".join("?" * len(wanted))
    done = yield Sql(f"SELECT {_COLUMNS} FROM ratings WHERE kind = ? AND guild_id = ? AND user_id IN ({marks})",
                     (kind, guild_id, *wanted))
    return {int(r[2]): _row(r) for r in done.rows}


def write_ratings(rows: Iterable[RatingRow], now: float) -> Plan[None]:
    yield Sql(_SAVE, [(r.kind, r.guild_id, r.user_id, r.mu, r.sigma, r.games, r.wins, r.draws, r.losses, r.streak,
                       r.best_streak, now) for r in rows], many=True)


def set_rated(game_id: int) -> Plan[None]:
    yield Sql(_MARK_RATED, (game_id,))


async def save_ratings(conn: Connection, rows: Iterable[RatingRow], now: float) -> None:
    """`write_ratings` on its own (tools and tests that fill a ladder)."""
    await conn.run(write_ratings(rows, now))


# The ladder order lives in the `ladder` and `ladder_buckets` tables (migration 0012), kept by triggers on `ratings`:
# mu - 3 sigma DESC, then user_id, led by a bucket of a quarter point. These are the migration's expressions.
_ORDINAL = "{p}mu - 3 * {p}sigma"


def _bucket(dialect: Dialect, prefix: str) -> str:
    """The bucket of a rating row: SQLite's CAST to INTEGER truncates; PostgreSQL's rounds, so it truncates first."""
    value = f"({prefix}mu - 3 * {prefix}sigma) * 4 + 1000000"
    return f"CAST({value} AS INTEGER)" if dialect is Dialect.SQLITE else f"CAST(trunc({value}) AS BIGINT)"
_R_COLUMNS = ", ".join("r." + c for c in _COLUMNS.split(", "))


@dataclass(frozen=True)
class LadderPage:
    """One page of a ladder, read in one snapshot so that its numbers agree."""

    total: int  # rated players on the ladder
    page: int  # 0-based, moved back to the last page when the one asked for is past it
    pages: int
    rows: list[RatingRow]  # in ladder order; the first is at place page * size + 1
    mine: tuple[int, RatingRow] | None  # the caller's place and row, when the caller is on this ladder


class RatingStore(Store):
    """Ladder queries. Each reads a few hundred bucket counts and walks inside one bucket, never every row above a
    place, so its cost hardly grows with the ladder. Each is one `Database.read` (on SQLite, its read-only
    connection), so paging a ladder never holds up a move."""

    async def page(self, kind: str, guild_id: int, page: int, size: int = 10, caller: int | None = None) -> LadderPage:
        dialect = self._db.dialect

        def read() -> Plan[LadderPage]:
            buckets = yield from _buckets(kind, guild_id)
            total = sum(players for _, players in buckets)
            pages = max(1, -(-total // size))
            shown = max(0, min(page, pages - 1))
            rows = yield from _rows_at(kind, guild_id, buckets, shown * size, size)
            mine = (yield from _place_of(dialect, kind, guild_id, caller)) if caller is not None else None
            return LadderPage(total, shown, pages, rows, mine)

        return await self._db.read(read())

    async def ladder(self, kind: str, guild_id: int, offset: int = 0, limit: int = 10) -> list[RatingRow]:
        """`limit` rows from place `offset + 1` on, in ladder order."""
        def read() -> Plan[list[RatingRow]]:
            buckets = yield from _buckets(kind, guild_id)
            return (yield from _rows_at(kind, guild_id, buckets, offset, limit))

        return await self._db.read(read())

    async def get(self, kind: str, guild_id: int, user_id: int) -> RatingRow | None:
        def read() -> Plan[RatingRow | None]:
            done = yield Sql(f"SELECT {_COLUMNS} FROM ratings WHERE kind = ? AND guild_id = ? AND user_id = ?",
                             (kind, guild_id, user_id))
            return _row(done.rows[0]) if done.rows else None

        return await self._db.read(read())

    async def rank_of(self, kind: str, guild_id: int, user_id: int) -> int | None:
        """1-based place on the ladder, or None for a player without a rating there."""
        mine = await self._db.read(_place_of(self._db.dialect, kind, guild_id, user_id))
        return mine[0] if mine is not None else None

    async def count(self, kind: str, guild_id: int) -> int:
        def read() -> Plan[int]:
            return sum(players for _, players in (yield from _buckets(kind, guild_id)))

        return await self._db.read(read())


def _buckets(kind: str, guild_id: int) -> Plan[list[tuple[int, int]]]:
    """(bucket, players) of a ladder, best bucket first: a few hundred rows however many players."""
    done = yield Sql("SELECT bucket, players FROM ladder_buckets WHERE kind = ? AND guild_id = ? ORDER BY bucket DESC",
                     (kind, guild_id))
    return [(int(r[0]), int(r[1])) for r in done.rows]


def _rows_at(kind: str, guild_id: int, buckets: list[tuple[int, int]], offset: int,
             limit: int) -> Plan[list[RatingRow]]:
    """The rows at places offset + 1 ... offset + limit: skip whole buckets by their counts, then walk from the
    start of the bucket that holds place offset + 1 (never more rows than that bucket has before it)."""
    above, start = 0, None
    for bucket, players in buckets:
        if above + players > offset:
            start = bucket
            break
        above += players
    if start is None:
        return []
    done = yield Sql(
        f"SELECT {_R_COLUMNS} FROM"
        " (SELECT bucket, ordinal, user_id FROM ladder WHERE kind = ? AND guild_id = ? AND bucket <= ?"
        "  ORDER BY bucket DESC, ordinal DESC, user_id LIMIT ? OFFSET ?) AS l"
        " JOIN ratings r ON r.kind = ? AND r.guild_id = ? AND r.user_id = l.user_id"
        " ORDER BY l.bucket DESC, l.ordinal DESC, l.user_id",
        (kind, guild_id, start, limit, offset - above, kind, guild_id),
    )
    return [_row(r) for r in done.rows]


def _place_of(dialect: Dialect, kind: str, guild_id: int, user_id: int) -> Plan[tuple[int, RatingRow] | None]:
    """A player's 1-based place and row: everyone in a better bucket, then those before them in their own (a higher
    mu - 3 sigma, or the same and a lower user id: the ladder's order)."""
    ordinal, bucket = _ORDINAL.format(p="r."), _bucket(dialect, "r.")
    done = yield Sql(
        f"SELECT {_R_COLUMNS},"
        " (SELECT coalesce(sum(players), 0) FROM ladder_buckets b"
        f"   WHERE b.kind = r.kind AND b.guild_id = r.guild_id AND b.bucket > {bucket})"
        " + (SELECT count(*) FROM ladder l"
        f"   WHERE l.kind = r.kind AND l.guild_id = r.guild_id AND l.bucket = {bucket} AND l.ordinal > {ordinal})"
        " + (SELECT count(*) FROM ladder l"
        f"   WHERE l.kind = r.kind AND l.guild_id = r.guild_id AND l.bucket = {bucket} AND l.ordinal = {ordinal}"
        "      AND l.user_id < r.user_id)"
        " FROM ratings r WHERE r.kind = ? AND r.guild_id = ? AND r.user_id = ?",
        (kind, guild_id, user_id),
    )
    if not done.rows:
        return None
    return int(done.rows[0][-1]) + 1, _row(done.rows[0])


@dataclass(frozen=True)
class Rival:
    """The opponent a player has finished the most rated games against."""

    user_id: int
    games: int


async def favourite_opponent(db: Database, kind: str, user_id: int, guild_id: int | None = None) -> Rival | None:
    """Over every rated game of the player, or with `guild_id` only over those played on that server."""
    on_server = "" if guild_id is None else " AND g.guild_id = ?"

    def read() -> Plan[Rival | None]:
        done = yield Sql(
            "SELECT other.user_id, count(*) AS n FROM game_players me"
            f" JOIN games g ON g.id = me.game_id AND g.kind = ? AND g.rated = 1{on_server}"
            " JOIN game_players other ON other.game_id = me.game_id AND other.seat != me.seat"
            " WHERE me.user_id = ? GROUP BY other.user_id ORDER BY n DESC, other.user_id LIMIT 1",
            (kind, *(() if guild_id is None else (guild_id,)), user_id),
        )
        return Rival(int(done.rows[0][0]), int(done.rows[0][1])) if done.rows else None

    return await db.read(read())


async def count_rated(db: Database, kind: str, guild_id: int) -> int:
    return await RatingStore(db).count(kind, guild_id)

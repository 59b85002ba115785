"""Rating rows: one per player per game kind, per server and global."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import aiosqlite

from storage.db import Database

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


# Each statement below has an async form (aiosqlite) and a plain one (`read_ratings`, `write_ratings`, `set_rated`: the
# same SQL, for a write that runs on the database's own thread, e.g. a game's last move in a group commit).
_SAVE = f"INSERT OR REPLACE INTO ratings ({_COLUMNS}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_MARK_RATED = "UPDATE games SET rated = 1 WHERE id = ?"


def _load(kind: str, guild_id: int, users: Iterable[int]) -> tuple[str, tuple[Any, ...]]:
    wanted = list(users)
    marks = ",".join("?" * len(wanted))
    return (f"SELECT {_COLUMNS} FROM ratings WHERE kind = ? AND guild_id = ? AND user_id IN ({marks})",
            (kind, guild_id, *wanted))


def _saved(rows: Iterable[RatingRow], now: float) -> list[tuple[Any, ...]]:
    return [(r.kind, r.guild_id, r.user_id, r.mu, r.sigma, r.games, r.wins, r.draws, r.losses, r.streak,
             r.best_streak, now) for r in rows]


async def load_ratings(
    conn: aiosqlite.Connection, kind: str, guild_id: int, users: Iterable[int]
) -> dict[int, RatingRow]:
    rows = await conn.execute_fetchall(*_load(kind, guild_id, users))
    return {int(r[2]): _row(r) for r in rows}


async def save_ratings(conn: aiosqlite.Connection, rows: Iterable[RatingRow], now: float) -> None:
    await conn.executemany(_SAVE, _saved(rows, now))


async def mark_rated(conn: aiosqlite.Connection, game_id: int) -> None:
    await conn.execute(_MARK_RATED, (game_id,))


def read_ratings(conn: sqlite3.Connection, kind: str, guild_id: int, users: Iterable[int]) -> dict[int, RatingRow]:
    return {int(r[2]): _row(r) for r in conn.execute(*_load(kind, guild_id, users)).fetchall()}


def write_ratings(conn: sqlite3.Connection, rows: Iterable[RatingRow], now: float) -> None:
    conn.executemany(_SAVE, _saved(rows, now))


def set_rated(conn: sqlite3.Connection, game_id: int) -> None:
    conn.execute(_MARK_RATED, (game_id,))


# The ladder order lives in the `ladder` and `ladder_buckets` tables (migration 0012), kept by triggers on `ratings`:
# mu - 3 sigma DESC, then user_id, led by a bucket of a quarter point. These are the migration's expressions.
_ORDINAL = "{p}mu - 3 * {p}sigma"
_BUCKET = "CAST(({p}mu - 3 * {p}sigma) * 4 + 1000000 AS INTEGER)"
_R_COLUMNS = ", ".join("r." + c for c in _COLUMNS.split(", "))


@dataclass(frozen=True)
class LadderPage:
    """One page of a ladder, read in one snapshot so that its numbers agree."""

    total: int  # rated players on the ladder
    page: int  # 0-based, moved back to the last page when the one asked for is past it
    pages: int
    rows: list[RatingRow]  # in ladder order; the first is at place page * size + 1
    mine: tuple[int, RatingRow] | None  # the caller's place and row, when the caller is on this ladder


class RatingStore:
    """Ladder queries. Each costs about the same on a ladder of 100,000 players as on one of 10: a few hundred
    bucket counts and a walk inside one bucket, never every row above a place. Each is one call to the database's
    read-only connection, so paging a ladder never holds up a move."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def page(self, kind: str, guild_id: int, page: int, size: int = 10, caller: int | None = None) -> LadderPage:
        def read(conn: sqlite3.Connection) -> LadderPage:
            buckets = _buckets(conn, kind, guild_id)
            total = sum(players for _, players in buckets)
            pages = max(1, -(-total // size))
            shown = max(0, min(page, pages - 1))
            rows = _rows_at(conn, kind, guild_id, buckets, shown * size, size)
            mine = _place_of(conn, kind, guild_id, caller) if caller is not None else None
            return LadderPage(total, shown, pages, rows, mine)

        return await self._db.read(read)

    async def ladder(self, kind: str, guild_id: int, offset: int = 0, limit: int = 10) -> list[RatingRow]:
        """`limit` rows from place `offset + 1` on, in ladder order."""
        return await self._db.read(lambda conn: _rows_at(conn, kind, guild_id, _buckets(conn, kind, guild_id),
                                                         offset, limit))

    async def get(self, kind: str, guild_id: int, user_id: int) -> RatingRow | None:
        def read(conn: sqlite3.Connection) -> RatingRow | None:
            rows = conn.execute(f"SELECT {_COLUMNS} FROM ratings WHERE kind = ? AND guild_id = ? AND user_id = ?",
                                (kind, guild_id, user_id)).fetchall()
            return _row(rows[0]) if rows else None

        return await self._db.read(read)

    async def rank_of(self, kind: str, guild_id: int, user_id: int) -> int | None:
        """1-based place on the ladder, or None for a player without a rating there."""
        mine = await self._db.read(lambda conn: _place_of(conn, kind, guild_id, user_id))
        return mine[0] if mine is not None else None

    async def count(self, kind: str, guild_id: int) -> int:
        return await self._db.read(lambda conn: sum(players for _, players in _buckets(conn, kind, guild_id)))


def _buckets(conn: sqlite3.Connection, kind: str, guild_id: int) -> list[tuple[int, int]]:
    """(bucket, players) of a ladder, best bucket first: a few hundred rows however many players."""
    rows = conn.execute(
        "SELECT bucket, players FROM ladder_buckets WHERE kind = ? AND guild_id = ? ORDER BY bucket DESC",
        (kind, guild_id)).fetchall()
    return [(int(r[0]), int(r[1])) for r in rows]


def _rows_at(conn: sqlite3.Connection, kind: str, guild_id: int, buckets: list[tuple[int, int]],
             offset: int, limit: int) -> list[RatingRow]:
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
    rows = conn.execute(
        f"SELECT {_R_COLUMNS} FROM"
        " (SELECT bucket, ordinal, user_id FROM ladder WHERE kind = ? AND guild_id = ? AND bucket <= ?"
        "  ORDER BY bucket DESC, ordinal DESC, user_id LIMIT ? OFFSET ?) AS l"
        " JOIN ratings r ON r.kind = ? AND r.guild_id = ? AND r.user_id = l.user_id"
        " ORDER BY l.bucket DESC, l.ordinal DESC, l.user_id",
        (kind, guild_id, start, limit, offset - above, kind, guild_id),
    ).fetchall()
    return [_row(r) for r in rows]


def _place_of(conn: sqlite3.Connection, kind: str, guild_id: int, user_id: int) -> tuple[int, RatingRow] | None:
    """A player's 1-based place and row: everyone in a better bucket, then those before them in their own (a higher
    mu - 3 sigma, or the same and a lower user id: the ladder's order)."""
    ordinal, bucket = _ORDINAL.format(p="r."), _BUCKET.format(p="r.")
    rows = conn.execute(
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
    ).fetchall()
    if not rows:
        return None
    return int(rows[0][-1]) + 1, _row(rows[0])


@dataclass(frozen=True)
class Rival:
    """The opponent a player has finished the most rated games against."""

    user_id: int
    games: int


async def favourite_opponent(db: Database, kind: str, user_id: int) -> Rival | None:
    def read(conn: sqlite3.Connection) -> Rival | None:
        rows = conn.execute(
            "SELECT other.user_id, count(*) AS n FROM game_players me"
            " JOIN games g ON g.id = me.game_id AND g.kind = ? AND g.rated = 1"
            " JOIN game_players other ON other.game_id = me.game_id AND other.seat != me.seat"
            " WHERE me.user_id = ? GROUP BY other.user_id ORDER BY n DESC, other.user_id LIMIT 1",
            (kind, user_id),
        ).fetchall()
        return Rival(int(rows[0][0]), int(rows[0][1])) if rows else None

    return await db.read(read)


async def count_rated(db: Database, kind: str, guild_id: int) -> int:
    return await RatingStore(db).count(kind, guild_id)

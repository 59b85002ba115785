"""Rating rows: one per player per game kind, per server and global."""

from __future__ import annotations

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


async def load_ratings(
    conn: aiosqlite.Connection, kind: str, guild_id: int, users: Iterable[int]
) -> dict[int, RatingRow]:
    wanted = list(users)
    marks = ",".join("?" * len(wanted))
    rows = await conn.execute_fetchall(
        f"SELECT {_COLUMNS} FROM ratings WHERE kind = ? AND guild_id = ? AND user_id IN ({marks})",
        (kind, guild_id, *wanted),
    )
    return {int(r[2]): _row(r) for r in rows}


async def save_ratings(conn: aiosqlite.Connection, rows: Iterable[RatingRow], now: float) -> None:
    await conn.executemany(
        f"INSERT OR REPLACE INTO ratings ({_COLUMNS}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(r.kind, r.guild_id, r.user_id, r.mu, r.sigma, r.games, r.wins, r.draws, r.losses, r.streak,
          r.best_streak, now) for r in rows],
    )


async def mark_rated(conn: aiosqlite.Connection, game_id: int) -> None:
    await conn.execute("UPDATE games SET rated = 1 WHERE id = ?", (game_id,))


class RatingStore:
    """Ladder queries (the index on (kind, guild, mu - 3 sigma) keeps them fast)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def ladder(self, kind: str, guild_id: int, offset: int = 0, limit: int = 10) -> list[RatingRow]:
        async with self._db.reading() as conn:
            rows = await conn.execute_fetchall(
                f"SELECT {_COLUMNS} FROM ratings WHERE kind = ? AND guild_id = ?"
                " ORDER BY mu - 3 * sigma DESC, user_id LIMIT ? OFFSET ?",
                (kind, guild_id, limit, offset),
            )
        return [_row(r) for r in rows]

    async def get(self, kind: str, guild_id: int, user_id: int) -> RatingRow | None:
        async with self._db.reading() as conn:
            return (await load_ratings(conn, kind, guild_id, [user_id])).get(user_id)

    async def rank_of(self, kind: str, guild_id: int, user_id: int) -> int | None:
        """1-based place on the ladder, or None for a player without a rating there."""
        mine = await self.get(kind, guild_id, user_id)
        if mine is None:
            return None
        async with self._db.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT count(*) FROM ratings WHERE kind = ? AND guild_id = ?"
                " AND (mu - 3 * sigma > ? OR (mu - 3 * sigma = ? AND user_id < ?))",
                (kind, guild_id, mine.ordinal, mine.ordinal, user_id),
            ))
        return int(rows[0][0]) + 1


@dataclass(frozen=True)
class Rival:
    """The opponent a player has finished the most rated games against."""

    user_id: int
    games: int


async def favourite_opponent(db: Database, kind: str, user_id: int) -> Rival | None:
    async with db.reading() as conn:
        rows = list(await conn.execute_fetchall(
            "SELECT other.user_id, count(*) AS n FROM game_players me"
            " JOIN games g ON g.id = me.game_id AND g.kind = ? AND g.rated = 1"
            " JOIN game_players other ON other.game_id = me.game_id AND other.seat != me.seat"
            " WHERE me.user_id = ? GROUP BY other.user_id ORDER BY n DESC, other.user_id LIMIT 1",
            (kind, user_id),
        ))
    return Rival(int(rows[0][0]), int(rows[0][1])) if rows else None


async def count_rated(db: Database, kind: str, guild_id: int) -> int:
    async with db.reading() as conn:
        rows = list(await conn.execute_fetchall(
            "SELECT count(*) FROM ratings WHERE kind = ? AND guild_id = ?", (kind, guild_id)))
    return int(rows[0][0])

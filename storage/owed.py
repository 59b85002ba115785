"""Owed announcements: what a turn timer's change still has to tell the players (an outbox).

The record is written in the same transaction as the timer's change and deleted once the announcement was sent, so
the change is made exactly once and its announcement goes out at least once, even when the process stops between
the two. One record per timer action: its game, its event and the game's move count right after the timer acted
(`ply`), so a second timer firing before the first was announced leaves both owed. Plain functions of the
connection, to run inside the caller's transaction (like storage/deals.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from storage.database import Connection
from storage.sql import statement


@dataclass(frozen=True)
class OwedAnnouncement:
    game_id: int
    event: str  # bot.service.TimerEvent's value
    ending: str | None  # JSON of the ending when the timer ended the game
    seat: int | None  # a reminder's seat (it applies only while that seat decides at `ply`)
    ply: int  # the game's move count right after the timer acted
    attempts: int  # failed sends so far
    created_at: float


_COLUMNS = "game_id, event, ending, seat, ply, attempts, created_at"


async def owe(
    conn: Connection, game_id: int, event: str, *, ply: int, ending: str | None = None, seat: int | None = None,
    now: float,
) -> None:
    """Record that `event`, which happened when the game's move count became `ply`, must be announced."""
    await conn.run(statement(
        "INSERT INTO owed_announcements (game_id, event, ending, seat, ply, attempts, created_at)"
        " VALUES (?, ?, ?, ?, ?, 0, ?) ON CONFLICT (game_id, event, ply) DO UPDATE SET ending = excluded.ending,"
        " seat = excluded.seat, attempts = 0, created_at = excluded.created_at",
        (game_id, event, ending, seat, ply, now)))


async def owed(conn: Connection, game_id: int | None = None) -> list[OwedAnnouncement]:
    """What is owed (for game `game_id` only, if given), oldest first (a game's in the order they happened)."""
    which, params = ("", ()) if game_id is None else (" WHERE game_id = ?", (game_id,))
    done = await conn.run(statement(
        f"SELECT {_COLUMNS} FROM owed_announcements{which} ORDER BY created_at, game_id, ply", params))
    return [OwedAnnouncement(int(r[0]), str(r[1]), r[2], r[3], int(r[4]), int(r[5]), float(r[6])) for r in done.rows]


async def settle(conn: Connection, game_id: int, event: str, ply: int, created_at: float | None = None) -> None:
    """It was sent (or given up): forget it, unless it was recorded again meanwhile (`created_at`: the one read;
    None: the one this process just recorded, under the game's lock)."""
    same, params = _same(created_at)
    await conn.run(statement(f"DELETE FROM owed_announcements WHERE game_id = ? AND event = ? AND ply = ?{same}",
                               (game_id, event, ply, *params)))


async def count_failure(conn: Connection, game_id: int, event: str, ply: int, created_at: float | None = None) -> int:
    """One more failed send; returns how many so far (0: it was settled or recorded again meanwhile)."""
    same, params = _same(created_at)
    done = await conn.run(statement(
        f"UPDATE owed_announcements SET attempts = attempts + 1 WHERE game_id = ? AND event = ? AND ply = ?{same}"
        " RETURNING attempts", (game_id, event, ply, *params)))
    return int(done.value() or 0)


def _same(created_at: float | None) -> tuple[str, tuple[float, ...]]:
    """The condition that it is still the announcement read (`created_at`), if one was read."""
    return ("", ()) if created_at is None else (" AND created_at = ?", (created_at,))


"""Leases: a piece of work that must be done once although several processes share the database (issue 17).

A process claims a key (`bot-turn:<game>`, `owed:<game>:<event>`, `sync-commands`) for a few seconds and renews the
claim while it works; another process finds the key held and leaves the work alone. A process that dies stops
renewing: its lease expires and the next process that looks takes the work over. Each process names itself with a
holder id made at its start, and the times are the service's clock.

A claim is one statement (an upsert whose update applies only to a free, expired or own lease), so it needs no lock
around a read: two processes claiming at once cannot both succeed, on SQLite or PostgreSQL. Plain functions of the
connection, to run inside the caller's transaction (like storage/owed.py).
"""

from __future__ import annotations

from storage.connection import Connection, run
from storage.sql import Plan, Sql, statement

SYNC_COMMANDS = "sync-commands"
_BOT_TURN = "bot-turn:"


def bot_turn_key(game_id: int) -> str:
    return f"{_BOT_TURN}{game_id}"


def owed_key(game_id: int, event: str) -> str:
    return f"owed:{game_id}:{event}"


def claiming(key: str, holder: str, seconds: float, now: float) -> Plan[bool]:
    """`claim` as a plan."""
    done = yield Sql(
        "INSERT INTO leases (key, holder, expires_at) VALUES (?, ?, ?)"
        " ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at"
        " WHERE leases.holder = excluded.holder OR leases.expires_at <= ? RETURNING holder",
        (key, holder, now + seconds, now))
    return bool(done.rows)


async def claim(conn: Connection, key: str, holder: str, seconds: float, now: float) -> bool:
    """Hold `key` until `now + seconds` if it is free, expired or already `holder`'s (a renewal); False, changing
    nothing, while another holder's lease runs."""
    return await run(conn, claiming(key, holder, seconds, now))


async def renew(conn: Connection, key: str, holder: str, seconds: float, now: float) -> bool:
    """Extend `holder`'s lease; False if it is no longer theirs (it expired and another process took the work)."""
    done = await run(conn, statement("UPDATE leases SET expires_at = ? WHERE key = ? AND holder = ?",
                                      (now + seconds, key, holder)))
    return done.rowcount > 0


async def take(conn: Connection, key: str, holder: str, seconds: float, now: float) -> None:
    """Hold `key` whoever held it: for work this transaction has just made (an owed announcement it replaced), which
    a holder of the older work must no longer do."""
    await run(conn, statement(
        "INSERT INTO leases (key, holder, expires_at) VALUES (?, ?, ?)"
        " ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at",
        (key, holder, now + seconds)))


async def release(conn: Connection, key: str, holder: str) -> None:
    """The work is done (or given up): the key is free, unless another process holds it by now."""
    await run(conn, statement("DELETE FROM leases WHERE key = ? AND holder = ?", (key, holder)))


async def release_all(conn: Connection, holder: str) -> None:
    """A process stopping cleanly lets go of everything it held (an owed announcement it was sending when stopped, a
    bot turn it was thinking on), so that the next start, or another process, takes the work up at once instead of
    after the lease runs out."""
    await run(conn, statement("DELETE FROM leases WHERE holder = ?", (holder,)))


async def release_expired(conn: Connection, key: str, now: float) -> None:
    """Forget a lease that ran out (its process died) once nothing is left to do under it."""
    await run(conn, statement("DELETE FROM leases WHERE key = ? AND expires_at <= ?", (key, now)))


async def holder_of(conn: Connection, key: str, now: float) -> str | None:
    """Who holds `key` now (None: nobody, or a lease that expired)."""
    done = await run(conn, statement("SELECT holder FROM leases WHERE key = ? AND expires_at > ?", (key, now)))
    value = done.value()
    return None if value is None else str(value)


def bot_turns_to_take(now: float) -> Plan[list[int]]:
    """Games where a computer player is to decide and no live process drives it: none has claimed it (its process
    died before it could, or it never began), or its lease expired (the driver died mid-turn). Cheap when there are
    none: only active games without a deadline are read (the partial index games_without_deadline), and the expired
    leases (leases_by_expiry). A bot deciding during a secret setup keeps the setup's deadline: it is found through
    its expired lease."""
    done = yield Sql(
        "SELECT g.id FROM games g WHERE g.status = 'active' AND g.deadline IS NULL"
        " AND EXISTS (SELECT 1 FROM game_players p WHERE p.game_id = g.id AND p.bot IS NOT NULL)"
        " AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.key = ? || CAST(g.id AS TEXT) AND l.expires_at > ?)"
        " UNION SELECT CAST(SUBSTR(key, ?) AS BIGINT) FROM leases WHERE expires_at <= ? AND key LIKE ?",
        (_BOT_TURN, now, len(_BOT_TURN) + 1, now, _BOT_TURN + "%"))
    return sorted(int(row[0]) for row in done.rows)


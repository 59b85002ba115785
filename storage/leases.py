"""Leases: a piece of work that must be done once although several processes share the database (issue 17).

A process claims a key (`bot-turn:<game>`, `owed:<game>:<event>`, `sync-commands`) and keeps it while it works;
another process finds the key held and leaves the work alone. Each process names itself with a holder id made at its
start, and the times are the service's clock.

A lease ends in one of three ways: its holder lets go (the work is done); it runs out (`expires_at`: a bound on how
long any work may take, minutes); or its holder's *process lease* (`process:<holder>`), which a live process renews
every few seconds (a heartbeat, bot/service/heartbeat.py), has run out: the process died, and everything it held is
free within seconds, however long its leases were to run. A holder that never wrote a process lease (a test's service)
is judged by `expires_at` alone.

A claim is one statement (an upsert whose update applies only to a free, expired, dead or own lease), so it needs no
lock around a read: two processes claiming at once cannot both succeed, on SQLite or PostgreSQL. Plain functions of the
connection, to run inside the caller's transaction (like storage/owed.py).
"""

from __future__ import annotations

from storage.connection import Connection, run
from storage.sql import Plan, Sql, statement

SYNC_COMMANDS = "sync-commands"
_BOT_TURN = "bot-turn:"
_PROCESS = "process:"


def _dead(lease: str) -> str:
    """SQL true when the holder of the lease row `lease` (a table alias) is a process whose heartbeat ran out; one
    `?`: now."""
    return f"EXISTS (SELECT 1 FROM leases p WHERE p.key = '{_PROCESS}' || {lease}.holder AND p.expires_at <= ?)"


def process_key(holder: str) -> str:
    return f"{_PROCESS}{holder}"


def bot_turn_key(game_id: int) -> str:
    return f"{_BOT_TURN}{game_id}"


def owed_key(game_id: int, event: str) -> str:
    return f"owed:{game_id}:{event}"


def board_post_key(game_id: int) -> str:
    """Posting a game's board anew after a restart (its message was lost): one process does it."""
    return f"board-post:{game_id}"


def claiming(key: str, holder: str, seconds: float, now: float) -> Plan[bool]:
    """`claim` as a plan."""
    done = yield Sql(
        "INSERT INTO leases (key, holder, expires_at) VALUES (?, ?, ?)"
        " ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at"
        f" WHERE leases.holder = excluded.holder OR leases.expires_at <= ? OR {_dead('leases')} RETURNING holder",
        (key, holder, now + seconds, now, now))
    return bool(done.rows)


async def claim(conn: Connection, key: str, holder: str, seconds: float, now: float) -> bool:
    """Hold `key` until `now + seconds` if it is free, expired, a dead process's or already `holder`'s (a renewal);
    False, changing nothing, while another live holder's lease runs."""
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
    """Forget a lease that ran out or whose process died, once nothing is left to do under it."""
    await run(conn, statement(f"DELETE FROM leases WHERE key = ? AND (expires_at <= ? OR {_dead('leases')})",
                              (key, now, now)))


async def holder_of(conn: Connection, key: str, now: float) -> str | None:
    """Who holds `key` now (None: nobody, a lease that expired, or a dead process's)."""
    done = await run(conn, statement(
        f"SELECT holder FROM leases l WHERE key = ? AND expires_at > ? AND NOT {_dead('l')}", (key, now, now)))
    value = done.value()
    return None if value is None else str(value)


def bot_turns_to_take(now: float) -> Plan[list[int]]:
    """Games where a computer player is to decide and no live process drives it: none has claimed it (its process
    died before it could, or it never began), or its lease expired or its process died (the driver died mid-turn).
    Cheap when there are none: only active games without a deadline are read (the partial index
    games_without_deadline), and the bot-turn leases (one per game a bot is thinking in). A bot deciding during a secret
    setup keeps the setup's deadline: it is found through its lease."""
    done = yield Sql(
        "SELECT g.id FROM games g WHERE g.status = 'active' AND g.deadline IS NULL"
        " AND EXISTS (SELECT 1 FROM game_players s WHERE s.game_id = g.id AND s.bot IS NOT NULL)"
        " AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.key = ? || CAST(g.id AS TEXT) AND l.expires_at > ?"
        f" AND NOT {_dead('l')})"
        # the bot-turn keys as a range of the primary key (`;` follows `:`): read through its index, on both databases
        " UNION SELECT CAST(SUBSTR(key, ?) AS BIGINT) FROM leases l WHERE key >= ? AND key < ?"
        f" AND (expires_at <= ? OR {_dead('l')})",
        (_BOT_TURN, now, now, len(_BOT_TURN) + 1, _BOT_TURN, _BOT_TURN[:-1] + ";", now, now))
    return sorted(int(row[0]) for row in done.rows)


async def beat(conn: Connection, holder: str, seconds: float, now: float) -> None:
    """This process is alive until `now + seconds` (its heartbeat; see the module's description)."""
    await take(conn, process_key(holder), holder, seconds, now)

"""Leases: a piece of work that must be done once although several processes share the database.

A process claims a key (`bot-turn:<game>`, `owed:<game>:<event>`, `sync-commands`) and keeps it while it works;
another process finds the key held and leaves the work alone. Each process names itself with a holder id made at its
start.

A lease ends in one of three ways: its holder lets go (the work is done); it runs out (`expires_at`: a bound on how
long any work may take, minutes); or its holder's *process lease* (`process:<holder>`), which a live process renews
every few seconds (a heartbeat, bot/service/heartbeat.py), has run out: the process died, and everything it held is
free within seconds, however long its leases were to run. A holder that never wrote a process lease (a test's service)
is judged by `expires_at` alone.

Time is the database's clock (storage/sql.py `Dialect.clock`), never a process's own: a process whose clock
runs a minute ahead would otherwise take every live process for dead and do their work again. Lengths are seconds.

A lease is only as good as its fence: a process paused longer than its lease (a long GC, SIGSTOP, a frozen
VM) wakes up believing it still holds it, while another has taken the work over. So every claim gives the lease a new
*token*, a number the database never gave before; the holder keeps it, and right before a side effect that must
happen once it asks the database whether the lease still carries that token (`holds`, one statement; `keeps` inside
the transaction of a write). If not, another process has the work, and the side effect is dropped.

A claim is one statement (an upsert whose update applies only to a free, expired, dead or own lease), so it needs no
lock around a read: two processes claiming at once cannot both succeed, on SQLite or PostgreSQL. Plain functions of the
connection, to run inside the caller's transaction (like storage/owed.py).
"""

from __future__ import annotations

from storage.database import Connection
from storage.sql import Dialect, Plan, Sql, statement

SYNC_COMMANDS = "sync-commands"
_COMPUTER_TURN = "bot-turn:"  # the stored keys keep their old prefix
_PROCESS = "process:"


def _dead(lease: str, clock: str) -> str:
    """SQL true when the holder of the lease row `lease` (a table alias) is a process whose heartbeat ran out."""
    return f"EXISTS (SELECT 1 FROM leases p WHERE p.key = '{_PROCESS}' || {lease}.holder AND p.expires_at <= {clock})"


def _live(lease: str, clock: str) -> str:
    """SQL true while the lease row `lease` runs and its holder's process (if it beats) is alive."""
    return f"{lease}.expires_at > {clock} AND NOT {_dead(lease, clock)}"


def process_key(holder: str) -> str:
    return f"{_PROCESS}{holder}"


def computer_turn_key(game_id: int) -> str:
    return f"{_COMPUTER_TURN}{game_id}"


def owed_key(game_id: int, event: str, ply: int) -> str:
    """Sending one owed announcement (storage/owed.py): its game, event and the move count it happened at."""
    return f"owed:{game_id}:{event}:{ply}"


def board_post_key(game_id: int) -> str:
    """Posting a game's board anew after a restart (its message was lost): one process does it."""
    return f"board-post:{game_id}"


def round_post_key(tournament_id: int, number: int) -> str:
    """Posting a tournament round (its pairings message, its thread, its boards): one process does it."""
    return f"round-post:{tournament_id}:{number}"


def new_token(dialect: Dialect) -> Plan[tuple[str, tuple[int, ...]]]:
    """A token the database never gave before (PostgreSQL: the sequence lease_tokens; SQLite, whose writers take turns:
    the one-row table lease_tokens, raised): the SQL to write where it goes, and its parameters."""
    if dialect is Dialect.POSTGRESQL:
        return "nextval('lease_tokens')", ()
    done = yield Sql("UPDATE lease_tokens SET last = last + 1 RETURNING last")
    return "?", (int(done.value()),)


def claiming(dialect: Dialect, key: str, holder: str, seconds: float) -> Plan[int | None]:
    """`claim` as a plan."""
    token, params = yield from new_token(dialect)
    clock = dialect.clock
    done = yield Sql(
        f"INSERT INTO leases (key, holder, expires_at, token) VALUES (?, ?, {clock} + ?, {token})"
        " ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at,"
        f" token = excluded.token WHERE leases.holder = excluded.holder OR NOT ({_live('leases', clock)})"
        " RETURNING token",
        (key, holder, float(seconds), *params))
    return None if not done.rows else int(done.rows[0][0])


async def claim(conn: Connection, key: str, holder: str, seconds: float) -> int | None:
    """Hold `key` for `seconds` from now if it is free, expired, a dead process's or already `holder`'s (a renewal):
    its new token; None, changing nothing, while another live holder's lease runs."""
    return await conn.run(claiming(conn.dialect, key, holder, seconds))


def holding(dialect: Dialect, key: str, holder: str, token: int) -> Plan[bool]:
    """`holds` as a plan."""
    done = yield Sql(
        f"SELECT 1 FROM leases l WHERE key = ? AND holder = ? AND token = ? AND {_live('l', dialect.clock)}",
        (key, holder, token))
    return bool(done.rows)


async def holds(conn: Connection, key: str, holder: str, token: int) -> bool:
    """The fence: whether `holder` still holds `key` with the token its claim gave (no other process claimed it since,
    and it has not run out, nor has its holder's process). Asked right before a side effect that must happen once."""
    return await conn.run(holding(conn.dialect, key, holder, token))


async def keeps(conn: Connection, key: str, holder: str, token: int) -> bool:
    """The fence inside a write transaction (`holds`, written): while that transaction lasts, no other process can
    claim the lease (the row is locked on PostgreSQL; SQLite's write transaction holds the file), so what it commits
    is committed by the holder or not at all."""
    clock = conn.dialect.clock
    done = await conn.run(statement(
        f"UPDATE leases SET token = token WHERE key = ? AND holder = ? AND token = ? AND {_live('leases', clock)}",
        (key, holder, token)))
    return done.rowcount > 0


async def renew(conn: Connection, key: str, holder: str, seconds: float) -> bool:
    """Extend `holder`'s lease to `seconds` from now; False if it is no longer theirs (another process took it)."""
    clock = conn.dialect.clock
    done = await conn.run(statement(f"UPDATE leases SET expires_at = {clock} + ? WHERE key = ? AND holder = ?",
                                      (float(seconds), key, holder)))
    return done.rowcount > 0


async def take(conn: Connection, key: str, holder: str, seconds: float) -> int:
    """Hold `key` whoever held it: for work this transaction has just made (an owed announcement it replaced), which
    a holder of the older work must no longer do (its token is no longer the lease's). Returns the new token."""
    dialect = conn.dialect

    def plan() -> Plan[int]:
        token, params = yield from new_token(dialect)
        done = yield Sql(
            f"INSERT INTO leases (key, holder, expires_at, token) VALUES (?, ?, {dialect.clock} + ?, {token})"
            " ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at,"
            " token = excluded.token RETURNING token",
            (key, holder, float(seconds), *params))
        return int(done.rows[0][0])

    return await conn.run(plan())


async def release(conn: Connection, key: str, holder: str) -> None:
    """The work is done (or given up): the key is free, unless another process holds it by now."""
    await conn.run(statement("DELETE FROM leases WHERE key = ? AND holder = ?", (key, holder)))


async def release_all(conn: Connection, holder: str) -> None:
    """A process stopping cleanly lets go of everything it held (an owed announcement it was sending when stopped, a
    bot turn it was thinking on), so that the next start, or another process, takes the work up at once instead of
    after the lease runs out."""
    await conn.run(statement("DELETE FROM leases WHERE holder = ?", (holder,)))


async def release_expired(conn: Connection, key: str) -> None:
    """Forget a lease that ran out or whose process died, once nothing is left to do under it."""
    clock = conn.dialect.clock
    await conn.run(statement(f"DELETE FROM leases WHERE key = ? AND NOT ({_live('leases', clock)})", (key,)))


async def holder_of(conn: Connection, key: str) -> str | None:
    """Who holds `key` now (None: nobody, a lease that expired, or a dead process's)."""
    clock = conn.dialect.clock
    done = await conn.run(statement(f"SELECT holder FROM leases l WHERE key = ? AND {_live('l', clock)}", (key,)))
    value = done.value()
    return None if value is None else str(value)


def computer_turns_to_take(dialect: Dialect) -> Plan[list[int]]:
    """Games where a computer player is to decide and no live process drives it: none has claimed it (its process
    died before it could, or it never began), or its lease expired or its process died (the driver died mid-turn).
    Cheap when there are none: only active games without a deadline are read (the partial index
    games_without_deadline), and the computer-turn leases (one per game a computer player thinks in). A computer
    player deciding during a secret setup keeps the setup's deadline: it is found through its lease."""
    clock = dialect.clock
    done = yield Sql(
        "SELECT g.id FROM games g WHERE g.status = 'active' AND g.deadline IS NULL"
        " AND EXISTS (SELECT 1 FROM game_players s WHERE s.game_id = g.id AND s.bot IS NOT NULL)"
        f" AND NOT EXISTS (SELECT 1 FROM leases l WHERE l.key = ? || CAST(g.id AS TEXT) AND {_live('l', clock)})"
        # the computer-turn keys, a range of the primary key (`;` follows `:`): read through its index on both backends
        " UNION SELECT CAST(SUBSTR(key, ?) AS BIGINT) FROM leases l WHERE key >= ? AND key < ?"
        f" AND NOT ({_live('l', clock)})",
        (_COMPUTER_TURN, len(_COMPUTER_TURN) + 1, _COMPUTER_TURN, _COMPUTER_TURN[:-1] + ";"))
    return sorted(int(row[0]) for row in done.rows)


async def beat(conn: Connection, holder: str, seconds: float) -> None:
    """This process is alive for `seconds` from now (its heartbeat; see the module's description)."""
    await take(conn, process_key(holder), holder, seconds)

"""PostgreSQL behind `storage.database.Database`, through asyncpg: for a bot that runs several processes over one
database. SQLite stays the default; this is chosen with `DATABASE_URL=postgresql://...`.

- Migrations are storage/migrations/postgresql/NNNN_*.sql, numbered as SQLite's are (0014_baseline folds SQLite's
  0001-0014). Their version lives in the table `schema_version`; they are applied under an advisory lock, so of two
  processes starting together one migrates and the other then finds the work done.
- A transaction that reads what it then writes without a version guard (`read_first`: ratings, settings, lobbies,
  deals) first takes one advisory transaction lock: such transactions then follow one another, as SQLite's
  BEGIN IMMEDIATE makes them do; they are rare (a game's end, a setting), so that costs nothing that matters. Game
  writes need no lock: each is guarded by the version it was read at.
- Statements are the same `?`-placeholder SQL as SQLite's, run as plans (storage/sql.py).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any, TypeVar
from urllib.parse import parse_qs, unquote, urlsplit, urlunsplit

from storage.database import WriteUnit
from storage.db import StorageError
from storage.sql import READ_FIRST, Dialect, Done, Plan, Sql, numbered, returns_rows, run_awaiting

log = logging.getLogger(__name__)

try:  # an optional extra: `pip install -e ".[postgresql]"`
    import asyncpg
except ImportError:  # pragma: no cover - the SQLite-only install
    asyncpg = None

T = TypeVar("T")
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
MIGRATION_LOCK = 7_301_917  # advisory lock keys: any fixed numbers no other program on the server uses
READ_FIRST_LOCK = 7_301_918


class PostgresUnavailableError(RuntimeError):
    """PostgreSQL was asked for but cannot be used (no asyncpg, or the server refused): one line saying why."""


def postgres_migrations() -> list[tuple[int, str]]:
    """The PostgreSQL migration scripts, in order."""
    found: list[tuple[int, str]] = []
    folder = resources.files("storage.migrations").joinpath("postgresql")
    if not folder.is_dir():
        return found
    for entry in folder.iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.read_text(encoding="utf-8")))
    return sorted(found)


def without_password(url: str) -> str:
    """`url` fit for a log line: its password hidden wherever the URL gives it (`user:password@`, `?password=`).

    Read as text, never through `urlsplit(...).port`: a URL may name several hosts (`h1:5432,h2:5432`, a failover
    set-up that asyncpg accepts), which has no single port."""
    parts = urlsplit(url)
    userinfo, at, hosts = parts.netloc.rpartition("@")
    if at and ":" in userinfo:
        parts = parts._replace(netloc=f"{userinfo.partition(':')[0]}:***@{hosts}")
    if parts.query:
        query = "&".join(f"{key}=***" if key.lower() == "password" else f"{key}{eq}{value}"
                         for key, eq, value in (pair.partition("=") for pair in parts.query.split("&")))
        parts = parts._replace(query=query)
    return urlunsplit(parts)


def url_passwords(url: str) -> list[str]:
    """The password a PostgreSQL URL carries, in each form it may take in a message (as written, percent-decoded):
    what a log must never show."""
    parts = urlsplit(url)
    found = [parts.password] if parts.password else []
    found += parse_qs(parts.query).get("password", [])  # parse_qs decodes
    found += [unquote(password) for password in found]
    return sorted({password for password in found if password})


class PgConnection:
    """One pooled connection, inside a transaction or not: runs plans (storage/sql.py)."""

    dialect = Dialect.POSTGRESQL

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    async def execute(self, statement: Sql) -> Done:
        if statement is READ_FIRST:
            await self._conn.execute("SELECT pg_advisory_xact_lock($1)", READ_FIRST_LOCK)
            return Done()
        text = numbered(statement.text)
        if statement.many:
            await self._conn.executemany(text, statement.params)
            return Done([], len(statement.params))
        if returns_rows(statement.text):
            rows = await self._conn.fetch(text, *statement.params)
            return Done(list(rows), len(rows))
        status = await self._conn.execute(text, *statement.params)  # e.g. "UPDATE 3", "INSERT 0 1"
        last = str(status).rsplit(" ", 1)[-1]
        return Done([], int(last) if last.isdigit() else 0)

    async def run(self, plan: Plan[T]) -> T:
        return await run_awaiting(self.execute, plan)

    async def begin_writing(self) -> None:
        """Take the lock every read-first transaction takes (see the module's docstring)."""
        await self.execute(READ_FIRST)


class WholeConnects:
    """The pool's way to open a connection, never cut short (given to asyncpg.create_pool as `connect`).

    A query that needs a new pooled connection and is cancelled (the bot stopping, a task cancelled) would cancel
    asyncpg's connect with it. Cancelled at the wrong moment (the socket just opened, the server not yet answered),
    asyncpg closes the socket and its connection-lost handler then fails a future nobody awaits any more: asyncio logs
    "Future exception was never retrieved: ConnectionDoesNotExistError" at ERROR, at a clean stop. So a connect runs
    to its end in a task of its own; when its caller is gone, the connection it made is closed at once, and
    `finish` (at close) waits for any still under way."""

    def __init__(self) -> None:
        self._under_way: set[asyncio.Task[Any]] = set()

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        connecting = asyncio.ensure_future(asyncpg.connect(*args, **kwargs))
        self._under_way.add(connecting)
        connecting.add_done_callback(self._under_way.discard)
        try:
            return await asyncio.shield(connecting)
        except asyncio.CancelledError:
            connecting.add_done_callback(_close_unwanted)
            raise

    async def finish(self, timeout: float = 10.0) -> None:
        if self._under_way:
            await asyncio.wait(list(self._under_way), timeout=timeout)


def _close_unwanted(connecting: asyncio.Task[Any]) -> None:
    """A connect whose caller was cancelled has ended: close what it opened (or take its error: nobody else will)."""
    if connecting.cancelled() or connecting.exception() is not None:
        return
    connecting.result().terminate()


class PostgresDatabase:
    """The bot's PostgreSQL database (`storage.database.Database`): a pool of connections (each process has its own
    pool)."""

    dialect = Dialect.POSTGRESQL

    def __init__(self, pool: Any, url: str, connects: WholeConnects) -> None:
        self._pool = pool
        self._connects = connects
        self.url = url
        self.path = without_password(url)  # what logs and messages name

    @classmethod
    async def open(cls, url: str, *, migrate_to: int | None = None, pool_size: int = 10) -> PostgresDatabase:
        if asyncpg is None:
            raise PostgresUnavailableError(
                'DATABASE_URL names PostgreSQL, but asyncpg is not installed: pip install -e ".[postgresql]"')
        connects = WholeConnects()
        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=pool_size, connect=connects)
        except (OSError, asyncpg.PostgresError) as exc:
            raise PostgresUnavailableError(f"cannot reach the database {without_password(url)}: {exc}") from None
        db = cls(pool, url, connects)
        try:
            await db.migrate(migrate_to)
        except BaseException:
            await db.close()
            raise
        return db

    async def close(self) -> None:
        try:
            await self._pool.close()
        finally:
            await self._connects.finish()

    async def schema_version(self) -> int:
        async with self._pool.acquire() as conn:
            exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
            return int(await conn.fetchval("SELECT version FROM schema_version")) if exists else 0

    async def migrate(self, target: int | None = None) -> None:
        """Apply every migration above the database's version, each in its own transaction, under a lock that a
        second process starting at the same moment waits for."""
        async with self._pool.acquire() as conn:
            await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
            try:
                await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                current = await conn.fetchval("SELECT version FROM schema_version")
                if current is None:
                    await conn.execute("INSERT INTO schema_version (version) VALUES (0)")
                    current = 0
                scripts = postgres_migrations()
                latest = max((number for number, _script in scripts), default=0)
                if current > latest:  # a newer bot migrated it: this one would misread what it wrote
                    raise StorageError(f"{self.path} has schema version {current}, but this bot only knows up to "
                                       f"{latest}: it was written by a newer version of the bot.")
                for number, script in scripts:
                    if current < number and (target is None or number <= target):
                        async with conn.transaction():
                            await conn.execute(script)
                            await conn.execute("UPDATE schema_version SET version = $1", number)
                        log.info("applied migration %04d", number)
                        current = number
            finally:
                await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)

    @asynccontextmanager
    async def transaction(self, *, read_first: bool = False) -> AsyncIterator[PgConnection]:
        """Everything run in the block commits together at its end, or is rolled back if it raises."""
        async with self._pool.acquire() as conn, conn.transaction():
            connection = PgConnection(conn)
            if read_first:
                await connection.begin_writing()
            yield connection

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[PgConnection]:
        """A connection for reads outside a transaction."""
        async with self._pool.acquire() as conn:
            yield PgConnection(conn)

    async def write(self, unit: WriteUnit[T]) -> T:
        """A write with nothing else in its transaction (a move): SQLite commits those waiting together (group commit,
        storage/writes.py); PostgreSQL writes them side by side, each in its own transaction on its own connection."""
        return await self.run(unit.plan())

    async def query(self, plan: Plan[T]) -> T:
        """`plan` (reads only) outside any transaction."""
        async with self._pool.acquire() as conn:
            return await PgConnection(conn).run(plan)

    async def read(self, plan: Plan[T]) -> T:
        """`plan` (reads only) in a read-only transaction that sees one state of the database (its statements agree:
        a page, the number of pages and the caller's place)."""
        async with self._pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
            return await PgConnection(conn).run(plan)

    async def run(self, plan: Plan[T]) -> T:
        """`plan` in a transaction of its own (a write, or reads that must agree with each other)."""
        async with self.transaction() as conn:
            return await conn.run(plan)

    async def integrity_problems(self) -> None:
        """None: the server checks its own pages (data checksums, amcheck); the bot has none to read."""
        return None


def is_postgres_url(target: object) -> bool:
    """Whether a DATABASE_URL (or a test's database target) names PostgreSQL rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))

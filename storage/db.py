"""SQLite behind `storage.database.Database`: one aiosqlite connection per process, numbered migrations, and
serialised transactions."""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from importlib import resources
from pathlib import Path
from typing import TypeVar

import aiosqlite

from storage.database import WriteUnit
from storage.health import (
    UnusableDatabaseError,
    check_database_file,
    check_integrity,
    create_private_file,
    damaged,
    is_damage,
    private_directory,
)
from storage.snapshots import ReadOnlyConnection
from storage.sql import Dialect, Plan, run_sqlite
from storage.writes import GroupCommit, run_sync

log = logging.getLogger(__name__)

T = TypeVar("T")
_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class StorageError(Exception):
    """The database cannot be used as it is (e.g. written by a newer version of the bot)."""


def migrations() -> list[tuple[int, str]]:
    """The numbered migration scripts shipped with the package, in order."""
    found = []
    for entry in resources.files("storage.migrations").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append((int(match.group(1)), entry.read_text(encoding="utf-8")))
    found.sort()
    numbers = [n for n, _ in found]
    if numbers != list(range(1, len(found) + 1)):
        raise StorageError(f"migrations must be numbered 1..n without gaps, found {numbers}")
    return found


LATEST_VERSION = len(migrations())


class SqliteConnection:
    """The database's one aiosqlite connection while a transaction or a lone read holds it: each plan runs on the
    connection's thread in one trip. `raw` is the aiosqlite connection itself, for what only SQLite has (tests that
    trace its statements or count its steps)."""

    dialect = Dialect.SQLITE

    def __init__(self, raw: aiosqlite.Connection) -> None:
        self.raw = raw

    async def run(self, plan: Plan[T]) -> T:
        return await run_plan(self.raw, plan)

    async def begin_writing(self) -> None:
        await begin_writing(self.raw)


class SqliteDatabase:
    """The bot's single SQLite connection (`storage.database.Database`).

    aiosqlite runs every statement on one worker thread, so concurrent coroutines would otherwise
    interleave statements inside each other's transactions. Every use takes `_lock`: a transaction holds
    it from its first statement to COMMIT, and a lone read holds it for that one statement.

    The connection uses sqlite3's implicit transactions with isolation level IMMEDIATE: the first write of
    a `transaction()` block begins the transaction in the same call (one trip to aiosqlite's thread fewer
    per move than an explicit BEGIN). Reads before that first write run while this process holds `_lock`,
    so nothing in the process can change what they saw; writes from another
    process are caught by the version guard on every game write. A write computed from rows that have no version
    guard (ratings, settings, a count or a next number) must read them inside the write transaction:
    `transaction(read_first=True)` (or `begin_writing`) begins it before the first read.

    A write with nothing else to do in its transaction (a move) goes through `write`: the writes waiting at the same
    moment are committed together, in one trip to aiosqlite's thread (storage/writes.py).
    """

    dialect = Dialect.SQLITE

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self._connection = SqliteConnection(conn)  # what transactions and lone reads hand out
        self._lock = asyncio.Lock()
        self._holder: asyncio.Task[object] | None = None
        self.path = path
        # Long reads go to a second, read-only connection (see `read`); an in-memory database has none.
        self._reader = None if str(path) == ":memory:" else ReadOnlyConnection(path)
        self._group = GroupCommit(self._exclusive, path)  # see `write`

    @asynccontextmanager
    async def _exclusive(self) -> AsyncIterator[aiosqlite.Connection]:
        # asyncio.Lock is not re-entrant: a task that reads while its own transaction is open would wait for
        # itself forever. Say so instead of hanging.
        task = asyncio.current_task()
        if task is not None and task is self._holder:
            raise RuntimeError("database used again by the task that holds it (a read inside its own transaction?)")
        async with self._lock:
            self._holder = task
            try:
                yield self._conn
            except sqlite3.DatabaseError as exc:
                if is_damage(exc):  # name the file and what to do, wherever the damaged page was met
                    raise damaged(self.path, exc) from exc
                raise
            finally:
                self._holder = None

    @classmethod
    async def open(cls, path: str | Path, *, migrate_to: int | None = None) -> SqliteDatabase:
        """Open (or create) the database and bring it up to date; a file that cannot be used is refused with an
        `UnusableDatabaseError` (one line) before SQLite changes anything in it."""
        path = Path(path)
        if str(path) != ":memory:":
            check_database_file(path)
            try:
                private_directory(path.parent)
                create_private_file(path)  # SQLite gives its -wal and -shm files the database's mode
            except OSError as exc:
                raise UnusableDatabaseError(
                    f"cannot create the database {path.absolute()}: {exc.strerror or exc}.") from None
        try:
            conn = await aiosqlite.connect(path, isolation_level="IMMEDIATE")
        except sqlite3.Error as exc:
            raise UnusableDatabaseError(f"cannot open the database {path.absolute()}: {exc}.") from None
        conn.row_factory = aiosqlite.Row
        try:
            await conn.execute("PRAGMA busy_timeout = 5000")
            await _use_wal(conn)
            await conn.execute("PRAGMA synchronous = NORMAL")
            await conn.execute("PRAGMA foreign_keys = ON")
            db = cls(conn, path)
            await db.migrate(migrate_to)
        except BaseException as exc:
            await conn.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise (damaged(path, exc) if is_damage(exc) else _unusable(path, exc)) from exc
            raise
        return db

    async def close(self) -> None:
        if self._reader is not None:  # first: the main connection, closing last, tidies the WAL away
            await self._reader.close()
        async with self._exclusive() as conn:
            await conn.close()

    async def schema_version(self) -> int:
        async with self._exclusive() as conn, conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def migrate(self, target: int | None = None) -> None:
        """Apply every migration above the file's `user_version` up to `target` (None: all), each in its own
        transaction.

        Each one reads the version again inside its write transaction: two processes starting together on a new file
        both see version 0 first, and the second must find each migration already applied (and skip it) rather than
        apply it twice and fail."""
        target = LATEST_VERSION if target is None else target
        current = await self.schema_version()
        if current > LATEST_VERSION:
            raise StorageError(
                f"{self.path} has schema version {current}, but this bot only knows up to "
                f"{LATEST_VERSION}: it was written by a newer version of the bot."
            )
        for number, script in migrations():
            if current < number <= target:
                async with self._exclusive() as conn:
                    if await run_sync(conn, partial(_apply_migration, number=number, script=script)):
                        log.info("applied migration %04d", number)

    @asynccontextmanager
    async def transaction(self, *, read_first: bool = False) -> AsyncIterator[SqliteConnection]:
        """Everything the block writes is committed together at its end, or rolled back if it raises.

        With `read_first` the block reads what it then writes from (a read-modify-write without a version
        guard): the write transaction begins before its first read, so no other process can change what it
        reads before its writes commit."""
        async with self._exclusive() as conn:
            try:
                if read_first:
                    await begin_writing(conn)
                yield self._connection
            except BaseException:
                if conn.in_transaction:
                    await conn.rollback()
                raise
            if conn.in_transaction:
                await conn.commit()

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[SqliteConnection]:
        """The connection for reads outside a transaction."""
        async with self._exclusive():
            yield self._connection

    async def write(self, unit: WriteUnit[T]) -> T:
        """Run `unit`'s plan (on the database's thread) in a write transaction shared with the other writes waiting
        now, each in its own savepoint (storage/writes.py: group commit). Returns its value, or raises its error,
        once that transaction is committed; a unit that raises is undone alone."""
        task = asyncio.current_task()
        if task is not None and task is self._holder:
            raise RuntimeError("a group-committed write from inside this task's own transaction would wait forever")
        return await self._group.write(unit)

    async def query(self, plan: Plan[T]) -> T:
        """`plan` (reads only) on the main connection, outside any transaction: it sees what this process wrote last."""
        async with self._exclusive() as conn:
            return await run_plan(conn, plan)

    async def run(self, plan: Plan[T]) -> T:
        """`plan` (storage/sql.py) in a write transaction of its own, in one trip to the database's thread."""
        async with self.transaction() as conn:
            return await conn.run(plan)

    async def read(self, plan: Plan[T]) -> T:
        """Run `plan` (reads only) on the read-only connection, in one read transaction and one trip to its thread: WAL
        lets it read the last committed state while a write is under way, so a long read (ladders, stats) neither
        holds up a move nor waits for one."""
        if self._reader is None:  # an in-memory database has no second connection: read under the lock
            async with self._exclusive() as conn:
                return await run_plan(conn, plan)
        return await self._reader.read(partial(run_sqlite, plan=plan))

    async def with_reader(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """`fn` with the read-only sqlite3 connection itself, on its thread: for what only SQLite has (tests that count
        its steps). Everything else reads through `read`, which PostgreSQL serves too."""
        if self._reader is None:
            async with self._exclusive() as conn:
                return await run_sync(conn, fn)
        return await self._reader.read(fn)

    async def integrity_problems(self) -> list[str]:
        """SQLite's quick_check of the whole file, on a read-only connection of its own (storage/health.py)."""
        return await check_integrity(self.path)


async def run_plan(conn: aiosqlite.Connection, plan: Plan[T]) -> T:
    """`plan` on this connection (in the transaction it has open, if any), in one trip to its thread."""
    return await run_sync(conn, partial(run_sqlite, plan=plan))


async def begin_writing(conn: aiosqlite.Connection) -> None:
    """Begin the write transaction now, if it is not open yet, rather than at the first write: SQLite then holds
    the write lock for this connection, so what it reads next stays current until it commits (another process's
    write waits for it, up to busy_timeout)."""
    if not conn.in_transaction:
        await conn.execute("BEGIN IMMEDIATE")


async def _use_wal(conn: aiosqlite.Connection, attempts: int = 50) -> None:
    """Switch the file to WAL. SQLite refuses at once ("database is locked", without waiting out busy_timeout) while
    another process is switching the same new file or creating its first tables: try again a moment later."""
    for attempt in range(attempts):
        try:
            await conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            await asyncio.sleep(0.1)


def _apply_migration(conn: sqlite3.Connection, number: int, script: str) -> bool:
    """Migration `number`, unless the file already has it (another process applied it): False then. Statement by
    statement rather than `executescript`, which commits first and so would let go of the write lock between the
    check and the script."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        if version >= number:
            conn.rollback()
            return False
        for statement in _statements(script):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
        conn.commit()
    except BaseException:
        if conn.in_transaction:
            conn.rollback()
        raise
    return True


def _statements(script: str) -> list[str]:
    """The SQL statements of `script`, split where SQLite itself says one is complete (a trigger's body included)."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    if pending.strip() and sqlite3.complete_statement(pending + ";"):
        statements.append(pending.strip())
    return [s for s in statements if s.strip(" \n;")]


def _unusable(path: Path, exc: sqlite3.DatabaseError) -> UnusableDatabaseError:
    """One line for an error SQLite gave while opening or upgrading the database (not damage)."""
    return UnusableDatabaseError(f"cannot use the database {path.absolute()}: {exc}; check the file and its directory "
                                 "(free space, permissions, another program holding it).")

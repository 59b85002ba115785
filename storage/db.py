"""One aiosqlite connection per process, numbered migrations, and serialised transactions."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path

import aiosqlite

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


class Database:
    """The bot's single SQLite connection.

    aiosqlite runs every statement on one worker thread, so concurrent coroutines would otherwise
    interleave statements inside each other's transactions. Every use takes `_lock`: a transaction holds
    it from its first statement to COMMIT, and a lone read holds it for that one statement.

    The connection uses sqlite3's implicit transactions with isolation level IMMEDIATE: the first write of
    a `transaction()` block begins the transaction in the same call (one trip to aiosqlite's thread fewer
    per move than an explicit BEGIN, which the benchmark shows). Reads before that first write run while
    this process holds `_lock`, so nothing in the process can change what they saw; writes from another
    process are caught by the version guard on every game write.
    """

    def __init__(self, conn: aiosqlite.Connection, path: Path) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()
        self._holder: asyncio.Task[object] | None = None
        self.path = path

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
            finally:
                self._holder = None

    @classmethod
    async def open(cls, path: str | Path, *, migrate_to: int | None = None) -> Database:
        path = Path(path)
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(path, isolation_level="IMMEDIATE")
        conn.row_factory = aiosqlite.Row
        try:
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            await conn.execute("PRAGMA foreign_keys = ON")
            await conn.execute("PRAGMA busy_timeout = 5000")
            db = cls(conn, path)
            await db.migrate(LATEST_VERSION if migrate_to is None else migrate_to)
        except BaseException:
            await conn.close()
            raise
        return db

    async def close(self) -> None:
        async with self._exclusive() as conn:
            await conn.close()

    async def schema_version(self) -> int:
        async with self.reading() as conn, conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def migrate(self, target: int = LATEST_VERSION) -> None:
        """Apply every migration above the file's `user_version`, each in its own transaction."""
        current = await self.schema_version()
        if current > LATEST_VERSION:
            raise StorageError(
                f"{self.path} has schema version {current}, but this bot only knows up to "
                f"{LATEST_VERSION}: it was written by a newer version of the bot."
            )
        for number, script in migrations():
            if current < number <= target:
                async with self._exclusive():
                    try:
                        # executescript commits any open transaction first, so BEGIN goes inside the script.
                        await self._conn.executescript(
                            f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;"
                        )
                    except Exception:
                        if self._conn.in_transaction:
                            await self._conn.rollback()
                        raise

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """Everything the block writes is committed together at its end, or rolled back if it raises."""
        async with self._exclusive() as conn:
            try:
                yield conn
            except BaseException:
                if conn.in_transaction:
                    await conn.rollback()
                raise
            if conn.in_transaction:
                await conn.commit()

    @asynccontextmanager
    async def reading(self) -> AsyncIterator[aiosqlite.Connection]:
        """The connection for reads outside a transaction."""
        async with self._exclusive() as conn:
            yield conn

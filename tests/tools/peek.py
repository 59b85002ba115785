"""A synchronous look at the bot's database from the test tools (the crash test), on SQLite or PostgreSQL (issue 17).

The tools read while the bot (another process) writes, from plain functions called inside their own running event
loop, so they cannot await and cannot `asyncio.run`:
- SQLite: `sqlite3` on the file, a connection per read (a SIGKILLed bot leaves nothing a fresh connection minds);
  timeout=30, so a read waits out the bot's writes instead of failing.
- PostgreSQL: storage's own `open_database` and `select`, on an event loop of the Peek's own in a background thread;
  opened on the first read and kept (one pool for the whole run).

Statements take `?` placeholders, as storage/sql.py's plans do.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from storage.connection import open_database
from storage.database import Database
from storage.postgres import is_postgres_url
from storage.sql import Plan, run_sqlite, select

T = TypeVar("T")
Target = str | Path  # a SQLite file's path, or a postgresql:// URL
NO_FILE_TO_CHECK = "ok (PostgreSQL: no file to check)"  # what `integrity` says where there is no PRAGMA to run
WAIT = 120.0  # a PostgreSQL read taking longer than this is a hang: it raises rather than blocking the run forever


class Peek:
    """Reads of one database, from synchronous code."""

    def __init__(self, target: Target, *, keep_open: bool = False) -> None:
        self.target = target
        self.postgres = is_postgres_url(target)
        # SQLite: one read-only connection for every read, for a writer in this process that is never killed (the
        # fuzzer's bot); `written` needs it (SQLite's data_version is counted per connection).
        self._kept: sqlite3.Connection | None = None
        if keep_open and not self.postgres:
            self._kept = sqlite3.connect(f"file:{target}?mode=ro", uri=True, timeout=30, isolation_level=None)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._db: Database | None = None

    def exists(self) -> bool:
        """Whether there is anything to read yet (a SQLite file appears when the bot first opens it; connecting
        before that would create an empty one under it)."""
        return self.postgres or Path(self.target).exists()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.read(select(sql, params))

    def first(self, sql: str, params: Sequence[Any] = ()) -> tuple[Any, ...] | None:
        """The first row `sql` finds, or None."""
        found = self.rows(sql, params)
        return found[0] if found else None

    def tables(self) -> list[str]:
        """The names of the database's tables (the bot's schema; on SQLite also its own sqlite_sequence)."""
        if self.postgres:
            return [str(r[0]) for r in self.rows(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                "AND table_type = 'BASE TABLE'")]
        return [str(r[0]) for r in self.rows("SELECT name FROM sqlite_master WHERE type = 'table'")]

    def written(self) -> str:
        """A mark that changes whenever a transaction that wrote has ended since the last call, and often stays the
        same otherwise: where it stays the same, nothing was written (a changed mark may still be a write that
        changed nothing, or, on PostgreSQL, another database's write: compare content to be sure).
        - SQLite (keep_open only): `PRAGMA data_version`, which counts other connections' commits.
        - PostgreSQL: the server's current snapshot, xmin:xmax:in-progress ids. A transaction that wrote holds a
          transaction id, and its end either moves xmax past it or takes it out of the in-progress list; reads
          (ours included) hold none."""
        if self.postgres:
            return str(self.rows("SELECT pg_current_snapshot()::text")[0][0])
        if self._kept is None:
            raise RuntimeError("written() on SQLite needs Peek(..., keep_open=True)")
        with self._lock:
            return str(self._kept.execute("PRAGMA data_version").fetchone()[0])

    def read(self, plan: Plan[T]) -> T:
        """`plan` (reads only: storage/sql.py) seeing one state of the database, however many statements it runs."""
        if self._kept is not None:
            with self._lock:
                return self._sqlite_read(self._kept, plan)
        if not self.postgres:
            conn = sqlite3.connect(self.target, timeout=30, isolation_level=None)
            try:
                return self._sqlite_read(conn, plan)
            finally:
                conn.close()
        return self._read_postgres(plan)

    @staticmethod
    def _sqlite_read(conn: sqlite3.Connection, plan: Plan[T]) -> T:
        conn.execute("BEGIN")  # deferred: one snapshot from the first read to the end, no lock held
        try:
            return run_sqlite(conn, plan)
        finally:
            conn.execute("ROLLBACK")

    def close(self) -> None:
        with self._lock:
            loop, thread, db, kept = self._loop, self._thread, self._db, self._kept
            self._loop = self._thread = self._db = self._kept = None
        if kept is not None:
            kept.close()
        if loop is None or thread is None:
            return
        try:
            if db is not None:
                # The server may be gone already (a test's throwaway one): closing is then all there is to do.
                with contextlib.suppress(Exception):
                    asyncio.run_coroutine_threadsafe(db.close(), loop).result(30)
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(30)
            if not thread.is_alive():
                loop.close()

    def _read_postgres(self, plan: Plan[T]) -> T:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name=f"peek {self.target}", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            loop = self._loop
            if self._db is None:
                self._db = asyncio.run_coroutine_threadsafe(open_database(str(self.target)), loop).result(WAIT)
            db = self._db
        # A repeatable-read transaction: the plan's statements agree with each other, as the SQLite half's do.
        return asyncio.run_coroutine_threadsafe(db.read(plan), loop).result(WAIT)


_shared: dict[str, Peek] = {}
_shared_lock = threading.Lock()


def peek_at(target: Target) -> Peek:
    """The Peek the tools share for `target`: the readers take a target, and a PostgreSQL pool is opened once, not
    at every read (the timer watch reads twenty times a second). `close_peeks` closes them all."""
    key = str(target)
    with _shared_lock:
        peek = _shared.get(key)
        if peek is None:
            peek = _shared[key] = Peek(target)
        return peek


def close_peeks() -> None:
    """Close every shared Peek (a PostgreSQL database cannot be dropped while a pool is connected to it)."""
    with _shared_lock:
        peeks = list(_shared.values())
        _shared.clear()
    for peek in peeks:
        peek.close()


atexit.register(close_peeks)  # a run that did not close them still leaves no pool half-open at exit


def json_value(value: Any) -> Any:
    """A JSON column's value: text on both databases today, decoded; already decoded if a driver ever does it."""
    return json.loads(value) if isinstance(value, str | bytes) else value

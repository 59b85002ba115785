"""A second, read-only connection for long reads (ladders, stats), so that they never hold up a move."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote

from storage.health import damaged, is_damage

T = TypeVar("T")


class ReadOnlyConnection:
    """Reads on a connection of their own, opened read-only (`mode=ro`), in a thread of their own.

    In WAL mode SQLite lets this connection read the last committed state while the main one writes, so a long
    read neither takes the lock every move waits on nor waits for it. `read(fn)` runs `fn` in one read transaction
    (its statements see one state of the database: a page, the number of pages and the caller's place agree) and in
    one call to the thread, however many statements it runs: each trip between the event loop and a worker thread
    costs a wake-up on both sides, which under load queues behind everything else the loop has to do. Reads take
    turns in that one thread. The connection is opened on first use: most processes never page a ladder."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="db-reader")
        self._closed = False

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._closed:
            raise RuntimeError("the database is closed")
        return await asyncio.get_running_loop().run_in_executor(self._thread, self._snapshot, fn)

    def _snapshot(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        if self._conn is None:
            # isolation_level None: the read transaction is begun and ended here, explicitly.
            conn = sqlite3.connect(f"file:{quote(str(self.path.absolute()))}?mode=ro", uri=True, isolation_level=None)
            conn.execute("PRAGMA busy_timeout = 5000")
            self._conn = conn
        conn = self._conn
        conn.execute("BEGIN")
        try:
            return fn(conn)
        except sqlite3.DatabaseError as exc:
            if is_damage(exc):  # as the main connection does: name the file and what to do
                raise damaged(self.path, exc) from exc
            raise
        finally:
            conn.execute("ROLLBACK")  # ends the read transaction; nothing was written

    def _close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        await asyncio.get_running_loop().run_in_executor(self._thread, self._close)  # after the reads queued before
        self._thread.shutdown(wait=True)

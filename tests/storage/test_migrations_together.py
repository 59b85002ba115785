"""Issue 17: two processes starting together on a new database (a SQLite file, or PostgreSQL) apply each migration
once; neither fails."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from storage.connection import open_database
from storage.db import LATEST_VERSION
from storage.sql import select

ROOT = Path(__file__).resolve().parents[2]

# Each process waits for the starting signal (a file appearing), then opens (and so migrates) the database.
OPEN_WHEN_TOLD = """
import asyncio, sys, time
from pathlib import Path
from storage.connection import open_database
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.001)
async def main():
    db = await open_database(sys.argv[1])
    await db.close()
asyncio.run(main())
"""


def test_two_processes_starting_together_migrate_once(tmp_path: Path) -> None:
    for attempt in range(4):  # the race is on the first statements: a few rounds make a miss unlikely
        database, go = tmp_path / f"bot{attempt}.sqlite3", tmp_path / f"go{attempt}"
        _start_together(str(database), go)
        conn = sqlite3.connect(database)
        try:
            assert conn.execute("PRAGMA user_version").fetchone() == (LATEST_VERSION,)
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            conn.close()


async def test_two_processes_starting_together_on_postgresql_migrate_once(postgres_url: str, tmp_path: Path) -> None:
    """Of two processes starting together on an empty PostgreSQL database, one migrates under the advisory lock and the
    other then finds the work done."""
    await asyncio.to_thread(_start_together, postgres_url, tmp_path / "go")
    db = await open_database(postgres_url)
    try:
        assert await db.schema_version() == LATEST_VERSION
        assert await db.query(select("SELECT count(*) FROM schema_version")) == [(1,)]
    finally:
        await db.close()


def _start_together(database: str, go: Path) -> None:
    """Two OS processes open `database` at the same moment (after both have imported the bot's storage)."""
    processes = [subprocess.Popen([sys.executable, "-c", OPEN_WHEN_TOLD, database, str(go)], cwd=ROOT,
                                  stderr=subprocess.PIPE, text=True) for _ in range(2)]
    time.sleep(1.0)  # both have imported the bot's storage and are waiting
    go.touch()
    errors = [process.communicate(timeout=60)[1] for process in processes]
    assert [process.returncode for process in processes] == [0, 0], errors

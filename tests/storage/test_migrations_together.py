"""Issue 17: two processes starting together on a new database file apply each migration once; neither fails."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from storage.db import LATEST_VERSION

ROOT = Path(__file__).resolve().parents[2]

# Each process waits for the starting signal (a file appearing), then opens (and so migrates) the database.
OPEN_WHEN_TOLD = """
import asyncio, sys, time
from pathlib import Path
from storage import Database
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.001)
async def main():
    db = await Database.open(sys.argv[1])
    await db.close()
asyncio.run(main())
"""


def test_two_processes_starting_together_migrate_once(tmp_path: Path) -> None:
    for attempt in range(4):  # the race is on the first statements: a few rounds make a miss unlikely
        database, go = tmp_path / f"bot{attempt}.sqlite3", tmp_path / f"go{attempt}"
        processes = [subprocess.Popen([sys.executable, "-c", OPEN_WHEN_TOLD, str(database), str(go)], cwd=ROOT,
                                      stderr=subprocess.PIPE, text=True) for _ in range(2)]
        time.sleep(1.0)  # both have imported the bot's storage and are waiting
        go.touch()
        errors = [process.communicate(timeout=60)[1] for process in processes]
        assert [process.returncode for process in processes] == [0, 0], errors
        conn = sqlite3.connect(database)
        try:
            assert conn.execute("PRAGMA user_version").fetchone() == (LATEST_VERSION,)
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            conn.close()

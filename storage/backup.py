"""Back up the database while the bot runs, and restore a backup (with the bot stopped).

A backup uses SQLite's online backup API, so it is a consistent snapshot even while games are being
played; every backup is checked with PRAGMA integrity_check before it is reported as good. The command is
`python -m bot.backup` (it reads the bot's settings).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from storage.health import create_private_file, private_directory


class BackupError(Exception):
    """Why a backup or a restore could not be made; one line for the admin."""


def _check(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        result = conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()
    if result != "ok":
        raise BackupError(f"{path} failed its integrity check: {result}")


def save(database: Path, destination: Path) -> None:
    """A consistent copy of `database` at `destination`, taken while other connections may be writing."""
    if not database.is_file():
        raise BackupError(f"There is no database at {database}.")
    if destination.exists():
        raise BackupError(f"{destination} already exists; choose a new file name.")
    private_directory(destination.parent)
    create_private_file(destination)  # a backup holds everything the database does: owner-only, like it
    source = sqlite3.connect(database)
    target = sqlite3.connect(destination)
    try:
        source.backup(target)
    finally:
        target.close()
        source.close()
    _check(destination)


def restore(backup: Path, database: Path) -> None:
    """Replace `database` by `backup` (the bot must be stopped); the old file is kept beside it."""
    if not backup.is_file():
        raise BackupError(f"There is no backup at {backup}.")
    _check(backup)
    if database.exists():
        kept = database.with_name(database.name + ".before-restore")
        if kept.exists():
            raise BackupError(f"{kept} already exists; move it away first.")
        save(database, kept)  # through the backup API, so a pending WAL is included
        for suffix in ("", "-wal", "-shm"):
            Path(str(database) + suffix).unlink(missing_ok=True)
    save(backup, database)

"""Opening the database a target names: a PostgreSQL URL or a SQLite file's path, as `storage.database.Database`."""

from __future__ import annotations

from pathlib import Path

from storage.database import Database
from storage.db import SqliteDatabase
from storage.postgres import PostgresDatabase, is_postgres_url


async def open_database(target: str | Path, *, migrate_to: int | None = None) -> Database:
    """The database at `target` (postgresql://... or a SQLite file's path), migrated up to `migrate_to` (None: to the
    latest migration)."""
    if is_postgres_url(target):
        return await PostgresDatabase.open(str(target), migrate_to=migrate_to)
    return await SqliteDatabase.open(target, migrate_to=migrate_to)

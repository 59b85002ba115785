"""The connection a transaction hands out, whichever the database: SQLite's (aiosqlite) or PostgreSQL's (issue 17).

Storage code written as plans (storage/sql.py) runs on either through `run`; `dialect_of` says which one it is for
the few statements that differ."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import aiosqlite

from storage.db import Database, run_plan
from storage.db import begin_writing as begin_sqlite_writing
from storage.postgres import PgConnection, PostgresDatabase, is_postgres_url
from storage.sql import READ_FIRST, Dialect, Plan

T = TypeVar("T")
Connection = aiosqlite.Connection | PgConnection
AnyDatabase = Database | PostgresDatabase  # what the stores and the service are given


async def open_database(target: str | Path, *, migrate_to: int | None = None) -> AnyDatabase:
    """The database at `target`: a PostgreSQL URL (postgresql://...) or a SQLite file's path."""
    if is_postgres_url(target):
        return await PostgresDatabase.open(str(target), migrate_to=migrate_to)
    return await Database.open(target, migrate_to=migrate_to)


async def run(conn: Connection, plan: Plan[T]) -> T:
    """`plan` on `conn`, inside whatever transaction `conn` has open."""
    if isinstance(conn, PgConnection):
        return await conn.run(plan)
    return await run_plan(conn, plan)


def dialect_of(conn: Connection) -> Dialect:
    return Dialect.POSTGRESQL if isinstance(conn, PgConnection) else Dialect.SQLITE


async def begin_writing(conn: Connection) -> None:
    """From now until the commit, what this transaction reads stays as it read it (see `Database.transaction`'s
    `read_first`): SQLite takes its write lock now; PostgreSQL takes the lock read-first transactions share."""
    if isinstance(conn, PgConnection):
        await conn.execute(READ_FIRST)
    else:
        await begin_sqlite_writing(conn)

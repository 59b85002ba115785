"""Both backends are one `storage.database.Database`: the same methods with the same signatures (mypy --strict checks
the assignments below), and the same answers to the same calls."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from storage.connection import open_database
from storage.database import Connection, Database, WriteUnit
from storage.db import LATEST_VERSION, SqliteConnection, SqliteDatabase
from storage.postgres import PgConnection, PostgresDatabase
from storage.sql import Dialect, Plan, Sql, select


def _as_interfaces(sqlite: SqliteDatabase, postgres: PostgresDatabase, sqlite_conn: SqliteConnection,
                   postgres_conn: PgConnection) -> tuple[Database, Database, Connection, Connection]:
    """Never called: mypy --strict refuses this function if either backend (or its connection) leaves the interface
    out or differs from it in a signature."""
    return sqlite, postgres, sqlite_conn, postgres_conn


@dataclass(frozen=True)
class _Note:
    """A write unit of the test's own: one row, its id back."""

    text: str

    def plan(self) -> Plan[int]:
        done = yield Sql("INSERT INTO notes (text) VALUES (?) RETURNING id", (self.text,))
        return int(done.value())


@pytest.fixture
async def db(database_target: str) -> AsyncIterator[Database]:
    database = await open_database(database_target)
    await database.run(_create_notes(database.dialect))
    yield database
    await database.close()


def _create_notes(dialect: Dialect) -> Plan[None]:
    key = "INTEGER PRIMARY KEY" if dialect is Dialect.SQLITE else "BIGSERIAL PRIMARY KEY"
    yield Sql(f"CREATE TABLE notes (id {key}, text TEXT NOT NULL)")


async def test_every_way_in_answers_alike_on_both(db: Database) -> None:
    unit: WriteUnit[int] = _Note("written")
    assert await db.write(unit) == 1
    async with db.transaction(read_first=True) as conn:
        assert await conn.run(select("SELECT count(*) FROM notes")) == [(1,)]
        await conn.begin_writing()  # a second time inside the same transaction changes nothing
        assert await conn.run(_Note("in a transaction").plan()) == 2
    assert await db.run(_Note("run").plan()) == 3
    async with db.reading() as conn:
        assert conn.dialect is db.dialect
        assert await conn.run(select("SELECT text FROM notes ORDER BY id")) == [
            ("written",), ("in a transaction",), ("run",)]
    assert await db.query(select("SELECT max(id) FROM notes")) == [(3,)]
    assert await db.read(select("SELECT count(*) FROM notes")) == [(3,)]
    assert await db.schema_version() == LATEST_VERSION
    await db.migrate()  # already there: nothing to do


async def test_a_transaction_that_raises_writes_nothing_on_both(db: Database) -> None:
    with pytest.raises(LookupError):
        async with db.transaction() as conn:
            await conn.run(_Note("undone").plan())
            raise LookupError
    assert await db.query(select("SELECT count(*) FROM notes")) == [(0,)]


async def test_only_sqlite_leaves_the_bot_pages_to_check(db: Database) -> None:
    """SQLite's file is checked by the bot ([]: sound); a PostgreSQL server checks its own pages (None)."""
    expected: list[str] | None = [] if db.dialect is Dialect.SQLITE else None
    assert await db.integrity_problems() == expected

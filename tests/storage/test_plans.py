"""Issue 17: one piece of storage code (a plan, storage/sql.py) runs the same on SQLite and on PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from storage.connection import open_database
from storage.database import Database
from storage.sql import Dialect, Plan, Sql, numbered


@pytest.fixture
async def database(database_target: str) -> AsyncIterator[Database]:
    db = await open_database(database_target)
    try:
        yield db
    finally:
        await db.close()


def _statements_and_answers(dialect: Dialect) -> Plan[dict[str, Any]]:
    seen: dict[str, Any] = {}
    yield Sql("CREATE TABLE things (id BIGINT PRIMARY KEY, name TEXT NOT NULL, size DOUBLE PRECISION)")
    seen["inserted"] = (yield Sql("INSERT INTO things (id, name, size) VALUES (?, ?, ?), (?, ?, ?)",
                                  (1, "a?", 1.5, 2, "b", None))).rowcount
    yield Sql("INSERT INTO things (id, name) VALUES (?, ?)", [(3, "c"), (4, "d")], many=True)
    seen["updated"] = (yield Sql("UPDATE things SET name = name || '?' WHERE id > ?", (1,))).rowcount
    # A '?' inside a quoted string is text, not a placeholder, on both.
    quoted = yield Sql("SELECT id, name FROM things WHERE name = 'b?' OR id = ? ORDER BY id", (4,))
    seen["quoted"] = [tuple(r) for r in quoted.rows]
    seen["returned"] = (yield Sql("DELETE FROM things WHERE id = ? RETURNING name", (3,))).value()
    # Discord ids do not fit 32 bits
    seen["big"] = (yield Sql("INSERT INTO things (id, name) VALUES (?, 'big') RETURNING id + 1", (2**53,))).value()
    yield Sql("DELETE FROM things WHERE name = 'big'")
    # A plan may catch a statement's error (inside a savepoint, which both undo alike) and go on.
    yield Sql("SAVEPOINT attempt")
    try:
        yield Sql("INSERT INTO things (id, name) VALUES (?, NULL)", (9,))
    except Exception as exc:
        seen["refused"] = type(exc).__name__
        yield Sql("ROLLBACK TO attempt")
    yield Sql("RELEASE attempt")
    seen["count"] = (yield Sql("SELECT COUNT(*) FROM things")).value()
    seats = dialect.json_rows("id, name", "things WHERE id < ?", "id DESC")
    seen["seats"] = (yield Sql(f"SELECT {seats}", (3,))).value()
    return seen


async def test_a_plan_reads_and_writes_alike_on_both(database: Database) -> None:
    seen = await database.run(_statements_and_answers(database.dialect))
    refused = seen.pop("refused")
    assert refused in ("IntegrityError", "NotNullViolationError")
    assert seen == {"inserted": 2, "updated": 3, "quoted": [(2, "b?"), (4, "d?")], "returned": "c?",
                    "big": 2**53 + 1, "count": 3, "seats": '[[2,"b?"],[1,"a?"]]'.replace(",", ", ")
                    if database.dialect is Dialect.POSTGRESQL else '[[2,"b?"],[1,"a?"]]'}


def test_placeholders_are_numbered_outside_quoted_text() -> None:
    assert numbered("SELECT ? , '?', 'it''s ?', ?") == "SELECT $1 , '?', 'it''s ?', $2"

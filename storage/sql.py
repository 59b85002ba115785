"""Statements as data, so that one piece of storage code serves SQLite and PostgreSQL.

A *plan* is a generator that yields `Sql` statements and receives each one's `Done` (its rows and row count), and
finally returns its value:

    def lobby_members(lobby_id: int) -> Plan[list[int]]:
        done = yield Sql("SELECT user_id FROM lobby_members WHERE lobby_id = ? ORDER BY position", (lobby_id,))
        return [int(row[0]) for row in done.rows]

The plan does not know which database runs it. SQLite runs a whole plan on its connection's thread in one trip
(`run_sqlite`: the event loop wakes once per plan, not once per statement), PostgreSQL awaits each statement on its
connection (`run_awaiting`). An error of a statement is raised inside the plan at its `yield`, so a plan can catch it
(a savepoint's ROLLBACK TO), and otherwise leaves the plan as it would leave a function.

Statements use `?` placeholders, written once: PostgreSQL's `$1, $2, ...` are made from them (`numbered`). What
differs between the two dialects is asked of `Dialect` (the few places are named there), never spelled twice.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


# SQLite's clock with sub-second precision: unixepoch('subsec') from SQLite 3.42, a Julian day before (the same seconds,
# to the millisecond).
_SQLITE_CLOCK = ("unixepoch('subsec')" if sqlite3.sqlite_version_info >= (3, 42, 0)
                 else "((julianday('now') - 2440587.5) * 86400.0)")


class Dialect(Enum):
    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"

    def json_rows(self, columns: str, source: str, order: str) -> str:
        """A JSON array of one array per row, `[[a, b], ...]`, of `columns` from `source` (a table and its WHERE)
        in `order`: one statement reads a record with its child rows (a game's seats, a lobby's members)."""
        if self is Dialect.SQLITE:
            return f"(SELECT json_group_array(json_array({columns})) FROM (SELECT * FROM {source} ORDER BY {order}))"
        return f"(SELECT COALESCE(json_agg(json_build_array({columns}) ORDER BY {order}), '[]')::text FROM {source})"

    def json_values(self, column: str, source: str, order: str) -> str:
        """A JSON array of one column's values, `[a, b, ...]`, from `source` (a table and its WHERE) in `order`."""
        if self is Dialect.SQLITE:
            return f"(SELECT json_group_array({column}) FROM (SELECT {column} FROM {source} ORDER BY {order}))"
        return f"(SELECT COALESCE(json_agg({column} ORDER BY {order}), '[]')::text FROM {source})"

    @property
    def clock(self) -> str:
        """The database's clock, in seconds since the epoch, as SQL: what decides when a lease runs out
        (storage/leases.py), the same for every process sharing the database whatever its own clock says. SQLite's
        'now' is the same within one statement; PostgreSQL's clock_timestamp() is the moment itself (now() would be
        the transaction's start)."""
        if self is Dialect.SQLITE:
            return _SQLITE_CLOCK
        return "EXTRACT(EPOCH FROM clock_timestamp())::double precision"

    @property
    def for_update(self) -> str:
        """Appended to a SELECT whose rows the transaction goes on to write from: PostgreSQL then locks them until it
        commits. (SQLite's write transaction already holds the whole file: `read_first`.)"""
        return "" if self is Dialect.SQLITE else " FOR UPDATE"


@dataclass(frozen=True)
class Sql:
    """One statement: `params` for one execution, or with `many` a sequence of parameter rows."""

    text: str
    params: Sequence[Any] = ()
    many: bool = False


@dataclass(frozen=True)
class Done:
    """What a statement gave back: its rows (for a SELECT or a RETURNING) and how many rows it changed."""

    rows: list[Sequence[Any]] = field(default_factory=list)
    rowcount: int = 0

    def one(self) -> Sequence[Any] | None:
        return self.rows[0] if self.rows else None

    def value(self) -> Any:
        """The first column of the first row (None without a row)."""
        return self.rows[0][0] if self.rows else None


Plan = Generator[Sql, Done, T]

def statement(text: str, params: Sequence[Any] = ()) -> Plan[Done]:
    """One statement as a plan, with what it gave back (its rows, its row count)."""
    return (yield Sql(text, params))


def select(text: str, params: Sequence[Any] = ()) -> Plan[list[tuple[Any, ...]]]:
    """The rows of one query as tuples, as a plan (a read on its own, e.g. `await db.query(select(...))`)."""
    return [tuple(row) for row in (yield Sql(text, params)).rows]


# Yielded by a plan before it reads rows it will write from without a version guard (ratings, settings, a count or a
# next number): from here to the commit nothing it reads can change under it. SQLite begins its write transaction now
# (if it has not yet: its writers then take turns); PostgreSQL takes the lock every such transaction takes.
READ_FIRST = Sql("-- read first")


# ----- SQLite: a whole plan in one call on the connection's thread ------------------------------------------------
def run_sqlite(conn: sqlite3.Connection, plan: Plan[T]) -> T:
    """Run `plan` to its end on a sqlite3 connection (on the thread that owns the connection)."""
    return _drive(plan, lambda statement: _sqlite_execute(conn, statement))


def _sqlite_execute(conn: sqlite3.Connection, statement: Sql) -> Done:
    if statement is READ_FIRST:
        if not conn.in_transaction:
            conn.execute("BEGIN IMMEDIATE")
        return Done()
    if statement.many:
        cur = conn.executemany(statement.text, statement.params)
        return Done([], cur.rowcount)
    cur = conn.execute(statement.text, statement.params)
    rows = cur.fetchall() if cur.description is not None else []
    return Done(rows, cur.rowcount)


def _drive(plan: Plan[T], execute: Callable[[Sql], Done]) -> T:
    try:
        statement = next(plan)
        while True:
            try:
                done = execute(statement)
            except Exception as exc:
                statement = plan.throw(exc)
            else:
                statement = plan.send(done)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]  # a generator's return value is untyped at StopIteration


# ----- PostgreSQL: each statement awaited ------------------------------------------------------------------------
class AsyncExecutor(Protocol):
    def __call__(self, statement: Sql) -> Awaitable[Done]: ...


async def run_awaiting(execute: AsyncExecutor, plan: Plan[T]) -> T:
    """Run `plan` to its end, awaiting each statement with `execute`."""
    try:
        statement = next(plan)
        while True:
            try:
                done = await execute(statement)
            except Exception as exc:
                statement = plan.throw(exc)
            else:
                statement = plan.send(done)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]


_PLACEHOLDER = re.compile(r"'(?:[^']|'')*'|\?")


@lru_cache(maxsize=1024)
def numbered(text: str) -> str:
    """`?` placeholders as PostgreSQL's `$1, $2, ...` (a `?` inside a quoted string is left alone)."""
    count = 0

    def number(match: re.Match[str]) -> str:
        nonlocal count
        if match.group(0) != "?":
            return match.group(0)
        count += 1
        return f"${count}"

    return _PLACEHOLDER.sub(number, text)


@lru_cache(maxsize=1024)
def returns_rows(text: str) -> bool:
    """Whether a statement gives rows back (a query, or a write with RETURNING)."""
    head = text.lstrip().split(None, 1)[0].upper() if text.strip() else ""
    return head in ("SELECT", "WITH", "VALUES", "PRAGMA") or " RETURNING " in f" {text.upper()} "

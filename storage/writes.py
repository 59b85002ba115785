"""Group commit: the writes waiting at one moment go to the database together, in one transaction and in one trip
to aiosqlite's thread.

Why: a trip to that thread costs tens of microseconds even when it is idle, and a transaction of several
statements made one trip at a time holds the database (and every other move) for all of those trips. Here a
write is a plan (a "unit", storage/database.py `WriteUnit`); the units waiting when the database comes free run back
to back in one call on its thread, between one BEGIN IMMEDIATE and one COMMIT.

What each caller still gets on its own:
- its unit runs inside a savepoint, so a unit that raises (a stale version) is undone alone and the others
  commit;
- its answer comes only once the COMMIT that holds its unit has returned: nothing is acknowledged before it is
  committed (a failed COMMIT fails every unit of that group).
Reads and ordinary transactions take the same lock as a group, in the order they asked, so they are never
starved and only ever see committed data.

Units of one kind may also be written `together` (plain moves: storage/game_writes.py): a few statements for all of
them, so that SQLite does the work without the interpreter lock and the event loop runs meanwhile; each unit's
outcome is still its own, and if those statements fail, the units go one by one instead.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, TypeVar, cast

import aiosqlite

from storage.database import WriteUnit
from storage.health import damaged, is_damage
from storage.sql import run_sqlite

T = TypeVar("T")
# Writes per group at most. With many games at once every waiting move would otherwise join one group, the event loop
# would sit idle while SQLite writes it and the database's thread while the loop prepares the next: smaller groups
# let the two overlap (SQLite works without the interpreter lock), and too small ones cost a commit each.
MAX_GROUP = 500


async def run_sync(conn: aiosqlite.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
    """Run `work` with the underlying sqlite3 connection on aiosqlite's thread, in one trip whatever the number of
    statements. (aiosqlite has no public way to do this; `_execute` is how its own methods reach the thread.)"""
    execute = cast(Callable[[Callable[[], T]], Awaitable[T]], conn._execute)
    return await execute(lambda: work(conn._conn))


class GroupCommit:
    """The queue of units waiting for the next group, and the task that writes it."""

    def __init__(self, exclusive: Callable[[], AbstractAsyncContextManager[aiosqlite.Connection]], path: Path,
                 max_group: int = MAX_GROUP) -> None:
        self._exclusive = exclusive
        self._path = path
        self._waiting: list[tuple[WriteUnit[Any], asyncio.Future[Any]]] = []
        self._writer: asyncio.Task[None] | None = None  # the task that will take the waiting units
        self.max_group = max_group

    async def write(self, unit: WriteUnit[T]) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiting.append((unit, future))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write_group(), name="group-commit")
        return await future

    async def _write_group(self) -> None:
        group: list[tuple[WriteUnit[Any], asyncio.Future[Any]]] = []
        try:
            async with self._exclusive() as conn:
                # What waits now joins (up to `max_group`; the rest go next, in a new task queued behind this one and
                # any reads); what arrives from now on waits for that next group.
                group, self._waiting = self._waiting[:self.max_group], self._waiting[self.max_group:]
                self._writer = asyncio.create_task(self._write_group(), name="group-commit") if self._waiting else None
                outcomes = await run_sync(conn, lambda raw: _apply_group(raw, [unit for unit, _ in group]))
        except BaseException as exc:
            if self._writer is asyncio.current_task():  # failed before taking a group: so does everything waiting
                group, self._waiting, self._writer = self._waiting, [], None
            for _, future in group:
                if future.done():
                    continue
                if isinstance(exc, Exception):
                    future.set_exception(exc)
                else:  # this task was cancelled (the loop is closing): so are the writes it had not yet done
                    future.cancel()
            if not isinstance(exc, Exception):
                raise
            return
        for (_, future), (ok, value) in zip(group, outcomes, strict=True):
            if future.done():  # its caller was cancelled: the write stands (it is committed), nobody to tell
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(damaged(self._path, value) if is_damage(value) else value)


def _apply_group(conn: sqlite3.Connection, units: list[WriteUnit[Any]]) -> list[tuple[bool, Any]]:
    """On the database's thread, in one transaction: (ok, value or error) per unit.

    A unit with a `together` function (plain moves) is written with the others of its kind by that function, in one
    savepoint, which may leave some of them (None) to go alone; if it fails outright, they all go alone. Every other
    unit goes alone, in its own savepoint."""
    outcomes: list[tuple[bool, Any] | None] = [None] * len(units)
    if not conn.in_transaction:
        conn.execute("BEGIN IMMEDIATE")
    try:
        kinds: dict[Callable[[sqlite3.Connection, list[Any]], list[tuple[bool, Any] | None]], list[int]] = {}
        for index, unit in enumerate(units):
            together = getattr(unit, "together", None)
            if together is not None:
                kinds.setdefault(together, []).append(index)
        for together, indexes in kinds.items():
            if len(indexes) > 1:
                conn.execute("SAVEPOINT together")
                try:
                    results = together(conn, [units[i] for i in indexes])
                except Exception:
                    conn.execute("ROLLBACK TO together")
                    results = [None] * len(indexes)
                conn.execute("RELEASE together")
                for index, result in zip(indexes, results, strict=True):
                    outcomes[index] = result
        for index, unit in enumerate(units):
            if outcomes[index] is None:
                outcomes[index] = _alone(conn, unit)
        conn.commit()
    except BaseException:
        if conn.in_transaction:
            conn.rollback()
        raise
    return [outcome for outcome in outcomes if outcome is not None]


def _alone(conn: sqlite3.Connection, unit: WriteUnit[Any]) -> tuple[bool, Any]:
    conn.execute("SAVEPOINT unit")
    try:
        value = run_sqlite(conn, unit.plan())
    except Exception as exc:
        conn.execute("ROLLBACK TO unit")
        conn.execute("RELEASE unit")
        return False, exc
    conn.execute("RELEASE unit")
    return True, value

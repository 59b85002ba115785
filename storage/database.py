"""What storage code and the service are given: a database, and the connection its transactions hand out.

Both backends implement these with the same signatures: SQLite (storage/db.py, one file and one connection per
process) and PostgreSQL (storage/postgres.py, a pool of connections shared by several processes). Code written
against them runs on either; where the SQL of the two differs it asks `dialect` (storage/sql.py), never which
backend it has.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Protocol, TypeVar

from storage.sql import Dialect, Plan

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class Connection(Protocol):
    """A connection as a transaction (or a lone read) holds it: it runs plans inside whatever transaction it has."""

    @property
    def dialect(self) -> Dialect:
        """The SQL this connection speaks, for the few statements that differ between the two databases."""
        ...

    async def run(self, plan: Plan[T]) -> T:
        """`plan`'s statements, in this connection's transaction if it has one open; returns the plan's value."""
        ...

    async def begin_writing(self) -> None:
        """From now until the commit, what this transaction reads stays as it read it: for a write computed from rows
        that no version guards (ratings, settings, a count or a next number)."""
        ...


class WriteUnit(Protocol[T_co]):
    """A write with nothing else in its transaction (a move), given as a plan: what `Database.write` takes."""

    def plan(self) -> Plan[T_co]: ...


class Database(Protocol):
    """The bot's database: transactions, lone reads and writes, its schema's version, and closing it."""

    @property
    def dialect(self) -> Dialect:
        """The SQL this database speaks (storage/sql.py)."""
        ...

    @property
    def path(self) -> Path | str:
        """What logs and messages name: the SQLite file, or the PostgreSQL URL without its password."""
        ...

    async def close(self) -> None: ...

    async def schema_version(self) -> int:
        """The number of the last migration applied to the database (0 for a new one)."""
        ...

    async def migrate(self, target: int | None = None) -> None:
        """Apply every migration above the database's version up to `target` (None: all of them)."""
        ...

    def transaction(self, *, read_first: bool = False) -> AbstractAsyncContextManager[Connection]:
        """A connection whose writes in the block commit together at its end, or are rolled back if it raises.

        With `read_first` the block reads what it then writes from without a version guard: the transaction then
        begins before its first read (`Connection.begin_writing`), so no other process changes what it read before
        its writes commit."""
        ...

    def reading(self) -> AbstractAsyncContextManager[Connection]:
        """A connection for reads outside any transaction."""
        ...

    async def write(self, unit: WriteUnit[T]) -> T:
        """`unit` in a transaction of its own; returns its plan's value once committed. SQLite commits the units
        waiting at the same moment together (storage/writes.py), PostgreSQL writes them side by side."""
        ...

    async def query(self, plan: Plan[T]) -> T:
        """`plan` (reads only) outside any transaction: it sees what this process wrote last."""
        ...

    async def read(self, plan: Plan[T]) -> T:
        """`plan` (reads only) in one read transaction that sees one state of the database, so that its statements
        agree (a page, the number of pages, the caller's place), without waiting for a write under way."""
        ...

    async def run(self, plan: Plan[T]) -> T:
        """`plan` in a write transaction of its own; returns its value once committed."""
        ...

    async def integrity_problems(self) -> list[str] | None:
        """What a read of every stored page finds damaged ([] when nothing is), for the bot's background check after
        it starts; None when the database server checks its own pages and there is nothing for the bot to read."""
        ...


class Store:
    """The base of a store of one kind of rows (storage/*.py): it reads and writes them through `db`."""

    def __init__(self, db: Database) -> None:
        self._db = db

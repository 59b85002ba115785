"""Fixtures of the service's tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.service import GameService
from storage.connection import open_database
from storage.database import Database
from tests.support.clock import Clock


@pytest.fixture
async def two(database_target: str) -> AsyncIterator[tuple[Database, Database]]:
    """Two connections to one database, as two bot processes have (on each database in turn)."""
    first = await open_database(database_target)
    second = await open_database(database_target)
    yield first, second
    await first.close()
    await second.close()


@pytest.fixture
async def service(database_target: str) -> AsyncIterator[GameService]:
    """The service on a new database (each database in turn); a module that needs another one defines its own."""
    db = await open_database(database_target)
    try:
        yield GameService(db)
    finally:
        await db.close()


@pytest.fixture
async def clocked(database_target: str) -> AsyncIterator[tuple[GameService, Clock]]:
    """The service on a new database with a clock the test moves (each database in turn), turns of ten minutes."""
    db = await open_database(database_target)
    clock = Clock(5_000.0)
    try:
        yield GameService(db, clock=clock, turn_timeout=600.0), clock
    finally:
        await db.close()

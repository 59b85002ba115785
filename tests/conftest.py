"""Shared fixtures: the offline Discord, and the real bot started against it with a real SQLite file."""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import discord
import pytest

import bot.service.computer_turns
from games.registry import register, unregister
from storage.connection import open_database
from storage.database import Database
from tests.support import postgres
from tests.support.fakediscord import FakeDiscord
from tests.support.nim import DESCRIPTION as NIM
from tests.support.world import VALIDATOR, TabletopRunner, World
from tests.tools.peek import close_peeks


@pytest.fixture(autouse=True)
def quick_computer_players(monkeypatch: pytest.MonkeyPatch) -> None:
    """Computer players in a row wait a second between their moves, so that people see a table move
    (bot/service/computer_turns.py COMPUTER_MOVE_INTERVAL); tests that do not look at the pace do not wait for it
    (tests/bot/test_no_game_without_end.py does)."""
    monkeypatch.setattr(bot.service.computer_turns, "COMPUTER_MOVE_INTERVAL", 0.01)


@pytest.fixture
def restore_discord_urls(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The bot points discord.py's class-level URLs at the fake; put them back after each test."""
    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)
    monkeypatch.setattr(
        discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    )
    yield


# A test with the bot still running after this long prints what each of its tasks is waiting for: a hang's threads
# (faulthandler) show only an idle event loop, the tasks show which await never finished.
REPORT_HANG_AFTER = 120.0


def _print_tasks(loop: asyncio.AbstractEventLoop) -> None:
    print(f"\n--- still running after {REPORT_HANG_AFTER:.0f} s: the event loop's tasks ---", file=sys.stderr)
    for task in asyncio.all_tasks(loop):
        task.print_stack(file=sys.stderr)
    sys.stderr.flush()


@pytest.fixture
async def world(restore_discord_urls: None) -> AsyncIterator[World]:
    loop = asyncio.get_running_loop()
    hang = threading.Timer(REPORT_HANG_AFTER, lambda: loop.call_soon_threadsafe(_print_tasks, loop))
    hang.daemon = True
    hang.start()
    fake = FakeDiscord(validator=VALIDATOR)
    await fake.start()
    guild = fake.add_guild("Game Night")
    channel = fake.add_channel(guild, "games")
    try:
        yield World(fake, guild, channel, fake.add_user("alice"), fake.add_user("bob"), fake.add_user("carol"))
        # Every request the bot made in the test passed Discord's API description and the classic limits.
        assert fake.violations == []
        if fake.validator is not None:
            assert fake.requests and all(r.validated for r in fake.requests)
    finally:
        try:
            await fake.close()
        finally:
            hang.cancel()


@pytest.fixture
async def bots(world: World, database_target: str, tmp_path: Path) -> AsyncIterator[TabletopRunner]:
    """The real bot against the fake, once on a SQLite file and once on a PostgreSQL database (a test about the SQLite
    file itself asks for `sqlite_bots` instead)."""
    async with TabletopRunner.on(world.fake, database_target, tmp_path) as runner:
        yield runner


@pytest.fixture
async def sqlite_bots(world: World, tmp_path: Path) -> AsyncIterator[TabletopRunner]:
    """The real bot against the fake on a SQLite file only, for what only a file has (its permissions, damage,
    backups, the integrity check, archiving to another file)."""
    async with TabletopRunner.on(world.fake, str(tmp_path / "bot.sqlite3"), tmp_path) as runner:
        yield runner


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[postgres.PostgresServer]:
    """A PostgreSQL server for the whole session (tests/support/postgres.py), or a skip saying why there is none."""
    try:
        with postgres.running_server() as server:
            yield server
    except postgres.PostgresUnavailable as exc:
        if os.environ.get(postgres.REQUIRE) == "require":
            pytest.fail(f"PostgreSQL is required here ({postgres.REQUIRE}=require) but unavailable: {exc}")
        pytest.skip(f"no PostgreSQL: {exc}")


_databases = itertools.count(1)


@pytest.fixture
async def postgres_url(postgres_server: postgres.PostgresServer) -> AsyncIterator[str]:
    """The URL of a new, empty PostgreSQL database for one test (dropped after it)."""
    import asyncpg

    name = f"tabletop_{os.getpid()}_{next(_databases)}"
    admin = await asyncpg.connect(postgres_server.url())
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield postgres_server.url(name)
        close_peeks()  # the test tools' shared readers of it (tests/tools/peek.py), closed before it is dropped
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's database lives, once per backend: a new SQLite file, or a new PostgreSQL database (skipped,
    saying why, where no PostgreSQL server can be started)."""
    if request.param == "sqlite":
        return str(tmp_path / "bot.sqlite3")
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
async def db(database_target: str) -> AsyncIterator[Database]:
    """The test's database (`database_target`), opened and migrated, closed after the test."""
    database = await open_database(database_target)
    yield database
    await database.close()


@pytest.fixture
def nim() -> Iterator[None]:
    """Nim (tests/support/nim/), a game kind defined only inside tests/, registered for the test."""
    register(NIM)
    try:
        yield
    finally:
        unregister(NIM.kind)

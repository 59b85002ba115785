"""The offline Discord with a server, a channel and users, and the real bot run against it on one database."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot.client import TabletopBot
from bot.config import Settings
from games import replay
from storage.connection import open_database
from storage.postgres import is_postgres_url
from storage.sql import select
from tests.support.fakediscord import (
    BotRunner,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    SpecValidator,
    load_spec_validator,
)

# Discord's API description, loaded once (None when the file is missing locally: validation is then skipped).
VALIDATOR: SpecValidator | None = load_spec_validator()


@dataclass
class World:
    """The fake Discord with one server, one channel and three users."""

    fake: FakeDiscord
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser
    carol: FakeUser


class TabletopRunner(BotRunner[TabletopBot]):
    """Runs the real bot against the fake, always on the same database file, like restarts of one install."""

    def __init__(self, fake: FakeDiscord, database: Path, *, url: str | None = None) -> None:
        self.database = database
        self.url = url  # a PostgreSQL database instead of the file
        super().__init__(fake, self.make)

    def settings(self, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "token": self.fake.token,
            "database_path": self.database,
            "database_url": self.url,
            "api_base": self.fake.api_base,
            "gateway_url": self.fake.gateway_url,
        }
        values.update(overrides)
        return Settings(**values)

    @property
    def target(self) -> str | Path:
        """Where the bot's database is (the URL, or the file)."""
        return self.url or self.database

    def make(self, **overrides: Any) -> TabletopBot:
        return TabletopBot(self.settings(**overrides), guild_ready_timeout=0.05)

    async def start_with(self, **overrides: Any) -> TabletopBot:
        """Start the bot with some settings changed (e.g. a short turn timeout)."""
        return await self.start(lambda: self.make(**overrides))


@pytest.fixture(name="bots")
async def bots_on_both_databases(world: World, database_target: str, tmp_path: Path) -> AsyncIterator[TabletopRunner]:
    """The `bots` of a test module that imports this fixture: the bot on each database in turn (issue 17), where the
    other modules' run on a SQLite file."""
    on_postgresql = is_postgres_url(database_target)
    runner = TabletopRunner(world.fake, tmp_path / "unused.sqlite3" if on_postgresql else Path(database_target),
                            url=database_target if on_postgresql else None)
    try:
        yield runner
    finally:
        await runner.stop_all()


async def stored_chopsticks(runner: TabletopRunner,
                            game_id: int) -> tuple[str, dict[str, object], list[tuple[int, str]]]:
    """A Chopsticks game's status, snapshot and move log as stored, read with a connection of our own, on either
    database; the log must replay to the snapshot."""
    db = await open_database(runner.target)
    try:
        [(status, initial, state)] = await db.query(select(
            "SELECT status, initial_state, state FROM games WHERE id = ?", (game_id,)))
        moves = [(int(s), str(a)) for s, a in await db.query(select(
            "SELECT seat, action FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)))]
    finally:
        await db.close()
    assert replay("chopsticks", json.loads(initial), moves).to_dict() == json.loads(state)
    return str(status), json.loads(state), moves

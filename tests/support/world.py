"""The offline Discord with a server, a channel and users, and the real bot run against it on one database."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.client import TabletopBot
from bot.config import Settings
from games import replay
from storage.connection import open_database
from storage.postgres import is_postgres_url
from storage.ratings import RatingRow, save_ratings
from storage.sql import select, statement
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

    @classmethod
    @contextlib.asynccontextmanager
    async def on(cls, fake: FakeDiscord, target: str, tmp_path: Path) -> AsyncIterator[TabletopRunner]:
        """A runner on `target` (a PostgreSQL URL or a SQLite file's path), whose bots are all stopped at the end."""
        on_postgresql = is_postgres_url(target)
        runner = cls(fake, tmp_path / "unused.sqlite3" if on_postgresql else Path(target),
                     url=target if on_postgresql else None)
        try:
            yield runner
        finally:
            await runner.stop_all()

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


async def seed_ratings(target: str | Path, rows: Sequence[RatingRow]) -> None:
    """Ladder rows written behind the bot's back (a test's own connection, either database)."""
    db = await open_database(target)
    try:
        async with db.transaction() as conn:
            await save_ratings(conn, list(rows), now=1.0)
    finally:
        await db.close()


async def stored_rows(target: str | Path, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
    """What a test reads behind the bot's back, with a connection of its own, on either database (`?` placeholders;
    `target` is a runner's `.target`)."""
    db = await open_database(target)
    try:
        return await db.query(select(sql, tuple(params)))
    finally:
        await db.close()


async def change_stored(target: str | Path, sql: str, params: Sequence[object] = ()) -> int:
    """A write a test makes behind the bot's back (to set up a situation, or damage one), on either database; returns
    how many rows it changed."""
    db = await open_database(target)
    try:
        done = await db.run(statement(sql, tuple(params)))
        return done.rowcount
    finally:
        await db.close()


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

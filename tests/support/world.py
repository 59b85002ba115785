"""The offline Discord with a server, a channel and users, and the real bot run against it on one database."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.client import TabletopBot
from bot.config import Settings
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

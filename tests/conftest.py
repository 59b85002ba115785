"""Shared fixtures: the offline Discord, and the real bot started against it with a real SQLite file."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.client import TabletopBot
from bot.config import Settings
from tests.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeMessage, FakeUser, load_spec_validator

VALIDATOR = load_spec_validator()


@dataclass
class World:
    """The fake Discord with one server, one channel and three users."""

    fake: FakeDiscord
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser
    carol: FakeUser


@dataclass
class BotRunner:
    """Starts and stops bot processes against one fake Discord and one database file, like restarts."""

    fake: FakeDiscord
    database: Path
    running: list[tuple[TabletopBot, asyncio.Task[None]]] = field(default_factory=list)

    def settings(self, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "token": self.fake.token,
            "database_path": self.database,
            "api_base": self.fake.api_base,
            "gateway_url": self.fake.gateway_url,
        }
        values.update(overrides)
        return Settings(**values)

    async def start(self, **overrides: Any) -> TabletopBot:
        expected = self.fake.hub.identify_count + 1
        bot = TabletopBot(self.settings(**overrides), guild_ready_timeout=0.05)
        task = asyncio.create_task(bot.start(self.fake.token))
        self.running.append((bot, task))
        await self.fake.wait_until(lambda: task.done() or self.fake.hub.identify_count >= expected, timeout=10)
        if task.done():
            task.result()  # surface a failed start
        await self.fake.wait_until_ready(identifies=expected)
        return bot

    async def stop(self, bot: TabletopBot) -> None:
        for entry in list(self.running):
            if entry[0] is bot:
                self.running.remove(entry)
                await bot.close()
                await entry[1]

    async def stop_all(self) -> None:
        for bot, _ in list(self.running):
            await self.stop(bot)


@pytest.fixture
def restore_discord_urls(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The bot points discord.py's class-level URLs at the fake; put them back after each test."""
    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)
    monkeypatch.setattr(
        discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    )
    yield


@pytest.fixture
async def world(restore_discord_urls: None) -> AsyncIterator[World]:
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
        await fake.close()


@pytest.fixture
async def bots(world: World, tmp_path: Path) -> AsyncIterator[BotRunner]:
    runner = BotRunner(world.fake, tmp_path / "bot.sqlite3")
    try:
        yield runner
    finally:
        await runner.stop_all()


_TO_MOVE = re.compile(r"▶ <@(\d+)>")


def player_to_move(message: FakeMessage) -> int | None:
    """The user id the board says is to move (None for the bot or a finished game)."""
    match = _TO_MOVE.search(message.text())
    return int(match.group(1)) if match else None


def move_buttons(message: FakeMessage) -> list[dict[str, Any]]:
    return [b for b in message.buttons() if ":mv:" in str(b.get("custom_id", ""))]

"""Shared fixtures: the offline Discord, and the real bot started against it with a real SQLite file."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.client import TabletopBot
from bot.config import Settings
from tests.fakediscord import (
    BotRunner,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeMessage,
    FakeUser,
    load_spec_validator,
)

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


class TabletopRunner(BotRunner[TabletopBot]):
    """Runs the real bot against the fake, always on the same database file, like restarts of one install."""

    def __init__(self, fake: FakeDiscord, database: Path) -> None:
        self.database = database
        super().__init__(fake, self.make)

    def settings(self, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "token": self.fake.token,
            "database_path": self.database,
            "api_base": self.fake.api_base,
            "gateway_url": self.fake.gateway_url,
        }
        values.update(overrides)
        return Settings(**values)

    def make(self, **overrides: Any) -> TabletopBot:
        return TabletopBot(self.settings(**overrides), guild_ready_timeout=0.05)

    async def start_with(self, **overrides: Any) -> TabletopBot:
        """Start the bot with some settings changed (e.g. a short turn timeout)."""
        return await self.start(lambda: self.make(**overrides))


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
async def bots(world: World, tmp_path: Path) -> AsyncIterator[TabletopRunner]:
    runner = TabletopRunner(world.fake, tmp_path / "bot.sqlite3")
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


async def human_to_move(fake: FakeDiscord, board: FakeMessage, humans: set[int], timeout: float = 10) -> int | None:
    """Wait while bots think; the human to move then, or None when the game is over."""
    def settled() -> bool:
        return not board.components or player_to_move(board) in humans

    await fake.wait_until(settled, timeout=timeout)
    return player_to_move(board) if board.components else None

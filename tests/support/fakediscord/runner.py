"""Start and stop real discord.py bots against a FakeDiscord, the way a process is started and restarted."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

import discord

from .server import FakeDiscord

BotT = TypeVar("BotT", bound=discord.Client)


class BotRunner(Generic[BotT]):
    """Runs bots made by `make_bot` against one fake; each `start` is a new client, like a restart."""

    def __init__(self, fake: FakeDiscord, make_bot: Callable[[], BotT]) -> None:
        self.fake = fake
        self.make_bot = make_bot
        self.running: list[tuple[BotT, asyncio.Task[None]]] = []

    async def start(self, make_bot: Callable[[], BotT] | None = None) -> BotT:
        """Start a bot and wait until it has identified and received READY and its guilds."""
        expected = self.fake.hub.identify_count + 1
        bot = (make_bot or self.make_bot)()
        task = asyncio.create_task(bot.start(self.fake.token))
        self.running.append((bot, task))
        await self.fake.wait_until(lambda: task.done() or self.fake.hub.identify_count >= expected, timeout=10)
        if task.done():
            task.result()  # surface a failed start (e.g. an exception in setup_hook)
        await self.fake.wait_until_ready(identifies=expected)
        if isinstance(bot, discord.AutoShardedClient):  # its other shards identify one after the other
            await self.fake.wait_until(lambda: task.done() or self._shards_ready(bot), timeout=30)
            if task.done():
                task.result()
        return bot

    def _shards_ready(self, bot: discord.AutoShardedClient) -> bool:
        """Whether every shard `bot` runs has identified and got its READY and guilds."""
        count = bot.shard_count  # known once it identified: from its options, or else from GET /gateway/bot
        if count is None:
            return False
        return all(self.fake.hub.shard_ready((shard_id, count)) for shard_id in bot.shard_ids or range(count))

    async def stop(self, bot: BotT) -> None:
        for entry in list(self.running):
            if entry[0] is bot:
                self.running.remove(entry)
                await bot.close()
                await entry[1]

    async def stop_all(self) -> None:
        for bot, _ in list(self.running):
            await self.stop(bot)

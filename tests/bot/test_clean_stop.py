"""Issue 14, point 8: a bot stopped soon after it connects stops cleanly, with nothing logged at ERROR.

discord.py's ready task (ConnectionState._delay_ready) dispatches `ready` guild_ready_timeout after the last
GUILD_CREATE; Client.close sets the client's `loop` to MISSING, so a bot stopped within that window used to fail
that dispatch with an AttributeError, logged by asyncio as "Task exception was never retrieved".
"""

from __future__ import annotations

import asyncio
import gc
import logging

import pytest

from bot.client import TabletopBot
from tests.support.world import TabletopRunner, World

READY_WAIT = 0.4  # discord.py's wait for more guilds after READY: the window a quick stop falls into
STARTS = 10


async def test_starting_and_stopping_quickly_many_times_logs_no_error(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    for _ in range(STARTS):
        bot = await bots.start(lambda: TabletopBot(bots.settings(), guild_ready_timeout=READY_WAIT))
        await bots.stop(bot)  # within READY_WAIT of the last GUILD_CREATE
        assert bot.is_closed()
    await asyncio.sleep(2 * READY_WAIT)  # every ready task that was waiting has woken up by now
    gc.collect()  # asyncio reports a failed task that nobody awaited when it is collected
    assert [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert world.fake.hub.identify_count == STARTS

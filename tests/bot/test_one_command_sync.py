"""Two bot processes starting together on one database (shards, issue 17) sync the application commands once: the
one holding the `sync-commands` lease syncs, the other reads the ids it stored (for /help's mentions)."""

from __future__ import annotations

import asyncio

from tests.support.world import TabletopRunner, World

COMMANDS = "/applications/{application_id}/commands"


async def test_two_bots_starting_together_sync_the_commands_once(world: World, bots: TabletopRunner) -> None:
    made = [bots.make(), bots.make()]
    for bot in made:
        bots.running.append((bot, asyncio.create_task(bot.start(world.fake.token))))
    await world.fake.wait_until(lambda: all(bot.command_ids for bot in made), timeout=20)
    assert len(world.fake.calls("PUT", COMMANDS)) == 1
    assert made[0].command_ids == made[1].command_ids
    assert set(made[0].command_ids) >= {"chopsticks", "generals", "sucker", "help"}

"""Shards (issue 17, point 3): with SHARD_COUNT (and SHARD_IDS) the bot runs discord.py's AutoShardedBot for those
shards, and the offline Discord routes each server's events to shard `(guild_id >> 22) % SHARD_COUNT` and DMs to
shard 0, as Discord does. One process may run every shard, or each shard its own process over one database."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.client import ShardedTabletopBot, TabletopBot
from bot.config import ConfigError, load_settings
from tests.support.boards import move_buttons, player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeChannel, FakeMessage
from tests.support.generals import move, set_up, settled, to_move
from tests.support.world import TabletopRunner, World, stored_rows

ROOT = Path(__file__).resolve().parents[2]


def _shard_channel(world: World, shard: int, name: str) -> FakeChannel:
    guild = world.fake.add_guild(name, shard=shard, shard_count=2)
    assert (guild.id >> 22) % 2 == shard
    return world.fake.add_channel(guild, "games")


def _seen_by(bot: TabletopBot) -> set[int]:
    """The ids of the interactions `bot`'s process receives from now on (discord.py's own event, no stand-in)."""
    seen: set[int] = set()

    async def on_interaction(interaction: discord.Interaction[Any]) -> None:
        seen.add(interaction.id)

    bot.add_listener(on_interaction)
    return seen


async def _chopsticks_to_the_end(world: World, channel: FakeChannel, seed: int) -> tuple[FakeMessage, int]:
    """Alice challenges Bob in `channel` and they play by clicks to the end; the board and the number of moves."""
    fake = world.fake
    res = await fake.slash(world.alice, channel, "chopsticks", "challenge", options={"opponent": world.bob})
    board = res.message
    assert res.callback_type == Callback.CHANNEL_MESSAGE and board is not None, res.errors
    accept = next(b["custom_id"] for b in board.buttons() if b["label"] == "Accept")
    accepted = await fake.click(world.bob, board, accept)
    assert accepted.callback_type == Callback.UPDATE_MESSAGE and accepted.message is board, accepted.errors
    users, rng, moves = {world.alice.id: world.alice, world.bob.id: world.bob}, random.Random(seed), 0
    while move_buttons(board):
        mover = player_to_move(board)
        assert mover in users, board.text()
        clicked = await fake.click(users[mover], board, rng.choice(move_buttons(board))["custom_id"])
        assert clicked.callback_type == Callback.UPDATE_MESSAGE, clicked.errors
        moves += 1
        assert moves < 300
    assert "wins" in board.text() or "Drawn" in board.text()
    return board, moves


async def test_one_process_runs_both_shards_and_plays_in_a_server_of_each(world: World, bots: TabletopRunner) -> None:
    fake = world.fake
    channels = [_shard_channel(world, 0, "Shard Zero"), _shard_channel(world, 1, "Shard One")]
    bot = await bots.start_with(shard_count=2)
    assert isinstance(bot, ShardedTabletopBot) and bot.shard_count == 2
    assert sorted(bot.shards) == [0, 1]
    identifies = [p["d"] for p in fake.hub.received if p.get("op") == 2]
    assert [d["shard"] for d in identifies] == [[0, 2], [1, 2]]  # discord.py: one IDENTIFY per shard
    await fake.wait_until(bot.is_ready)  # `ready` once every shard had its READY and servers
    assert {guild.id: guild.shard_id for guild in bot.guilds} == {
        guild.id: (guild.id >> 22) % 2 for guild in fake.guilds.values()
    }
    assert bot.latency == bot.latency  # not NaN: both shards' heartbeats are answered
    for shard, channel in enumerate(channels):
        board, moves = await _chopsticks_to_the_end(world, channel, seed=shard)
        assert board.components == []
        clicks = [r for r in fake.interactions.values() if r.channel is channel]
        assert {r.shard for r in clicks} == {(shard, 2)}  # every click of this server came through its shard
        game = shard + 1  # the games are numbered as they were made
        [(status, count)] = await stored_rows(bots.target, "SELECT g.status, COUNT(m.ply) FROM games g LEFT JOIN "
                                              "moves m ON m.game_id = g.id WHERE g.id = ? GROUP BY g.id", (game,))
        assert status == "finished" and count == moves


async def test_two_processes_each_get_their_own_shard_and_dms_go_to_shard_0(
    world: World, bots: TabletopRunner,
) -> None:
    fake = world.fake
    zero, one = _shard_channel(world, 0, "Shard Zero"), _shard_channel(world, 1, "Shard One")
    first = await bots.start_with(shard_count=2, shard_ids=(0,))
    second = await bots.start_with(shard_count=2, shard_ids=(1,))  # another process on the same database
    assert isinstance(first, ShardedTabletopBot) and isinstance(second, ShardedTabletopBot)
    assert sorted(first.shards) == [0] and sorted(second.shards) == [1]
    # Each process learns its servers from its own shard's GUILD_CREATEs, which may still be arriving as it starts.
    await fake.wait_until(lambda: {g.id for g in first.guilds} == {g for g in fake.guilds if (g >> 22) % 2 == 0})
    await fake.wait_until(lambda: {g.id for g in second.guilds} == {g for g in fake.guilds if (g >> 22) % 2 == 1})
    by_first, by_second = _seen_by(first), _seen_by(second)

    # A Generals game in a server of shard 1: its commands and channel clicks reach the second process only.
    board, a, b = await set_up(world, channel=one)
    in_channel = [r.id for r in fake.interactions.values() if r.channel is one]
    in_dms = [r.id for r in fake.interactions.values() if r.channel.guild_id is None]
    assert in_channel and in_dms
    assert set(in_channel) <= by_second and not set(in_channel) & by_first
    # Its players' DM clicks (import, ready) reach shard 0, the first process, which serves them from the database.
    assert set(in_dms) <= by_first and not set(in_dms) & by_second
    assert {fake.interactions[i].shard for i in in_dms} == {(0, 2)}

    # A move made on a DM board: shard 0's process answers by editing that DM board, and redraws the channel board
    # in shard 1's server.
    mover = to_move(board)
    user, private, other, text = ((world.alice, a, world.bob, "a3-a4") if mover == world.alice.id
                                  else (world.bob, b, world.alice, "e6-e5"))
    clicks_before = len(fake.interactions)
    await move(fake, user, private, text)
    await settled(fake, board, a, b, at_least=2)  # the boards name the move awaited: the second, once it landed
    made = list(fake.interactions.values())[clicks_before:]
    assert made and all(r.shard == (0, 2) and r.id in by_first and r.message is private for r in made)
    assert to_move(board) == other.id
    last = await stored_rows(bots.target, "SELECT action FROM moves WHERE game_id = 1 ORDER BY ply DESC LIMIT 1")
    assert last == [(text,)]

    # Chopsticks in a server of each shard: each process plays its own.
    for channel, receiver, bystander in ((zero, by_first, by_second), (one, by_second, by_first)):
        since = len(fake.interactions)
        final, _moves = await _chopsticks_to_the_end(world, channel, seed=3)
        assert final.components == []
        ids = [r.id for r in list(fake.interactions.values())[since:]]
        assert ids and set(ids) <= receiver and not set(ids) & bystander


# ----- the settings ---------------------------------------------------------------------------------------------
def test_shard_settings_are_read_and_checked() -> None:
    token = {"DISCORD_TOKEN": "abc.def.ghi"}
    plain = load_settings(token, None)
    assert (plain.shard_count, plain.shard_ids) == (None, None)
    assert type(TabletopBot(plain)) is TabletopBot  # no SHARD_COUNT: one connection, as ever
    every = load_settings(token | {"SHARD_COUNT": "4"}, None)
    assert (every.shard_count, every.shard_ids) == (4, None)
    some = load_settings(token | {"SHARD_COUNT": " 4 ", "SHARD_IDS": "3, 1"}, None)
    assert (some.shard_count, some.shard_ids) == (4, (3, 1))
    bot = TabletopBot(some)
    assert isinstance(bot, ShardedTabletopBot) and (bot.shard_count, bot.shard_ids) == (4, [3, 1])
    refused = {
        "SHARD_COUNT=0": ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be a whole number of shards, 1 or more, not '0'."),
        "SHARD_COUNT=two": ({"SHARD_COUNT": "two"}, "SHARD_COUNT must be a whole number"),
        "SHARD_COUNT=²": ({"SHARD_COUNT": "²"}, "SHARD_COUNT must be a whole number"),
        "SHARD_IDS alone": ({"SHARD_IDS": "0"}, "SHARD_IDS needs SHARD_COUNT"),
        "SHARD_IDS too big": ({"SHARD_COUNT": "2", "SHARD_IDS": "0,2"},
                              "SHARD_IDS must be shard numbers from 0 to 1 (SHARD_COUNT - 1) separated by commas, "
                              "like 0,1, not '0,2'."),
        "SHARD_IDS negative": ({"SHARD_COUNT": "2", "SHARD_IDS": "-1"}, "SHARD_IDS must be shard numbers"),
        "SHARD_IDS empty part": ({"SHARD_COUNT": "2", "SHARD_IDS": "0,"}, "SHARD_IDS must be shard numbers"),
        "SHARD_IDS twice": ({"SHARD_COUNT": "2", "SHARD_IDS": "1,1"}, "SHARD_IDS names a shard more than once"),
    }
    for case, (values, message) in refused.items():
        with pytest.raises(ConfigError) as caught:
            load_settings(token | values, None)
        assert str(caught.value).startswith(message), case


def test_python_m_bot_refuses_bad_shards_in_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
        env={k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SHARD_"))}
        | {"DISCORD_TOKEN": "abc.def.ghi", "SHARD_COUNT": "2", "SHARD_IDS": "2", "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 2
    assert result.stderr == ("error: SHARD_IDS must be shard numbers from 0 to 1 (SHARD_COUNT - 1) separated by "
                             "commas, like 0,1, not '2'.\n")

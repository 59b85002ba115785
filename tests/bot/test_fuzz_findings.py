"""Issue 14, point 11: bugs the fuzzer (tests/tools/fuzz.py) found once its clock moved and games ended, each
pinned down here with the smallest interaction that showed it."""

from __future__ import annotations

import json
import logging
import sqlite3
import time

import pytest

from bot.service.lobbies import LOBBY_TIMEOUT
from games import game_class
from tests.support.fakediscord import FakeMessage
from tests.support.fakediscord.interactions import MESSAGE_COMPONENT
from tests.support.interactions import BUTTON, bot_idle, carrier, raw_interaction
from tests.support.world import TabletopRunner, World
from tests.tools.fuzz_time import VirtualClock

BEYOND_SQLITE = 2**63  # 19 digits, as a component's template admits, and one more than SQLite's largest integer


@pytest.mark.parametrize("custom_id", [f"rm:{BEYOND_SQLITE}", f"rps:{BEYOND_SQLITE}"])
async def test_a_forged_game_number_beyond_sqlite_is_refused_by_buttons_of_no_game_kind(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture, custom_id: str
) -> None:
    # Rematch and Replay act on a game of any kind, so no game's presenter checked the number before the service
    # asked SQLite for it: an OverflowError, logged as a fault, and "Something went wrong" for the player.
    await bots.start()
    message = carrier(world.fake, world.channel, custom_id, BUTTON)
    with caplog.at_level(logging.ERROR):
        res = await raw_interaction(world.fake, MESSAGE_COMPONENT, world.alice, world.channel,
                                    {"custom_id": custom_id, "component_type": BUTTON}, source=message)
    assert res.callback_type == 4 and res.message is not None and res.message.ephemeral
    assert res.message.content == f"There is no game #{BEYOND_SQLITE}."
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_a_lobby_whose_message_was_deleted_expires_quietly(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    # A moderator may delete any message. When the lobby's time ran out, its message could not be shown closed:
    # Discord's 404 escaped to the timer loop, which logged "timer for lobby N failed" at ERROR.
    bot = await bots.start()
    clock = VirtualClock(time.time())
    bot.service.clock = clock
    res = await world.fake.slash(world.alice, world.channel, "sucker", "new", options={"players": 3})
    assert res.message is not None
    res.message.deleted = True
    with caplog.at_level(logging.WARNING):
        clock.now += LOBBY_TIMEOUT + 1
        bot.service.timers_changed.set()
        await world.fake.wait_until(lambda: _lobby_status(bots) == "expired", timeout=5)
        await bot_idle(world.fake)
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert any("lobby" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)


def _lobby_status(bots: TabletopRunner) -> str:
    with sqlite3.connect(bots.database) as conn:
        return str(conn.execute("SELECT status FROM lobbies").fetchone()[0])


async def test_a_player_out_of_a_chopsticks_table_is_refused_resign_not_asked_to_confirm(
    world: World, bots: TabletopRunner
) -> None:
    # The board's Resign asked a player already out of the game "Resign Chopsticks #1? You will be out." with a
    # Yes button that the engine then refused; So Long Sucker refused at once.
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    bot = await bots.start()
    clock = VirtualClock(time.time())
    bot.service.clock = clock
    lobby = (await fake.slash(alice, world.channel, "chopsticks", "new", options={"players": 3})).message
    assert lobby is not None
    for user in (bob, carol):
        await fake.click(user, lobby, _button(lobby, "Join"))
    await fake.click(alice, lobby, _button(lobby, "Start"))  # the lobby message is now the board
    first = _seat_users(bots)[_to_move(bots)]
    clock.now += bot.service.turn_timeout + 1  # the first to move runs out of time: out, the others play on
    bot.service.timers_changed.set()
    await fake.wait_until(lambda: _moves(bots) == 1, timeout=5)
    await bot_idle(fake)
    out = fake.users[first]
    before = _moves(bots)
    res = await fake.click(out, lobby, _button(lobby, "Resign"))
    assert res.callback_type == 4 and res.message is not None and res.message.ephemeral
    assert res.message.content == "You are already out of Chopsticks #1." and res.message.components == []
    assert _moves(bots) == before


def _button(message: FakeMessage, label: str) -> str:
    return str(next(b["custom_id"] for b in message.buttons() if str(b.get("label", "")).startswith(label)))


def _seat_users(bots: TabletopRunner) -> dict[int, int]:
    with sqlite3.connect(bots.database) as conn:
        return dict(conn.execute("SELECT seat, user_id FROM game_players WHERE game_id = 1").fetchall())


def _to_move(bots: TabletopRunner) -> int:
    with sqlite3.connect(bots.database) as conn:
        state = json.loads(conn.execute("SELECT state FROM games WHERE id = 1").fetchone()[0])
    seat = game_class("chopsticks").from_dict(state).current_player()
    assert seat is not None
    return seat


def _moves(bots: TabletopRunner) -> int:
    with sqlite3.connect(bots.database) as conn:
        return int(conn.execute("SELECT move_count FROM games WHERE id = 1").fetchone()[0])


async def test_a_rematch_asked_outside_the_games_channel_is_refused_with_where_to_ask(
    world: World, bots: TabletopRunner
) -> None:
    # A Rematch from a message in another channel (an old message, a thread) was posted there while the new game
    # was stored in the old game's channel: its reminders, forfeits and bot moves then looked for its board in the
    # wrong channel, logged "timer for game N failed" at ERROR and never redrew it.
    fake, alice, bob = world.fake, world.alice, world.bob
    await bots.start()
    lounge = fake.add_channel(world.guild, "lounge")
    board = (await fake.slash(alice, world.channel, "chopsticks", "challenge", options={"opponent": bob})).message
    assert board is not None
    await fake.click(bob, board, _button(board, "Accept"))
    ask = (await fake.click(alice, board, _button(board, "Resign"))).message
    assert ask is not None
    await fake.click(alice, ask, _button(ask, "Yes"))
    await bot_idle(fake)
    elsewhere = carrier(fake, lounge, "rm:1", BUTTON)
    res = await raw_interaction(fake, MESSAGE_COMPONENT, alice, lounge, {"custom_id": "rm:1", "component_type": BUTTON},
                                source=elsewhere)
    assert res.callback_type == 4 and res.message is not None and res.message.ephemeral
    assert res.message.content == f"Ask for the rematch in <#{world.channel.id}>, where the game was played."
    with sqlite3.connect(bots.database) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 1
    ending = next(m for m in fake.channel_messages(world.channel) if "rm:1" in m.custom_ids())
    rematch = await fake.click(alice, ending, "rm:1")  # where the game was played: a rematch
    assert rematch.message is not None and not rematch.message.ephemeral and "rematch" in rematch.message.content

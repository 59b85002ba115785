"""Issue 14, point 11: bugs the fuzzer (tests/tools/fuzz.py) found once its clock moved and games ended, each
pinned down here with the smallest interaction that showed it."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable

import pytest

from bot.service.lobbies import LOBBY_TIMEOUT
from games import game_class
from tests.support.codes import Callback, InteractionType
from tests.support.fakediscord import FakeMessage
from tests.support.interactions import BUTTON, bot_idle, carrier, raw_interaction
from tests.support.world import TabletopRunner, World, stored_rows
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
        res = await raw_interaction(world.fake, InteractionType.MESSAGE_COMPONENT, world.alice, world.channel,
                                    {"custom_id": custom_id, "component_type": BUTTON}, source=message)
    assert res.callback_type == Callback.CHANNEL_MESSAGE and res.message is not None and res.message.ephemeral
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
        await _eventually(lambda: _lobby_is(bots, "expired"), timeout=5)
        await bot_idle(world.fake)
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert any("lobby" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)


async def _eventually(condition: Callable[[], Awaitable[bool]], timeout: float) -> None:
    """`fake.wait_until` for a condition read from the database (a query is awaited)."""
    deadline = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"condition not met within {timeout} s")
        await asyncio.sleep(0.01)


async def _lobby_is(bots: TabletopRunner, status: str) -> bool:
    [(stored,)] = await stored_rows(bots.target, "SELECT status FROM lobbies")
    return str(stored) == status


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
    first = (await _seat_users(bots))[await _to_move(bots)]
    clock.now += bot.service.turn_timeout + 1  # the first to move runs out of time: out, the others play on
    bot.service.timers_changed.set()
    await _eventually(lambda: _moves_are(bots, 1), timeout=5)
    await bot_idle(fake)
    out = fake.users[first]
    before = await _moves(bots)
    res = await fake.click(out, lobby, _button(lobby, "Resign"))
    assert res.callback_type == Callback.CHANNEL_MESSAGE and res.message is not None and res.message.ephemeral
    assert res.message.content == "You are already out of Chopsticks #1." and res.message.components == []
    assert await _moves(bots) == before


def _button(message: FakeMessage, label: str) -> str:
    return str(next(b["custom_id"] for b in message.buttons() if str(b.get("label", "")).startswith(label)))


async def _seat_users(bots: TabletopRunner) -> dict[int, int]:
    rows = await stored_rows(bots.target, "SELECT seat, user_id FROM game_players WHERE game_id = 1")
    return {int(seat): int(user) for seat, user in rows}


async def _to_move(bots: TabletopRunner) -> int:
    [(stored,)] = await stored_rows(bots.target, "SELECT state FROM games WHERE id = 1")
    state = json.loads(stored)
    seat = game_class("chopsticks").from_dict(state).current_player()
    assert seat is not None
    return seat


async def _moves(bots: TabletopRunner) -> int:
    [(count,)] = await stored_rows(bots.target, "SELECT move_count FROM games WHERE id = 1")
    return int(count)


async def _moves_are(bots: TabletopRunner, count: int) -> bool:
    return await _moves(bots) == count


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
    res = await raw_interaction(fake, InteractionType.MESSAGE_COMPONENT, alice, lounge,
                                {"custom_id": "rm:1", "component_type": BUTTON}, source=elsewhere)
    assert res.callback_type == Callback.CHANNEL_MESSAGE and res.message is not None and res.message.ephemeral
    assert res.message.content == f"Ask for the rematch in <#{world.channel.id}>, where the game was played."
    assert await stored_rows(bots.target, "SELECT count(*) FROM games") == [(1,)]
    ending = next(m for m in fake.channel_messages(world.channel) if "rm:1" in m.custom_ids())
    rematch = await fake.click(alice, ending, "rm:1")  # where the game was played: a rematch
    assert rematch.message is not None and not rematch.message.ephemeral and "rematch" in rematch.message.content

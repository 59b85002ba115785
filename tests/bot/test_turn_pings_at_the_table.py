"""No turn ping to a person who moved in that game within the last minute (issue 23, defect 8): they are at the table.
The ping comes if they leave: a minute after their move, if the decision is still theirs, once, and across a restart
(the timer loop sends it as an owed announcement). Time is the test clock (the service's), moved by hand."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from bot.client import TabletopBot
from tests.support.boards import move_buttons, player_to_move
from tests.support.clock import Clock
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.generals import A_GRID, challenge, dm_board, import_grid, move_number, to_move
from tests.support.interactions import bot_idle
from tests.support.world import TabletopRunner, World

AT_TABLE = 60.0  # "within the last minute" (bot/notifications.py AT_TABLE)


def _pinned(bot: TabletopBot, clock: Clock | None = None) -> Clock:
    """The bot's clock, from now on moved by the test (starting at the real time: the games' deadlines are real)."""
    clock = clock or Clock(time.time())
    bot.service.clock = clock
    return clock


def _pings(world: World, user: FakeUser) -> list[FakeMessage]:
    return [m for m in world.fake.notifications(user) if "your move" in m.content]


async def _settle(world: World, bot: TabletopBot) -> None:
    """What the last click set going is done: the computer's reply, the redraws, the notifications."""
    await bot.computer_turns.idle()
    await bot_idle(world.fake)
    await bot.service.told()


async def _later(world: World, bot: TabletopBot, clock: Clock, seconds: float) -> None:
    """`seconds` pass; the timer loop looks again, and whatever it sends is sent."""
    clock.now += seconds
    bot.service.timers_changed.set()
    await asyncio.sleep(0.3)  # the timer loop wakes up and fires what is due (its task is not the bot's events)
    await bot_idle(world.fake)
    await bot.service.told()


async def _against_the_computer(world: World, bot: TabletopBot) -> FakeMessage:
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"level": "easy"})
    assert res.message is not None, res.errors
    await _settle(world, bot)
    return res.message


async def test_playing_the_computer_promptly_pings_nobody_and_leaving_pings_once(
        world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    clock = _pinned(bot)
    board = await _against_the_computer(world, bot)
    replies = 0
    for _ in range(5):
        if not move_buttons(board):
            break
        clock.now += 5  # a few seconds to think
        await world.fake.click(world.alice, board, move_buttons(board)[0]["custom_id"])
        await _settle(world, bot)
        replies += bool(move_buttons(board))
    assert replies > 0
    before = len(_pings(world, world.alice))
    assert before <= 1, "at most the first move's ping, before she had moved at all"

    if not move_buttons(board):  # the game ended meanwhile: nothing left to be told
        return
    # She leaves the table: a minute after her last move, she is told, once.
    await _later(world, bot, clock, AT_TABLE / 2)
    assert len(_pings(world, world.alice)) == before, "still at the table"
    await _later(world, bot, clock, AT_TABLE / 2 + 1)
    await world.fake.wait_until(lambda: len(_pings(world, world.alice)) == before + 1, timeout=5)
    ping = _pings(world, world.alice)[-1]
    assert ping.pinged == {world.alice.id} and ping.content.startswith(f"<@{world.alice.id}>, it is your move")
    await _later(world, bot, clock, 10 * AT_TABLE)
    assert len(_pings(world, world.alice)) == before + 1, "once"


async def test_a_held_ping_is_sent_after_a_restart_and_not_once_the_person_moved(
        world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    clock = _pinned(bot)
    board = await _against_the_computer(world, bot)
    # Alice moves; the computer replies at once: her ping is held (she is at the table).
    clock.now += 5
    await world.fake.click(world.alice, board, move_buttons(board)[0]["custom_id"])
    await _settle(world, bot)
    assert player_to_move(board) == world.alice.id, board.text()
    before = len(_pings(world, world.alice))

    await bots.stop(bot)  # the bot stops while it holds her ping back
    bot = await bots.start()
    _pinned(bot, clock)
    await _later(world, bot, clock, AT_TABLE + 1)
    await world.fake.wait_until(lambda: len(_pings(world, world.alice)) == before + 1, timeout=5)
    await _later(world, bot, clock, AT_TABLE)
    assert len(_pings(world, world.alice)) == before + 1, "once"

    # Back at the table: she moves, the computer replies, and her next ping is held again; she moves before it is
    # due, so it is never sent.
    clock.now += 5
    await world.fake.click(world.alice, board, move_buttons(board)[0]["custom_id"])
    await _settle(world, bot)
    if not move_buttons(board):
        return
    await _later(world, bot, clock, AT_TABLE / 2)
    await world.fake.click(world.alice, board, move_buttons(board)[0]["custom_id"])
    await _settle(world, bot)
    await _later(world, bot, clock, AT_TABLE / 2 + 1)  # past the first held ping's time, not the second's
    assert len(_pings(world, world.alice)) == before + 1


async def test_between_two_people_the_one_who_just_moved_is_not_pinged_but_one_away_is(
        world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    clock = _pinned(bot)
    fake = world.fake
    res = await fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"opponent": world.bob})
    assert res.message is not None, res.errors
    board = res.message
    await fake.click(world.bob, board, board.button("Accept")["custom_id"])
    await _settle(world, bot)
    users = {world.alice.id: world.alice, world.bob.id: world.bob}
    first = users[player_to_move(board) or 0]
    second = world.bob if first is world.alice else world.alice
    for mover in (first, second):  # both have moved now
        clock.now += 3
        await fake.click(mover, board, move_buttons(board)[0]["custom_id"])
        await _settle(world, bot)
    pings = {u: len(_pings(world, users[u])) for u in users}
    clock.now += 3
    await fake.click(first, board, move_buttons(board)[0]["custom_id"])  # a quick reply: the second is at the table
    await _settle(world, bot)
    assert {u: len(_pings(world, users[u])) for u in users} == pings
    # The second thinks for two minutes and moves: the first, away since, is pinged at once.
    await _later(world, bot, clock, 2 * AT_TABLE)  # the second's held ping falls due meanwhile: sent, once
    await fake.wait_until(lambda: len(_pings(world, second)) == pings[second.id] + 1, timeout=5)
    await fake.click(second, board, move_buttons(board)[0]["custom_id"])
    await _settle(world, bot)
    assert len(_pings(world, first)) == pings[first.id] + 1


def _past(board: FakeMessage, number: int) -> Callable[[], bool]:
    """A condition: the board shows a move after `number`, or the game is over."""
    return lambda: (move_number(board) or 0) > number or "revealed" in board.text()


async def test_playing_generals_against_the_computer_promptly_pings_nobody(world: World, bots: TabletopRunner) -> None:
    """The issue's game: 16 pings in 14 moves, in the channel while she played in her DMs."""
    bot = await bots.start()
    clock = _pinned(bot)
    fake, alice = world.fake, world.alice
    channel_board = await challenge(world, alice, level="random")
    await fake.wait_until(lambda: len(fake.dm_messages(alice)) == 1, timeout=20)
    board = dm_board(fake, alice)
    assert (await import_grid(fake, alice, board, A_GRID)).callback_type == Callback.UPDATE_MESSAGE
    assert (await fake.click(alice, board, "gg:1:ready")).callback_type == Callback.UPDATE_MESSAGE
    moves = 0
    for _ in range(8):
        await fake.wait_until(lambda: to_move(channel_board) == alice.id or "revealed" in channel_board.text(),
                              timeout=20)
        await fake.wait_until(lambda: "Your move" in board.text() or "revealed" in board.text(), timeout=20)
        if to_move(channel_board) != alice.id:
            break
        clock.now += 5
        menu = next(s for s in board.selects() if str(s["custom_id"]).startswith("ggs:1:piece:"))
        before = move_number(channel_board) or 0
        await fake.select(alice, board, menu["custom_id"], [menu["options"][0]["value"]])
        directions = [b for b in board.buttons() if str(b["custom_id"]).startswith("ggm:1:")]
        if directions:
            await fake.click(alice, board, directions[0]["custom_id"])
        await fake.wait_until(_past(channel_board, before), timeout=20)
        await _settle(world, bot)
        moves += 1
    assert moves > 1
    # The random computer may lose its flag within these moves: the ending mentions both sides, as every ending does.
    pinged = [m.content for m in fake.channel_messages(world.channel) if alice.id in m.pinged
              and not any("is over" in str(e.get("title")) for e in m.embeds)]
    assert pinged == [], pinged

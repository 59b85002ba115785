"""A player whose DMs are closed plays on the ephemeral My board: the bot keeps it current after the opponent's
moves while Discord lets it edit the message (15 minutes from the player's latest click), says until when, and
otherwise tells them in their turn notification to open it again. A board never looks current when it is not."""

from __future__ import annotations

import re
import time

from tests.support.clock import AWAY, real_time_clock
from tests.support.codes import Callback
from tests.support.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.support.generals import A_GRID, B_GRID, accepted, dm_board, import_grid, move, move_number, settled, to_move
from tests.support.world import TabletopRunner, World

ORIGINAL = "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
LIVE = re.compile(r"Kept up to date until <t:(\d+):t>")


def live_until(board: FakeMessage) -> int | None:
    found = LIVE.search(board.text())
    return int(found.group(1)) if found else None


def turn_pings(fake: FakeDiscord, world: World, user: FakeUser) -> list[str]:
    return [m.text() for m in fake.notifications(user) if "your move" in m.text()]


async def bob_on_my_board(world: World) -> tuple[FakeMessage, FakeMessage, FakeMessage]:
    """Bob cannot get DMs: both set up (Bob on My board) until it is Alice's move. (channel, Alice's DM, Bob's
    ephemeral board)"""
    fake = world.fake
    fake.fail_dm_for(world.bob)
    channel_board = await accepted(world)
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1)
    mine = await fake.click(world.bob, channel_board, "gg:1:board")
    assert mine.ephemeral and mine.message is not None, mine.errors
    panel = mine.message
    until = live_until(panel)
    assert until is not None and 14 * 60 < until - time.time() <= 15 * 60, panel.text()
    assert (await import_grid(fake, world.bob, panel, B_GRID)).callback_type == Callback.UPDATE_MESSAGE
    assert (await fake.click(world.bob, panel, "gg:1:ready")).callback_type == Callback.UPDATE_MESSAGE
    a = dm_board(fake, world.alice)
    assert (await import_grid(fake, world.alice, a, A_GRID)).callback_type == Callback.UPDATE_MESSAGE
    assert (await fake.click(world.alice, a, "gg:1:ready")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: to_move(channel_board) is not None)
    await fake.wait_until(lambda: "Waiting for" in panel.text() or "Your move" in panel.text())
    if to_move(channel_board) == world.bob.id:
        await move(fake, world.bob, panel, "i6-i5")
        await settled(fake, channel_board, a, at_least=2)
    return channel_board, a, panel


async def test_my_board_follows_the_opponents_moves_while_its_token_lives(world: World,
                                                                          bots: TabletopRunner) -> None:
    bot = await bots.start()
    clock = real_time_clock(bot.service)
    fake = world.fake
    channel_board, a, panel = await bob_on_my_board(world)
    pings = len(turn_pings(fake, world, world.bob))

    # Alice moves: Bob's ephemeral board shows it without Bob touching anything, through the token of his click.
    clock.now += AWAY  # Bob has left the table meanwhile, so he is pinged (issue 23: not while he is at it)
    await move(fake, world.alice, a, "a3-a4")
    await fake.wait_until(lambda: "Your opponent moved a3-a4." in panel.text() and "Your move" in panel.text())
    assert live_until(panel) is not None
    await fake.wait_until(lambda: len(turn_pings(fake, world, world.bob)) > pings)
    assert "My board" not in turn_pings(fake, world, world.bob)[-1]  # his board shows it already

    # Bob's next click comes 14.5 minutes into its token: Discord will refuse edits 30 s later, too soon to count
    # on, so after Alice's reply the board is not edited and the turn notification tells him to open it again.
    number = move_number(channel_board) or 0
    fake.interaction_age = 14.5 * 60
    await move(fake, world.bob, panel, "b6-b5")
    fake.interaction_age = 0.0
    until = live_until(panel)
    assert until is not None and until - time.time() <= 30, panel.text()  # it says so itself: "until … (in 30 s)"
    await settled(fake, channel_board, a, at_least=number + 1)
    pings = len(turn_pings(fake, world, world.bob))
    edits = panel.edits
    clock.now += AWAY
    await move(fake, world.alice, a, "a4-a3")
    await fake.wait_until(lambda: len(turn_pings(fake, world, world.bob)) > pings)
    assert "Press **My board** on the game message to see your board." in turn_pings(fake, world, world.bob)[-1]
    assert panel.edits == edits and "Your opponent moved a4-a3." not in panel.text()

    # A fresh My board is current, and kept so again.
    fresh = await fake.click(world.bob, channel_board, "gg:1:board")
    assert fresh.message is not None and "Your opponent moved a4-a3." in fresh.message.text()
    assert live_until(fresh.message) is not None


async def test_a_lapsed_token_is_given_up_and_an_older_board_says_it_is_out_of_date(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    channel_board, a, panel = await bob_on_my_board(world)

    # A second My board replaces the first, which says so (it would otherwise stop following the game silently).
    second = await fake.click(world.bob, channel_board, "gg:1:board")
    assert second.message is not None and second.message is not panel
    await fake.wait_until(lambda: "out of date" in panel.text())
    assert not panel.components

    # Discord forgets the token early (as when the player dismissed the message): the failed edit is given up.
    fake.expire_tokens()
    edits, number = second.message.edits, move_number(channel_board) or 0
    await move(fake, world.alice, a, "a3-a4")
    await settled(fake, channel_board, a, at_least=number + 1)
    await fake.wait_until(lambda: any(r.status == 401 for r in fake.calls("PATCH", ORIGINAL)))
    assert second.message.edits == edits

    # Bob opens his board again: that one is current, and followed again.
    third = await fake.click(world.bob, channel_board, "gg:1:board")
    assert third.message is not None and "Your move" in third.message.text()
    await move(fake, world.bob, third.message, "b6-b5")
    await settled(fake, channel_board, a, at_least=number + 2)
    await move(fake, world.alice, a, "a4-a3")
    await fake.wait_until(lambda: "Your opponent moved a4-a3." in third.message.text() if third.message else False)

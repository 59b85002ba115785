"""A game ended by its turn timer is announced by the timer loop, at least once (issue 14, point 10): once normally
(not also by the Notifier), and again by the next start when the ending could not be sent before the bot stopped."""

from __future__ import annotations

import re

import pytest

from tests.support.boards import move_buttons, player_to_move
from tests.support.fakediscord import FakeMessage
from tests.support.world import TabletopRunner, World

TIMEOUT = 1.2  # the reminder after 0.9 s, the forfeit after 1.2 s


async def _one_move_played(world: World) -> tuple[FakeMessage, int]:
    """An accepted game in which the first mover played (a rated game); returns its board and who must move now."""
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                                 options={"opponent": world.bob})
    assert res.message is not None
    board = res.message
    await world.fake.click(world.bob, board, board.button("Accept")["custom_id"])
    first = player_to_move(board)
    mover = world.alice if first == world.alice.id else world.bob
    await world.fake.click(mover, board, move_buttons(board)[0]["custom_id"])
    late = world.bob if mover is world.alice else world.alice
    return board, late.id


def _endings(world: World) -> list[FakeMessage]:
    return [m for m in world.fake.channel_messages(world.channel) if m.embeds and "is over" in m.text()]


async def test_a_forfeit_ending_is_sent_once_with_its_ratings(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start_with(turn_timeout=TIMEOUT)
    board, late = await _one_move_played(world)
    await world.fake.wait_until(lambda: bool(_endings(world)), timeout=5)
    await bot.service.told()
    await world.fake.wait_until(lambda: "ran out of time" in board.text(), timeout=5)
    [ending] = _endings(world)  # the timer loop sent it; the Notifier did not send it again
    assert re.search(rf"<@{late}>: 1000 → \d+ \(-\d+\) \(provisional\)", ending.text()), ending.text()


@pytest.mark.parametrize("lost", ["dropped", "stopped while sending"])
async def test_a_forfeit_ending_that_could_not_be_sent_is_sent_by_the_next_start(
    world: World, bots: TabletopRunner, lost: str
) -> None:
    """Whether the send failed before the stop or the stop cut it short (the process still held its claim on the
    announcement: a clean stop lets go of it, so the next start sends it at once, not after the claim runs out)."""
    bot = await bots.start_with(turn_timeout=TIMEOUT)
    board, late = await _one_move_played(world)
    await world.fake.wait_until(
        lambda: any("You forfeit" in m.content and f"<@{late}>" in m.content
                    for m in world.fake.channel_messages(world.channel)), timeout=5)  # the reminder went out
    # The ending's message is lost on its way (as if the bot died while sending it); the bot stops before retrying.
    fault = (world.fake.inject_rest_fault("POST", "/channels/{channel_id}/messages", drop=True) if lost == "dropped"
             else world.fake.inject_rest_fault("POST", "/channels/{channel_id}/messages", delay=60))
    await world.fake.wait_until(lambda: bool(fault.hits), timeout=5)
    await bots.stop(bot)
    assert _endings(world) == []
    await bots.start_with(turn_timeout=TIMEOUT)
    await world.fake.wait_until(lambda: bool(_endings(world)), timeout=5)
    [ending] = _endings(world)
    assert re.search(rf"<@{late}>: 1000 → \d+ \(-\d+\) \(provisional\)", ending.text()), ending.text()
    assert "ran out of time" in board.text()

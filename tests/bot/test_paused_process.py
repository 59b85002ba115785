"""Issue 22, point 2: an ending is sent exactly once although the process that owes it is paused past its lease.

Process A fires a forfeit and, before the ending's message leaves, stops (its event loop blocked, as by a long GC, a
SIGSTOP or a frozen VM) for longer than its heartbeat lasts. Process B, started meanwhile on the same database, sees
A's heartbeat lapse by the database's clock, takes the announcement over and posts the ending. A wakes, its redraw
answered, and asks the fence before the ending: the lease carries B's token now, so A posts nothing. Before the
fence, A posted the ending a second time (two pinging "… is over" messages, both with Rematch).

Leases are short here (a heartbeat of 1.5 s, a look for work to take over every 0.5 s), so the test takes seconds.
"""

from __future__ import annotations

import logging
import time

import pytest

import bot.service.heartbeat
import bot.service.timers
from tests.support.boards import move_buttons, player_to_move
from tests.support.fakediscord import FakeMessage
from tests.support.threaded_bot import ThreadedBot
from tests.support.world import TabletopRunner, World

TIMEOUT = 1.2  # the reminder after 0.9 s, the forfeit after 1.2 s
TTL = 1.5  # a process's heartbeat lasts this long ...
PAUSE = 6.0  # ... and process A is paused for this long
EDIT = "/channels/{channel_id}/messages/{message_id}"
TAKEN_OVER = "was taken over by another process"


@pytest.fixture(autouse=True)
def short_leases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot.service.heartbeat, "PROCESS_TTL", TTL)
    monkeypatch.setattr(bot.service.heartbeat, "BEAT_EVERY", 0.3)
    monkeypatch.setattr(bot.service.timers, "TAKEOVER_EVERY", 0.5)


def _endings(world: World) -> list[FakeMessage]:
    return [m for m in world.fake.channel_messages(world.channel) if m.embeds and "is over" in m.text()]


async def test_an_ending_owed_by_a_process_paused_past_its_lease_is_sent_once(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.service.timers")
    paused = ThreadedBot(TabletopRunner(world.fake, bots.database, url=bots.url))
    try:
        await paused.start(turn_timeout=TIMEOUT)
        res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                                     options={"opponent": world.bob})
        board = res.message
        assert board is not None, res.errors
        await world.fake.click(world.bob, board, board.button("Accept")["custom_id"])
        mover = world.alice if player_to_move(board) == world.alice.id else world.bob
        await world.fake.click(mover, board, move_buttons(board)[0]["custom_id"])
        late = world.bob if mover is world.alice else world.alice
        await world.fake.wait_until(
            lambda: any("You forfeit" in m.content and f"<@{late.id}>" in m.content
                        for m in world.fake.channel_messages(world.channel)), timeout=5)  # the reminder went out
        # The forfeit's redraw, before the ending, reaches Discord late; A is paused while it is on its way.
        slow = world.fake.inject_rest_fault("PATCH", EDIT, status=None, delay=0.5)
        await world.fake.wait_until(lambda: bool(slow.hits), timeout=5)
        paused.pause(PAUSE)
        woken = time.monotonic() + PAUSE
        assert _endings(world) == []

        await bots.start_with(turn_timeout=TIMEOUT)  # process B
        await world.fake.wait_until(lambda: bool(_endings(world)), timeout=woken - time.monotonic() - 0.5)
        assert time.monotonic() < woken, "B must post the ending while A is still paused"

        def a_dropped_it() -> bool:
            return any(TAKEN_OVER in r.getMessage() for r in caplog.records)

        await world.fake.wait_until(lambda: a_dropped_it() or len(_endings(world)) > 1,
                                    timeout=woken - time.monotonic() + 5)
        assert len(_endings(world)) == 1, "the paused process posted the ending again once it woke"
        assert "ran out of time" in board.text()
    finally:
        await paused.close()

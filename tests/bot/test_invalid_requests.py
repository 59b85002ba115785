"""Issue 22, point 13: the bot counts what Discord refuses (429, 401, 403: its "invalid requests", 10,000 of which in 10
minutes get the bot's IP address banned) and logs the counts, so an admin sees the ban coming. Two bot processes share
one offline Discord that answers some of their requests with 429s (Discord's body and headers) and 403s."""

from __future__ import annotations

import asyncio
import logging
import re

import pytest

from bot.client import TabletopBot
from bot.rest_watch import BAN_AT, LOUD_AT, InvalidRequests
from tests.support.boards import player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord.routes import CALLBACK_ROUTE
from tests.support.interactions import accepted_challenge, bot_idle
from tests.support.world import TabletopRunner, World

EDIT = "/channels/{channel_id}/messages/{message_id}"
REPORT = re.compile(r"Discord refused (\d+) requests of this process in the last 10 minutes: (\d+) rate limited "
                    r"\(429, (\d+) of them by the global limit\), (\d+) unauthorised \(401\), (\d+) forbidden \(403\)")


def _reports(caplog: pytest.LogCaptureFixture) -> list[tuple[int, ...]]:
    return [tuple(int(n) for n in found.groups()) for r in caplog.records if r.name == "bot.rest_watch"
            and r.levelno == logging.WARNING and (found := REPORT.match(r.getMessage()))]


async def test_two_processes_count_and_log_the_429s_and_403s_discord_answers(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    fake = world.fake
    first = await bots.start()
    others = TabletopRunner(fake, bots.database, url=bots.url)
    second = await others.start()  # the newest session: it gets the clicks
    try:
        for bot in (first, second):
            bot.rest_watch.report_every = 0.3  # a report at most every 0.3 s instead of every minute
        # The second process: its answer to a challenge is rate limited three times (once by the global limit), and
        # the DM of a Generals board to Bob, whose DMs are closed, is forbidden.
        fake.inject_rest_fault("POST", CALLBACK_ROUTE, status=429, retry_after=0.05, times=2)
        fake.inject_rest_fault("POST", CALLBACK_ROUTE, status=429, retry_after=0.05, is_global=True)
        fake.fail_dm_for(world.bob)
        await accepted_challenge(fake, world.channel, world.alice, world.bob, "generals")
        await fake.wait_until(lambda: second.rest_watch.counts()["403"] >= 1, timeout=15)

        # The first process: a Chopsticks move stored and drawn by it, its two edits of the board rate limited.
        res = await fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"opponent": world.bob})
        chopsticks = res.message
        assert chopsticks is not None, res.errors
        assert ((await fake.click(world.bob, chopsticks, chopsticks.button("Accept")["custom_id"])).callback_type
                == Callback.UPDATE_MESSAGE)
        game_id = int(str(chopsticks.custom_ids()[0]).split(":")[1])
        assert await bot_idle(fake)  # the second process has drawn all it will: the next edits are the first's
        limited = fake.inject_rest_fault("PATCH", EDIT, status=429, retry_after=0.05, times=2)
        await first.service.view(game_id, fresh=True)
        await first.service.act(game_id, player_to_move(chopsticks) or 0, "AC")
        await first.redraw(game_id)
        assert len(limited.hits) == 2

        def said(bot: TabletopBot) -> tuple[int, ...]:
            counts = bot.rest_watch.counts()
            return (sum(counts.values()), counts["429"] + counts["429 global"], counts["429 global"], counts["401"],
                    counts["403"])

        assert said(first) == (2, 2, 0, 0, 0)
        assert said(second)[1:4] == (3, 1, 0) and said(second)[4] >= 1
        await fake.wait_until(lambda: said(first) in _reports(caplog) and said(second) in _reports(caplog), timeout=5)
    finally:
        await others.stop_all()
    # Refusals are not faults: nothing above a WARNING.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_a_ban_coming_is_said_louder_and_a_shared_limit_is_not_counted(
    caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    now = [0.0]
    watch = InvalidRequests(report_every=60.0, clock=lambda: now[0])
    watch.record(429, {"X-RateLimit-Scope": "shared"})  # a resource's own limit: not the bot's, not counted
    watch.record(200, {})
    watch.record(404, {})
    assert not watch.counts()
    watch.record(403, {})
    await asyncio.sleep(0.01)  # the first refusal is reported at once
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    assert "1 forbidden (403)" in caplog.records[0].getMessage()
    for _ in range(LOUD_AT):
        now[0] += 0.01
        watch.record(429, {"X-RateLimit-Scope": "user"})
    watch.report()  # what the loop does a minute after the last report
    assert caplog.records[-1].levelname == "ERROR" and f"at {BAN_AT} such requests" in caplog.records[-1].getMessage()
    assert f"Discord refused {LOUD_AT + 1} requests" in caplog.records[-1].getMessage()
    now[0] += 601  # ten minutes later they are forgotten
    assert not watch.counts()

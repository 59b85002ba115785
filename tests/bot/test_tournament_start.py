"""A tournament's start time in Discord, through the real bot and the offline Discord, on both databases: given as a
delay, a UTC date or a Discord timestamp (and refused, privately, in the past or unreadable); shown in the
announcement; the tournament starts by itself then, or, with too few players, the channel is told once."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.cogs.tournament import start_time
from bot.service import ServiceError
from tests.support.clock import Clock
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.interactions import bot_idle
from tests.support.world import TabletopRunner, World, change_stored, stored_rows

NOW = datetime(2026, 11, 29, 9, 30, tzinfo=UTC).timestamp()
HOUR = 3_600.0


def _button(message: FakeMessage, label: str) -> str:
    return str(next(b["custom_id"] for b in message.buttons() if b["label"] == label))


async def _new(world: World, starts: str, **options: object) -> FakeMessage:
    res = await world.fake.slash(world.alice, world.channel, "tournament", "new", permissions=PERM_MANAGE_GUILD,
                                 options={"game": "chopsticks", "format": "swiss", "starts": starts, **options})
    assert res.callback_type == Callback.CHANNEL_MESSAGE and res.message is not None, res.errors
    assert not res.ephemeral, res.message.text()
    return res.message


def test_a_start_is_a_delay_a_utc_date_or_a_discord_timestamp() -> None:
    assert start_time("2h", NOW) == NOW + 2 * HOUR
    assert start_time(" 3d ", NOW) == NOW + 72 * HOUR
    december = datetime(2026, 12, 5, 18, 0, tzinfo=UTC).timestamp()
    assert start_time("2026-12-05 18:00", NOW) == december
    assert start_time("2026-12-05T18:00", NOW) == december
    assert start_time(f"<t:{int(december)}>", NOW) == december
    assert start_time(f"<t:{int(december)}:F>", NOW) == december
    assert start_time(f"<t:{int(december)}:R>", NOW) == december
    # Unreadable: why, with examples of each form (tomorrow at 18:00 UTC).
    tomorrow = int(datetime(2026, 11, 30, 18, 0, tzinfo=UTC).timestamp())
    for text in ("tomorrow", "2026-12-05", "18:00", "2026-02-30 18:00", "2026-12-05 25:00", "<t:abc>", "0m", "-2h"):
        with pytest.raises(ServiceError) as refused:
            start_time(text, NOW)
        assert str(refused.value.args[0]) == (
            "`starts` takes a delay like 2h or 3d, a date and time in UTC like 2026-11-30 18:00, or a Discord "
            f"timestamp like <t:{tomorrow}>."), text
    # In the past (or now): said so, with the time it read.
    for text, when in (("2026-11-29 09:00", NOW - 1800), (f"<t:{int(NOW)}>", NOW)):
        with pytest.raises(ServiceError) as refused:
            start_time(text, NOW)
        assert str(refused.value.args[0]) == (
            f"That start time (<t:{int(when)}:F>) has already passed: give one to come, like 2h, 2026-11-30 18:00 "
            f"(UTC) or <t:{tomorrow}>.")


async def test_a_start_in_the_past_or_unreadable_is_refused_privately(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    bot.service.clock = Clock(NOW)
    for starts, why in (("2026-11-28 18:00", "has already passed"), ("next friday", "takes a delay like 2h")):
        res = await world.fake.slash(world.alice, world.channel, "tournament", "new", permissions=PERM_MANAGE_GUILD,
                                     options={"game": "chopsticks", "format": "swiss", "starts": starts})
        assert res.ephemeral and res.message is not None, res.errors
        assert why in res.message.text() and "2026-11-30 18:00" in res.message.text(), res.message.text()
    assert world.fake.channel_messages(world.channel) == []  # nothing made, nothing announced
    announcement = await _new(world, "2026-11-29 18:00")
    at = int(datetime(2026, 11, 29, 18, 0, tzinfo=UTC).timestamp())
    assert f"Starts by itself: <t:{at}:F> (<t:{at}:R>)." in announcement.text()
    assert f"It starts by itself <t:{at}:R>, or sooner if the organiser starts it." in announcement.text()


async def test_a_tournament_starts_by_itself_at_its_start_time(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    clock = Clock(NOW)
    bot.service.clock = clock
    fake = world.fake
    dave = fake.add_user("dave")
    announcement = await _new(world, "1h", rounds=2, min_players=4)
    for user in (world.alice, world.bob, world.carol, dave):
        joined = await fake.click(user, announcement, _button(announcement, "Join"))
        assert joined.callback_type == Callback.UPDATE_MESSAGE, joined.errors
    assert "Start" in {b["label"] for b in announcement.buttons()}  # the organiser may still start it sooner
    clock.now += HOUR
    bot.service.timers_changed.set()
    await fake.wait_until(lambda: any("round 1 of 2" in m.content for m in fake.channel_messages(world.channel)))
    await bot_idle(fake)
    # Started as the Start button starts it: the pairings, the boards, the standings, the announcement edited.
    assert "Under way: round 1 of 2." in announcement.text(), announcement.text()
    assert f"Start time: <t:{int(NOW + HOUR)}:F>." in announcement.text()
    assert "Pause" in {b["label"] for b in announcement.buttons()}
    boards = [m for m in fake.messages.values() if "Chopsticks #" in m.text() and m.buttons()]
    assert len(boards) >= 2  # the two boards, in the round's thread (opened from the pairings message)
    assert all(fake.channels[b.channel_id].parent_id == world.channel.id for b in boards)
    assert not any("did not start" in m.content for m in fake.channel_messages(world.channel))


async def test_too_few_players_at_the_start_time_are_told_once(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    clock = Clock(NOW)
    bot.service.clock = clock
    fake = world.fake
    announcement = await _new(world, "30m", min_players=4)
    for user in (world.bob, world.carol):
        await fake.click(user, announcement, _button(announcement, "Join"))
    for _ in range(3):  # the start time, then later looks of the timer loop: said once
        clock.now += HOUR
        bot.service.timers_changed.set()
        await fake.wait_until(lambda: any("did not start" in m.content
                                          for m in fake.channel_messages(world.channel)))
        await bot_idle(fake)
    [notice] = [m for m in fake.channel_messages(world.channel) if "did not start" in m.content]
    assert notice.content == (
        "Tournament #1 did not start at its start time: it needs 4 players, and 2 have joined. The organiser can "
        "**Start** it once enough have joined, or **Cancel** it.")
    assert not notice.pinged
    assert ("Its start time came before enough players had joined (4 needed): the organiser can **Start** it once "
            "enough have joined, or **Cancel** it.") in announcement.text(), announcement.text()
    assert {"Join", "Start", "Cancel"} <= {b["label"] for b in announcement.buttons()}
    assert await stored_rows(bots.target, "SELECT status FROM tournaments") == [("open",)]


async def test_a_start_time_that_came_while_the_bot_was_down_starts_it_when_it_is_back(
        world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    fake = world.fake
    announcement = await _new(world, "2h", rounds=1)
    for user in (world.alice, world.bob):
        await fake.click(user, announcement, _button(announcement, "Join"))
    await bots.stop(bot)
    await change_stored(bots.target, "UPDATE tournaments SET starts_at = starts_at - 3 * 3600")  # the time passed
    await bots.start()  # a new process: its timer loop finds the start time due at once
    await fake.wait_until(lambda: "Under way: round 1 of 1." in announcement.text(), timeout=10)
    await bot_idle(fake)
    assert len([m for m in fake.channel_messages(world.channel) if "round 1 of 1" in m.content]) == 1
    assert await stored_rows(bots.target, "SELECT COUNT(*) FROM tournament_rounds") == [(1,)]

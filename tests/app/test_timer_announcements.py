"""A turn timer's announcement survives the process dying right after the timer fired (found by the crash test,
tests/tools/crash.py: "the reminder ... fired but was not sent (the bot was SIGKILLed 0.06 s after)").

The process dying between the timer's commit and its announcement is modelled by an announcement that fails; the
restarted process is a new service and timer loop on the same file. The timer's change writes, in its own
transaction, what it owes to announce (storage/owed.py), and the loop forgets it only once it was sent: announced at
least once, the change itself made exactly once.
"""

from __future__ import annotations

from typing import Any

from bot.service import GameService, Player, Result, TimerEvent
from bot.service.lobbies import LobbyService
from bot.service.timers import Fence, TimerLoop, Undeliverable
from storage.connection import open_database
from storage.lobbies import LobbyRecord
from tests.support.clock import Clock

ALICE, BOB = 101, 202


async def _nothing(_lobby: LobbyRecord) -> None:
    return None


async def test_a_reminder_cut_short_by_a_crash_is_sent_after_the_restart(database_target: str) -> None:
    clock = Clock()
    told: list[tuple[TimerEvent, int]] = []

    async def dies(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        raise ConnectionError("the process died before the message left")

    async def sends(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        assert await fence()  # one process: the announcement is its own
        told.append((event, result.id))

    db = await open_database(database_target)
    try:
        service = GameService(db, clock=clock, turn_timeout=100.0)
        game = await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                                    options={"first": 0})
        clock.now += 80  # past the reminder (at 75 s), before the forfeit
        assert await TimerLoop(service, dies, LobbyService(service), _nothing).fire_due() == 1
    finally:
        await db.close()

    db = await open_database(database_target)  # the restarted process
    try:
        service = GameService(db, clock=clock, turn_timeout=100.0)
        await TimerLoop(service, sends, LobbyService(service), _nothing).fire_due()
        # At least once: a fix clears remind_at only after the reminder was sent (or keeps what is owed in the
        # database until it was), so the restarted process sends it.
        assert told == [(TimerEvent.REMINDER, game.id)]
    finally:
        await db.close()


async def _dies(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
    raise ConnectionError("the process died before the message left")


async def test_a_forfeit_that_ended_the_game_is_announced_after_the_restart_with_its_ratings(
        database_target: str) -> None:
    clock = Clock()
    told: list[tuple[TimerEvent, Result[Any, Any]]] = []
    first: list[Result[Any, Any]] = []

    async def dies(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        first.append(result)
        raise ConnectionError("the process died before the ending left")

    async def sends(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        assert await fence()
        told.append((event, result))

    db = await open_database(database_target)
    try:
        service = GameService(db, clock=clock, turn_timeout=100.0)
        game = await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                                    options={"first": 0})
        await service.act(game.id, ALICE, "AC")  # play began: the forfeit is rated
        clock.now += 200  # past Bob's reminder and deadline: he forfeits
        assert await TimerLoop(service, dies, LobbyService(service), _nothing).fire_due() == 1
    finally:
        await db.close()
    [forfeited] = first
    ending = forfeited.ended()
    assert ending is not None and ending.by_timer and ending.rating_changes  # the Notifier leaves it to the loop

    db = await open_database(database_target)  # the restarted process
    try:
        service = GameService(db, clock=clock, turn_timeout=100.0)
        loop = TimerLoop(service, sends, LobbyService(service), _nothing)
        assert await loop.fire_due() == 0
        [(event, result)] = told
        assert event is TimerEvent.FORFEIT and result.game.status == "finished"
        assert result.ended() == ending  # the same places, reason and rating changes: its ratings line is sent
        assert len(await service.store.moves(game.id)) == 2  # the forfeit was applied once
        await loop.fire_due()
        assert len(told) == 1  # settled: not sent again
    finally:
        await db.close()


async def test_a_reminder_whose_decision_moved_on_is_not_sent_after_the_restart(database_target: str) -> None:
    clock = Clock()
    told: list[TimerEvent] = []

    async def sends(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        assert await fence()
        told.append(event)

    db = await open_database(database_target)
    try:
        service = GameService(db, clock=clock, turn_timeout=100.0)
        game = await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                                    options={"first": 0})
        clock.now += 80
        assert await TimerLoop(service, _dies, LobbyService(service), _nothing).fire_due() == 1
        await service.act(game.id, ALICE, "AC")  # Alice moved before the restart: the reminder no longer applies
    finally:
        await db.close()

    db = await open_database(database_target)
    try:
        service = GameService(db, clock=clock, turn_timeout=100.0)
        assert await TimerLoop(service, sends, LobbyService(service), _nothing).fire_due() == 0
        assert told == []
    finally:
        await db.close()


async def test_a_failed_announcement_is_retried_a_few_times_then_given_up(database_target: str) -> None:
    clock = Clock()
    tries: list[TimerEvent] = []

    async def fails(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        tries.append(event)
        raise ConnectionError("Discord is down")

    db = await open_database(database_target)
    try:
        service = GameService(db, clock=clock, turn_timeout=100.0)
        await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                             options={"first": 0})
        clock.now += 80
        loop = TimerLoop(service, fails, LobbyService(service), _nothing)
        for _ in range(5):
            await loop.fire_due()
        assert tries == [TimerEvent.REMINDER] * 3  # the first send and two retries, then it is given up
        restarted = TimerLoop(service, fails, LobbyService(service), _nothing)
        assert await restarted.fire_due() == 0 and len(tries) == 3  # nothing left owed
    finally:
        await db.close()


async def test_an_undeliverable_announcement_is_given_up_at_once(database_target: str) -> None:
    clock = Clock()
    tries: list[TimerEvent] = []

    async def refused(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        tries.append(event)
        raise Undeliverable("403 Forbidden: Missing Access")

    db = await open_database(database_target)
    try:
        service = GameService(db, clock=clock, turn_timeout=100.0)
        await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                             options={"first": 0})
        clock.now += 80
        assert await TimerLoop(service, refused, LobbyService(service), _nothing).fire_due() == 0
        assert await TimerLoop(service, refused, LobbyService(service), _nothing).fire_due() == 0
        assert tries == [TimerEvent.REMINDER]
    finally:
        await db.close()

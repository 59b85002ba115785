"""A turn timer's announcement survives the process dying right after the timer fired (found by the crash test,
tests/tools/crash.py: "the reminder ... fired but was not sent (the bot was SIGKILLed 0.06 s after)").

The process dying between the timer's commit and its announcement is modelled by an announcement that fails; the
restarted process is a new service and timer loop on the same file. The timer's change writes, in its own
transaction, what it owes to announce (storage/owed.py), and the loop forgets it only once it was sent: announced at
least once, the change itself made exactly once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from bot.service import GameService, Player, Result, TimerEvent
from bot.service.lobbies import LobbyService
from bot.service.timers import Announce, Fence, TimerLoop, Undeliverable
from storage.connection import open_database
from storage.lobbies import LobbyRecord
from tests.support.clock import Clock

ALICE, BOB, CAROL = 101, 202, 303


async def _nothing(_lobby: LobbyRecord) -> None:
    return None


async def _dies(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
    raise ConnectionError("the process died before the message left")


def _failing(error: Exception) -> tuple[list[TimerEvent], Announce]:
    """An announcement that fails with (a copy of) `error`, and the list of the events it was asked to send."""
    tries: list[TimerEvent] = []

    async def announce(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        tries.append(event)
        raise type(error)(*error.args)

    return tries, announce


@asynccontextmanager
async def _process(database_target: str, clock: Clock) -> AsyncIterator[GameService]:
    """One run of the bot: a service on the test's database (turns of 100 s, a reminder at 75 s), closed after."""
    db = await open_database(database_target)
    try:
        yield GameService(db, clock=clock, turn_timeout=100.0)
    finally:
        await db.close()


async def _new_game(service: GameService) -> Result[Any, Any]:
    """A game of Chopsticks, Alice to move first."""
    return await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                                options={"first": 0})


@asynccontextmanager
async def _reminder_due(database_target: str) -> AsyncIterator[GameService]:
    """A run with a new game whose turn reminder is due: 80 s of Alice's 100 s have passed (the reminder is at 75 s)."""
    clock = Clock()
    async with _process(database_target, clock) as service:
        await _new_game(service)
        clock.now += 80
        yield service


def _loop(service: GameService, announce: Announce) -> TimerLoop:
    """The timer loop of that run, announcing with `announce`."""
    return TimerLoop(service, announce, LobbyService(service), _nothing)


async def test_a_reminder_cut_short_by_a_crash_is_sent_after_the_restart(database_target: str) -> None:
    clock = Clock()
    told: list[tuple[TimerEvent, int]] = []

    async def sends(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        assert await fence()  # one process: the announcement is its own
        told.append((event, result.id))

    async with _process(database_target, clock) as service:
        game = await _new_game(service)
        clock.now += 80  # past the reminder (at 75 s), before the forfeit
        assert await _loop(service, _dies).fire_due() == 1

    async with _process(database_target, clock) as service:  # the restarted process
        await _loop(service, sends).fire_due()
        # At least once: a fix clears remind_at only after the reminder was sent (or keeps what is owed in the
        # database until it was), so the restarted process sends it.
        assert told == [(TimerEvent.REMINDER, game.id)]


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

    async with _process(database_target, clock) as service:
        game = await _new_game(service)
        await service.act(game.id, ALICE, "AC")  # play began: the forfeit is rated
        clock.now += 200  # past Bob's reminder and deadline: he forfeits
        assert await _loop(service, dies).fire_due() == 1
    [forfeited] = first
    ending = forfeited.ended()
    assert ending is not None and ending.by_timer and ending.rating_changes  # the Notifier leaves it to the loop

    async with _process(database_target, clock) as service:  # the restarted process
        loop = _loop(service, sends)
        assert await loop.fire_due() == 0
        [(event, result)] = told
        assert event is TimerEvent.FORFEIT and result.game.status == "finished"
        assert result.ended() == ending  # the same places, reason and rating changes: its ratings line is sent
        assert len(await service.store.moves(game.id)) == 2  # the forfeit was applied once
        await loop.fire_due()
        assert len(told) == 1  # settled: not sent again


async def test_two_forfeits_left_unannounced_are_both_told_each_as_it_happened(database_target: str) -> None:
    """Alice forfeits, the process stops before saying so, and Bob's turn runs out too before a live process took the
    first announcement over: the table is told of both, Alice's from the position she went out in."""
    clock = Clock()
    told: list[tuple[TimerEvent, int, str, bool]] = []

    async def sends(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        assert await fence()
        told.append((event, result.game.move_count, result.game.status, result.ended() is not None))

    async with _process(database_target, clock) as service:
        game = await service.create("chopsticks", guild_id=1, channel_id=2,
                                    players=[Player(ALICE), Player(BOB), Player(CAROL)], options={"first": 0})
        clock.now += 200  # Alice's turn runs out: she is out, and Bob is to move
        assert await _loop(service, _dies).fire_due() == 1
        clock.now += 200  # so does Bob's: Carol wins
        assert await _loop(service, _dies).fire_due() == 2  # Alice's again (still owed), then Bob's

    async with _process(database_target, clock) as service:  # the restarted process
        loop = _loop(service, sends)
        assert await loop.fire_due() == 0
        assert told == [(TimerEvent.FORFEIT, 1, "active", False), (TimerEvent.FORFEIT, 2, "finished", True)]
        assert [m.action for m in await service.store.moves(game.id)] == ["timeout", "timeout"]  # each made once
        await loop.fire_due()
        assert len(told) == 2  # settled: not sent again


async def test_a_reminder_whose_decision_moved_on_is_not_sent_after_the_restart(database_target: str) -> None:
    clock = Clock()
    told: list[TimerEvent] = []

    async def sends(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        assert await fence()
        told.append(event)

    async with _process(database_target, clock) as service:
        game = await _new_game(service)
        clock.now += 80
        assert await _loop(service, _dies).fire_due() == 1
        await service.act(game.id, ALICE, "AC")  # Alice moved before the restart: the reminder no longer applies

    async with _process(database_target, clock) as service:
        assert await _loop(service, sends).fire_due() == 0
        assert told == []


async def test_a_failed_announcement_is_retried_a_few_times_then_given_up(database_target: str) -> None:
    tries, fails = _failing(ConnectionError("Discord is down"))
    async with _reminder_due(database_target) as service:
        loop = _loop(service, fails)
        for _ in range(5):
            await loop.fire_due()
        assert tries == [TimerEvent.REMINDER] * 3  # the first send and two retries, then it is given up
        restarted = _loop(service, fails)
        assert await restarted.fire_due() == 0 and len(tries) == 3  # nothing left owed


async def test_an_undeliverable_announcement_is_given_up_at_once(database_target: str) -> None:
    tries, refused = _failing(Undeliverable("403 Forbidden: Missing Access"))
    async with _reminder_due(database_target) as service:
        assert await _loop(service, refused).fire_due() == 0
        assert await _loop(service, refused).fire_due() == 0
        assert tries == [TimerEvent.REMINDER]


async def test_a_place_stays_open_while_an_ending_is_still_on_its_way_there(database_target: str) -> None:
    """A table's thread is closed at the table's end unless another game lives in it. A game there whose ending is
    still to be posted counts (found by the fuzzer: a Chopsticks game challenged in a table's thread forfeited in
    the same timer pass as the table ended; the table closed its thread, and the forfeit's ending was refused there
    with "Thread is archived")."""
    clock = Clock()
    async with _process(database_target, clock) as service:
        table = await _new_game(service)
        other = await _new_game(service)  # both in channel 2: the table's own place
        await service.act(other.id, ALICE, "AC")
        await service.resign(table.id, ALICE)
        assert await service.place_still_used(2, but=table.id)  # the other game is being played
        clock.now += 200  # the other game's turn time runs out: Bob forfeits, and its announcement fails
        assert await _loop(service, _dies).fire_due() == 1
        clock.now += 3600  # long after its end: its forfeit's ending is still owed, so still on its way
        assert await service.place_still_used(2, but=table.id)
        told: list[TimerEvent] = []

        async def sends(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
            assert await fence()
            told.append(event)

        await _loop(service, sends).fire_due()
        assert told == [TimerEvent.FORFEIT]
        assert not await service.place_still_used(2, but=table.id)  # posted: nothing lives there any more

        ended_by_a_move = await _new_game(service)
        await service.resign(ended_by_a_move.id, BOB)  # its player's process posts the ending right after
        assert await service.place_still_used(2, but=table.id)
        clock.now += 61
        assert not await service.place_still_used(2, but=table.id)

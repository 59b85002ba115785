"""Issue 22, point 2: every side effect once whatever processes are paused or skewed, on both databases.

Two "processes" are two `GameService`s on their own connections to one database, each with its own holder id and a
heartbeat that really runs out (storage/leases.py: the database's clock decides). A process whose clock runs a minute
ahead takes no live process for dead (before, leases compared each process's own clock, and it did the live one's work
again); a computer player's move computed by a process that lost its lease meanwhile (paused, stalled) is not
committed, since the fence is checked in the move's own transaction."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from bot.service import GameService, Player, Result, TimerEvent
from bot.service.computer_moves import COMPUTER_TURN_LEASE
from bot.service.computer_turns import ComputerTurns
from bot.service.heartbeat import Heartbeat
from bot.service.lobbies import LobbyService
from bot.service.timers import Fence, TimerLoop
from storage.database import Database
from storage.leases import beat, computer_turn_key, holder_of, owed_key

ALICE, BOB = 101, 202
SHORT = 0.3  # seconds: a heartbeat the tests wait out


async def _nothing(_arg: object) -> None:
    return None


async def _beat(service: GameService, seconds: float) -> None:
    async with service.store.transaction() as tx:
        await beat(await tx.writer(), service.holder, seconds)


def _clock(offset: list[float], ahead: float = 0.0) -> Callable[[], float]:
    """A process's clock: the real one, moved by `offset[0]` (game time the test advances), and `ahead` seconds more."""
    return lambda: time.time() + offset[0] + ahead


async def test_a_process_whose_clock_runs_a_minute_ahead_takes_no_live_process_for_dead(
    two: tuple[Database, Database],
) -> None:
    offset = [0.0]
    here = GameService(two[0], clock=_clock(offset), turn_timeout=1000.0)
    ahead = GameService(two[1], clock=_clock(offset, ahead=60.0), turn_timeout=1000.0)
    for service in (here, ahead):
        await Heartbeat(service).beat()  # both alive, for the next 10 s
    reminded = await here.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                                 options={"first": 0})
    offset[0] += 800  # past the reminder (750 s) for both, before the forfeit (1000 s) even for the one ahead
    fired = await here.fire_timer(reminded.id)  # here fired the reminder and is sending it
    assert fired is not None and fired.event is TimerEvent.REMINDER
    driven = await here.create("chopsticks", guild_id=1, channel_id=2,
                               players=[Player(computer="medium"), Player(ALICE)], options={"first": 0})
    assert await here.hold(computer_turn_key(driven.id), COMPUTER_TURN_LEASE)  # here's bot is thinking in this game

    told: list[tuple[TimerEvent, int]] = []

    async def send(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        if await fence():
            told.append((event, result.id))

    assert await TimerLoop(ahead, send, LobbyService(ahead), _nothing).fire_due() == 0
    turns = ComputerTurns(ahead, _nothing)
    await turns.take_over()
    await turns.idle()

    assert told == [], "the process ahead sent the reminder the live process is sending"
    assert (await ahead.load(driven.id)).record.move_count == 0, "the process ahead moved for the live one's bot"
    async with two[1].reading() as conn:
        assert await holder_of(conn, owed_key(reminded.id, TimerEvent.REMINDER.value, fired.ply)) == here.holder
        assert await holder_of(conn, computer_turn_key(driven.id)) == here.holder


async def test_a_bot_move_of_a_driver_that_lost_its_lease_meanwhile_is_not_committed(
    two: tuple[Database, Database],
) -> None:
    """A's bot thinks; before its move is committed (a click in A holds the game), A's heartbeat lapses and B takes
    the turn over. A's move is dropped, though the game is as A read it (the version guard alone let it land), and
    B's is the one move made."""
    here, there = GameService(two[0]), GameService(two[1])
    await _beat(here, SHORT)
    await _beat(there, 60.0)
    game = await here.create("chopsticks", guild_id=1, channel_id=2, players=[Player(computer="medium"), Player(ALICE)],
                             options={"first": 0})
    key = computer_turn_key(game.id)
    async with here.locks.hold(game.id):  # a click being served in A holds the game's lock meanwhile
        moving = asyncio.create_task(here.play_computer_turn(game.id))
        for _ in range(500):
            async with two[1].reading() as conn:
                if await holder_of(conn, key) == here.holder:
                    break
            await asyncio.sleep(0.01)
        await asyncio.sleep(SHORT + 0.05)  # A's heartbeat runs out (it stalled): B takes the turn over
        assert await there.hold(key, COMPUTER_TURN_LEASE)
    assert await moving is None, "the move of the process that lost its lease was committed"
    assert (await there.load(game.id)).record.move_count == 0
    moved = await there.play_computer_turn(game.id)
    assert moved is not None and moved.game.move_count == 1
    assert [m.ply for m in await there.store.moves(game.id)] == [1]

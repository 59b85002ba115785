"""Every side effect once when two processes share one database (issue 17): a due timer and its announcement, an
owed announcement, a bot's turn. Each "process" is a `GameService` on its own connection to the database, with its own
holder id; a process that died is a holder that no longer renews its leases (storage/leases.py), which run out by the
database's clock: a process's heartbeat of a fraction of a second that really runs out."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.service import GameService, Player, Result, TimerEvent
from bot.service.computer_moves import COMPUTER_TURN_LEASE
from bot.service.computer_turns import ComputerTurns
from bot.service.lobbies import LobbyService
from bot.service.timers import TAKEOVER_EVERY, Fence, TimerLoop
from storage.database import Database
from storage.db import SqliteDatabase
from storage.leases import beat, claim, computer_turn_key, computer_turns_to_take, holder_of
from storage.lobbies import LobbyRecord
from storage.sql import Dialect
from tests.support.clock import Clock

ALICE, BOB = 101, 202
SHORT = 0.3  # seconds: a heartbeat the tests wait out


async def _beat(service: GameService, seconds: float) -> None:
    """`service`'s process beats once: alive for `seconds` from now, by the database's clock."""
    async with service.store.transaction() as tx:
        await beat(await tx.writer(), service.holder, seconds)


async def _nothing(_lobby: LobbyRecord) -> None:
    return None


async def _no_redraw(_game_id: int) -> None:
    return None


def _trouble(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING or "failed" in r.getMessage()]


async def test_two_timer_loops_on_one_due_timer_announce_it_once(
    two: tuple[Database, Database], caplog: pytest.LogCaptureFixture
) -> None:
    """The second process starts (and looks at what is owed) while the first is sending the reminder it fired."""
    clock = Clock()
    here, there = (GameService(db, clock=clock, turn_timeout=100.0) for db in two)
    game = await here.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                             options={"first": 0})
    clock.now += 80  # past the reminder (75 s)
    told: list[tuple[str, TimerEvent, int]] = []
    sending, other_looked = asyncio.Event(), asyncio.Event()

    async def slow_send(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        sending.set()
        await other_looked.wait()  # Discord is slow: the other process starts meanwhile
        if await fence():
            told.append(("here", event, result.id))

    async def send(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        if await fence():
            told.append(("there", event, result.id))

    caplog.set_level(logging.DEBUG)
    first = asyncio.create_task(TimerLoop(here, slow_send, LobbyService(here), _nothing).fire_due())
    await sending.wait()
    assert await TimerLoop(there, send, LobbyService(there), _nothing).fire_due() == 0
    other_looked.set()
    assert await first == 0
    assert told == [("here", TimerEvent.REMINDER, game.id)]
    assert _trouble(caplog) == []


async def test_both_loops_firing_together_apply_and_announce_once(
    two: tuple[Database, Database], caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    here, there = (GameService(db, clock=clock, turn_timeout=100.0) for db in two)
    games = [(await here.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                                options={"first": 0})).id for _ in range(5)]
    clock.now += 101  # every game forfeited
    told: list[tuple[TimerEvent, int]] = []

    async def send(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
        await asyncio.sleep(0.01)
        if await fence():
            told.append((event, result.id))

    caplog.set_level(logging.DEBUG)
    loops = [TimerLoop(s, send, LobbyService(s), _nothing) for s in (here, there)]
    assert await asyncio.gather(*(loop.fire_due() for loop in loops)) == [0, 0]
    assert sorted(told) == [(TimerEvent.FORFEIT, g) for g in games]
    assert [m.action for g in games for m in await here.store.moves(g)] == ["timeout"] * 5
    assert _trouble(caplog) == []


async def test_an_owed_announcement_of_a_dead_process_is_sent_once_its_claim_ran_out(
    two: tuple[Database, Database],
) -> None:
    clock = Clock()
    dead = GameService(two[0], clock=clock, turn_timeout=1000.0, holder="dead")
    await _beat(dead, SHORT)
    game = await dead.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                             options={"first": 0})
    clock.now += 800  # past the reminder (750 s), far from the forfeit
    assert await dead.fire_timer(game.id) is not None  # fired, owed, claimed ... and the process died before sending
    told: list[tuple[str, TimerEvent, int]] = []

    def sender(name: str) -> Any:
        async def send(event: TimerEvent, result: Result[Any, Any], fence: Fence) -> None:
            if await fence():
                told.append((name, event, result.id))
        return send

    alive = [GameService(db, clock=clock, turn_timeout=1000.0) for db in two]
    loops = [TimerLoop(s, sender(f"p{i}"), LobbyService(s), _nothing) for i, s in enumerate(alive)]
    await asyncio.gather(*(loop.fire_due() for loop in loops))
    assert told == []  # its heartbeat still runs: that process may be about to send it
    await asyncio.sleep(SHORT + 0.05)  # its heartbeat has run out: it died
    clock.now += TAKEOVER_EVERY  # the loops' next look for what nobody alive is sending
    await asyncio.gather(*(loop.fire_due() for loop in loops))
    assert [(event, game_id) for _, event, game_id in told] == [(TimerEvent.REMINDER, game.id)]
    await asyncio.gather(*(loop.fire_due() for loop in loops))
    assert len(told) == 1


async def _bot_first(service: GameService) -> int:
    game = await service.create("chopsticks", guild_id=1, channel_id=2,
                                players=[Player(computer="medium"), Player(ALICE)], options={"first": 0})
    assert game.game.computer_to_move
    return game.id


async def test_a_live_bot_turn_lease_is_respected(two: tuple[Database, Database]) -> None:
    clock = Clock()
    here, there = GameService(two[0], clock=clock), GameService(two[1], clock=clock)
    game_id = await _bot_first(here)
    async with two[0].transaction() as conn:
        assert await claim(conn, computer_turn_key(game_id), here.holder, COMPUTER_TURN_LEASE)
    assert await there.play_computer_turn(game_id) is None  # it does not even think
    turns = ComputerTurns(there, _no_redraw)
    await turns.resume_all()  # as at its start-up
    await turns.take_over()  # as its periodic look
    await turns.idle()
    assert (await there.load(game_id)).record.move_count == 0
    moved = await here.play_computer_turn(game_id)
    assert moved is not None and moved.game.move_count == 1


async def test_two_processes_driving_one_bot_turn_think_once(two: tuple[Database, Database]) -> None:
    clock = Clock()
    here, there = GameService(two[0], clock=clock), GameService(two[1], clock=clock)
    game_id = await _bot_first(here)
    results = await asyncio.gather(here.play_computer_turn(game_id), there.play_computer_turn(game_id))
    assert sorted(r is None for r in results) == [False, True]  # one thought and moved, the other stood back
    assert (await here.load(game_id)).record.move_count == 1


async def test_a_bot_turn_whose_driver_died_is_taken_over_once(two: tuple[Database, Database]) -> None:
    clock = Clock()
    setup = GameService(two[0], clock=clock)
    game_id = await _bot_first(setup)
    async with two[0].transaction() as conn:  # a process claimed the turn, began to think, and was killed
        await beat(conn, "killed", SHORT)
        assert await claim(conn, computer_turn_key(game_id), "killed", COMPUTER_TURN_LEASE)
    services = [GameService(db, clock=clock) for db in two]
    turns = [ComputerTurns(s, _no_redraw) for s in services]

    async def look() -> None:
        await asyncio.gather(*(t.take_over() for t in turns))
        await asyncio.gather(*(t.idle() for t in turns))

    await look()
    assert (await setup.load(game_id)).record.move_count == 0  # its lease still runs: its process beat lately
    await asyncio.sleep(SHORT + 0.05)  # its heartbeat has run out
    await look()
    game = await setup.load(game_id)
    assert game.record.move_count == 1 and not game.is_computer(game.state.current_player() or 0)
    async with two[0].reading() as conn:
        assert await holder_of(conn, computer_turn_key(game_id)) is None  # let go once done
    await look()
    assert (await setup.load(game_id)).record.move_count == 1


async def test_looking_for_computer_turns_to_take_reads_only_what_it_must(tmp_path: Path) -> None:
    """The periodic look is one query over an index of the games without a deadline, plus the bot-turn leases (by
    their keys: a range of the primary key) and each holder's process lease (by key)."""
    db = await SqliteDatabase.open(tmp_path / "bot.sqlite3")
    try:
        statement = next(computer_turns_to_take(Dialect.SQLITE))

        def plan(conn: sqlite3.Connection) -> list[str]:
            rows = conn.execute("EXPLAIN QUERY PLAN " + statement.text, statement.params).fetchall()
            return [str(row[3]) for row in rows]

        details = await db.with_reader(plan)
        assert any("games_without_deadline" in d for d in details), details
        assert any(d.startswith("SEARCH l USING INDEX sqlite_autoindex_leases_1 (key>? AND key<?)") for d in details), \
            details
        assert any(d.startswith("SEARCH p USING INDEX sqlite_autoindex_leases_1 (key=?)") for d in details), details
        assert not any(d.startswith("SCAN") for d in details), details
    finally:
        await db.close()


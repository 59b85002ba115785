"""Fair timers: a deadline moves only when the decision passes to someone else, the secret setup has one deadline,
and a game whose play never began is never rated."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from bot.service import GameService, Player, TimerEvent
from games.generals.setup import compact, formation
from games.sucker.engine import SuckerState
from storage.connection import open_database
from storage.sql import Plan, Sql
from tests.support.clock import Clock

ALICE, BOB, CAROL = 101, 202, 303


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def service(database_target: str, clock: Clock) -> AsyncIterator[GameService]:
    db = await open_database(database_target)
    try:
        yield GameService(db, clock=clock, turn_timeout=100.0, challenge_timeout=50.0)
    finally:
        await db.close()


def _setup(seat: int) -> str:
    return "setup:" + compact(formation("balanced", random.Random(seat), seat))


async def _generals(service: GameService) -> int:
    game = await service.create("generals", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)])
    return game.id


async def _deadline(service: GameService, game_id: int) -> float | None:
    return (await service.load(game_id)).record.deadline


async def test_setup_edits_do_not_extend_the_one_setup_deadline(service: GameService, clock: Clock) -> None:
    game_id = await _generals(service)
    deadline = await _deadline(service, game_id)
    assert deadline == clock.now + 100
    await service.act(game_id, ALICE, _setup(0))
    for _ in range(5):  # swapping two squares every 30 s used to keep a setup alive for ever
        clock.now += 30
        await service.act(game_id, ALICE, "swap:a1-b1")
        assert await _deadline(service, game_id) == deadline
    await service.act(game_id, ALICE, "ready")  # the decision passes to bob, still in the same setup
    assert await _deadline(service, game_id) == deadline
    await service.act(game_id, BOB, _setup(1))
    await service.act(game_id, BOB, "ready")  # play begins: the first mover gets a full turn
    assert await _deadline(service, game_id) == clock.now + 100


async def test_nobody_ready_when_setup_time_runs_out_calls_the_game_off(service: GameService, clock: Clock) -> None:
    game_id = await _generals(service)
    await service.act(game_id, ALICE, _setup(0))
    clock.now += 101
    fired = await service.fire_timer(game_id)
    assert fired is not None and fired[0] is TimerEvent.CALLED_OFF
    stored = (await service.load(game_id)).record
    assert stored.status == "expired" and stored.deadline is None
    assert await service.due_timers() == []


async def test_the_one_not_ready_forfeits_unrated(service: GameService, clock: Clock) -> None:
    game_id = await _generals(service)
    await service.act(game_id, ALICE, _setup(0))
    await service.act(game_id, ALICE, "ready")
    clock.now += 101
    fired = await service.fire_timer(game_id)
    assert fired is not None and fired[0] is TimerEvent.FORFEIT
    result = fired[1]
    ended = result.ended()
    assert ended is not None and ended.winners == (0,) and ended.rating_changes == ()
    assert result.game.status == "finished"
    assert await service.history(ALICE) and not await _rated(service, ALICE)


async def _rated(service: GameService, user: int) -> bool:
    def rated() -> Plan[bool]:
        return bool((yield Sql("SELECT 1 FROM ratings WHERE user_id = ?", (user,))).rows)

    return await service.store._db.query(rated())


async def test_free_actions_of_others_do_not_move_the_deciders_deadline(service: GameService, clock: Clock) -> None:
    game = await service.create("sucker", guild_id=1, channel_id=2,
                                players=[Player(ALICE), Player(BOB), Player(CAROL)], options={"chips": 3})
    # Red (alice) is to play; blue (bob) holds a red prisoner he may give or kill at any moment.
    position = SuckerState.from_table(3, holdings=["RR", "BBR", "GGG"], chain=(0,))
    async with service.store.transaction() as tx:
        stored = await tx.load(game.id)
        await tx.update(stored, now=clock.now, state=position.to_dict())
    deadline = await _deadline(service, game.id)
    clock.now += 40
    after = await service.act(game.id, BOB, "kill-prisoner:red")
    assert after.game.to_decide == 0 and await _deadline(service, game.id) == deadline, "bob's transfer: no extension"
    clock.now += 40
    await service.act(game.id, ALICE, "play:red:new")  # alice decides: the decision passes on, with a full turn
    assert (await service.view(game.id)).game.to_decide == 0  # she names who moves next: still her decision
    assert await _deadline(service, game.id) == deadline, "the same person keeps the decision: the same deadline"
    await service.act(game.id, ALICE, "next:blue")
    assert await _deadline(service, game.id) == clock.now + 100, "a new decider gets a full turn"

"""`GameService`'s parts work on their own, each built from what they share (a store, the games as stored, the
locks, who is told, a clock; bot/service/parts.py): a challenge created by the setup part expires by the timers
part, with no service around them."""

from __future__ import annotations

from typing import Any

from bot.service import Player, Result, TimerEvent
from bot.service.game_setup import GameSetup
from bot.service.game_timers import GameTimers
from bot.service.locks import KeyedLocks
from bot.service.parts import Shared
from bot.service.publisher import Publisher
from bot.service.stored import StoredGames
from bot.service.wakeup import TimerWakeup
from storage import GameStore
from storage.connection import open_database
from tests.support.clock import Clock

ALICE, BOB = 101, 202


async def test_a_challenge_made_by_the_setup_part_expires_by_the_timers_part(database_target: str) -> None:
    db = await open_database(database_target)
    try:
        clock, changed, store = Clock(), TimerWakeup(), GameStore(db)
        games, locks, publisher = StoredGames(store, clock, changed), KeyedLocks(), Publisher()
        heard: list[Result[Any, Any]] = []

        async def listen(result: Result[Any, Any]) -> None:
            heard.append(result)

        publisher.listeners.append(listen)
        shared = Shared(db, store, games, locks, publisher, clock, changed, holder="this process")
        setup = GameSetup(shared, turn_timeout=100.0, challenge_timeout=50.0)
        timers = GameTimers(shared)

        challenge = await setup.create("chopsticks", guild_id=None, channel_id=2, players=[Player(ALICE), Player(BOB)],
                                       challenge=True)
        assert challenge.game.status == "pending" and changed.is_set()
        assert await timers.next_timer() == clock.now + 50.0
        assert await timers.due_timers() == []
        clock.now += 51.0
        assert await timers.due_timers() == [challenge.id]
        fired = await timers.fire_timer(challenge.id)
        assert fired is not None and fired.event is TimerEvent.EXPIRED and fired.result.game.status == "expired"
        await publisher.told()
        assert [(r.id, r.game.status) for r in heard] == [(challenge.id, "pending"), (challenge.id, "expired")]
    finally:
        await db.close()

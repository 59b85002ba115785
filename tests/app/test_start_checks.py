"""What every new game passes in the service, whoever makes it (bot/service/starts.py): the server's settings, one
pending challenge between two people per game kind (also when challenges race, in one process or two), and how fast
one person may start games."""

from __future__ import annotations

import asyncio

import pytest

from bot.service import GameService, Player, ServiceError
from bot.service.lobbies import LobbyService
from bot.service.starts import PACE_SWEEP, START_BURST, START_EVERY, StartPace
from storage.connection import open_database
from storage.database import Database
from storage.server_settings import ServerSettingsStore
from storage.sql import select
from tests.support.clock import Clock

ALICE, BOB, CAROL = 1, 2, 3
GUILD, CHANNEL, OTHER = 10, 20, 30


async def test_a_game_made_by_the_service_itself_meets_the_servers_settings(database_target: str) -> None:
    """No command in sight (a tournament's pairing would call the service like this): the one check is there."""
    db = await open_database(database_target)
    try:
        service = GameService(db, clock=Clock(1_000.0))
        lobbies = LobbyService(service)
        settings = ServerSettingsStore(db)
        await settings.switch_game(GUILD, "chopsticks", False)
        with pytest.raises(ServiceError, match="switched off"):
            await service.create("chopsticks", guild_id=GUILD, channel_id=CHANNEL, players=[Player(ALICE),
                                                                                             Player(computer="easy")])
        with pytest.raises(ServiceError, match="switched off"):
            await lobbies.open("chopsticks", guild_id=GUILD, channel_id=CHANNEL, host_id=ALICE, max_players=3,
                               options={})
        await settings.update(GUILD, channel_id=OTHER, turn_timeout=600.0)
        with pytest.raises(ServiceError, match=f"<#{OTHER}>"):
            await service.create("generals", guild_id=GUILD, channel_id=CHANNEL, players=[Player(ALICE), Player(BOB)],
                                 challenge=True)
        made = await service.create("generals", guild_id=GUILD, channel_id=OTHER, players=[Player(ALICE), Player(BOB)],
                                    challenge=True)
        assert made.game.turn_timeout == 600.0, "the server's turn time, from the same read"
        assert await db.query(select("SELECT count(*) FROM games", ())) == [(1,)]
    finally:
        await db.close()


async def _pending(db: Database) -> int:
    [(count,)] = await db.query(select("SELECT count(*) FROM games WHERE status = 'pending'", ()))
    return int(count)


async def test_challenges_sent_at_the_same_moment_leave_one_waiting(
    two: tuple[Database, Database]
) -> None:
    """Ten challenges from Alice to Bob and ten back, at once, through two processes' connections: one waits."""
    services = [GameService(db, clock=Clock(1_000.0)) for db in two]

    async def challenge(service: GameService, sender: int, receiver: int) -> object:
        return await service.create("chopsticks", guild_id=GUILD, channel_id=CHANNEL,
                                    players=[Player(sender), Player(receiver)], challenge=True)

    results = await asyncio.gather(*(challenge(services[i % 2], *((ALICE, BOB) if i < 10 else (BOB, ALICE)))
                                     for i in range(20)), return_exceptions=True)
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert len(refused) == 19 and all("already challenged" in str(r) for r in refused), results
    assert await _pending(two[0]) == 1
    # Another game kind, or another pair, is another challenge; an expired one no longer counts.
    await challenge(services[0], ALICE, CAROL)
    await services[1].create("generals", guild_id=GUILD, channel_id=CHANNEL, players=[Player(ALICE), Player(BOB)],
                             challenge=True)
    clock = services[0].clock
    assert isinstance(clock, Clock)
    clock.now += services[0].challenge_timeout + 1
    await challenge(services[0], BOB, ALICE)
    assert await _pending(two[0]) == 4


def test_a_person_may_start_a_burst_then_one_every_interval() -> None:
    pace, now = StartPace(), 1_000.0
    for _ in range(START_BURST):
        pace.take(ALICE, now)
    with pytest.raises(ServiceError, match="too fast") as refused:
        pace.take(ALICE, now + 1)
    assert refused.value.args[0].args["when"] == int(now + START_EVERY)
    pace.take(BOB, now + 1)  # each person has their own allowance
    pace.take(ALICE, now + START_EVERY)  # one more per interval
    with pytest.raises(ServiceError):
        pace.take(ALICE, now + START_EVERY + 1)
    later = now + START_EVERY * (START_BURST + 2)  # a pause refills the burst, not more
    for _ in range(START_BURST):
        pace.take(ALICE, later)
    with pytest.raises(ServiceError):
        pace.take(ALICE, later)


def test_the_pace_remembers_only_recent_starters() -> None:
    pace = StartPace()
    for user in range(30_000):
        pace.take(user, 1_000.0 + user * START_EVERY / 1_000)  # a thousand new people per interval
    assert len(pace) <= PACE_SWEEP + 1

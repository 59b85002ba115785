"""Seasons of a server's ladders (issue 25, point 4) on each database: a rated game counts once in the season in which
it ended, beside the all-time ladders; a player's first game of a season starts from their all-time mu with a widened
sigma; a season's ladder pages like the all-time one; a season's end is claimed by one process."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from bot.service import GameService, Player
from bot.service.heartbeat import PROCESS_TTL
from bot.service.ratings import MODEL, rate
from bot.service.seasons import MONTHLY, QUARTERLY, Seasons, period_of, season_name, season_sigma
from storage.connection import open_database
from storage.database import Database
from storage.leases import beat
from storage.ratings import GLOBAL, RatingRow, RatingStore, save_ratings
from storage.sql import select
from tests.support.clock import Clock

ALICE, BOB, CAROL, DAVE = 11, 22, 33, 44
GUILD = 5
NOV_20 = datetime(2026, 11, 20, 12, tzinfo=UTC).timestamp()
DEC_1 = datetime(2026, 12, 1, tzinfo=UTC).timestamp()


@pytest.fixture
async def db(database_target: str) -> AsyncIterator[Database]:
    database = await open_database(database_target)
    yield database
    await database.close()


async def _won(service: GameService, winner: int, loser: int) -> int:
    """A rated Chopsticks game on the server that `winner` wins (the loser resigns after a move)."""
    game = await service.create("chopsticks", guild_id=GUILD, channel_id=1, players=[Player(winner), Player(loser)],
                                options={"first": 0})
    await service.act(game.id, winner, "AC")
    await service.resign(game.id, loser)
    return game.id


def test_periods_and_names_are_calendar_months_and_quarters_in_utc() -> None:
    november = period_of(MONTHLY, NOV_20)
    assert (november.key, november.ends_at) == ("2026-11", DEC_1)
    assert november.starts_at == datetime(2026, 11, 1, tzinfo=UTC).timestamp()
    assert period_of(MONTHLY, DEC_1).key == "2026-12" and period_of(MONTHLY, DEC_1 - 0.001).key == "2026-11"
    q4 = period_of(QUARTERLY, NOV_20)
    assert (q4.key, q4.ends_at) == ("2026-Q4", datetime(2027, 1, 1, tzinfo=UTC).timestamp())
    assert str(season_name(november)) == "November 2026" and str(season_name(q4)) == "2026 Q4"
    assert period_of(MONTHLY, datetime(2026, 12, 31, 23, 59, tzinfo=UTC).timestamp()).ends_at == (
        datetime(2027, 1, 1, tzinfo=UTC).timestamp())


def test_the_widened_sigma() -> None:
    newcomer = MODEL.sigma
    assert season_sigma(newcomer, newcomer) == newcomer  # never wider than a newcomer's
    assert math.isclose(season_sigma(2.0, newcomer), math.sqrt(4.0 + (newcomer / 2) ** 2))
    assert 4.1 < season_sigma(1.0, newcomer) < season_sigma(2.0, newcomer) < 4.7


async def test_a_rated_game_counts_once_in_its_season_from_the_all_time_mu(db: Database) -> None:
    clock = Clock(NOV_20)
    service, ratings = GameService(db, clock=clock), RatingStore(db)
    seasons = Seasons(db, clock, service.holder)
    # Alice and bob have played here before; carol has not. Seasons are off: a game counts in no season.
    async with db.transaction() as conn:
        await save_ratings(conn, [RatingRow("chopsticks", GUILD, ALICE, 30.0, 2.0, games=40, wins=30),
                                  RatingRow("chopsticks", GUILD, BOB, 24.0, 3.0, games=20, wins=5)], now=1.0)
    await _won(service, ALICE, BOB)
    assert await seasons.current(GUILD) is None and await seasons.store.of_server(GUILD) == []
    before = {u: await ratings.get("chopsticks", GUILD, u) for u in (ALICE, BOB)}

    assert await seasons.choose(GUILD, MONTHLY) is not None
    current = await seasons.current(GUILD)
    assert current is not None and current[2] is not None
    season = current[2]
    assert (season.period, season.starts_at, season.ends_at) == ("2026-11", NOV_20, DEC_1)  # started now
    clock.now += 60
    await _won(service, ALICE, BOB)
    alice_all, bob_all = before[ALICE], before[BOB]
    assert alice_all is not None and bob_all is not None
    expected = rate([RatingRow("chopsticks", season.scope, ALICE, alice_all.mu, season_sigma(alice_all.sigma,
                                                                                              MODEL.sigma)),
                     RatingRow("chopsticks", season.scope, BOB, bob_all.mu, season_sigma(bob_all.sigma, MODEL.sigma))],
                    (1, 2))
    assert [await ratings.get("chopsticks", season.scope, u) for u in (ALICE, BOB)] == expected
    alice_now = await ratings.get("chopsticks", GUILD, ALICE)
    assert alice_now is not None and alice_now.games == 42  # the all-time ladder goes on as before
    global_alice = await ratings.get("chopsticks", GLOBAL, ALICE)
    assert global_alice is not None and global_alice.games == 2

    game = await _won(service, CAROL, ALICE)  # a newcomer starts where a newcomer starts
    carol, alice = [await ratings.get("chopsticks", season.scope, u) for u in (CAROL, ALICE)]
    fresh = rate([RatingRow("chopsticks", season.scope, CAROL, MODEL.mu, MODEL.sigma), expected[0]], (1, 2))
    assert [carol, alice] == fresh and alice is not None and alice.games == 2
    # Counted once: the game's result is not applied again (a retry finds the game rated).
    assert await db.query(select("SELECT rated FROM games WHERE id = ?", (game,))) == [(1,)]
    bob = await ratings.get("chopsticks", season.scope, BOB)
    assert bob is not None
    order = sorted([*fresh, bob], key=lambda r: (-r.ordinal, r.user_id))
    assert order[0] == fresh[1] and order[2] == fresh[0]  # alice first: her all-time mu carried her; carol last
    page = await ratings.page("chopsticks", season.scope, 0, size=2, caller=CAROL)
    assert (page.total, page.pages, page.rows, page.mine) == (3, 2, order[:2], (3, fresh[0]))
    assert await seasons.ended() == []


async def test_a_new_month_is_a_new_season_and_the_old_one_is_due(db: Database) -> None:
    clock = Clock(NOV_20)
    service, ratings = GameService(db, clock=clock), RatingStore(db)
    seasons = Seasons(db, clock, service.holder)
    await seasons.choose(GUILD, MONTHLY)
    await _won(service, ALICE, BOB)
    clock.now = DEC_1 + 3600
    assert [s.period for s in await seasons.ended()] == ["2026-11"]
    await _won(service, BOB, ALICE)
    current = await seasons.current(GUILD)
    assert current is not None and current[2] is not None
    december = current[2]
    assert (december.period, december.starts_at) == ("2026-12", DEC_1)  # a calendar month, not from the turn-on
    [november] = await seasons.past(GUILD)
    assert november.period == "2026-11"
    # December's rows start from the all-time rows as they were after November's game, not from November's season.
    alice_all = await ratings.get("chopsticks", GUILD, ALICE)
    alice_dec = await ratings.get("chopsticks", december.scope, ALICE)
    alice_nov = await ratings.get("chopsticks", november.scope, ALICE)
    assert alice_all is not None and alice_dec is not None and alice_nov is not None
    assert (alice_nov.games, alice_nov.wins, alice_dec.games, alice_dec.losses, alice_all.games) == (1, 1, 1, 1, 2)

    # Turned off: games count in no season, the past ones stay readable; the current one (started) too.
    await seasons.choose(GUILD, None)
    await _won(service, ALICE, BOB)
    assert await seasons.current(GUILD) is None
    assert [s.period for s in await seasons.store.of_server(GUILD)] == ["2026-12", "2026-11"]
    still = await ratings.get("chopsticks", december.scope, ALICE)
    assert still is not None and still.games == 1


async def test_one_process_announces_a_seasons_end(two: tuple[Database, Database]) -> None:
    first_db, second_db = two
    clock = Clock(NOV_20)
    first, second = Seasons(first_db, clock, "first"), Seasons(second_db, clock, "second")
    await first.choose(GUILD, QUARTERLY)
    clock.now = datetime(2027, 1, 1, 0, 0, 5, tzinfo=UTC).timestamp()
    [season] = await second.ended()
    token = await first.claim_end(season.id)
    assert token is not None and await second.claim_end(season.id) is None
    assert await first.still_announcing(season.id, token)
    await first.announced(season.id)
    assert await second.ended() == [] and await first.ended() == []
    again = await second.claim_end(season.id)
    assert again is not None and not await second.still_announcing(season.id, again)  # announced: not twice


async def test_a_season_end_left_by_a_dead_process_is_announced_by_another(two: tuple[Database, Database]) -> None:
    """The process that claimed a season's end dies before posting it (its heartbeat runs out): another one takes it
    over at once, and the dead one's fence no longer holds if it wakes up."""
    first_db, second_db = two
    clock = Clock(NOV_20)
    first, second = Seasons(first_db, clock, "first"), Seasons(second_db, clock, "second")
    async with first_db.transaction() as conn:
        await beat(conn, "first", PROCESS_TTL)
    await first.choose(GUILD, MONTHLY)
    clock.now = DEC_1 + 5
    [season] = await first.ended()
    token = await first.claim_end(season.id)
    assert token is not None and await second.claim_end(season.id) is None
    async with first_db.transaction() as conn:
        await beat(conn, "first", -1.0)  # its last beat has run out: the process is dead
    taken = await second.claim_end(season.id)
    assert taken is not None and await second.still_announcing(season.id, taken)
    assert not await first.still_announcing(season.id, token)
    await second.announced(season.id)
    assert await first.ended() == []

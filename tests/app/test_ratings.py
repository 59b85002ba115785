"""Ratings over a real SQLite file: applied once when a game ends, per server and global, only when rated."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.service import GameService, Player
from bot.service.ratings import PROVISIONAL_GAMES, display_rating, is_provisional, rate
from storage.connection import AnyDatabase, open_database
from storage.ratings import GLOBAL, RatingRow, RatingStore
from storage.sql import select

ALICE, BOB, CAROL, DAVE = 11, 22, 33, 44
GUILD = 5


@pytest.fixture
async def db(database_target: str) -> AsyncIterator[AnyDatabase]:
    database = await open_database(database_target)
    yield database
    await database.close()


async def _chopsticks(service: GameService, players: list[Player]) -> int:
    game = await service.create("chopsticks", guild_id=GUILD, channel_id=1, players=players, options={"first": 0})
    return game.id


async def test_a_two_player_result_moves_both_ladders_once(db: AnyDatabase) -> None:
    service, ratings = GameService(db), RatingStore(db)
    game_id = await _chopsticks(service, [Player(ALICE), Player(BOB)])
    await service.act(game_id, ALICE, "AC")
    await service.resign(game_id, BOB)  # a resignation is a loss
    for scope in (GUILD, GLOBAL):
        alice, bob = await ratings.get("chopsticks", scope, ALICE), await ratings.get("chopsticks", scope, BOB)
        assert alice is not None and bob is not None
        assert alice.mu > 25 > bob.mu and alice.sigma < 25 / 3
        assert (alice.games, alice.wins, alice.losses, alice.streak) == (1, 1, 0, 1)
        assert (bob.games, bob.wins, bob.losses, bob.streak) == (1, 0, 1, -1)
    assert [r.user_id for r in await ratings.ladder("chopsticks", GUILD)] == [ALICE, BOB]
    assert await ratings.rank_of("chopsticks", GUILD, BOB) == 2
    assert await db.query(select("SELECT rated FROM games WHERE id = ?", (game_id,))) == [(1,)]


async def test_draws_bots_and_abandoned_games(db: AnyDatabase) -> None:
    service, ratings = GameService(db), RatingStore(db)
    drawn = await _chopsticks(service, [Player(ALICE), Player(BOB)])
    await service.act(drawn, ALICE, "AC")
    await service.offer_draw(drawn, ALICE)
    await service.offer_draw(drawn, BOB)
    alice = await ratings.get("chopsticks", GUILD, ALICE)
    assert alice is not None and (alice.draws, alice.streak) == (1, 0) and abs(alice.mu - 25) < 1e-9

    abandoned = await _chopsticks(service, [Player(CAROL), Player(DAVE)])
    await service.resign(abandoned, CAROL)  # before any move: abandoned, not rated
    assert await ratings.get("chopsticks", GUILD, CAROL) is None

    vs_bot = await _chopsticks(service, [Player(CAROL), Player(bot="easy")])
    await service.act(vs_bot, CAROL, "AC")
    await service.resign(vs_bot, CAROL)
    assert await ratings.get("chopsticks", GUILD, CAROL) is None


def test_a_four_player_finishing_order_orders_the_new_ratings() -> None:
    rows = [RatingRow("sucker", GUILD, u, 25.0, 25 / 3) for u in (ALICE, BOB, CAROL, DAVE)]
    # So Long Sucker: winner first, then reverse order of defeat (places per seat).
    after = rate(rows, (3, 1, 4, 2))
    by_mu = sorted(after, key=lambda r: -r.mu)
    assert [r.user_id for r in by_mu] == [BOB, DAVE, ALICE, CAROL]
    assert [r.wins for r in after] == [0, 1, 0, 0] and [r.losses for r in after] == [1, 0, 1, 1]


def test_displayed_rating_and_provisional_mark() -> None:
    newcomer = RatingRow("chopsticks", GUILD, ALICE, 25.0, 25 / 3)
    assert display_rating(newcomer) == 1000 and is_provisional(newcomer)
    veteran = RatingRow("chopsticks", GUILD, ALICE, 30.0, 2.0, games=PROVISIONAL_GAMES)
    assert display_rating(veteran) == 1000 + 40 * 24 and not is_provisional(veteran)

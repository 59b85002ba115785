"""Ratings over a real SQLite file: applied once when a game ends, per server and global, only when rated."""

from __future__ import annotations

from bot.service import GameService, Player
from bot.service.ratings import PROVISIONAL_GAMES, display_rating, is_provisional, rate
from storage.database import Database
from storage.ratings import GLOBAL, RatingRow, RatingStore
from storage.sql import select

ALICE, BOB, CAROL, DAVE = 11, 22, 33, 44
GUILD = 5


async def _chopsticks(service: GameService, players: list[Player]) -> int:
    game = await service.create("chopsticks", guild_id=GUILD, channel_id=1, players=players, options={"first": 0})
    return game.id


async def test_a_two_player_result_moves_both_ladders_once(db: Database) -> None:
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


async def test_draws_bots_and_abandoned_games(db: Database) -> None:
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

    vs_bot = await _chopsticks(service, [Player(CAROL), Player(computer="easy")])
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


async def _ladder_rows(db: Database, kind: str) -> list[tuple[object, ...]]:
    return list(await db.query(select("SELECT guild_id, user_id, games FROM ratings WHERE kind = ?", (kind,))))


async def _generals_in_play(service: GameService, first: int) -> tuple[int, int, int]:
    """A Generals game between alice and bob whose setups are both in: (game, the first mover, the other)."""
    game = await service.create("generals", guild_id=GUILD, channel_id=1, players=[Player(ALICE), Player(BOB)],
                                options={"first": first})
    for user in (ALICE, BOB):
        await service.act(game.id, user, "formation:balanced")
        await service.act(game.id, user, "formation:blitz")  # a second setup step: still no move
        await service.act(game.id, user, "ready")
    mover, other = (ALICE, BOB) if first == 0 else (BOB, ALICE)
    return game.id, mover, other


async def test_generals_is_rated_only_once_play_began_with_a_move(db: Database) -> None:
    """Issue 22, bug 8: six setup steps, then the first mover resigns: no move of play, so no rating moves."""
    service = GameService(db)
    game_id, mover, _other = await _generals_in_play(service, first=0)
    ended = await service.resign(game_id, mover)
    assert ended.game.status == "finished"
    assert await _ladder_rows(db, "generals") == []
    assert await db.query(select("SELECT rated FROM games WHERE id = ?", (game_id,))) == [(0,)]

    played, mover, other = await _generals_in_play(service, first=1)
    state = (await service.load(played)).state
    seat = state.current_player()
    assert seat is not None
    await service.act(played, mover, state.legal_actions(seat)[0].text())  # one move of play
    await service.resign(played, other)
    assert sorted(await _ladder_rows(db, "generals")) == sorted(
        [(GUILD, ALICE, 1), (GUILD, BOB, 1), (GLOBAL, ALICE, 1), (GLOBAL, BOB, 1)])


async def test_tables_given_up_before_the_first_move_are_not_rated(db: Database) -> None:
    """Chopsticks for three and So Long Sucker: two players resign before anyone moved; the third wins, unrated
    (the first resignation was an action, but no move of play)."""
    service = GameService(db)
    people = [Player(ALICE), Player(BOB), Player(CAROL)]
    for kind, options in (("chopsticks", {"first": 0}), ("sucker", {"first": 0})):
        game = await service.create(kind, guild_id=GUILD, channel_id=1, players=people, options=options)
        await service.resign(game.id, BOB)
        ended = await service.resign(game.id, CAROL)
        assert ended.game.status == "finished", kind
        assert await _ladder_rows(db, kind) == [], kind
        assert await db.query(select("SELECT rated FROM games WHERE id = ?", (game.id,))) == [(0,)]

"""A person's record of finishing games (issue 25, point 5; bot/service/finishing.py), on each database: what counts as
finished and as abandoned, counted once in the transaction that ends the game, per server and global; the migration's
back-fill from the games already stored; the minimum share an open table may require."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.service import GameService, Player, ServiceError
from bot.service.finishing import NEW_PLAYER_GAMES, may_join
from bot.service.lobbies import LobbyService
from bot.service.rematch import Rematch
from bot.service.stored import StoredGames
from bot.service.wakeup import TimerWakeup
from games import EndReason
from games.base import RESIGN
from games.text import english
from storage.connection import open_database
from storage.database import Database
from storage.finishing import FinishingRecord, finishing_of
from storage.ratings import GLOBAL
from storage.sql import Plan, Sql, select
from tests.support.clock import Clock

ALICE, BOB, CAROL, DAVE = 11, 22, 33, 44
GUILD, OTHER_GUILD = 5, 6
TURN = 100.0


@pytest.fixture
async def db(database_target: str) -> AsyncIterator[Database]:
    database = await open_database(database_target)
    yield database
    await database.close()


async def _counts(db: Database, user: int, guild: int = GLOBAL) -> tuple[int, int]:
    record = await finishing_of(db, user, guild)
    return (0, 0) if record is None else (record.finished, record.abandoned)


async def _chopsticks(service: GameService, players: list[Player], guild: int | None = GUILD) -> int:
    game = await service.create("chopsticks", guild_id=guild, channel_id=1, players=players, options={"first": 0})
    return game.id


async def test_a_game_that_ends_counts_once_for_each_person_in_it_per_server_and_globally(db: Database) -> None:
    service = GameService(db)
    played = await _chopsticks(service, [Player(ALICE), Player(BOB)])
    await service.act(played, ALICE, "AC")
    await service.resign(played, BOB)  # a resignation is a decision, not an absence: finished
    for scope in (GUILD, GLOBAL):
        assert await _counts(db, ALICE, scope) == (1, 0)
        assert await _counts(db, BOB, scope) == (1, 0)
    # Resigned before any move (not rated): finished all the same; against the computer: counted for the person.
    early = await _chopsticks(service, [Player(ALICE), Player(BOB)], guild=OTHER_GUILD)
    await service.resign(early, ALICE)
    computer = await _chopsticks(service, [Player(ALICE), Player(computer="easy")], guild=None)  # in DMs
    await service.act(computer, ALICE, "AC")
    await service.resign(computer, ALICE)
    assert await _counts(db, ALICE, GLOBAL) == (3, 0)
    assert await _counts(db, ALICE, GUILD) == (1, 0) and await _counts(db, ALICE, OTHER_GUILD) == (1, 0)
    assert await db.query(select("SELECT count(*) FROM finishing WHERE user_id = 0")) == [(0,)]  # no computer row


async def test_a_game_never_begun_counts_for_nobody(db: Database) -> None:
    clock = Clock()
    service = GameService(db, clock=clock, turn_timeout=TURN)
    declined = await service.create("chopsticks", guild_id=GUILD, channel_id=1, players=[Player(ALICE), Player(BOB)],
                                    options={"first": 0}, challenge=True)
    await service.decline(declined.id, BOB)
    await service.create("chopsticks", guild_id=GUILD, channel_id=1, players=[Player(ALICE), Player(CAROL)],
                         options={"first": 0}, challenge=True)
    clock.now += 10 * 24 * 3600  # the challenge expires unanswered
    for game_id in await service.due_timers():
        await service.fire_timer(game_id)
    assert await db.query(select("SELECT count(*) FROM finishing")) == [(0,)]


async def test_a_turn_timer_forfeit_is_abandoned_and_the_others_finished(db: Database) -> None:
    """Two players: Bob lets his whole turn time pass. A table of three: Carol times out, the others play on, and the
    game's end counts her abandoned too (the timeout was an earlier move of the game)."""
    clock = Clock()
    service = GameService(db, clock=clock, turn_timeout=TURN)
    pair = await _chopsticks(service, [Player(ALICE), Player(BOB)])
    await service.act(pair, ALICE, "AC")
    clock.now += TURN + 1
    fired = await service.fire_timer(pair)
    assert fired is not None and fired.result.game.status == "finished"
    assert await _counts(db, BOB, GUILD) == (0, 1) and await _counts(db, BOB) == (0, 1)
    assert await _counts(db, ALICE, GUILD) == (1, 0)

    table = await service.create("sucker", guild_id=GUILD, channel_id=1,
                                 players=[Player(CAROL), Player(ALICE), Player(DAVE)], options={"first": 0})
    clock.now += TURN + 1
    fired = await service.fire_timer(table.id)  # Carol, first to decide, forfeits; the table goes on
    assert fired is not None and fired.result.game.status == "active"
    assert await _counts(db, CAROL) == (0, 0)  # counted when the game ends, not before
    ended = await service.resign(table.id, ALICE)  # Dave is the last one in: he wins
    assert ended.game.status == "finished"
    assert await _counts(db, CAROL) == (0, 1)
    assert await _counts(db, ALICE) == (2, 0) and await _counts(db, DAVE) == (1, 0)


async def test_two_processes_ending_one_game_at_once_count_it_once(two: tuple[Database, Database]) -> None:
    """Bob resigns in one process while Alice resigns in another and a third attempt fires Bob's turn timer: one of
    them ends the game; its count is written with that ending, the others are refused and count nothing."""
    clock = Clock()
    first, second = (GameService(db, clock=clock, turn_timeout=TURN) for db in two)
    for _ in range(3):
        game_id = await _chopsticks(first, [Player(ALICE), Player(BOB)])
        await first.act(game_id, ALICE, "AC")
        await second.view(game_id)  # both processes hold the game as it is
        clock.now += TURN + 1
        outcomes = await asyncio.gather(first.resign(game_id, BOB), second.resign(game_id, ALICE),
                                        second.fire_timer(game_id), return_exceptions=True)
        assert [o for o in outcomes if isinstance(o, BaseException) and not isinstance(o, ServiceError)] == []
    alice, bob = await _counts(two[0], ALICE), await _counts(two[0], BOB)
    assert alice[0] + alice[1] == 3 and bob[0] + bob[1] == 3
    assert await _counts(two[0], ALICE, GUILD) == alice and await _counts(two[1], BOB, GUILD) == bob


async def test_games_of_one_person_ending_at_once_in_two_processes_all_count(two: tuple[Database, Database]) -> None:
    """The count adds in its own statement: two endings that commit at the same moment both land."""
    services = [GameService(db) for db in two]
    games = []
    for i in range(6):
        game_id = await _chopsticks(services[i % 2], [Player(ALICE), Player(BOB + i)])
        await services[i % 2].act(game_id, ALICE, "AC")
        games.append(game_id)
    await asyncio.gather(*(services[i % 2].resign(game_id, ALICE) for i, game_id in enumerate(games)))
    assert await _counts(two[0], ALICE) == (6, 0) and await _counts(two[1], ALICE, GUILD) == (6, 0)


class Crash(Exception):
    """The process dies before the transaction that ends the game commits."""


async def test_an_ending_whose_write_does_not_commit_counts_nothing(db: Database) -> None:
    service = GameService(db)
    games = StoredGames(service.store, service.clock, TimerWakeup())
    game_id = await _chopsticks(service, [Player(ALICE), Player(BOB)])
    await service.act(game_id, ALICE, "AC")
    with pytest.raises(Crash):
        async with games.editing(game_id, read_first=True) as (tx, game):
            ended = await games.commit(tx, game, 1, BOB, RESIGN, game.state.resign(1, EndReason.RESIGN))
            assert ended.game.status == "finished"
            raise Crash
    assert await _counts(db, BOB) == (0, 0) and (await service.load(game_id)).record.status == "active"
    await service.resign(game_id, BOB)  # the retry: counted now, once
    assert await _counts(db, BOB) == (1, 0) and await _counts(db, ALICE) == (1, 0)


def _add_game(guild: int | None, status: str, seats: list[int | None], timed_out: list[int]) -> Plan[None]:
    """A game as an older bot stored it: its row, seats (None: a computer) and move log (a move per seat, then a
    `timeout` for each seat in `timed_out`)."""
    done = yield Sql("INSERT INTO games (kind, guild_id, channel_id, status, initial_state, state, created_at,"
                     " updated_at) VALUES ('chopsticks', ?, 1, ?, '{}', '{}', 0, 0) RETURNING id", (guild, status))
    game_id = int(done.value())
    yield Sql("INSERT INTO game_players (game_id, seat, user_id, bot) VALUES (?, ?, ?, ?)",
              [(game_id, seat, user, None if user is not None else "easy") for seat, user in enumerate(seats)],
              many=True)
    actions = [(seat, "AC") for seat in range(len(seats))] + [(seat, "timeout") for seat in timed_out]
    yield Sql("INSERT INTO moves (game_id, ply, seat, user_id, action, created_at) VALUES (?, ?, ?, NULL, ?, 0)",
              [(game_id, ply, seat, action) for ply, (seat, action) in enumerate(actions, start=1)], many=True)


async def test_the_migration_counts_the_games_already_stored(database_target: str) -> None:
    old = await open_database(database_target, migrate_to=18)
    try:
        await old.run(_add_game(GUILD, "finished", [ALICE, BOB], timed_out=[1]))
        await old.run(_add_game(GUILD, "finished", [ALICE, BOB], timed_out=[]))
        await old.run(_add_game(None, "finished", [ALICE, None], timed_out=[]))  # in DMs, against the computer
        await old.run(_add_game(OTHER_GUILD, "finished", [CAROL, BOB, ALICE], timed_out=[0, 1]))
        await old.run(_add_game(GUILD, "active", [ALICE, BOB], timed_out=[]))  # not over: not counted
        await old.run(_add_game(GUILD, "declined", [ALICE, DAVE], timed_out=[]))  # never began: not counted
        await old.migrate()
        rows = await old.query(select("SELECT guild_id, user_id, finished, abandoned FROM finishing"))
    finally:
        await old.close()
    assert sorted(tuple(r) for r in rows) == sorted([
        (GUILD, ALICE, 2, 0), (GUILD, BOB, 1, 1),
        (OTHER_GUILD, CAROL, 0, 1), (OTHER_GUILD, BOB, 0, 1), (OTHER_GUILD, ALICE, 1, 0),
        (GLOBAL, ALICE, 4, 0), (GLOBAL, BOB, 1, 2), (GLOBAL, CAROL, 0, 1),
    ])


def test_who_may_join_a_table_that_asks_for_a_share() -> None:
    steady = FinishingRecord(GLOBAL, ALICE, finished=19, abandoned=1)  # 95%
    flaky = FinishingRecord(GLOBAL, BOB, finished=7, abandoned=3)  # 70%
    newcomer = FinishingRecord(GLOBAL, CAROL, finished=NEW_PLAYER_GAMES - 2, abandoned=1)  # few games: not judged
    assert may_join(steady, 95) is None and may_join(flaky, None) is None and may_join(None, 100) is None
    assert may_join(newcomer, 100) is None
    refusal = may_join(flaky, 80)
    assert refusal is not None
    assert english(refusal) == ("This table is for players who finished at least 80% of their games, and you "
                                "finished 7 of 10 games (70%): finish more of your games to the end, or join a table "
                                "that asks less.")
    assert FinishingRecord(GLOBAL, DAVE, finished=999, abandoned=1).percent == 99  # rounded down, never up to 100


async def test_an_open_table_refuses_a_player_below_its_minimum_with_the_reason(db: Database) -> None:
    clock = Clock()
    service = GameService(db, clock=clock, turn_timeout=TURN)
    for i in range(NEW_PLAYER_GAMES):  # Bob abandons two of five: 60%
        game_id = await _chopsticks(service, [Player(ALICE), Player(BOB)])
        await service.act(game_id, ALICE, "AC")
        if i < 2:
            clock.now += TURN + 1
            await service.fire_timer(game_id)
        else:
            await service.resign(game_id, BOB)
    assert await _counts(db, BOB) == (3, 2)
    lobbies = LobbyService(service)
    lobby = await lobbies.open("sucker", guild_id=GUILD, channel_id=1, host_id=CAROL, max_players=4,
                               options={}, min_finished=75)
    assert (await lobbies.load(lobby.id)).min_finished == 75
    with pytest.raises(ServiceError) as refused:
        await lobbies.join(lobby.id, BOB)
    assert "finished 3 of 5 games (60%)" in english(refused.value.args[0])
    joined = await lobbies.join(lobby.id, ALICE)  # 100%
    joined = await lobbies.join(lobby.id, DAVE)  # no game yet: a newcomer is welcome
    assert [m.user_id for m in joined.members] == [CAROL, ALICE, DAVE]
    anyone = await lobbies.open("sucker", guild_id=GUILD, channel_id=1, host_id=CAROL, max_players=3, options={})
    assert anyone.min_finished is None and BOB in [m.user_id for m in (await lobbies.join(anyone.id, BOB)).members]

    # Its rematch asks the same of whoever joins it (the table it replays was for players who finish their games).
    _, started = await lobbies.start(lobby.id, CAROL)
    for user in (CAROL, ALICE, DAVE):
        if (await service.view(started.id)).game.status == "active":
            await service.resign(started.id, user)
    offered = await Rematch(service, lobbies).offer(started.id, ALICE)
    assert offered.lobby is not None and offered.lobby.min_finished == 75
    with pytest.raises(ServiceError) as again:
        await lobbies.join(offered.lobby.id, BOB)
    assert "finished 3 of 5 games (60%)" in english(again.value.args[0])

"""What each board shows (`drawn_boards`) over a real SQLite file, and which active games a start must look at
again: only those with a board not recorded at the game's current version."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.service import GameService, Player
from storage.connection import open_database
from storage.database import Database
from storage.drawn_boards import DrawnBoard, DrawnBoardStore
from storage.private_boards import LiveBoard, PrivateBoardStore
from storage.sql import select

ALICE, BOB = 11, 12
LATER = 1e12  # a start after every write of the test
PRIVATE = ("generals",)


@pytest.fixture
async def db(database_target: str) -> AsyncIterator[Database]:
    database = await open_database(database_target)
    yield database
    await database.close()


async def _game(service: GameService, kind: str = "chopsticks", message_id: int | None = 500) -> tuple[int, int]:
    """A new active game between Alice and Bob shown on `message_id`; (its id, its version)."""
    result = await service.create(kind, guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)])
    if message_id is not None:
        result = await service.set_message(result.id, message_id + result.id)
    return result.id, result.game.version


async def test_only_games_with_a_board_behind_their_version_are_stale(db: Database) -> None:
    service, store = GameService(db), DrawnBoardStore(db)
    current, version = await _game(service)
    behind, behind_version = await _game(service)
    unknown, _ = await _game(service)
    unposted, _ = await _game(service, message_id=None)
    await store.save([DrawnBoard(500 + current, current, version, "k"),
                      DrawnBoard(500 + behind, behind, behind_version - 1, "k")])
    assert await store.stale_games(LATER, 0.0, PRIVATE) == [unposted, unknown, behind]
    # A start sees only games an earlier process wrote: the ones this one writes, it draws itself.
    assert await store.stale_games(0.0, 0.0, PRIVATE) == []
    # A move behind the board's back (a crash before the redraw): stale again, until drawn at the new version.
    game = await service.load(current)
    seat = game.state.current_player()
    assert seat is not None
    moved = await service.act(current, game.user_at(seat) or 0, game.state.legal_actions(seat)[0].text())
    assert current in await store.stale_games(LATER, 0.0, PRIVATE)
    await store.save([DrawnBoard(500 + current, current, moved.game.version, "k2")])
    assert current not in await store.stale_games(LATER, 0.0, PRIVATE)


async def test_private_boards_count_and_undelivered_ones_make_a_game_stale(db: Database) -> None:
    service, store, private = GameService(db), DrawnBoardStore(db), PrivateBoardStore(db)
    game, version = await _game(service, "generals")
    channel = DrawnBoard(500 + game, game, version, "c")
    await store.save([channel])
    assert await store.stale_games(LATER, 0.0, PRIVATE) == [game]  # no player's board was delivered yet
    await private.set(game, 0, 90, 900, now=1.0)
    await private.set(game, 1, None, None, now=1.0)  # Bob's DMs are closed: he uses My board
    assert await store.stale_games(LATER, 0.0, PRIVATE) == [game]  # Alice's DM board is not recorded
    await store.save([DrawnBoard(900, game, version, "a")])
    assert await store.stale_games(LATER, 0.0, PRIVATE) == []
    # Bob's ephemeral board counts while Discord lets the bot edit it.
    await private.set_live(LiveBoard(game, 1, 901, "token", expires_at=100.0))
    assert await store.stale_games(LATER, 50.0, PRIVATE) == [game]
    assert await store.stale_games(LATER, 150.0, PRIVATE) == []  # lapsed: nothing can redraw it
    await store.save([DrawnBoard(901, game, version, "b")])
    assert await store.stale_games(LATER, 50.0, PRIVATE) == []
    # A kind without private boards never waits for their delivery.
    assert await store.stale_games(LATER, 0.0, ()) == []


async def test_records_never_go_back_and_games_over_leave_no_rows(db: Database) -> None:
    service, store = GameService(db), DrawnBoardStore(db)
    game, version = await _game(service)
    await store.save([DrawnBoard(1, game, version + 2, "new")])
    await store.save([DrawnBoard(1, game, version + 1, "old")])  # a drawing recorded late: ignored
    assert [(b.version, b.key) for b in await store.of_active_games()] == [(version + 2, "new")]
    await store.save([DrawnBoard(1, game, version + 2, "same version, other key")])
    assert [b.key for b in await store.of_active_games()] == ["same version, other key"]
    # The game ends: its last drawing removes its rows.
    await store.save([DrawnBoard(1, game, version + 3, "end", active=False)])
    assert await store.of_active_games() == []
    # Rows left behind by a game that ended unseen are removed at the next start.
    other, other_version = await _game(service)
    await store.save([DrawnBoard(2, other, other_version, "x")])
    await service.resign(other, ALICE)
    assert await store.forget_games_over() == 1
    assert await db.query(select("SELECT count(*) FROM drawn_boards")) == [(0,)]


async def test_a_drawing_recorded_behind_a_newer_one_or_its_game_says_so(db: Database) -> None:
    """Two processes: what a drawing records tells whether an older position may have landed last (issue 17)."""
    service, store = GameService(db), DrawnBoardStore(db)
    game, version = await _game(service)
    assert await store.save([DrawnBoard(1, game, version, "now")]) == set()  # its game's latest version
    # Another process drew the game after a change of it: this process's drawing of the older version is refused.
    shown = (await service.view(game)).game
    assert shown.to_decide is not None
    moved = await service.act(game, shown.user_at(shown.to_decide) or ALICE, "AC")
    assert await store.save([DrawnBoard(1, game, moved.game.version, "newer")]) == set()
    assert await store.save([DrawnBoard(1, game, version, "late")]) == {game}
    assert [(b.version, b.key) for b in await store.of_game(game)] == [(moved.game.version, "newer")]
    # Recorded, but the game has moved on since this drawing read it.
    assert await store.save([DrawnBoard(2, game, version, "behind its game")]) == {game}


async def test_a_dm_board_is_claimed_by_one_sender(db: Database) -> None:
    service, private, store = GameService(db), PrivateBoardStore(db), DrawnBoardStore(db)
    game, version = await _game(service, "generals")
    await private.set(game, 1, 78, 701, 1.0)  # seat 1's DM, and both boards, show the game as it is
    await store.save([DrawnBoard(500 + game, game, version, "k"), DrawnBoard(701, game, version, "k")])
    first = await private.claim(game, 0)
    assert first is not None
    assert await private.claim(game, 0) is None  # claimed: not delivered, and nobody else sends it
    stored = await private.get(game, 0)
    assert stored is not None and stored.sending and not stored.delivered
    # A claim whose DM was never stored (its process stopped, or was paused): a start looks at the game again, and
    # once the claim has lapsed (by the database's clock), another sender takes it over; the first sender's fence
    # then no longer holds.
    assert await store.stale_games(LATER, 0.0, PRIVATE) == [game]
    assert await private.still_sending(game, 0, first)
    await asyncio.sleep(0.3)
    assert not await private.still_sending(game, 0, first, lease=0.25)
    taken = await private.claim(game, 0, lease=0.25)
    assert taken is not None and taken != first
    assert not await private.still_sending(game, 0, first) and await private.still_sending(game, 0, taken)
    await private.set(game, 0, 77, 700, 3.0)  # the claimer stores the DM it sent
    await store.save([DrawnBoard(700, game, version, "k")])
    assert await store.stale_games(LATER, 0.0, PRIVATE) == []
    assert await private.claim(game, 0) is None
    # The player deleted DM 700: one new DM replaces it, whoever tries.
    assert await private.claim(game, 0, replacing=700)
    assert await private.claim(game, 0, replacing=700) is None

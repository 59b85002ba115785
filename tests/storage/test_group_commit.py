"""Group commit (storage/writes.py) and the games kept in memory (storage/game_cache.py), on real SQLite files.

Writes waiting at one moment share one transaction, each still guarded by its own version: a stale one fails alone
and the others commit; nothing is answered before its transaction is committed; a group that cannot commit fails
every write in it and leaves nothing behind; reads still get their turn between groups."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from storage import GameRecord, GameStore, Seat, StaleVersionError
from storage.db import SqliteDatabase
from storage.game_cache import RecordCache
from storage.sql import Plan, Sql


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[SqliteDatabase]:
    database = await SqliteDatabase.open(tmp_path / "bot.sqlite3")
    yield database
    await database.close()


async def _games(store: GameStore, count: int) -> list[GameRecord]:
    return [await store.create(kind="chopsticks", guild_id=1, channel_id=2, status="active", state={"n": 0},
                               seats=[Seat(0, 10), Seat(1, 11)], options={}, turn_timeout=60.0, deadline=None,
                               remind_at=None, now=1000.0) for _ in range(count)]


def _move(store: GameStore, game: GameRecord, n: int, **extra: Any) -> Any:
    return store.record_move(game, seat=0, user_id=10, action=f"m{n}", state={"n": n}, now=1000.0 + n,
                             status="active", deadline=2000.0 + n / 3, remind_at=1500.0 + n / 7, **extra)


def _stored(path: Path) -> dict[int, tuple[int, int, str]]:
    """id -> (version, move count, state) as another connection sees it (committed data only)."""
    conn = sqlite3.connect(path)
    try:
        return {int(r[0]): (int(r[1]), int(r[2]), str(r[3]))
                for r in conn.execute("SELECT id, version, move_count, state FROM games")}
    finally:
        conn.close()


def _log(path: Path) -> list[tuple[int, int, str]]:
    conn = sqlite3.connect(path)
    try:
        return [(int(r[0]), int(r[1]), str(r[2])) for r in conn.execute(
            "SELECT game_id, ply, action FROM moves ORDER BY game_id, ply")]
    finally:
        conn.close()


async def test_moves_waiting_together_commit_in_one_group_and_a_stale_one_fails_alone(db: SqliteDatabase) -> None:
    store = GameStore(db)
    games = await _games(store, 30)
    stale = games[7]
    await GameStore(db).update(stale, now=1.0)  # another writer moved game 8 on: this store's copy is stale
    written = await asyncio.gather(*(_move(store, g, 1) for g in games), return_exceptions=True)

    assert isinstance(written[7], StaleVersionError) and written[7].game_id == stale.id
    ok = [w for i, w in enumerate(written) if i != 7]
    assert all(isinstance(w, GameRecord) and (w.version, w.move_count, w.state) == (1, 1, {"n": 1}) for w in ok)
    rows = _stored(db.path)
    assert rows[stale.id][:2] == (1, 0), "the stale write wrote nothing (the version is the other writer's)"
    assert all(rows[g.id] == (1, 1, '{"n":1}') for i, g in enumerate(games) if i != 7)
    assert _log(db.path) == sorted((g.id, 1, "m1") for i, g in enumerate(games) if i != 7)


async def test_the_record_written_is_the_row_stored_floats_and_all(db: SqliteDatabase) -> None:
    store = GameStore(db)
    games = await _games(store, 5)
    written = await asyncio.gather(*(_move(store, g, 3) for g in games))  # a group: written by one statement
    for before, after in zip(games, written, strict=True):
        assert await GameStore(db).get(before.id) == after  # another store, so a read of the file


async def test_two_moves_of_one_game_in_a_group_the_second_meets_the_first(db: SqliteDatabase) -> None:
    store = GameStore(db)
    game, other = await _games(store, 2)
    results: list[object] = await asyncio.gather(_move(store, game, 1), _move(store, game, 2),
                                                 _move(store, other, 1), return_exceptions=True)
    first, second, third = results
    assert isinstance(first, GameRecord) and first.move_count == 1
    assert isinstance(second, StaleVersionError), "both were based on version 0: only the first may land"
    assert isinstance(third, GameRecord)
    assert _log(db.path) == [(game.id, 1, "m1"), (other.id, 1, "m1")]


async def test_a_game_that_ends_writes_its_places_and_what_follows_in_the_same_group(db: SqliteDatabase) -> None:
    store = GameStore(db)
    games = await _games(store, 3)
    seen: list[int] = []

    def ladders() -> Plan[None]:
        seen.append(int((yield Sql("SELECT version FROM games WHERE id = ?", (games[0].id,))).value()))

    ended, *others = await asyncio.gather(
        store.record_move(games[0], seat=1, user_id=11, action="resign", state={"n": 9}, now=1.0, status="finished",
                          deadline=None, remind_at=None, places=(2, 1), then=ladders),
        _move(store, games[1], 1), _move(store, games[2], 1))
    assert [s.place for s in ended.seats] == [2, 1] == [s.place for s in (await GameStore(db).get(games[0].id)).seats]
    assert seen == [1], "what follows a move runs after its guarded update, in its transaction"
    assert all(o.move_count == 1 for o in others)


async def test_nothing_is_answered_before_it_is_committed(db: SqliteDatabase) -> None:
    store = GameStore(db)
    games = await _games(store, 20)
    seen_when_answered: list[tuple[int, int, str] | None] = []

    async def move_then_look(game: GameRecord) -> None:
        after = await _move(store, game, 1)
        seen_when_answered.append(_stored(db.path).get(after.id))  # another connection: committed data only

    await asyncio.gather(*(move_then_look(g) for g in games))
    assert seen_when_answered == [(1, 1, '{"n":1}')] * 20


async def test_a_group_that_cannot_commit_fails_every_write_in_it_and_leaves_nothing(db: SqliteDatabase) -> None:
    store = GameStore(db)
    games = await _games(store, 6)

    class BreaksTheTransaction:
        def plan(self) -> Plan[None]:
            yield Sql("ROLLBACK")  # the group's transaction is gone: its savepoint cannot even be released

    results = await asyncio.gather(*(_move(store, g, 1) for g in games[:5]), db.write(BreaksTheTransaction()),
                                   return_exceptions=True)
    assert all(isinstance(r, sqlite3.OperationalError) for r in results), results
    assert all(row[:2] == (0, 0) for row in _stored(db.path).values()) and _log(db.path) == []
    retried = await asyncio.gather(*(_move(store, g, 1) for g in games))  # and the database is usable again
    assert all(r.version == 1 for r in retried)


async def test_a_plain_move_that_fails_in_the_shared_statements_is_tried_alone(
    db: SqliteDatabase, tmp_path: Path
) -> None:
    """If the statements shared by a group's plain moves fail (here one move's log row already exists), the group's
    moves are written one by one instead: only the one at fault fails."""
    store = GameStore(db)
    games = await _games(store, 4)
    conn = sqlite3.connect(db.path)
    with conn:
        conn.execute("INSERT INTO moves (game_id, ply, seat, user_id, action, created_at) VALUES (?, 1, 0, 10, 'x', 1)",
                     (games[2].id,))
    conn.close()
    results = await asyncio.gather(*(_move(store, g, 1) for g in games), return_exceptions=True)
    assert isinstance(results[2], sqlite3.IntegrityError)
    assert [r.version for i, r in enumerate(results) if i != 2] == [1, 1, 1]  # type: ignore[union-attr]
    assert _stored(db.path)[games[2].id][:2] == (0, 0)


async def test_reads_get_their_turn_between_groups(db: SqliteDatabase) -> None:
    store = GameStore(db)
    games = await _games(store, 50)
    done: list[str] = []

    async def play(game: GameRecord) -> None:  # five moves in a row: five groups, one after the other
        for n in range(1, 6):
            game = await _move(store, game, n)
            done.append("write")

    async def read() -> None:
        await asyncio.sleep(0)  # once the first moves wait for their group
        await GameStore(db).get(games[0].id)
        done.append("read")

    await asyncio.gather(*(play(g) for g in games), read())
    assert done.index("read") <= 100, "the read waited for a group or two, not for every write after it"


async def test_a_write_from_inside_a_transaction_is_refused_instead_of_waiting_forever(db: SqliteDatabase) -> None:
    store = GameStore(db)
    (game,) = await _games(store, 1)
    with pytest.raises(RuntimeError, match="wait forever"):
        async with db.transaction():
            await _move(store, game, 1)


def _record(version: int, status: str = "active", game_id: int = 1) -> GameRecord:
    return GameRecord(id=game_id, kind="chopsticks", guild_id=1, channel_id=2, message_id=None, status=status,
                      options={}, initial_state={}, state={}, version=version, move_count=version, draw_offer=None,
                      turn_timeout=60.0, deadline=None, remind_at=None, created_at=0.0, updated_at=0.0,
                      finished_at=None, seats=())


def test_the_cache_keeps_the_newest_version_of_games_being_played_only() -> None:
    cache = RecordCache(limit=2)
    cache.remember(_record(3))
    cache.remember(_record(2))  # a read that began before this process's own write of version 3
    assert (record := cache.get(1)) is not None and record.version == 3
    cache.remember(_record(4, status="finished"))  # over: an archiving run may change it, nobody moves in it
    assert cache.get(1) is None
    cache.remember(_record(3))  # a read that began before the game ended must not bring it back as being played
    assert cache.get(1) is None
    for game_id in (5, 6, 7):
        cache.remember(_record(1, game_id=game_id))
    assert cache.get(5) is None and len(cache) == 2, "the least recently used goes first"


async def test_a_rolled_back_write_is_not_kept_in_memory(db: SqliteDatabase) -> None:
    store = GameStore(db)
    (game,) = await _games(store, 1)
    with pytest.raises(ValueError, match="on purpose"):
        async with store.transaction() as tx:
            await tx.record_move(game, seat=0, user_id=10, action="m1", state={"n": 1}, now=1.0, status="active",
                                 deadline=None, remind_at=None)
            raise ValueError("on purpose")
    assert (await store.current(game.id)).version == 0


async def test_a_version_being_committed_counts_as_this_process_own(db: SqliteDatabase) -> None:
    """While a move of this process is being committed, the version it writes is already known here (a drawing in
    that moment must not take it for another process's newer one and draw the board again)."""
    store = GameStore(db)
    [game] = await _games(store, 1)
    seen: list[int | None] = []

    def during() -> Plan[None]:
        seen.append(store.newest_version(game.id))
        yield Sql("SELECT 1")

    moved = await store.record_move(game, seat=0, user_id=11, action="m", state={"n": 1}, now=1.0, status="active",
                                    deadline=None, remind_at=None, then=during)
    assert seen == [game.version + 1] and store.newest_version(game.id) == moved.version == game.version + 1

"""Storage against real SQLite files: migrations, version-guarded writes, the move log."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from storage import LATEST_VERSION, GameStore, Seat, StaleVersionError, StorageError
from storage.connection import open_database
from storage.db import SqliteDatabase
from storage.owed import OwedAnnouncement, owed
from storage.sql import Plan, Sql, statement
from tests.support.postgres import INTEGRITY_ERRORS


async def _new_game(store: GameStore) -> int:
    record = await store.create(
        kind="chopsticks", guild_id=1, channel_id=2, status="active", state={"n": 0},
        seats=[Seat(0, 10), Seat(1, None, "medium")], options={}, turn_timeout=60.0, deadline=None,
        remind_at=None, now=1000.0,
    )
    return record.id


async def test_fresh_file_ends_at_latest_schema_with_wal(tmp_path: Path) -> None:
    db = await SqliteDatabase.open(tmp_path / "sub" / "bot.sqlite3")
    try:
        assert await db.schema_version() == LATEST_VERSION >= 2
    finally:
        await db.close()
    conn = sqlite3.connect(tmp_path / "sub" / "bot.sqlite3")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


async def test_old_file_is_migrated_and_keeps_its_games(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    old = await SqliteDatabase.open(path, migrate_to=1)
    assert await old.schema_version() == 1
    async with old.transaction() as conn:
        await conn.raw.execute(
            "INSERT INTO games (kind, channel_id, status, initial_state, state, created_at, updated_at)"
            " VALUES ('chopsticks', 5, 'active', '{}', '{}', 1, 1)"
        )
    await old.close()

    db = await SqliteDatabase.open(path)
    try:
        assert await db.schema_version() == LATEST_VERSION
        record = await GameStore(db).get(1)
        assert record.channel_id == 5 and record.turn_timeout == 86400 and record.deadline is None
    finally:
        await db.close()


async def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "future.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    with pytest.raises(StorageError, match="newer version"):
        await SqliteDatabase.open(path)


async def test_a_newer_postgresql_schema_is_refused(postgres_url: str) -> None:
    db = await open_database(postgres_url)
    await db.run(statement("UPDATE schema_version SET version = version + 1"))
    await db.close()
    with pytest.raises(StorageError, match=f"schema version {LATEST_VERSION + 1}, .* newer version of the bot"):
        await open_database(postgres_url)


async def test_move_and_snapshot_are_written_together_and_guarded(database_target: str) -> None:
    db = await open_database(database_target)
    try:
        store = GameStore(db)
        game = await store.get(await _new_game(store))
        after = await store.record_move(game, seat=0, user_id=10, action="AC", state={"n": 1}, now=1001.0,
                                        status="active", deadline=None, remind_at=None)
        assert (after.version, after.move_count, after.state) == (1, 1, {"n": 1})

        # A second writer still holding version 0 is refused and writes nothing at all.
        with pytest.raises(StaleVersionError):
            await store.record_move(game, seat=0, user_id=10, action="BD", state={"n": 99}, now=1002.0,
                                    status="active", deadline=None, remind_at=None)
        reloaded = await store.get(game.id)
        assert reloaded.state == {"n": 1} and reloaded.version == 1
        assert [m.action for m in await store.moves(game.id)] == ["AC"]

        finished = await store.record_move(reloaded, seat=1, user_id=None, action="resign", state={"n": 2},
                                           now=1003.0, status="finished", deadline=None, remind_at=None,
                                           places=(1, 2))
        assert [s.place for s in (await store.get(game.id)).seats] == [1, 2] == [s.place for s in finished.seats]
    finally:
        await db.close()


async def test_a_failing_transaction_leaves_nothing_behind(database_target: str) -> None:
    db = await open_database(database_target)
    try:
        store = GameStore(db)
        game = await store.get(await _new_game(store))
        with pytest.raises(INTEGRITY_ERRORS):
            async with db.transaction() as conn:
                await conn.run(_statements(
                    Sql("UPDATE games SET version = 7 WHERE id = ?", (game.id,)),
                    Sql("INSERT INTO game_players (game_id, seat, user_id, bot) VALUES (?, 0, 1, NULL)", (game.id,))))
        assert (await store.get(game.id)).version == 0
    finally:
        await db.close()


async def test_timers_are_found_in_order(database_target: str) -> None:
    db = await open_database(database_target)
    try:
        store = GameStore(db)
        a = await store.get(await _new_game(store))
        b = await store.get(await _new_game(store))
        await store.update(a, now=1.0, deadline=50.0, remind_at=40.0)
        await store.update(b, now=1.0, deadline=30.0)
        assert await store.next_timer() == 30.0
        assert await store.due_timers(45.0) == [b.id, a.id]
        assert await store.due_timers(10.0) == []
    finally:
        await db.close()


async def test_the_move_log_cannot_be_rewritten(database_target: str) -> None:
    db = await open_database(database_target)
    try:
        store = GameStore(db)
        game = await store.get(await _new_game(store))
        await store.record_move(game, seat=0, user_id=10, action="AC", state={"n": 1}, now=1001.0,
                                status="active", deadline=None, remind_at=None)
        with pytest.raises(INTEGRITY_ERRORS, match="append-only"):
            async with db.transaction() as conn:
                await conn.run(_statements(Sql("UPDATE moves SET action = 'BD' WHERE game_id = ?", (game.id,))))
        assert [m.action for m in await store.moves(game.id)] == ["AC"]
    finally:
        await db.close()


def _statements(*statements: Sql) -> Plan[None]:
    # Not `yield from statements`: a plan is sent each statement's result, which a tuple's iterator cannot take.
    for one in statements:  # noqa: UP028
        yield one


async def test_an_announcement_owed_before_the_upgrade_is_still_owed_at_the_game_s_move_count(
        database_target: str) -> None:
    old = await open_database(database_target, migrate_to=24)
    try:
        store = GameStore(old)
        game_id = await _new_game(store)
        await old.run(statement("UPDATE games SET move_count = 3 WHERE id = ?", (game_id,)))
        await old.run(statement("INSERT INTO owed_announcements (game_id, event, ending, seat, ply, attempts,"
                                " created_at) VALUES (?, 'forfeit', NULL, NULL, NULL, 1, 5.0)", (game_id,)))
    finally:
        await old.close()
    db = await open_database(database_target)
    try:
        async with db.reading() as conn:
            assert await owed(conn) == [OwedAnnouncement(game_id, "forfeit", None, None, 3, 1, 5.0)]
    finally:
        await db.close()

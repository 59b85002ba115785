"""The ladders' maintained order (migration 0012) and the read-only connection they are read through.

Every answer is compared with the queries the ladder used before (ORDER BY mu - 3 * sigma DESC, user_id with OFFSET,
count(*)), which define the places: ties (the same rating) are ordered by user id, places are never shared.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from storage.database import Database
from storage.db import SqliteDatabase, migrations
from storage.ratings import GLOBAL, RatingRow, RatingStore, save_ratings
from storage.sql import Plan, Sql, select

KIND, OTHER_KIND, SERVER, OTHER_SERVER = "chopsticks", "generals", 5, 6
LADDERS = [(k, g) for k in (KIND, OTHER_KIND) for g in (SERVER, OTHER_SERVER, GLOBAL)]
# Ratings many players share exactly (as after a first game: every winner against a newcomer has the same rating).
TIED = [(27.625, 8.0625), (22.375, 8.0625)]


@pytest.fixture
async def sqlite_db(tmp_path: Path) -> AsyncIterator[SqliteDatabase]:
    """For what only SQLite has (its read-only connection, its own step counter)."""
    database = await SqliteDatabase.open(tmp_path / "bot.sqlite3")
    yield database
    await database.close()


def _random_row(rng: random.Random, kind: str, guild_id: int, user_id: int) -> RatingRow:
    mu, sigma = rng.choice(TIED) if rng.random() < 0.4 else (rng.gauss(25, 6), rng.uniform(0.5, 8.4))
    return RatingRow(kind, guild_id, user_id, mu, sigma, games=rng.randint(1, 30), wins=rng.randint(0, 9))


async def _reference(db: Database, kind: str, guild_id: int) -> list[RatingRow]:
    """The whole ladder as the queries before migration 0012 ordered it."""
    rows = await db.query(select(
        "SELECT user_id FROM ratings WHERE kind = ? AND guild_id = ? ORDER BY mu - 3 * sigma DESC, user_id",
        (kind, guild_id)))
    store = RatingStore(db)
    found = [await store.get(kind, guild_id, int(r[0])) for r in rows]
    return [r for r in found if r is not None]


async def _check_every_ladder(db: Database, page_size: int = 7) -> None:
    store = RatingStore(db)
    for kind, guild_id in LADDERS:
        expected = await _reference(db, kind, guild_id)
        assert await store.count(kind, guild_id) == len(expected)
        pages = [await store.ladder(kind, guild_id, offset, page_size) for offset in range(0, len(expected), page_size)]
        assert [r for page in pages for r in page] == expected
        assert await store.ladder(kind, guild_id, len(expected), page_size) == []
        for place, row in enumerate(expected, start=1):
            assert await store.rank_of(kind, guild_id, row.user_id) == place
            page = await store.page(kind, guild_id, (place - 1) // page_size, page_size, caller=row.user_id)
            assert page.mine == (place, row) and row in page.rows and page.total == len(expected)


async def test_pages_places_and_counts_follow_the_old_order_through_every_kind_of_write(db: Database) -> None:
    rng = random.Random(15)
    users = list(range(1, 60))
    for step in range(8):
        async with db.transaction() as conn:
            for kind, guild_id in LADDERS:  # games ending: rows written whole (INSERT OR REPLACE), new and known
                await save_ratings(conn, [_random_row(rng, kind, guild_id, u) for u in rng.sample(users, 12)], 1.0)
            # ... and the other ways a row can change: an UPDATE of the rating, a row deleted, an upsert.
            mu, sigma = rng.choice(TIED)
            await conn.run(_statements(
                Sql("UPDATE ratings SET mu = mu + ? WHERE kind = ? AND user_id % 3 = ?",
                    (rng.uniform(-2, 2), KIND, step % 3)),
                Sql("DELETE FROM ratings WHERE guild_id = ? AND user_id = ?", (OTHER_SERVER, rng.choice(users))),
                Sql("INSERT INTO ratings (kind, guild_id, user_id, mu, sigma, updated_at) VALUES (?, ?, ?, ?, ?, 1)"
                    " ON CONFLICT (kind, guild_id, user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma",
                    (KIND, SERVER, rng.choice(users), mu, sigma))))
        await _check_every_ladder(db)
    assert await db.query(select("SELECT * FROM ladder_buckets WHERE players <= 0")) == []  # no empty bucket left


async def test_the_migration_orders_the_ratings_already_there(tmp_path: Path) -> None:
    before = next(n for n, script in migrations() if "CREATE TABLE ladder " in script) - 1
    path = tmp_path / "old.sqlite3"
    old = await SqliteDatabase.open(path, migrate_to=before)
    rng = random.Random(3)
    async with old.transaction() as conn:
        for kind, guild_id in LADDERS:
            await save_ratings(conn, [_random_row(rng, kind, guild_id, u) for u in range(1, 30)], 1.0)
    await old.close()
    db = await SqliteDatabase.open(path)
    try:
        await _check_every_ladder(db)
    finally:
        await db.close()


async def test_a_page_past_the_end_shows_the_last_one_and_an_empty_ladder_one_empty_page(db: Database) -> None:
    store = RatingStore(db)
    empty = await store.page(KIND, SERVER, 3, 10, caller=1)
    assert (empty.total, empty.page, empty.pages, empty.rows, empty.mine) == (0, 0, 1, [], None)
    async with db.transaction() as conn:
        await save_ratings(conn, [RatingRow(KIND, SERVER, u, 25.0 + u, 3.0) for u in range(1, 24)], 1.0)
    last = await store.page(KIND, SERVER, 99, 10, caller=1)
    assert (last.total, last.page, last.pages) == (23, 2, 3)
    assert [r.user_id for r in last.rows] == [3, 2, 1] and last.mine is not None and last.mine[0] == 23


async def test_a_ladder_is_read_while_a_move_holds_the_database(db: Database) -> None:
    """Ladders are read on the read-only connection: a write transaction under way (a move, holding the lock every
    other write waits on) neither holds the page up nor shows it anything uncommitted."""
    store = RatingStore(db)
    async with db.transaction() as conn:
        await save_ratings(conn, [RatingRow(KIND, SERVER, 1, 30.0, 2.0)], 1.0)
    writing, release = asyncio.Event(), asyncio.Event()

    async def move() -> None:
        async with db.transaction() as conn:
            await save_ratings(conn, [RatingRow(KIND, SERVER, 2, 40.0, 2.0)], 2.0)
            writing.set()
            await release.wait()

    holder = asyncio.ensure_future(move())
    await writing.wait()
    try:
        page = await asyncio.wait_for(store.page(KIND, SERVER, 0, 10, caller=2), timeout=5)
        assert [r.user_id for r in page.rows] == [1] and page.mine is None
        assert await asyncio.wait_for(store.rank_of(KIND, SERVER, 1), timeout=5) == 1
    finally:
        release.set()
        await holder
    assert await store.rank_of(KIND, SERVER, 1) == 2  # committed now: the next read sees it


async def test_the_read_only_connection_cannot_write(sqlite_db: SqliteDatabase) -> None:
    db = sqlite_db
    def delete() -> Plan[None]:
        yield Sql("DELETE FROM ratings")

    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        await db.read(delete())


async def test_no_ladder_query_walks_the_rows_above_a_place(sqlite_db: SqliteDatabase) -> None:
    db = sqlite_db
    """Counted in SQLite's own steps (not time): each query at 10,000 players takes far fewer steps than there are
    players, where an OFFSET or count(*) takes at least one step per row it passes."""
    players, rng = 10_000, random.Random(1)
    async with db.transaction() as conn:
        await save_ratings(conn, [_random_row(rng, KIND, SERVER, u) for u in range(players)], 1.0)
    store = RatingStore(db)
    order = [r.user_id for r in await store.ladder(KIND, SERVER, 0, players)]
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0  # go on

    # Both connections count: the read-only one (one SQLite connection, used by every read) and the writing one.
    await db.with_reader(lambda conn: conn.set_progress_handler(count, 1))
    async with db.reading() as conn:
        await conn.raw.set_progress_handler(count, 1)
    cases: dict[str, Callable[[], Awaitable[object]]] = {
        "the last page": lambda: store.ladder(KIND, SERVER, players - 10, 10),
        "the middle page": lambda: store.ladder(KIND, SERVER, players // 2, 10),
        "the last player's place": lambda: store.rank_of(KIND, SERVER, order[-1]),
        "the number of players": lambda: store.count(KIND, SERVER),
        "a whole /leaderboard page": lambda: store.page(KIND, SERVER, players // 20, 10, caller=order[-1]),
    }
    for label, query in cases.items():
        steps = 0
        await query()
        assert steps < players // 2, f"{label}: {steps} steps"
    async with db.reading() as conn:  # the measure itself: the old OFFSET walk to the middle page
        steps = 0
        await conn.raw.execute_fetchall("SELECT user_id FROM ratings WHERE kind = ? AND guild_id = ? ORDER BY"
                                        " mu - 3 * sigma DESC, user_id LIMIT 10 OFFSET ?",
                                        (KIND, SERVER, players // 2))
        await conn.raw.set_progress_handler(None, 1)  # type: ignore[arg-type]
    assert steps > players


def _statements(*statements: Sql) -> Plan[None]:
    # Not `yield from statements`: a plan is sent each statement's result, which a tuple's iterator cannot take.
    for statement in statements:  # noqa: UP028
        yield statement

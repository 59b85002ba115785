"""PostgreSQL's migrations (storage/migrations/postgresql) build the schema SQLite's (storage/migrations) build, in
meaning (issue 17): the same tables with the same columns in the same order, nullability, types and defaults, the
same keys, indexes and triggers, and the same verdicts on the writes those must refuse or allow. A fresh SQLite file
made by `SqliteDatabase.open` is compared with a new PostgreSQL database the PostgreSQL files are applied to, in order.

Skipped, saying why, where no PostgreSQL server can be started (failed instead under TEST_POSTGRES=require): the
server is the session's, tests/conftest.py's `postgres_server`; each test has a new database.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import sqlite3
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from storage.db import LATEST_VERSION, SqliteDatabase
from storage.postgres import postgres_migrations
from storage.sql import numbered
from tests.support.postgres import PostgresServer

SQLITE_TYPES = {"INTEGER": {"bigint", "integer"}, "REAL": {"double precision"}, "TEXT": {"text"}}
# SQLite has no sequences: a one-row table of the same name stands for each (storage/leases.py new_token).
SEQUENCES = {"lease_tokens"}
PG_ON_DELETE = {"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT"}


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # SQLite's declared type; PostgreSQL's mapped back to it (see SQLITE_TYPES)
    not_null: bool
    default: str | None  # normalised: no casts, no quotes around numbers


@dataclass
class Schema:
    tables: dict[str, list[Column]] = field(default_factory=dict)
    keys: set[tuple[str, str, tuple[str, ...]]] = field(default_factory=set)  # (table, 'primary' / 'unique', columns)
    foreign_keys: set[tuple[str, tuple[str, ...], str, tuple[str, ...], str]] = field(default_factory=set)
    # name: (table, columns, unique, partial WHERE)
    indexes: dict[str, tuple[str, tuple[str, ...], bool, str]] = field(default_factory=dict)
    triggers: set[tuple[str, str, str, str]] = field(default_factory=set)  # (name, table, timing, event)


def _where(text: str | None) -> str:
    return re.sub(r"\s+", " ", (text or "").replace("(", "").replace(")", "")).strip().lower()


def _default(text: str | None) -> str | None:
    if text is None:
        return None
    text = re.sub(r"::[a-z ]+$", "", text.strip())
    return text.strip("'") if re.fullmatch(r"'-?[0-9.]+'", text) else text


# --- reading SQLite's schema ------------------------------------------------------------------------------------


def sqlite_schema(path: Path) -> Schema:
    conn = sqlite3.connect(path)
    try:
        schema = Schema()
        without_rowid = {str(r[1]) for r in conn.execute("PRAGMA table_list") if r[4]}
        tables = [str(r[0]) for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            if r[0] not in SEQUENCES]
        for table in tables:
            info = list(conn.execute(f"PRAGMA table_info({table})"))
            primary = tuple(str(r[1]) for r in sorted((r for r in info if r[5]), key=lambda r: int(r[5])))
            rowid_alias = len(primary) == 1 and any(r[1] == primary[0] and r[2].upper() == "INTEGER" for r in info)
            # What SQLite enforces, not what table_info says: a WITHOUT ROWID table's key and an INTEGER PRIMARY KEY
            # (the rowid) are never NULL, though table_info reports notnull 0 for them.
            schema.tables[table] = [
                Column(str(r[1]), str(r[2]).upper(),
                       bool(r[3]) or (bool(r[5]) and (table in without_rowid or rowid_alias)), _default(r[4]))
                for r in info]
            schema.keys.add((table, "primary", primary))
            for _, name, _unique, origin, _partial in conn.execute(f"PRAGMA index_list({table})"):
                if origin == "u":
                    columns = tuple(str(r[2]) for r in conn.execute(f"PRAGMA index_info({name})"))
                    schema.keys.add((table, "unique", columns))
            fks: dict[int, list[Any]] = {}
            for r in conn.execute(f"PRAGMA foreign_key_list({table})"):
                fks.setdefault(int(r[0]), []).append(r)
            for rows in fks.values():
                rows.sort(key=lambda r: int(r[1]))
                schema.foreign_keys.add((table, tuple(str(r[3]) for r in rows), str(rows[0][2]),
                                         tuple(str(r[4]) for r in rows), str(rows[0][6]).upper()))
        for name, table, sql in conn.execute(
                "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"):
            columns = tuple(f"{r[2]}{' DESC' if r[3] else ''}"
                            for r in conn.execute(f"PRAGMA index_xinfo({name})") if r[5])
            where = sql.split(" WHERE ", 1)[1] if " WHERE " in sql else None
            schema.indexes[str(name)] = (str(table), columns, sql.upper().startswith("CREATE UNIQUE"), _where(where))
        for name, table, sql in conn.execute("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'"):
            found = re.search(r"\b(BEFORE|AFTER|INSTEAD OF)\s+(INSERT|UPDATE|DELETE)\b", sql, re.IGNORECASE)
            assert found, sql
            schema.triggers.add((str(name), str(table), found[1].upper(), found[2].upper()))
        return schema
    finally:
        conn.close()


# --- reading PostgreSQL's schema --------------------------------------------------------------------------------


async def postgres_schema(conn: Any) -> Schema:
    schema = Schema()
    for r in await conn.fetch(
            "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns"
            " WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"):
        pg_type = str(r["data_type"])
        declared = next((name for name, family in SQLITE_TYPES.items() if pg_type in family), pg_type)
        schema.tables.setdefault(str(r["table_name"]), []).append(
            Column(str(r["column_name"]), declared, r["is_nullable"] == "NO", _default(r["column_default"])))
    for r in await conn.fetch(
            "SELECT c.conrelid::regclass::text AS tbl, c.contype::text, c.confrelid::regclass::text AS ref,"
            " c.confdeltype::text,"
            " ARRAY(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k(n, i)"
            "       JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i)::text[] AS cols,"
            " ARRAY(SELECT a.attname FROM unnest(c.confkey) WITH ORDINALITY k(n, i)"
            "       JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i)::text[] AS refs"
            " FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace"
            " WHERE s.nspname = 'public' AND c.contype IN ('p', 'u', 'f')"):
        if r["contype"] == "f":
            schema.foreign_keys.add((r["tbl"], tuple(r["cols"]), r["ref"], tuple(r["refs"]),
                                     PG_ON_DELETE[r["confdeltype"]]))
        else:
            schema.keys.add((r["tbl"], "primary" if r["contype"] == "p" else "unique", tuple(r["cols"])))
    for r in await conn.fetch(
            "SELECT x.relname AS name, t.relname AS tbl, i.indisunique AS is_unique,"
            " pg_get_expr(i.indpred, i.indrelid) AS pred,"
            " ARRAY(SELECT a.attname || CASE WHEN i.indoption[k.i - 1] & 1 = 1 THEN ' DESC' ELSE '' END"
            "       FROM unnest(i.indkey) WITH ORDINALITY k(n, i)"
            "       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.i)::text[] AS cols"
            " FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid"
            " JOIN pg_namespace s ON s.oid = t.relnamespace"
            " WHERE s.nspname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c"
            "   WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid AND c.contype IN ('p', 'u'))"):
        schema.indexes[str(r["name"])] = (str(r["tbl"]), tuple(r["cols"]), bool(r["is_unique"]), _where(r["pred"]))
    for r in await conn.fetch(
            "SELECT trigger_name, event_object_table, action_timing, event_manipulation"
            " FROM information_schema.triggers WHERE trigger_schema = 'public'"):
        schema.triggers.add((str(r[0]), str(r[1]), str(r[2]), str(r[3])))
    return schema


# --- fixtures ---------------------------------------------------------------------------------------------------


@pytest.fixture
async def sqlite_path(tmp_path: Path) -> Path:
    """A new SQLite file brought to the latest version by the bot's own `SqliteDatabase.open`."""
    path = tmp_path / "bot.sqlite3"
    db = await SqliteDatabase.open(path)
    await db.close()
    return path


@pytest.fixture
def sqlite_conn(sqlite_path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(sqlite_path, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = ON")  # as storage/db.py's connection has it
    try:
        yield conn
    finally:
        conn.close()


_databases = itertools.count(1)


@pytest.fixture
async def pg(postgres_server: PostgresServer) -> AsyncIterator[Any]:
    """A connection to a new PostgreSQL database the PostgreSQL migration files were applied to, in order. Its default
    collation is ICU's en-US where the server has ICU, as a production server's may well be (unlike the test server's
    C): text must then still sort as SQLite sorts it, by the columns' own collation."""
    import asyncpg

    name = f"tabletop_schema_{os.getpid()}_{next(_databases)}"
    admin = await asyncpg.connect(postgres_server.url())
    try:
        try:
            await admin.execute(
                f"CREATE DATABASE \"{name}\" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'")
        except asyncpg.PostgresError:  # a server built without ICU
            await admin.execute(f'CREATE DATABASE "{name}"')
        conn = await asyncpg.connect(postgres_server.url(name))
        try:
            for _, script in postgres_migrations():
                async with conn.transaction():
                    await conn.execute(script)
            yield conn
        finally:
            await conn.close()
            await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    finally:
        await admin.close()


# --- the schemas ------------------------------------------------------------------------------------------------


def test_postgresql_has_a_migration_for_every_sqlite_version_from_its_baseline_on() -> None:
    numbers = [number for number, _ in postgres_migrations()]
    assert numbers and numbers[0] == 14  # 0014_baseline folds SQLite's 0001-0014
    assert numbers == list(range(14, LATEST_VERSION + 1))


async def test_the_same_tables_with_the_same_columns_in_the_same_order(sqlite_path: Path, pg: Any) -> None:
    lite, post = sqlite_schema(sqlite_path), await postgres_schema(pg)
    assert sorted(post.tables) == sorted(lite.tables)
    for table, columns in lite.tables.items():
        assert [c.name for c in post.tables[table]] == [c.name for c in columns], table
        assert post.tables[table] == columns, table  # types, nullability, defaults


async def test_each_sequence_is_a_one_row_table_in_sqlite(sqlite_path: Path, pg: Any) -> None:
    found = {str(r["sequence_name"]) for r in await pg.fetch(
        "SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = 'public'")}
    assert found >= SEQUENCES
    conn = sqlite3.connect(sqlite_path)
    try:
        for name in SEQUENCES:
            assert conn.execute(f"SELECT count(*) FROM {name}").fetchone() == (1,)
    finally:
        conn.close()


async def test_the_same_keys_and_references(sqlite_path: Path, pg: Any) -> None:
    lite, post = sqlite_schema(sqlite_path), await postgres_schema(pg)
    assert post.keys == lite.keys
    assert post.foreign_keys == lite.foreign_keys


async def test_the_same_indexes_on_the_same_columns(sqlite_path: Path, pg: Any) -> None:
    lite, post = sqlite_schema(sqlite_path), await postgres_schema(pg)
    assert sorted(post.indexes) == sorted(lite.indexes)
    assert post.indexes == lite.indexes


async def test_the_same_triggers(sqlite_path: Path, pg: Any) -> None:
    lite, post = sqlite_schema(sqlite_path), await postgres_schema(pg)
    assert lite.triggers and post.triggers == lite.triggers


# --- the same verdicts on writes --------------------------------------------------------------------------------


class Both:
    """The same `?`-placeholder statements run on the SQLite file and the PostgreSQL database."""

    def __init__(self, lite: sqlite3.Connection, pg: Any) -> None:
        self.lite, self.pg = lite, pg

    async def run(self, text: str, params: Sequence[Any] = ()) -> None:
        self.lite.execute(text, params)
        await self.pg.execute(numbered(text), *params)

    async def verdicts(self, text: str, params: Sequence[Any] = ()) -> tuple[str | None, str | None]:
        """What each says to a write that may be refused: None when it is accepted, else the error's message."""
        import asyncpg

        lite: str | None = None
        post: str | None = None
        try:
            self.lite.execute(text, params)
        except sqlite3.IntegrityError as exc:
            lite = str(exc)
        try:
            await self.pg.execute(numbered(text), *params)
        except asyncpg.IntegrityConstraintViolationError as exc:
            post = str(exc)
        return lite, post

    async def rows(self, text: str) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        return list(self.lite.execute(text)), [tuple(r) for r in await self.pg.fetch(text)]


@pytest.fixture
def both(sqlite_conn: sqlite3.Connection, pg: Any) -> Both:
    return Both(sqlite_conn, pg)


GAME = ("INSERT INTO games (kind, guild_id, channel_id, status, initial_state, state, created_at, updated_at)"
        " VALUES ('chopsticks', 7, 8, ?, '{}', '{}', 1.5, 1.5) RETURNING id")


async def test_the_move_log_refuses_an_update_on_both_with_the_same_message(both: Both) -> None:
    await both.run(GAME.removesuffix(" RETURNING id"), ("active",))
    await both.run("INSERT INTO moves (game_id, ply, seat, user_id, action, created_at) VALUES (1, 1, 0, ?, 'a', 2.0)",
                   (2**62,))
    lite, post = await both.verdicts("UPDATE moves SET action = 'b' WHERE game_id = 1")
    assert lite == post == "the move log is append-only"
    assert await both.rows("SELECT action, user_id FROM moves") == ([("a", 2**62)], [("a", 2**62)])
    await both.run("DELETE FROM games WHERE id = 1")  # a whole game can still go, its moves with it
    assert await both.rows("SELECT count(*) FROM moves") == ([(0,)], [(0,)])


@pytest.mark.parametrize(("statement", "refused"), [
    (GAME.replace("?", "'paused'"), True),  # CHECK on status
    ("INSERT INTO game_players (game_id, seat, user_id, bot) VALUES (1, 0, 5, 'easy')", True),  # a person or a bot
    ("INSERT INTO game_players (game_id, seat, user_id, bot) VALUES (1, 0, NULL, NULL)", True),
    ("INSERT INTO game_players (game_id, seat, user_id) VALUES (99, 0, 5)", True),  # no such game
    ("INSERT INTO game_players (game_id, seat, user_id) VALUES (1, 0, 5)", False),
    ("INSERT INTO lobby_members (lobby_id, position, user_id) VALUES (1, 2, 5)", True),  # the same person twice
    ("INSERT INTO lobby_members (lobby_id, position, bot) VALUES (1, 2, 'easy')", False),  # bots may be several
    ("INSERT INTO user_settings (user_id, notify, updated_at) VALUES (5, 'loud', 1.0)", True),
    ("INSERT INTO bot_state (key, value) VALUES ('k', NULL)", True),
    ("DELETE FROM games WHERE id = 2", True),  # a lobby that became a game holds on to it (no ON DELETE)
])
async def test_the_same_writes_are_refused(both: Both, statement: str, refused: bool) -> None:
    await both.run(GAME.removesuffix(" RETURNING id"), ("active",))
    await both.run(GAME.removesuffix(" RETURNING id"), ("active",))
    await both.run("INSERT INTO lobbies (kind, channel_id, host_id, max_players, turn_timeout, status, game_id,"
                   " created_at) VALUES ('sucker', 8, 5, 4, 60.0, 'started', 2, 1.0)")
    await both.run("INSERT INTO lobby_members (lobby_id, position, user_id) VALUES (1, 1, 5)")
    lite, post = await both.verdicts(statement)
    assert (lite is not None, post is not None) == (refused, refused), (lite, post)


async def test_ids_are_given_alike_and_defaults_filled_alike(both: Both) -> None:
    for _ in range(3):
        await both.run(GAME.removesuffix(" RETURNING id"), ("pending",))
    await both.run("DELETE FROM games WHERE id = 3")
    await both.run(GAME.removesuffix(" RETURNING id"), ("pending",))  # AUTOINCREMENT: 3 is never given again
    lite, post = await both.rows(
        "SELECT id, options, version, move_count, turn_timeout, rated, thread_id FROM games ORDER BY id")
    assert lite == post == [(n, "{}", 0, 0, 86400.0, 0, None) for n in (1, 2, 4)]


async def test_text_sorts_and_lowers_as_sqlite_does(both: Both) -> None:
    names = ["b", "B", "a", "Ä", "ä", "Z", "é", "E"]
    for name in names:
        await both.run("INSERT INTO saved_formations (user_id, kind, name, setup, created_at)"
                       " VALUES (1, 'generals', ?, '', 1.0)", (name,))
    lite, post = await both.rows("SELECT name, lower(name) FROM saved_formations ORDER BY lower(name), name")
    assert post == lite


async def test_the_ladder_triggers_keep_the_same_ladder_through_every_kind_of_write(both: Both) -> None:
    rng = random.Random(17)
    tied = [(25.0, 8.0), (26.5, 8.5), (25.0 + 1e-9, 8.0)]
    upsert = ("INSERT INTO ratings (kind, guild_id, user_id, mu, sigma, updated_at) VALUES (?, ?, ?, ?, ?, 1.0)"
              " ON CONFLICT (kind, guild_id, user_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma")
    for step in range(6):
        for user in rng.sample(range(1, 40), 15):
            mu, sigma = rng.choice(tied) if rng.random() < 0.3 else (rng.uniform(0, 50), rng.uniform(0.5, 8.3))
            await both.run(upsert, ("generals", rng.choice([0, 2**40]), user, mu, sigma))
        await both.run("UPDATE ratings SET mu = mu + ? WHERE user_id % 3 = ?", (rng.uniform(-2, 2), step % 3))
        await both.run("UPDATE ratings SET games = games + 1 WHERE user_id % 2 = 0")  # not a ladder column
        await both.run("DELETE FROM ratings WHERE user_id = ?", (rng.randrange(1, 40),))
        ladder = await both.rows("SELECT kind, guild_id, bucket, ordinal, user_id FROM ladder"
                                 " ORDER BY kind, guild_id, bucket DESC, ordinal DESC, user_id")
        assert ladder[0] and ladder[1] == ladder[0]
        buckets = await both.rows("SELECT kind, guild_id, bucket, players FROM ladder_buckets"
                                  " ORDER BY kind, guild_id, bucket")
        assert buckets[1] == buckets[0] and all(players > 0 for *_, players in buckets[1])
        assert sum(players for *_, players in buckets[1]) == len(ladder[1])

"""Archive old finished games into a separate SQLite file, keeping everything the stats read.

What stays in the live database for an archived game: its `games` row (kind, server, channel, message,
status, rated, times, move count) and its seats with their final places (`game_players`), which is all that
/stats, /history and /leaderboard read; the ladders live in `ratings`, which archiving never touches, and
lobbies keep pointing at the game. What moves to the archive file: the two snapshots (`initial_state` and
`state` become a small marker saying when the game was archived), the move log, and every other per-game
table (any table with a `game_id` column other than the kept ones: deals, private boards, ...).

The move log is append-only (a trigger refuses every update, migration 0001). Archiving is the one
deliberate exception: it deletes whole move logs of finished games, never rewrites a move, and only after
their copy in the archive file was committed and compared row for row with the original.

The archive file is an ordinary bot database (the same migrations), holding complete copies of the
archived games (rows, seats, move logs), so an archived game replays there exactly as it did here.
`bring_back` puts games back into the live database.

It is safe while the bot runs: work is done in batches, each copy committed to the archive first, then
one short write transaction in the live database per batch, guarded by each game's version (a game that
changed in between is left alone). An interrupted run leaves only redundant copies in the archive, which
the next run replaces.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from storage.db import LATEST_VERSION, migrations
from storage.health import create_private_file, private_directory

ARCHIVED_AT = "archived_at"  # the key of the marker that replaces an archived game's snapshots
KEPT_TABLES = ("games", "game_players", "lobbies")  # what stats, history and lobbies read stays
OVER_STATUSES = ("finished", "declined", "expired")
DAY = 86400.0
BATCH = 500


class ArchiveError(Exception):
    """Why archiving could not be done; one line for the admin."""


def archived_at(state: Mapping[str, Any]) -> float | None:
    """When the game whose stored snapshot is `state` was archived, or None for a game in the database."""
    value = state.get(ARCHIVED_AT) if len(state) == 1 else None
    return float(value) if isinstance(value, int | float) else None


@dataclass
class ArchiveResult:
    games: int = 0  # games archived (or, in a dry run, that would be)
    rows: dict[str, int] = field(default_factory=dict)  # rows moved per table (moves, deals, ...)
    skipped: list[int] = field(default_factory=list)  # games that changed while being archived: left in place
    cutoff: float = 0.0

    @property
    def moves(self) -> int:
        return self.rows.get("moves", 0)


def default_archive_path(database: Path) -> Path:
    """`data/bot.sqlite3` -> `data/bot.archive.sqlite3`."""
    return database.with_name(f"{database.stem}.archive{database.suffix or '.sqlite3'}")


def archive(
    database: Path, archive_path: Path, *, older_than_days: float, now: float | None = None, dry_run: bool = False,
    batch: int = BATCH,
) -> ArchiveResult:
    """Move games over (finished, declined or expired) for more than `older_than_days` into `archive_path`."""
    if older_than_days < 0:
        raise ArchiveError("--older-than must be 0 days or more.")
    now = time.time() if now is None else now
    result = ArchiveResult(cutoff=now - older_than_days * DAY)
    if archive_path.resolve() == database.resolve():
        raise ArchiveError("The archive must be another file than the database.")
    conn = _open_live(database)
    try:
        moved = moved_tables(conn, "main")
        candidates = [int(r[0]) for r in conn.execute(
            f"SELECT id FROM games WHERE status IN ({','.join('?' * len(OVER_STATUSES))})"
            " AND COALESCE(finished_at, updated_at) < ? AND json_extract(state, '$.archived_at') IS NULL ORDER BY id",
            (*OVER_STATUSES, result.cutoff),
        )]
        if dry_run:
            result.games = len(candidates)
            for chunk in _chunks(candidates, batch):
                for table in moved:
                    result.rows[table] = result.rows.get(table, 0) + _count(conn, "main", table, chunk)
            return result
        if not candidates:
            return result
        _prepare_archive(archive_path)
        conn.execute("ATTACH DATABASE ? AS archive", (str(archive_path),))
        missing = set(moved) - set(_tables(conn, "archive"))
        if missing:
            raise ArchiveError(f"{archive_path} lacks the tables {sorted(missing)}; is it a bot archive?")
        for chunk in _chunks(candidates, batch):
            _copy(conn, chunk, moved)
            _strip(conn, chunk, moved, now, result)
    finally:
        conn.close()
    return result


def bring_back(database: Path, archive_path: Path, game_ids: Sequence[int]) -> list[int]:
    """Put archived games back into the live database (moves, snapshots, per-game rows); returns their ids.

    Each game's row becomes its archived copy again, with its version one above the archived marker's."""
    if not archive_path.is_file():
        raise ArchiveError(f"There is no archive at {archive_path}.")
    conn = _open_live(database)
    try:
        _prepare_archive(archive_path)
        conn.execute("ATTACH DATABASE ? AS archive", (str(archive_path),))
        moved = moved_tables(conn, "main")
        ids = list(dict.fromkeys(game_ids))
        for game_id in ids:
            row = conn.execute("SELECT state FROM main.games WHERE id = ?", (game_id,)).fetchone()
            if row is None or archived_at(json.loads(row[0])) is None:
                raise ArchiveError(f"Game #{game_id} is not archived.")
            if conn.execute("SELECT 1 FROM archive.games WHERE id = ?", (game_id,)).fetchone() is None:
                raise ArchiveError(f"Game #{game_id} is not in {archive_path}.")
        conn.execute("BEGIN IMMEDIATE")
        try:
            _fill_batch(conn, ids)
            for table in moved:
                columns = ", ".join(_columns(conn, "main", table))
                conn.execute(f"INSERT INTO main.{table} ({columns}) SELECT {columns} FROM archive.{table}"
                             " WHERE game_id IN (SELECT id FROM temp.batch)")
            conn.execute(
                "UPDATE main.games SET state = a.state, initial_state = a.initial_state,"
                " version = main.games.version + 1 FROM archive.games a"
                " WHERE a.id = main.games.id AND main.games.id IN (SELECT id FROM temp.batch)")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        # The live database has them again; drop the copies so that a later archiving starts afresh.
        conn.execute("BEGIN")
        _delete(conn, "archive", moved, with_games=True)
        conn.execute("COMMIT")
    finally:
        conn.close()
    return ids


# ----- the steps ---------------------------------------------------------------------------------------------
def _copy(conn: sqlite3.Connection, ids: list[int], moved: list[str]) -> None:
    """Commit complete copies of the games `ids` to the archive, replacing leftovers of an interrupted run."""
    conn.execute("BEGIN")  # deferred: the live database is only read, so the bot is never blocked here
    try:
        _fill_batch(conn, ids)
        clash = conn.execute(
            "SELECT a.id FROM archive.games a JOIN main.games g ON g.id = a.id"
            " WHERE a.id IN (SELECT id FROM temp.batch)"
            " AND (a.kind IS NOT g.kind OR a.created_at IS NOT g.created_at OR a.channel_id IS NOT g.channel_id)"
        ).fetchone()
        if clash is not None:
            raise ArchiveError(f"the archive holds another game #{clash[0]}: it belongs to another database")
        _delete(conn, "archive", moved, with_games=True)
        for table in ("games", "game_players", *moved):
            columns = ", ".join(_columns(conn, "main", table))
            key = "id" if table == "games" else "game_id"
            conn.execute(f"INSERT INTO archive.{table} ({columns}) SELECT {columns} FROM main.{table}"
                         f" WHERE {key} IN (SELECT id FROM temp.batch)")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _strip(conn: sqlite3.Connection, ids: list[int], moved: list[str], now: float, result: ArchiveResult) -> None:
    """In one short write transaction: keep only the games whose archive copy equals them row for row, then
    replace their snapshots by the marker and delete their moves and other per-game rows."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        _fill_batch(conn, ids)
        differ: set[int] = set()
        for table in ("games", "game_players", *moved):
            columns = ", ".join(_columns(conn, "main", table))
            key = "id" if table == "games" else "game_id"
            for a, b in (("main", "archive"), ("archive", "main")):
                differ.update(int(r[0]) for r in conn.execute(
                    f"SELECT {key} FROM (SELECT {columns} FROM {a}.{table} WHERE {key} IN (SELECT id FROM temp.batch)"
                    f" EXCEPT SELECT {columns} FROM {b}.{table} WHERE {key} IN (SELECT id FROM temp.batch))"))
        keep = [i for i in ids if i not in differ]
        _fill_batch(conn, keep)
        for table in moved:
            result.rows[table] = result.rows.get(table, 0) + _count(conn, "main", table, keep)
        marker = json.dumps({ARCHIVED_AT: now})
        conn.execute("UPDATE main.games SET state = ?, initial_state = ?, version = version + 1"
                     " WHERE id IN (SELECT id FROM temp.batch)", (marker, marker))
        _delete(conn, "main", moved, with_games=False)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    result.games += len(keep)
    result.skipped += sorted(differ)


# ----- helpers ---------------------------------------------------------------------------------------------------
def moved_tables(conn: sqlite3.Connection, schema: str) -> list[str]:
    """Per-game tables that move with an archived game, parents before children (deals before acceptances)."""
    tables = [t for t in _tables(conn, schema)
              if t not in KEPT_TABLES and "game_id" in _columns(conn, schema, t)]
    parents = {t: {str(r[2]) for r in conn.execute(f"PRAGMA {schema}.foreign_key_list({t})")} for t in tables}
    ordered: list[str] = []
    while len(ordered) < len(tables):
        ready = [t for t in tables if t not in ordered and parents[t] & set(tables) <= set(ordered)]
        if not ready:
            raise ArchiveError(f"circular references between {sorted(set(tables) - set(ordered))}")
        ordered += sorted(ready)
    return ordered


def _tables(conn: sqlite3.Connection, schema: str) -> list[str]:
    return [str(r[0]) for r in conn.execute(
        f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]


def _columns(conn: sqlite3.Connection, schema: str, table: str) -> list[str]:
    return [str(r[1]) for r in conn.execute(f"PRAGMA {schema}.table_info({table})")]


def _count(conn: sqlite3.Connection, schema: str, table: str, ids: list[int]) -> int:
    if not ids:
        return 0
    marks = ",".join("?" * len(ids))
    return int(conn.execute(f"SELECT count(*) FROM {schema}.{table} WHERE game_id IN ({marks})", ids).fetchone()[0])


def _fill_batch(conn: sqlite3.Connection, ids: Iterable[int]) -> None:
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS batch (id INTEGER PRIMARY KEY)")
    conn.execute("DELETE FROM temp.batch")
    conn.executemany("INSERT INTO temp.batch (id) VALUES (?)", [(i,) for i in ids])


def _delete(conn: sqlite3.Connection, schema: str, moved: list[str], *, with_games: bool) -> None:
    """Delete the batch's rows of the moved tables (children first), and with `with_games` its games too."""
    for table in reversed(moved):
        conn.execute(f"DELETE FROM {schema}.{table} WHERE game_id IN (SELECT id FROM temp.batch)")
    if with_games:
        conn.execute(f"DELETE FROM {schema}.game_players WHERE game_id IN (SELECT id FROM temp.batch)")
        conn.execute(f"DELETE FROM {schema}.games WHERE id IN (SELECT id FROM temp.batch)")


def _chunks(ids: list[int], size: int) -> Iterable[list[int]]:
    for start in range(0, len(ids), size):
        yield ids[start:start + size]


def _open_live(database: Path) -> sqlite3.Connection:
    if not database.is_file():
        raise ArchiveError(f"There is no database at {database}.")
    conn = sqlite3.connect(database, isolation_level=None)  # transactions are begun explicitly
    conn.execute("PRAGMA busy_timeout = 10000")
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version != LATEST_VERSION:
        conn.close()
        raise ArchiveError(f"{database} has schema version {version} and this code {LATEST_VERSION}: "
                           "start the bot of this version once (it upgrades the database), then archive.")
    return conn


def _prepare_archive(path: Path) -> None:
    """Create the archive file, or bring its schema up to date, with the bot's own migrations."""
    private_directory(path.parent)
    create_private_file(path)  # the archived games' logs: owner-only, like the database
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > LATEST_VERSION:
            raise ArchiveError(f"{path} was written by a newer version of the bot (schema {version}).")
        for number, script in migrations():
            if number > version:
                conn.executescript(f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {number};\nCOMMIT;")
    finally:
        conn.close()

"""Issue 14, point 7: the database, its backups and archives are created readable by their owner only (0600), and
the directories made for them 0700, whatever the umask; directories that already exist keep their mode."""

from __future__ import annotations

import asyncio
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.service import GameService
from storage.archive import archive
from storage.backup import restore, save
from storage.db import SqliteDatabase
from tests.support.damage import database_with_games


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def permissive_umask() -> Iterator[None]:
    """The usual umask (group and others may read): what the bot must not rely on to keep its files private."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


async def test_a_new_database_its_directories_and_sqlite_files_are_private(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    path = tmp_path / "data" / "live" / "bot.sqlite3"
    db = await SqliteDatabase.open(path)
    try:
        await db.schema_version()
        assert mode(path) == 0o600
        for sqlite_file in (Path(f"{path}-wal"), Path(f"{path}-shm")):
            assert mode(sqlite_file) == 0o600  # SQLite gives them the database's mode
    finally:
        await db.close()
    assert mode(tmp_path / "data") == 0o700 and mode(tmp_path / "data" / "live") == 0o700
    assert mode(tmp_path) == 0o755  # a directory that was there is left as the admin made it


async def test_an_existing_database_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    db = await SqliteDatabase.open(path)
    await db.close()
    path.chmod(0o640)  # the admin's choice (e.g. a backup group may read it)
    db = await SqliteDatabase.open(path)
    await db.close()
    assert mode(path) == 0o640


def test_backups_and_restored_databases_are_private(tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    asyncio.run(database_with_games(database, games=3))
    backup = tmp_path / "backups" / "2026" / "bot-1.sqlite3"
    save(database, backup)
    assert mode(backup) == 0o600
    assert mode(tmp_path / "backups") == 0o700 and mode(tmp_path / "backups" / "2026") == 0o700
    database.chmod(0o644)  # an old install's database
    restore(backup, database)
    assert mode(database) == 0o600
    assert mode(tmp_path / "bot.sqlite3.before-restore") == 0o600


def test_archives_are_private(tmp_path: Path) -> None:
    database = tmp_path / "bot.sqlite3"
    ids = asyncio.run(database_with_games(database, games=3))
    asyncio.run(_resign(database, ids))
    target = tmp_path / "old" / "bot.archive.sqlite3"
    result = archive(database, target, older_than_days=0, now=time.time() + 60)
    assert result.games == 3
    assert mode(target) == 0o600 and mode(tmp_path / "old") == 0o700


async def _resign(database: Path, ids: list[int]) -> None:
    db = await SqliteDatabase.open(database)
    try:
        service = GameService(db)
        for game_id in ids:
            await service.resign(game_id, 101)
    finally:
        await db.close()

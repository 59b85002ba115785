"""Issue 14, points 5 and 6: a database file the bot cannot use is refused in one line and left untouched; damage
inside a sound-looking file is found by the integrity check and named wherever a statement meets it."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from storage.db import SqliteDatabase
from storage.games import GameStore
from storage.health import (
    DamagedDatabaseError,
    IntegrityCheck,
    UnusableDatabaseError,
    check_database_file,
    check_integrity,
    is_damage,
    quick_check,
)
from tests.support.damage import PAGE_SIZE, database_with_games, files_in, leaf_pages, overwrite_page

RESTORE = "restore the latest backup with the bot stopped (python -m bot.backup restore FILE)"


@pytest.fixture(scope="module")
def sound_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bot database with 60 active games (about ten pages of game rows); tests copy it before harming it."""
    import asyncio

    path = tmp_path_factory.mktemp("sound") / "bot.sqlite3"
    asyncio.run(database_with_games(path))
    return path


def _copy(sound: Path, directory: Path) -> Path:
    path = directory / "bot.sqlite3"
    shutil.copyfile(sound, path)
    return path


# ----- files that are no bot database: refused before SQLite touches them ----------------------------------------
def _random_bytes(path: Path, sound: Path) -> str:
    path.write_bytes(random.Random(6).randbytes(3 * PAGE_SIZE))
    return "is not a SQLite database (it lacks SQLite's header)"


def _text_file(path: Path, sound: Path) -> str:
    path.write_text("DISCORD_TOKEN=abc.def.ghi\n", encoding="utf-8")  # e.g. DATABASE_PATH=.env by mistake
    return "is not a SQLite database"


def _cut_short(path: Path, sound: Path) -> str:
    path.write_bytes(sound.read_bytes()[: 5 * PAGE_SIZE])  # a copy interrupted after five pages
    return (f"is cut short: its header counts {sound.stat().st_size} bytes, the file has {5 * PAGE_SIZE}; "
            f"keep a copy of the file, then {RESTORE}.")


def _header_only(path: Path, sound: Path) -> str:
    path.write_bytes(sound.read_bytes()[:60])
    return "is cut short (60 bytes, less than SQLite's header)"


@pytest.mark.parametrize("make", [_random_bytes, _text_file, _cut_short, _header_only])
async def test_a_file_that_is_no_usable_database_is_refused_and_left_untouched(
    make: object, sound_database: Path, tmp_path: Path
) -> None:
    path = tmp_path / "bot.sqlite3"
    assert callable(make)
    expected = make(path, sound_database)
    before = files_in(tmp_path)
    with pytest.raises(UnusableDatabaseError) as refused:
        await SqliteDatabase.open(path)
    message = str(refused.value)
    assert message.startswith(str(path)) and expected in message and "\n" not in message
    assert files_in(tmp_path) == before  # byte for byte, and no -wal or -shm beside it


async def test_a_directory_or_a_file_in_the_way_is_named(tmp_path: Path) -> None:
    with pytest.raises(UnusableDatabaseError, match="is a directory; set DATABASE_PATH to a file in it"):
        await SqliteDatabase.open(tmp_path)
    (tmp_path / "data").write_text("not a directory", encoding="utf-8")
    with pytest.raises(UnusableDatabaseError, match=r"data is not a directory, so the database .* cannot be made"):
        await SqliteDatabase.open(tmp_path / "data" / "bot.sqlite3")
    assert (tmp_path / "data").read_text(encoding="utf-8") == "not a directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in any directory (tests/bot covers it as another user)")
async def test_a_read_only_directory_is_refused_without_creating_anything(tmp_path: Path) -> None:
    (tmp_path / "ro").mkdir()
    (tmp_path / "ro").chmod(0o500)
    try:
        with pytest.raises(UnusableDatabaseError, match=r"cannot write in .*ro: the bot keeps its database"):
            await SqliteDatabase.open(tmp_path / "ro" / "bot.sqlite3")
        assert list((tmp_path / "ro").iterdir()) == []
    finally:
        (tmp_path / "ro").chmod(0o700)


async def test_an_empty_file_becomes_a_new_database(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    path.touch()
    db = await SqliteDatabase.open(path)
    await db.close()
    assert quick_check(path) == []


# ----- damage inside the file -----------------------------------------------------------------------------------
def test_the_integrity_check_finds_one_damaged_page(sound_database: Path, tmp_path: Path) -> None:
    path = _copy(sound_database, tmp_path)
    assert quick_check(path) == []
    pages = leaf_pages(path, "games")
    assert len(pages) >= 5
    overwrite_page(path, pages[len(pages) // 2])
    problems = quick_check(path)
    assert problems and all(isinstance(p, str) for p in problems)
    check_database_file(path)  # the header is sound: only reading every page finds it


async def test_a_statement_that_meets_damage_names_the_file_and_what_to_do(
    sound_database: Path, tmp_path: Path
) -> None:
    path = _copy(sound_database, tmp_path)
    overwrite_page(path, leaf_pages(path, "games")[2])
    db = await SqliteDatabase.open(path)  # its schema is intact: it opens
    try:
        with pytest.raises(DamagedDatabaseError) as damaged:
            await GameStore(db).history(101, limit=100)
        assert str(damaged.value) == (f"the database {path} is damaged (database disk image is malformed); keep a "
                                      f"copy of the file, then {RESTORE}.")
        assert is_damage(damaged.value.__cause__ or damaged.value)
        assert await db.schema_version() > 0  # the connection still serves what is sound
    finally:
        await db.close()
    assert not is_damage(sqlite3.OperationalError("database is locked"))


async def test_a_damaged_schema_is_refused_at_open_and_the_file_left_as_it_was(
    sound_database: Path, tmp_path: Path
) -> None:
    path = _copy(sound_database, tmp_path)
    overwrite_page(path, 1, start=100)  # the header stays; the table of tables is noise
    before = files_in(tmp_path)
    with pytest.raises(DamagedDatabaseError, match=r"is damaged \(.*\); keep a copy of the file"):
        await SqliteDatabase.open(path)
    assert files_in(tmp_path) == before


# ----- the background check -------------------------------------------------------------------------------------
async def test_the_background_check_reads_beside_an_open_database_and_can_be_stopped(
    sound_database: Path, tmp_path: Path
) -> None:
    path = _copy(sound_database, tmp_path)
    db = await SqliteDatabase.open(path)
    try:
        assert await check_integrity(path) == []  # a read-only connection of its own, while the bot's is open
    finally:
        await db.close()
    stopped = IntegrityCheck(path)
    stopped.interrupt()  # a stop that comes before the check begins: it never starts
    with pytest.raises(InterruptedError):
        stopped.run()
    assert files_in(tmp_path) == {"bot.sqlite3": sound_database.read_bytes()}

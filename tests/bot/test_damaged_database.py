"""Issue 14, points 5 and 6: `python -m bot` on a database it cannot use says so in one line, exits non-zero and
leaves the file as it was; a damaged page found while serving is an ERROR naming the damage, and players are told."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.errors import DAMAGED_DATABASE_TEXT
from tests.support.damage import PAGE_SIZE, database_with_games, files_in, leaf_pages, overwrite_page
from tests.support.world import (
    TabletopRunner,
    World,
)

ROOT = Path(__file__).resolve().parents[2]
_OUR_SETTINGS = ("DISCORD_", "DEV_GUILD", "TURN_", "LOG_", "CHALLENGE_", "DATABASE_PATH")
RESTORE = ("keep a copy of the file, then restore the latest backup with the bot stopped "
           "(python -m bot.backup restore FILE).")


def _environment(settings: dict[str, str]) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(_OUR_SETTINGS)}
    return clean | settings | {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _nowhere() -> dict[str, str]:
    """Discord at a closed port: a bot that got past its database check would fail differently (cannot reach)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    return {"DISCORD_TOKEN": "abc.def.ghi", "DISCORD_API_BASE": f"http://127.0.0.1:{port}/api/v10",
            "DISCORD_GATEWAY_URL": f"ws://127.0.0.1:{port}/gw"}


def _sound_database(path: Path) -> None:
    asyncio.run(database_with_games(path, games=30))


# ----- files that are no usable database: one line, before Discord is even contacted ---------------------------------
def _random_bytes(path: Path) -> str:
    path.write_bytes(random.Random(6).randbytes(3 * PAGE_SIZE))
    return f"error: {path} is not a SQLite database (it lacks SQLite's header); set DATABASE_PATH to the bot's " \
           "database, or move this file away to start a new one. Nothing was changed."


def _not_sqlite(path: Path) -> str:
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))  # a picture saved under the database's name
    return f"error: {path} is not a SQLite database"


def _cut_short(path: Path) -> str:
    _sound_database(path)
    whole = path.stat().st_size
    path.write_bytes(path.read_bytes()[: 3 * PAGE_SIZE])
    return f"error: {path} is cut short: its header counts {whole} bytes, the file has {3 * PAGE_SIZE}; {RESTORE}"


@pytest.mark.parametrize("make", [_random_bytes, _not_sqlite, _cut_short])
def test_python_m_bot_refuses_a_file_that_is_no_database_in_one_line(
    make: Callable[[Path], str], tmp_path: Path
) -> None:
    expected = make(tmp_path / "bot.sqlite3")
    before = files_in(tmp_path)
    result = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                            env=_environment(_nowhere() | {"DATABASE_PATH": "bot.sqlite3"}))
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(expected)
    assert files_in(tmp_path) == before  # byte for byte, and no -wal or -shm beside it


def test_python_m_bot_refuses_a_read_only_directory_in_one_line(tmp_path: Path) -> None:
    # Root may write anywhere, so as root the bot is run as `nobody`: it imports what it needs first, then drops
    # its privileges (Python itself lives where `nobody` cannot read), then runs as an admin would run it.
    home = Path(tempfile.mkdtemp(prefix="readonly-"))
    try:
        home.chmod(0o755)
        (home / "data").mkdir()
        _sound_database(home / "data" / "bot.sqlite3")
        (home / "data" / "bot.sqlite3").chmod(0o644)
        (home / "data").chmod(0o555)
        before = files_in(home / "data")
        for database in ("data/bot.sqlite3", "data/new.sqlite3"):
            result = _run_unprivileged(home, _nowhere() | {"DATABASE_PATH": database})
            assert result.returncode == 1, result.stderr
            assert "Traceback" not in result.stdout + result.stderr
            assert result.stderr.splitlines() == [
                f"error: cannot write in {home / 'data'}: the bot keeps its database and SQLite's -wal and -shm files "
                "there; give the user that runs the bot write access to it, or set DATABASE_PATH to a writable place."]
            assert files_in(home / "data") == before
        (home / "mine").mkdir()
        (home / "mine").chmod(0o777)  # a directory the bot may write in, holding a file it may only read
        shutil.copyfile(home / "data" / "bot.sqlite3", home / "mine" / "bot.sqlite3")
        (home / "mine" / "bot.sqlite3").chmod(0o444)
        result = _run_unprivileged(home, _nowhere() | {"DATABASE_PATH": "mine/bot.sqlite3"})
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert result.stderr.splitlines() == [
            f"error: {home / 'mine' / 'bot.sqlite3'} cannot be read and written by this user; give the user that runs "
            "the bot access to it (chown)."]
        assert files_in(home / "mine") == {"bot.sqlite3": (home / "data" / "bot.sqlite3").read_bytes()}
    finally:
        (home / "data").chmod(0o755)
        shutil.rmtree(home)


def _run_unprivileged(cwd: Path, settings: dict[str, str]) -> subprocess.CompletedProcess[str]:
    if os.geteuid() != 0:
        return subprocess.run([sys.executable, "-m", "bot"], cwd=cwd, capture_output=True, text=True, timeout=60,
                              env=_environment(settings))
    script = ("import encodings.idna, encodings.utf_8_sig, os, sys, bot.__main__, bot.client\n"
              "os.setgroups([]); os.setgid(65534); os.setuid(65534)\n"
              "sys.exit(bot.__main__.main())\n")
    return subprocess.run([sys.executable, "-c", script], cwd=cwd, capture_output=True, text=True, timeout=60,
                          env=_environment(settings))


# ----- damage that SQLite finds: at start (refused), or while serving (named in the log, told to players) ------------
async def test_python_m_bot_refuses_a_damaged_schema_in_one_line(world: World, tmp_path: Path) -> None:
    fake = world.fake
    database = tmp_path / "bot.sqlite3"
    await database_with_games(database, games=30)
    overwrite_page(database, 1, start=100)  # SQLite's header is sound; the table of tables is noise
    before = files_in(tmp_path)
    log = tmp_path.parent / f"{tmp_path.name}.log"
    with log.open("wb") as out:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", cwd=tmp_path, stdout=out, stderr=asyncio.subprocess.STDOUT,
            env=_environment({"DISCORD_TOKEN": fake.token, "DATABASE_PATH": "bot.sqlite3",
                              "DISCORD_API_BASE": fake.api_base, "DISCORD_GATEWAY_URL": fake.gateway_url}))
    try:
        assert await asyncio.wait_for(process.wait(), 60) == 1
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGKILL)
            await process.wait()
    output = log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in output
    [line] = [line for line in output.splitlines() if line.startswith("error:") or " ERROR " in line]
    assert line.startswith(f"error: the database {database} is damaged (")
    assert line.endswith(f"); {RESTORE}")
    assert files_in(tmp_path) == before


async def test_one_damaged_page_is_found_named_in_the_log_and_told_to_players(
    world: World, sqlite_bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    fake = world.fake
    await database_with_games(sqlite_bots.database, games=60, guild_id=world.guild.id, channel_id=world.channel.id,
                              players=(world.alice.id, world.bob.id))
    pages = leaf_pages(sqlite_bots.database, "games")
    overwrite_page(sqlite_bots.database, pages[len(pages) // 2])  # one page among the games' rows
    caplog.set_level(logging.INFO)

    def errors() -> list[logging.LogRecord]:
        return [r for r in caplog.records if r.levelno >= logging.ERROR]

    await sqlite_bots.start()  # the schema and what start-up reads are intact: it starts, and then finds the damage
    damaged = f"the database {sqlite_bots.database} is damaged"
    await fake.wait_until(lambda: len(errors()) >= 2, timeout=15)
    found = {r.name: r.getMessage() for r in errors()}
    assert found["bot.client"].startswith(f"{damaged} (integrity check: ")  # the background check
    assert found["bot.client"].endswith(RESTORE)
    # The restore of the boards met the damaged page: its task stopped, and said so (it used to die silently).
    assert found["bot.service.tasks"] == (f"background task restore-boards stopped: {damaged} (database disk image "
                                          f"is malformed); {RESTORE}")

    history = await fake.slash(world.alice, world.channel, "history", timeout=15)
    assert history.message is not None and history.message.ephemeral
    assert history.message.content == str(DAMAGED_DATABASE_TEXT)  # English (the reader's language)
    assert errors()[-1].name == "bot.errors"
    assert errors()[-1].getMessage() == (f"could not handle history from user {world.alice.id}: {damaged} (database "
                                         f"disk image is malformed); {RESTORE}")
    assert all(damaged in r.getMessage() for r in errors())  # nothing else went wrong

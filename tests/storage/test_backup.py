"""Online backup while games are being written, and restore."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from bot.backup import main
from bot.service import GameService, Player
from storage.backup import BackupError, restore, save
from storage.db import SqliteDatabase


async def test_a_backup_taken_during_play_is_consistent_and_restores(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    db = await SqliteDatabase.open(path)
    service = GameService(db)
    game = await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(1), Player(2)],
                                options={"first": 0})
    await service.act(game.id, 1, "AC")

    async def keep_playing() -> None:
        for i in range(30):
            other = await service.create("chopsticks", guild_id=1, channel_id=2,
                                         players=[Player(100 + i), Player(200 + i)], options={"first": 0})
            await service.act(other.id, 100 + i, "AC")

    writer = asyncio.create_task(keep_playing())
    await asyncio.sleep(0.01)
    await asyncio.to_thread(save, path, tmp_path / "backup.sqlite3")  # while the bot writes
    await writer
    await db.close()

    conn = sqlite3.connect(tmp_path / "backup.sqlite3")
    try:
        games = conn.execute("SELECT count(*) FROM games").fetchone()[0]
        moves = conn.execute("SELECT count(*) FROM moves").fetchone()[0]
        versions = conn.execute("SELECT sum(move_count) FROM games").fetchone()[0]
    finally:
        conn.close()
    assert games >= 1 and moves == versions, "every snapshot in the backup matches its move log"

    restore(tmp_path / "backup.sqlite3", path)
    assert (tmp_path / "bot.sqlite3.before-restore").is_file()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == games
    finally:
        conn.close()


def test_the_command_explains_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--database", str(tmp_path / "missing.sqlite3"), "save", str(tmp_path / "b.sqlite3")]) == 1
    assert "There is no database" in capsys.readouterr().err
    with pytest.raises(BackupError, match="no backup"):
        restore(tmp_path / "nothing.sqlite3", tmp_path / "db.sqlite3")

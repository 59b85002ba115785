"""Damaged and unusable database files, made on purpose: one page overwritten, a file cut short, and the like."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from bot.service import GameService, Player
from storage.db import SqliteDatabase

PAGE_SIZE = 4096


async def database_with_games(path: Path, *, games: int = 60, guild_id: int = 1, channel_id: int = 2,
                              players: tuple[int, int] = (101, 202)) -> list[int]:
    """A bot database at `path` holding `games` active Chopsticks games between `players`; their ids. The
    connection is closed afterwards, so the file alone (no -wal) holds everything."""
    db = await SqliteDatabase.open(path)
    try:
        service = GameService(db)
        made = [await service.create("chopsticks", guild_id=guild_id, channel_id=channel_id,
                                     players=[Player(players[0]), Player(players[1])]) for _ in range(games)]
    finally:
        await db.close()
    return [result.id for result in made]


def leaf_pages(path: Path, table: str) -> list[int]:
    """The numbers of the pages holding `table`'s rows (SQLite's dbstat table)."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno",
                            (table,)).fetchall()
    finally:
        conn.close()
    return [int(row[0]) for row in rows]


def overwrite_page(path: Path, page: int, *, seed: int = 14, start: int = 0) -> None:
    """Replace page `page` (1 is the first) with random bytes from byte `start` of the page on (as a failing
    disk or a stray write would)."""
    noise = random.Random(seed).randbytes(PAGE_SIZE - start)
    with path.open("r+b") as file:
        file.seek((page - 1) * PAGE_SIZE + start)
        file.write(noise)


def files_in(directory: Path) -> dict[str, bytes]:
    """Every file in `directory` with its bytes: what must be exactly the same after a refused start."""
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}

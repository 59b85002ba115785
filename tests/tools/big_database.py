"""A bot database with many finished games, to time what start-up and the integrity check cost on a large install.

    python -m tests.tools.big_database OUT.sqlite3 [--games 100000] [--time]

A few real games are played to their end through the service (computer players in every seat: Chopsticks, Game of
the Generals, So Long Sucker), then copied in SQL until the file holds `--games` games with their seats and move
logs, so rows have the sizes real ones have. With --time it then prints how long the bot's start-up checks and the
background check take on the file (the figures of issue 14, point 5).
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import time
from pathlib import Path

from bot.service import GameService, Player
from storage.db import SqliteDatabase
from storage.health import check_database_file, quick_check

# The games played for real and then copied: (kind, the bots' seats).
TEMPLATES = (
    ("chopsticks", (Player(computer="easy"), Player(computer="easy"))),
    ("chopsticks", (Player(computer="medium"), Player(computer="easy"))),
    ("generals", (Player(computer="random"), Player(computer="random"))),
    ("sucker", tuple(Player(computer="basic") for _ in range(4))),
)
MAX_PLIES = 600  # a template that has not ended by then is copied as it stands (still a realistic size)


async def play_templates(db: SqliteDatabase) -> int:
    """Play the template games through the service; returns how many there are."""
    service = GameService(db)
    for kind, players in TEMPLATES:
        game = await service.create(kind, guild_id=1, channel_id=2, players=players)
        for _ in range(MAX_PLIES):
            if await service.play_computer_turn(game.id) is None:
                break
    return len(TEMPLATES)


def copy_games(path: Path, templates: int, games: int) -> None:
    """Copy the template games (ids 1..templates) round-robin until the file holds `games` games."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        game_columns = [r[1] for r in conn.execute("PRAGMA table_info(games)") if r[1] != "id"]
        columns = ", ".join(game_columns)
        source = ", ".join(f"g.{c}" for c in game_columns)
        batch = 5000
        for first in range(templates + 1, games + 1, batch):
            last = min(games, first + batch - 1)
            conn.execute("BEGIN")
            conn.execute(
                f"WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
                f" INSERT INTO games (id, {columns}) SELECT n.i, {source} FROM n"
                f" JOIN games g ON g.id = 1 + (n.i - 1) % ?", (first, last, templates))
            conn.execute(
                "WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
                " INSERT INTO game_players (game_id, seat, user_id, bot, place)"
                " SELECT n.i, p.seat, 1000 + (n.i * 7 + p.seat) % 5000, NULL, p.place FROM n"
                " JOIN game_players p ON p.game_id = 1 + (n.i - 1) % ?", (first, last, templates))
            conn.execute(
                "WITH RECURSIVE n(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM n WHERE i < ?)"
                " INSERT INTO moves (game_id, ply, seat, user_id, action, created_at)"
                " SELECT n.i, m.ply, m.seat, m.user_id, m.action, m.created_at FROM n"
                " JOIN moves m ON m.game_id = 1 + (n.i - 1) % ?", (first, last, templates))
            conn.execute("COMMIT")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


async def build(path: Path, games: int) -> None:
    db = await SqliteDatabase.open(path)
    try:
        templates = await play_templates(db)
    finally:
        await db.close()
    copy_games(path, templates, games)


async def time_checks(path: Path) -> None:
    """What the start-up checks and the background check cost on `path`, in seconds."""
    started = time.perf_counter()
    check_database_file(path)
    checked = time.perf_counter()
    db = await SqliteDatabase.open(path)
    opened = time.perf_counter()
    await db.close()
    problems = await asyncio.to_thread(quick_check, path)
    background = time.perf_counter()
    conn = sqlite3.connect(path)
    try:
        full = conn.execute("PRAGMA integrity_check").fetchall()
    finally:
        conn.close()
    done = time.perf_counter()
    print(f"file check before start    {checked - started:8.3f} s")
    print(f"SqliteDatabase.open (+ its check) {opened - checked:8.3f} s")
    print(f"background quick_check     {background - opened:8.3f} s  ({problems or 'ok'})")
    print(f"full integrity_check       {done - background:8.3f} s  ({full[0][0]})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.tools.big_database", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--time", action="store_true", help="then time the start-up and background checks")
    args = parser.parse_args(argv)
    if args.out.exists():
        print(f"error: {args.out} exists; give a new file name", file=sys.stderr)
        return 1
    started = time.perf_counter()
    asyncio.run(build(args.out, args.games))
    size = args.out.stat().st_size / 1e6
    print(f"{args.games} games in {args.out} ({size:.0f} MB) in {time.perf_counter() - started:.1f} s")
    if args.time:
        asyncio.run(time_checks(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

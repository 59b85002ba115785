"""Moves through several bot processes over one database (issue 17, point 6).

    python -m tests.tools.bench_processes [--processes 1,2,4] [--games 200] [--moves-per-game 40] [--repeat 3]

Each process plays its share of the games (Chopsticks, every move chosen beforehand with the engine, as in
tests/tools/bench_moves.py) through `GameService.act` on its own connections, all at once; the figures are the moves
of all processes per second of the slowest one, and the p99 of a move's latency over all of them. PostgreSQL runs on
a throwaway server (tests/support/postgres.py, or `TEST_DATABASE_URL`); beside it, one process on a SQLite file does
the same work. Medians of `--repeat` runs; a new database for each run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.service import GameService, Player
from storage.connection import open_database
from tests.support.postgres import PostgresServer, create_database, running_server
from tests.tools.bench_moves import plan_lanes

USER_BASE = 50_000
ROOT = Path(__file__).resolve().parents[2]


async def _play(target: str, worker: int, games: int, moves_per_game: int, start_at: float) -> dict[str, Any]:
    """One process's share: its games created (not timed), then all played at once from `start_at`."""
    lanes = plan_lanes(games, moves_per_game, min_moves=0)
    db = await open_database(target)
    service = GameService(db)
    base = USER_BASE + worker * 10 * games
    ids: list[list[int]] = []
    for lane, planned in enumerate(lanes):
        ids.append([])
        for _ in planned:
            game = await service.create("chopsticks", guild_id=1, channel_id=1 + lane % 50,
                                        players=[Player(base + 2 * lane), Player(base + 2 * lane + 1)],
                                        options={"first": 0})
            ids[-1].append(game.id)
    latencies: list[float] = []

    async def lane_play(lane: int) -> None:
        for game_id, moves in zip(ids[lane], lanes[lane], strict=True):
            for ply, move in enumerate(moves):
                started = time.perf_counter()
                await service.act(game_id, base + 2 * lane + move.seat, move.action, expected_ply=ply)
                latencies.append(time.perf_counter() - started)

    await asyncio.sleep(max(0.0, start_at - time.time()))
    started = time.perf_counter()
    await asyncio.gather(*(lane_play(lane) for lane in range(len(lanes))))
    elapsed = time.perf_counter() - started
    await db.close()
    return {"moves": len(latencies), "seconds": elapsed, "latencies": latencies}


def _run(target: str, processes: int, games: int, moves_per_game: int) -> tuple[float, float]:
    """Moves per second (all processes, over the slowest one's time) and p99 latency in ms."""
    start_at = time.time() + 2.0 + 0.2 * processes  # every process has imported and created its games by then
    workers = [subprocess.Popen(
        [sys.executable, "-m", "tests.tools.bench_processes", "--worker", target, str(i), str(games // processes),
         str(moves_per_game), str(start_at)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
        for i in range(processes)]
    results = [json.loads(worker.communicate(timeout=600)[0]) for worker in workers]
    moves = sum(r["moves"] for r in results)
    seconds = max(r["seconds"] for r in results)
    latencies = sorted(x for r in results for x in r["latencies"])
    return moves / seconds, 1000 * statistics.quantiles(latencies, n=100, method="inclusive")[98]


async def _new_database(server: PostgresServer, name: str) -> str:
    url = await create_database(server, name)
    db = await open_database(url)  # migrated once, before the processes start
    await db.close()
    return url


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--worker":
        target, worker, games, moves_per_game, start_at = args[1:6]
        print(json.dumps(asyncio.run(_play(target, int(worker), int(games), int(moves_per_game), float(start_at)))))
        return 0
    parser = argparse.ArgumentParser(prog="python -m tests.tools.bench_processes", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--games", type=int, default=200, help="games in all, split between the processes")
    parser.add_argument("--moves-per-game", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args(args)
    counts = [int(n) for n in options.processes.split(",")]
    rows: list[tuple[str, int, float, float]] = []
    with running_server() as server, tempfile.TemporaryDirectory() as scratch:
        for n in counts:
            figures = []
            for run in range(options.repeat):
                url = asyncio.run(_new_database(server, f"bench_{n}_{run}"))
                figures.append(_run(url, n, options.games, options.moves_per_game))
            rows.append(("PostgreSQL", n, statistics.median(f[0] for f in figures),
                         statistics.median(f[1] for f in figures)))
        figures = []
        for run in range(options.repeat):
            path = Path(scratch) / f"bench_{run}.sqlite3"
            asyncio.run(_migrated(str(path)))
            figures.append(_run(str(path), 1, options.games, options.moves_per_game))
        rows.append(("SQLite", 1, statistics.median(f[0] for f in figures), statistics.median(f[1] for f in figures)))
    sqlite_rate = rows[-1][2]
    print(f"Moves through several processes over one database: {options.games} Chopsticks games played at once, "
          f"split between the processes; medians of {options.repeat} runs on this machine")
    print(f"  {'database':<11} {'processes':>9} {'moves/s':>9} {'p99 ms':>8} {'vs SQLite, 1 process':>22}")
    for database, n, rate, p99 in rows:
        print(f"  {database:<11} {n:>9} {rate:>9.0f} {p99:>8.1f} {rate / sqlite_rate:>21.2f}x")
    return 0


async def _migrated(path: str) -> None:
    db = await open_database(path)
    await db.close()


if __name__ == "__main__":
    raise SystemExit(main())

"""Benchmark: N concurrent Chopsticks games through the service and a real SQLite file.

    python -m tests.tools.bench [--games 1,100,1000] [--moves-per-game 40] [--repeat 3] [--ladder-players 100000]

For each N it prints moves/s and p50/p99 latency per move, then the same for a floor -- raw aiosqlite on
one connection doing only the writes a move needs (the version-guarded UPDATE of the snapshot and the
INSERT into the move log, in one transaction) -- and the ratio ours/floor in moves per second. Then it
times leaderboard queries on a ladder of many rated players, and ms per Game of the Generals board picture
(public and private PNGs, and the text fallback; also `python -m tests.tools.bench_render`).

    python -m tests.tools.bench --discord-load [--games 1000] [--channels 50] [--rounds 5] [--clicks 3]
                          [--rival-clicks 1] [--spread 0] [--no-validate] [--in-process]

runs the real bot (`python -m bot` in its own process, or with --in-process in this one) against the
offline Discord: N games between people across the channels, then rounds in which, in every game at once,
the player to move clicks several move buttons together and the waiting player clicks too. It checks that
exactly one click per game and turn was applied (the answers, and the move log in the database) and that
every other click was told why privately, and prints p50/p99 dispatch-to-callback latency, throughput
and REST requests per move (see tests/tools/discord_load.py). Then, whole games of every kind played one
move at a time (the bot in this process) give the REST requests per applied move of each game beside the
minimum (tests/tools/requests_per_move.py; skip them with --no-requests-per-move).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosqlite

from bot.service import GameService, Player
from games.chopsticks import ChopsticksState, Rules
from storage import Database
from storage.ratings import GLOBAL, RatingRow, RatingStore, count_rated, save_ratings

if TYPE_CHECKING:
    from tests.support.fakediscord import SpecValidator
    from tests.tools.discord_load import LoadReport

USER_BASE = 10_000


@dataclass
class Figures:
    moves: int
    seconds: float
    latencies: list[float]

    @property
    def rate(self) -> float:
        return self.moves / self.seconds

    def line(self, label: str) -> str:
        q = statistics.quantiles(self.latencies, n=100, method="inclusive")
        return (f"{label:<6} {self.moves:>7} moves  {self.rate:>9.0f} moves/s  "
                f"p50 {q[49] * 1000:7.2f} ms  p99 {q[98] * 1000:7.2f} ms")


@dataclass(frozen=True)
class Write:
    """What one accepted move writes, so that the floor can write exactly the same."""

    game_id: int
    seat: int
    action: str
    state: str
    status: str


def plan_games(games: int, moves_per_game: int) -> list[list[tuple[int, str, str, str]]]:
    """Each game's moves, chosen beforehand with the engine: (seat, action, snapshot JSON, status).

    Choosing moves is the players' work, not the service's; doing it here keeps it out of both timings, so
    the service and the floor replay exactly the same games."""
    plans = []
    for g in range(games):
        rng = random.Random(g)
        state = ChopsticksState.start(Rules(), first_seat=0)
        plan = []
        for _ in range(moves_per_game):
            seat = state.current_player()
            if seat is None:
                break
            move = rng.choice(list(state.legal_actions(seat)))
            state = state.apply(seat, move)
            status = "finished" if state.is_over else "active"
            plan.append((seat, move.text(), json.dumps(state.to_dict(), separators=(",", ":"), sort_keys=True), status))
        plans.append(plan)
    return plans


async def run_ours(path: Path, plans: list[list[tuple[int, str, str, str]]]) -> tuple[Figures, list[Write]]:
    """Play the planned games at once through the service; returns figures and every write for the floor."""
    db = await Database.open(path)
    service = GameService(db)
    ids = []
    for g in range(len(plans)):
        game = await service.create("chopsticks", guild_id=1, channel_id=1 + g % 50,
                                    players=[Player(USER_BASE + 2 * g), Player(USER_BASE + 2 * g + 1)],
                                    options={"first": 0})
        ids.append(game.id)
    latencies: list[float] = []

    async def play(index: int, game_id: int) -> None:
        for ply, (seat, move, _state, _status) in enumerate(plans[index]):
            started = time.perf_counter()
            await service.act(game_id, USER_BASE + 2 * index + seat, move, expected_ply=ply)
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(play(i, gid) for i, gid in enumerate(ids)))
    elapsed = time.perf_counter() - started
    await db.close()
    writes = [Write(gid, seat, move, state, status)
              for gid, plan in zip(ids, plans, strict=True) for seat, move, state, status in plan]
    return Figures(len(latencies), elapsed, latencies), writes


async def run_floor(path: Path, games: int, writes: list[Write]) -> Figures:
    """The same writes with raw aiosqlite: one connection, one lock, one transaction per move, the same
    UPDATE and INSERT statements with the same values, and nothing else (no read, no rules, no JSON)."""
    db = await Database.open(path)  # same schema and pragmas
    await db.close()
    conn = await aiosqlite.connect(path, isolation_level=None)
    await conn.execute("PRAGMA journal_mode = WAL")
    await conn.execute("PRAGMA synchronous = NORMAL")
    await conn.execute("PRAGMA foreign_keys = ON")
    for _ in range(games):
        await conn.execute(
            "INSERT INTO games (kind, channel_id, status, initial_state, state, created_at, updated_at)"
            " VALUES ('chopsticks', 1, 'active', '{}', '{}', 0, 0)"
        )
    by_game: dict[int, list[Write]] = {}
    for write in writes:
        by_game.setdefault(write.game_id, []).append(write)
    lock = asyncio.Lock()
    latencies: list[float] = []

    async def play(game_id: int, moves: list[Write]) -> None:
        for version, w in enumerate(moves):
            started = time.perf_counter()
            async with lock:
                now = time.time()
                await conn.execute("BEGIN IMMEDIATE")
                await conn.execute_fetchall(
                    "UPDATE games SET state = ?, status = ?, deadline = ?, remind_at = ?, draw_offer = NULL,"
                    " finished_at = ?, version = version + 1, move_count = move_count + 1, updated_at = ?"
                    " WHERE id = ? AND version = ? RETURNING move_count",
                    (w.state, w.status, now + 86400, now + 64800, None, now, game_id, version))
                await conn.execute(
                    "INSERT INTO moves (game_id, ply, seat, user_id, action, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (game_id, version + 1, w.seat, 1, w.action, now))
                await conn.execute("COMMIT")
            latencies.append(time.perf_counter() - started)
            await asyncio.sleep(0)  # let the other games in, as the service's callers would

    started = time.perf_counter()
    await asyncio.gather(*(play(gid, moves) for gid, moves in by_game.items()))
    elapsed = time.perf_counter() - started
    await conn.close()
    return Figures(len(latencies), elapsed, latencies)


async def ladder_figures(path: Path, players: int) -> list[str]:
    """Leaderboard queries on a ladder of `players` rated players (as many rated games leave behind)."""
    db = await Database.open(path)
    rng = random.Random(1)
    async with db.transaction() as conn:
        for scope in (7, GLOBAL):
            await save_ratings(conn, [RatingRow("chopsticks", scope, 10**17 + i, rng.gauss(25, 5), rng.uniform(1, 8),
                                                games=rng.randint(1, 50)) for i in range(players)], now=1.0)
    store = RatingStore(db)
    lines = []

    async def timed(label: str, call: Any, repeat: int = 50) -> None:
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            await call()
            samples.append(time.perf_counter() - started)
        lines.append(f"  {label:<34} median {statistics.median(samples) * 1000:7.2f} ms  "
                     f"max {max(samples) * 1000:7.2f} ms")

    await timed("first page (10 rows)", lambda: store.ladder("chopsticks", 7, 0, 10))
    await timed(f"page {players // 20} (10 rows)", lambda: store.ladder("chopsticks", 7, players // 2, 10))
    await timed("a player's rank (mid-ladder)", lambda: store.rank_of("chopsticks", 7, 10**17 + players // 2))
    await timed("number of rated players", lambda: count_rated(db, "chopsticks", 7))
    await db.close()
    return lines


def _median(runs: list[Figures]) -> Figures:
    return sorted(runs, key=lambda f: f.rate)[len(runs) // 2]


async def discord_load(args: argparse.Namespace) -> None:
    """The --discord-load mode: the real bot and the offline Discord under many games' concurrent clicks."""
    from tests.support.fakediscord import load_spec_validator

    validator = None if args.no_validate else load_spec_validator()
    for n in (int(x) for x in (args.games or "1000").split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            for line in (await _discord_load_once(args, n, validator, Path(tmp))).lines():
                print(line)
    if args.requests_per_move:
        from tests.tools.requests_per_move import figures

        for line in await figures(validator):
            print(line)


async def _discord_load_once(
    args: argparse.Namespace, games: int, validator: SpecValidator | None, tmp: Path
) -> LoadReport:
    from tests.support.fakediscord import BotRunner, FakeDiscord
    from tests.tools.discord_load import bot_log_problems, bot_process, prepare_world, process_cpu_seconds, run_load

    database, log = tmp / "bot.sqlite3", tmp / "bot.log"
    # The fake's self-check of its own answers is for the fake's developers, not part of the bot's cost.
    fake = FakeDiscord(validator=validator, check_responses=False)
    await fake.start()
    prepare_world(fake, games, args.channels)
    options = dict(games=games, channels=args.channels, rounds=args.rounds, mover_clicks=args.clicks,
                   rival_clicks=args.rival_clicks, spread=args.spread, timeout=args.timeout)
    try:
        if args.in_process:
            from bot.client import TabletopBot
            from bot.config import Settings

            settings = Settings(token=fake.token, database_path=database, api_base=fake.api_base,
                                gateway_url=fake.gateway_url)
            runner = BotRunner(fake, lambda: TabletopBot(settings, guild_ready_timeout=0.05))
            await runner.start()
            try:
                return await run_load(fake, database, bot_mode="in the benchmark's process", **options)
            finally:
                await runner.stop_all()
        try:
            async with bot_process(fake, database, log) as process:
                report = await run_load(fake, database, bot_mode="`python -m bot` in its own process",
                                        bot_cpu=lambda: process_cpu_seconds(process.pid), **options)
        except BaseException:
            print("the bot's log ends with:\n" + "\n".join(log.read_text(errors="replace").splitlines()[-80:]),
                  file=sys.stderr)
            raise
        problems = bot_log_problems(log)
        if problems:
            raise SystemExit("the bot logged errors:\n" + "\n".join(problems[:20]))
        return report
    finally:
        await fake.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=None, help="comma-separated numbers of concurrent games "
                        "(default 1,100,1000; 1000 with --discord-load)")
    parser.add_argument("--moves-per-game", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each; the median run is reported")
    parser.add_argument("--ladder-players", type=int, default=100_000,
                        help="rated players on the ladder whose queries are timed (0 to skip)")
    parser.add_argument("--render-positions", type=int, default=100,
                        help="Generals positions whose board pictures are timed (0: skip)")
    load = parser.add_argument_group("--discord-load: the real bot against the offline Discord")
    load.add_argument("--discord-load", action="store_true", help="run the Discord load instead of the above")
    load.add_argument("--channels", type=int, default=50, help="channels the games are spread over")
    load.add_argument("--rounds", type=int, default=5, help="turns played in every game")
    load.add_argument("--clicks", type=int, default=3, help="concurrent clicks by the player to move, per turn")
    load.add_argument("--rival-clicks", type=int, default=1, help="concurrent clicks by the waiting player, per turn")
    load.add_argument("--spread", type=float, default=0.0,
                      help="seconds over which the games' turns of a round are spread (default 0: all at once)")
    load.add_argument("--no-validate", action="store_true", help="skip the OpenAPI validation of each request")
    load.add_argument("--in-process", action="store_true", help="run the bot in the benchmark's process")
    load.add_argument("--timeout", type=float, default=120.0, help="seconds an interaction may wait for its answer")
    load.add_argument("--no-requests-per-move", dest="requests_per_move", action="store_false",
                      help="skip the requests per applied move of each game kind, printed after the load")
    args = parser.parse_args()
    if args.discord_load:
        await discord_load(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in (args.games or "1,100,1000").split(",")):
            ours_runs, floor_runs = [], []
            plans = plan_games(n, args.moves_per_game)
            for r in range(args.repeat):  # alternate so that a disturbance on the machine hits both alike
                ours, writes = await run_ours(Path(tmp) / f"ours-{n}-{r}.sqlite3", plans)
                ours_runs.append(ours)
                floor_runs.append(await run_floor(Path(tmp) / f"floor-{n}-{r}.sqlite3", n, writes))
            ours, floor = _median(ours_runs), _median(floor_runs)
            print(f"N = {n} concurrent games (median of {args.repeat} runs)")
            print("  " + ours.line("ours"))
            print("  " + floor.line("floor"))
            print(f"  ratio ours/floor (moves/s): {ours.rate / floor.rate:.2f}")
        if args.ladder_players:
            print(f"Leaderboard with {args.ladder_players:,} rated players on a server's ladder (and the global one)")
            for line in await ladder_figures(Path(tmp) / "ladder.sqlite3", args.ladder_players):
                print(line)
    if args.render_positions:
        from tests.tools.bench_render import figures

        for line in figures(args.render_positions):
            print(line)


if __name__ == "__main__":
    asyncio.run(main())

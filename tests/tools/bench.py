"""Benchmark: N concurrent Chopsticks games through the service and a real SQLite file.

    python -m tests.tools.bench [--games 1,100,1000] [--moves-per-game 40] [--repeat 3] [--ladder-players 100000]

For each N it prints, side by side, the moves/s of the service ("ours"), of a floor -- raw aiosqlite on
one connection doing only the writes a move needs (the version-guarded UPDATE of the snapshot, the INSERT
into the move log and a game's end: places and ratings, in one transaction per move) -- and of a limit (the
same transactions with plain sqlite3 on the loop's thread), the ratios ours/floor and ours/limit, p99
latencies, and the goals beside them (tests/tools/bench_moves.py; N = 1 plays games one after another until
at least 1,000 moves). Then the leaderboard on a ladder of many rated players, before and now: its queries,
and a move's p99 while it is paged beside the same without (tests/tools/bench_ladder.py; alone with
`--ladder`), and ms per Game of the Generals board picture (public and private PNGs, and the text fallback;
also `python -m tests.tools.bench_render`).

    python -m tests.tools.bench --discord-load [--games 1000] [--channels 50] [--rounds 5] [--clicks 3]
                          [--rival-clicks 1] [--rate 200 | --spread S] [--validate] [--in-process]

runs the real bot (`python -m bot` in its own process, or with --in-process in this one) against the
offline Discord: N games between people across the channels, then rounds in which, in every game, the player
to move clicks several move buttons together and the waiting player clicks too; the rounds are paced at about
200 interactions per second (--rate; --rate 0 sends each round's clicks at once). It checks that exactly one
click per game and turn was applied (the answers, and the move log in the database) and that every other click
was told why privately, and prints p50/p99 dispatch-to-callback latency beside its goal (p99 < 50 ms at ~200/s),
the CPU per interaction of the bot's process and of the fake's, throughput and REST requests per move (see
tests/tools/discord_load.py). With --validate the fake also checks every request against Discord's OpenAPI
description: about 4.5 ms of the fake's CPU per interaction on the same two cores, more than the bot's own 1.3 ms,
so such a run cannot keep 200/s here and its report says that it measures the fake too. Then, whole
games of every kind played one move at a time (the bot in this process) give the REST requests per applied move
of each game beside the minimum (tests/tools/requests_per_move.py; skip them with --no-requests-per-move).

    python -m tests.tools.bench --loop-lag [--lag-games 4] [--lag-seconds 15] [--lag-repeat 3]

measures the event loop's lag (a probe sleeping 1 ms records how late it wakes) while Generals games against the
strong bot play and every move's boards are drawn, with that work in threads and in the worker
processes (bot/workers.py), side by side, and the bot's move latency (tests/tools/bench_loop_lag.py).

    python -m tests.tools.bench --fair [--repeat 3] [--burst 192] [--analyses 32] [--distinct 1000] [--before DIR]

measures fair sharing under load with the real bot in its own process (tests/tools/bench_fair.py): another person's
Accept (p50/p99) while one player clicks Hint 192 times at once; a computer player's reply time while 32 analyses
burst; the worker processes' memory over 1,000 distinct analyses. `--before DIR` runs an older copy side by side.

    python -m tests.tools.bench --processes 1,2,4 [--games 200] [--repeat 3]

plays games through 1, 2 and 4 bot processes at once over one PostgreSQL database (a throwaway server) beside one
process on a SQLite file: moves/s and p99 of each (tests/tools/bench_processes.py).

    python -m tests.bench --tournament [--players 256] [--swiss-rounds 9] [--repeat 3]

pairs a Swiss of 256 players over 9 rounds with random results and recomputes its standings after each round:
seconds per pairing and milliseconds per standings, medians, beside the goals (tests/tools/bench_tournament.py).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from bot.gc_policy import tune_for_latency
from tests.tools.bench_fair import add_arguments as add_fair_arguments
from tests.tools.bench_fair import run as fair_run
from tests.tools.bench_ladder import figures as ladder_figures
from tests.tools.bench_loop_lag import add_arguments as add_lag_arguments
from tests.tools.bench_loop_lag import figures as loop_lag_figures
from tests.tools.bench_moves import measure, report
from tests.tools.bench_per_move import add_arguments as add_per_move_arguments
from tests.tools.bench_tournament import add_arguments as add_tournament_arguments

if TYPE_CHECKING:
    from tests.support.fakediscord import SpecValidator
    from tests.tools.discord_load import LoadReport


async def discord_load(args: argparse.Namespace) -> None:
    """The --discord-load mode: the real bot and the offline Discord under many games' concurrent clicks."""
    from tests.support.fakediscord import load_spec_validator

    validator = load_spec_validator() if args.validate else None
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
                   rival_clicks=args.rival_clicks, spread=args.spread, rate=0.0 if args.spread > 0 else args.rate,
                   timeout=args.timeout)
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
    parser.add_argument("--ladder", action="store_true",
                        help="run only the leaderboard benchmark (tests/tools/bench_ladder.py)")
    parser.add_argument("--render-positions", type=int, default=100,
                        help="Generals positions whose board pictures are timed (0: skip)")
    lag = parser.add_argument_group("--loop-lag: the event loop while bots think and boards are drawn")
    lag.add_argument("--loop-lag", action="store_true", help="run the event-loop lag benchmark instead of the above")
    add_lag_arguments(lag)
    load = parser.add_argument_group("--discord-load: the real bot against the offline Discord")
    load.add_argument("--discord-load", action="store_true", help="run the Discord load instead of the above")
    load.add_argument("--channels", type=int, default=50, help="channels the games are spread over")
    load.add_argument("--rounds", type=int, default=5, help="turns played in every game")
    load.add_argument("--clicks", type=int, default=3, help="concurrent clicks by the player to move, per turn")
    load.add_argument("--rival-clicks", type=int, default=1, help="concurrent clicks by the waiting player, per turn")
    load.add_argument("--rate", type=float, default=200.0,
                      help="interactions per second the rounds are paced at (default 200: the spread load whose "
                           "p99 has a goal; 0: each round's clicks all at once, a burst)")
    load.add_argument("--spread", type=float, default=0.0,
                      help="seconds over which the games' turns of a round are spread (instead of --rate)")
    load.add_argument("--validate", action="store_true",
                      help="have the fake validate every request against Discord's OpenAPI description (its CPU is "
                           "then part of the figures; the tests validate every request anyway)")
    load.add_argument("--no-validate", action="store_true", help="the default; accepted for older command lines")
    load.add_argument("--in-process", action="store_true", help="run the bot in the benchmark's process")
    load.add_argument("--timeout", type=float, default=120.0, help="seconds an interaction may wait for its answer")
    load.add_argument("--no-requests-per-move", dest="requests_per_move", action="store_false",
                      help="skip the requests per applied move of each game kind, printed after the load")
    per_move = parser.add_argument_group("--per-move: what one applied Generals move costs (uses --repeat)")
    add_per_move_arguments(per_move)
    fair = parser.add_argument_group("--fair: fair sharing under load (uses --repeat)")
    add_fair_arguments(fair)
    tournament = parser.add_argument_group("--tournament: Swiss pairing and standings at scale (uses --repeat)")
    tournament.add_argument("--tournament", action="store_true", help="run the tournament benchmark instead")
    add_tournament_arguments(tournament)
    args = parser.parse_args()
    if args.tournament:
        from tests.tools.bench_tournament import figures as tournament_figures

        for line in tournament_figures(args.players, args.swiss_rounds, args.repeat):
            print(line)
        return
    if args.fair:
        await fair_run(args)
        return
    if args.per_move:
        from tests.tools.bench_per_move import figures as per_move_figures

        for line in await per_move_figures(args.per_move_games, args.repeat, args.per_move_postgresql,
                                                 by_statement=args.by_statement):
            print(line)
        return
    if args.loop_lag:
        for line in await loop_lag_figures(args.lag_games, args.lag_seconds, args.lag_repeat):
            print(line)
        return
    if args.discord_load:
        await discord_load(args)
        return
    if args.ladder:
        with tempfile.TemporaryDirectory() as tmp:
            for line in await ladder_figures(Path(tmp) / "ladder.sqlite3", args.ladder_players or 100_000, args.repeat):
                print(line)
        return
    # The process collects garbage as `python -m bot` does once it has started (bot/gc_policy.py): all three runs
    # of the moves below are measured under it.
    tune_for_latency()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [await measure(Path(tmp), n, args.moves_per_game, args.repeat)
                for n in (int(x) for x in (args.games or "1,100,1000").split(","))]
        for line in report(rows, args.repeat):
            print(line)
        if args.ladder_players:
            for line in await ladder_figures(Path(tmp) / "ladder.sqlite3", args.ladder_players, args.repeat):
                print(line)
    if args.render_positions:
        from tests.tools.bench_render import figures

        for line in figures(args.render_positions):
            print(line)


if __name__ == "__main__":
    if "--processes" in sys.argv:  # several OS processes, each with its own event loop: not inside this one's
        from tests.tools.bench_processes import main as processes_main

        raise SystemExit(processes_main(sys.argv[1:]))
    asyncio.run(main())

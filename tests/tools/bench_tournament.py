"""Swiss pairing and standings at scale (issue 25, point 7): `python -m tests.bench --tournament [--players 256]
[--swiss-rounds 9] [--repeat 3]`, also `python -m tests.tools.bench_tournament`.

A Swiss of 256 players (ratings at random) plays 9 rounds with random results (a fixed seed: the same tournament
every run). Each round prints the time to pair it (games/tournaments/swiss.py, the median of --repeat pairings of
the same position) and the time to recompute the standings of the whole tournament so far, every tie-break
included (the median of --repeat), beside the goals: pairing under 1 s, standings under 50 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import TypeVar

from games.tournaments import next_round
from games.tournaments.model import Entrant, Format, Game, Result, Round, Settings, Tournament
from games.tournaments.standings import standings

PAIRING_GOAL_S = 1.0
STANDINGS_GOAL_MS = 50.0
SEED = 25
T = TypeVar("T")


def _timed(work: Callable[[], T], repeat: int) -> tuple[T, float]:
    """`work`'s result and the median of `repeat` runs' seconds."""
    times = []
    result: T | None = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = work()
        times.append(time.perf_counter() - start)
    assert result is not None
    return result, statistics.median(times)


def figures(players: int, rounds: int, repeat: int) -> Iterator[str]:
    rng = random.Random(SEED)
    entrants = tuple(Entrant(player, round(rng.gauss(1500, 200), 1)) for player in range(1, players + 1))
    tournament = Tournament(Settings(Format.SWISS, rounds=rounds), entrants)
    load = os.getloadavg()
    yield (f"Swiss of {players} players, {rounds} rounds, random results; median of {repeat}; "
           f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    yield f"{'round':>5}  {'pairing s':>9}  {'standings ms':>12}"
    worst_pairing = worst_standings = 0.0
    for number in range(1, rounds + 1):
        round_, pairing = _timed(partial(next_round, tournament), repeat)
        games = tuple(game if game.is_bye else Game(game.first, game.second, rng.choices(
            [Result.FIRST_WINS, Result.SECOND_WINS, Result.DRAW], weights=(45, 40, 15))[0])
                      for game in round_.games)
        tournament = tournament.with_round(Round(games=games))
        _, recompute = _timed(partial(standings, tournament), repeat)
        worst_pairing = max(worst_pairing, pairing)
        worst_standings = max(worst_standings, recompute)
        yield f"{number:>5}  {pairing:>9.3f}  {recompute * 1000:>12.1f}"
    yield (f"worst: pairing {worst_pairing:.3f} s (goal < {PAIRING_GOAL_S:g} s), standings "
           f"{worst_standings * 1000:.1f} ms (goal < {STANDINGS_GOAL_MS:g} ms)")


def add_arguments(group: argparse._ArgumentGroup | argparse.ArgumentParser) -> None:
    group.add_argument("--players", type=int, default=256, help="players in the Swiss")
    group.add_argument("--swiss-rounds", type=int, default=9, help="rounds of the Swiss")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for line in figures(args.players, args.swiss_rounds, args.repeat):
        print(line)


if __name__ == "__main__":
    main()

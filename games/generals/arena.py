"""Match runner for the computer players: `python -m games.generals.arena --games 200`.

Plays the engine end to end (setups included) with seats alternating between games, and prints the
tested level's win rate against each opponent and its decision time per action (mean and max).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from games.generals.computer import bot_action
from games.generals.engine import GeneralsState

MAX_PLIES = 1000  # a game still going after this many moves counts as a draw


@dataclass(frozen=True)
class GameRecord:
    winner: int | None  # seat, or None for a draw
    tested_seat: int
    plies: int
    reason: str
    times: tuple[float, ...]  # the tested level's decision times, in seconds


def play_game(tested: str, opponent: str, index: int, seed: int, options: dict[str, object] | None = None,
              max_plies: int = MAX_PLIES) -> GameRecord:
    """One game: `tested` sits in seat index % 2; the first mover alternates every two games."""
    rng = random.Random(f"{seed}:{index}")
    tested_seat = index % 2
    levels = (tested, opponent) if tested_seat == 0 else (opponent, tested)
    state = GeneralsState.new(2, {**(options or {}), "first": (index // 2) % 2}, rng)
    times: list[float] = []
    while (player := state.current_player()) is not None and state.ply < max_plies:
        started = time.perf_counter()
        action = bot_action(state, player, levels[player], rng)
        if player == tested_seat:
            times.append(time.perf_counter() - started)
        state = state.apply(player, action)
    outcome = state.outcome()
    winner = None if outcome is None or outcome.is_draw else outcome.winners[0]
    return GameRecord(winner, tested_seat, state.ply, outcome.reason if outcome else "move-cap", tuple(times))


def _play_args(args: tuple[str, str, int, int, dict[str, object], int]) -> GameRecord:
    return play_game(*args)


def run_match(tested: str, opponent: str, games: int, seed: int, jobs: int,
              options: dict[str, object] | None = None, max_plies: int = MAX_PLIES) -> list[GameRecord]:
    work = [(tested, opponent, i, seed, options or {}, max_plies) for i in range(games)]
    if jobs <= 1:
        return [_play_args(w) for w in work]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_play_args, work, chunksize=4))


def summary(tested: str, opponent: str, records: Sequence[GameRecord]) -> str:
    wins = sum(r.winner == r.tested_seat for r in records)
    draws = sum(r.winner is None for r in records)
    losses = len(records) - wins - draws
    times = [t for r in records for t in r.times]
    plies = sum(r.plies for r in records) / max(1, len(records))
    mean_ms, max_ms = 1000 * sum(times) / max(1, len(times)), 1000 * max(times, default=0.0)
    return (f"{tested} vs {opponent}: {len(records)} games, {wins} won, {draws} drawn, {losses} lost "
            f"-> win rate {wins / max(1, len(records)):.1%}; mean game {plies:.0f} moves; "
            f"decision time mean {mean_ms:.1f} ms, max {max_ms:.1f} ms over {len(times)} decisions")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games per opponent")
    parser.add_argument("--level", default="strong", help="the level under test")
    parser.add_argument("--opponents", default="random,greedy", help="comma-separated opponent levels")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="processes to play in parallel")
    parser.add_argument("--max-plies", type=int, default=MAX_PLIES)
    parser.add_argument("--variants", default="", help="settings, e.g. reveal-winner,small-army")
    args = parser.parse_args(argv)
    options: dict[str, object] = {"variants": args.variants} if args.variants else {}
    for opponent in args.opponents.split(","):
        records = run_match(args.level, opponent, args.games, args.seed, args.jobs, options, args.max_plies)
        print(summary(args.level, opponent, records), flush=True)


if __name__ == "__main__":
    main()

"""Milliseconds per Game of the Generals board picture: `python -m tests.tools.bench_render [--positions N]`.

Positions come from random games (both setups random, random legal moves), sampled all along the game, so
boards range from full armies to a few pieces and include finished games with the full reveal. Every
picture is drawn as the bot draws it: one public board and one board per player for each position.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from bot.games.generals.pictures import render_player_board, render_public_board, text_board
from games.generals import GeneralsState, random_setup

GOAL_MS = 8.0  # issue 15: per picture on this machine
GOAL_KIB = 20


def positions(count: int, seed: int) -> list[GeneralsState]:
    rng = random.Random(seed)
    out: list[GeneralsState] = []
    while len(out) < count:
        state = GeneralsState.from_setups(random_setup(rng, 0), random_setup(rng, 1), first=rng.randrange(2))
        for _ in range(rng.randrange(1, 400)):
            seat = state.current_player()
            if seat is None:
                break
            state = state.apply(seat, rng.choice(list(state.legal_actions(seat))))
            if rng.random() < 0.05:
                out.append(state)
        out.append(state)
    return out[:count]


def timed(work: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return times


def report(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"{name:<22} n={len(times):<5} mean {statistics.fmean(times):6.2f} ms  p50 {statistics.median(times):6.2f}"
            f" ms  p99 {p99:6.2f} ms  max {ordered[-1]:6.2f} ms")


def figures(count: int, seed: int = 1) -> list[str]:
    """The report lines for `count` positions."""
    states = positions(count, seed)
    # Fonts load and piece tiles are drawn once per process: not part of the figures.
    render_public_board(states[0].public_view())
    for seat in (0, 1):
        render_player_board(states[0].view_for(seat))
    public, player, text = [], [], []
    public_sizes, player_sizes, revealed_sizes = [], [], []
    for state in states:
        view = state.public_view()
        public += timed(partial(render_public_board, view), 1)
        public_sizes.append(len(render_public_board(view)))
        for seat in (0, 1):
            mine = state.view_for(seat)
            player += timed(partial(render_player_board, mine), 1)
            text += timed(partial(text_board, mine), 1)
            player_sizes.append(len(render_player_board(mine)))
            if state.outcome() is not None:
                revealed_sizes.append(player_sizes[-1])
    finished = sum(s.outcome() is not None for s in states)
    return [f"Game of the Generals pictures: {len(states)} positions ({finished} finished, shown fully revealed)",
            report("public board (PNG)", public), report("player board (PNG)", player),
            report("text board (fallback)", text),
            f"goal: p50 <= {GOAL_MS:.0f} ms per picture: public {statistics.median(public):.2f} ms, "
            f"player {statistics.median(player):.2f} ms",
            sizes("public board bytes", public_sizes), sizes("player board bytes", player_sizes),
            sizes("  of finished games", revealed_sizes),
            f"goal: <= {GOAL_KIB} KiB per picture (p50 above; a finished game shows every insignia of both armies)",
            "Drawn in the bot's worker processes (bot/workers.py), so the event loop never waits for them."]


def sizes(name: str, values: list[int]) -> str:
    if not values:
        return f"{name:<22} none"
    ordered = sorted(values)
    return (f"{name:<22} n={len(values):<5} p50 {statistics.median(values) / 1024:6.1f} KiB  "
            f"p99 {ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] / 1024:6.1f} KiB  "
            f"max {ordered[-1] / 1024:6.1f} KiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for line in figures(args.positions, args.seed):
        print(line)


if __name__ == "__main__":
    main()

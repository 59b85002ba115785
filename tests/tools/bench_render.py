"""Game of the Generals board pictures, time and size: `python -m tests.tools.bench_render [--positions N]`.

Positions come from random games (both setups random, random legal moves), sampled all along the game, so
boards range from full armies to a few pieces, plus `--finished` games played to their end: the largest
pictures, every piece of both armies revealed with its insignia. Every picture is drawn as the bot draws it:
the public board and each player's board for each position. Issue 15, point 6: every picture within
GOAL_MS and GOAL_KIB, the same bytes for the same view.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from bot.games.generals.pictures import render_player_board, render_public_board, text_board
from games.generals import GeneralsState, random_setup

GOAL_MS = 8.0  # issue 15: per picture on this machine
GOAL_KIB = 20.0
MAX_PLIES = 5000  # a random game that has not ended by then is left out of the finished ones


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


def finished_games(count: int, seed: int) -> list[GeneralsState]:
    """`count` random games played to their end: the boards shown with every rank revealed."""
    rng = random.Random(seed + 1_000_003)
    out: list[GeneralsState] = []
    while len(out) < count:
        state = GeneralsState.from_setups(random_setup(rng, 0), random_setup(rng, 1), first=rng.randrange(2))
        for _ in range(MAX_PLIES):
            seat = state.current_player()
            if seat is None:
                break
            state = state.apply(seat, rng.choice(list(state.legal_actions(seat))))
        if state.outcome() is not None:
            out.append(state)
    return out


@dataclass
class Pictures:
    """Milliseconds and bytes of one kind of picture."""

    ms: list[float] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)

    def draw(self, work: Callable[[], bytes]) -> bytes:
        start = time.perf_counter()
        png = work()
        self.ms.append((time.perf_counter() - start) * 1000)
        self.sizes.append(len(png))
        return png

    def lines(self, name: str) -> list[str]:
        if not self.ms:
            return [f"{name:<34} none"]
        worst_ms, worst_kib = max(self.ms), max(self.sizes) / 1024
        p99 = sorted(self.ms)[min(len(self.ms) - 1, int(len(self.ms) * 0.99))]
        return [f"{name:<34} n={len(self.ms):<4} ms: p50 {statistics.median(self.ms):5.2f}  p99 {p99:5.2f}"
                f"  max {worst_ms:5.2f}"
                f"  (goal <= {GOAL_MS:.0f}: {_verdict(worst_ms <= GOAL_MS)})",
                f"{'':<34}        KiB: p50 {statistics.median(self.sizes) / 1024:5.1f}  max {worst_kib:5.1f}"
                f" ({max(self.sizes)} bytes)  (goal <= {GOAL_KIB:.0f}: {_verdict(worst_kib <= GOAL_KIB)})"]


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def _warm_up(states: list[GeneralsState]) -> None:
    """Fonts load and each piece's tile is drawn once per process (a worker keeps them): not part of the figures."""
    for state in states:
        render_public_board(state.public_view())
        for seat in (0, 1):
            render_player_board(state.view_for(seat))


def figures(count: int, seed: int = 1, finished: int = 10) -> list[str]:
    """The report lines for `count` positions along random games and `finished` games played to their end."""
    states = positions(count, seed)
    ended = finished_games(finished, seed)
    _warm_up(states[:1] + ended[:1])
    public, player, revealed, text = Pictures(), Pictures(), Pictures(), Pictures()
    for state in states + ended:
        over = state.outcome() is not None
        (revealed if over else public).draw(partial(render_public_board, state.public_view()))
        for seat in (0, 1):
            mine = state.view_for(seat)
            (revealed if over else player).draw(partial(render_player_board, mine))
            text.ms.append(_timed(partial(text_board, mine)))
    every = Pictures(public.ms + player.ms + revealed.ms, public.sizes + player.sizes + revealed.sizes)
    games_over = sum(s.outcome() is not None for s in states) + len(ended)
    return [f"Game of the Generals pictures: {len(states)} positions along random games, {len(ended)} more games "
            f"played to their end ({games_over} finished positions in all, drawn fully revealed)",
            *public.lines("public board, game on"), *player.lines("player board, game on"),
            *revealed.lines("finished (public + both players)"), *every.lines("every picture"),
            f"{'text board (fallback)':<34} n={len(text.ms):<4} ms: p50 {statistics.median(text.ms):5.2f}  "
            f"max {max(text.ms):5.2f}",
            "Drawn in the bot's worker processes (bot/workers.py), so the event loop never waits for them."]


def _timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--finished", type=int, default=10, help="games played to their end (fully revealed)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for line in figures(args.positions, args.seed, args.finished):
        print(line)


if __name__ == "__main__":
    main()

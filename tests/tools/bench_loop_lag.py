"""Event-loop lag while computer players think and boards are drawn:

    python -m tests.tools.bench_loop_lag [--games 4] [--seconds 15] [--repeat 3]
    python -m tests.tools.bench --loop-lag [...]

N games of the Generals against the strong computer player, through the real service on a real SQLite file: in each,
a simulated player answers the moment its turn comes (a formation, then random legal moves), the bot answers, and
after every move the channel's board and the player's own board are drawn as pictures, as the bot does. Meanwhile a
probe task sleeps 1 ms again and again and records how late it wakes: the event loop's lag, which every click and
every gateway heartbeat of the bot waits through.

Run side by side, alternating: the thinking and drawing in threads of this process (how the bot did it before
issue 15: asyncio.to_thread, the GIL shared with the loop) and in the worker processes (bot/workers.py). Prints per
mode the median over the runs of: lag p50/p99/max, the bot's move latency p50/p99 (from asking the service for the
bot's move to its move committed), moves and pictures per second; beside the goals: lag p99 < 5 ms, a bot's move
within 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot import workers
from bot.games.generals.pictures import picture
from bot.service import GameService, Player, Result
from games.generals.views import SETUP
from storage.db import SqliteDatabase

USER_BASE = 50_000
PROBE_SLEEP = 0.001  # s: the probe's nap; its lateness is the loop's lag
GOAL_LAG_P99 = 5.0  # ms
GOAL_BOT_MOVE = 1.0  # s


@dataclass
class Run:
    mode: str
    idle_p99: float = 0.0  # ms: the probe on an idle loop just before the run (the machine's own noise)
    seconds: float = 0.0
    lags: list[float] = field(default_factory=list)  # ms
    bot_moves: list[float] = field(default_factory=list)  # s
    moves: int = 0
    pictures: int = 0

    def figures(self) -> dict[str, float]:
        lag = sorted(self.lags)
        bot = sorted(self.bot_moves) or [float("nan")]
        return {"idle p99": self.idle_p99, "lag p50": statistics.median(lag), "lag p99": _p99(lag), "lag max": lag[-1],
                "bot p50": statistics.median(bot) * 1000, "bot p99": _p99(bot) * 1000, "bot max": bot[-1] * 1000,
                "moves/s": self.moves / self.seconds, "pictures/s": self.pictures / self.seconds}


def _p99(ordered: list[float]) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


async def _probe(lags: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        start = time.perf_counter()
        await asyncio.sleep(PROBE_SLEEP)
        lags.append((time.perf_counter() - start - PROBE_SLEEP) * 1000)


class Table:
    """N games against the strong bot, each played as fast as its turns come, each move drawn."""

    def __init__(self, service: GameService, games: int, rng: random.Random) -> None:
        self.service = service
        self.games = games
        self.rng = rng
        self.recording: Run | None = None

    async def play(self, index: int, until: float) -> None:
        user = USER_BASE + index
        result = await self._new_game(user, index)
        while time.monotonic() < until:
            if result.game.status != "active":
                result = await self._new_game(user, index)
                continue
            if result.game.computer_to_move:
                start = time.perf_counter()
                moved = await self.service.play_computer_turn(result.id)
                if moved is None:
                    result = await self.service.view(result.id)
                    continue
                if self.recording is not None:
                    self.recording.bot_moves.append(time.perf_counter() - start)
                result = moved
            else:
                result = await self.service.act(result.id, user, self._choice(result.own(user)))
            await self._draw(result, user)

    async def _new_game(self, user: int, index: int) -> Result[Any, Any]:
        return await self.service.create("generals", guild_id=1, channel_id=100 + index,
                                         players=[Player(user), Player(computer="strong")], options={"first": 0})

    def _choice(self, view: Any) -> str:
        if view.phase == SETUP:
            return "ready" if view.own else "formation:balanced"
        return str(self.rng.choice(view.legal))

    async def _draw(self, result: Result[Any, Any], user: int) -> None:
        """The channel's board and the player's own, drawn together as the bot draws them after a move."""
        own = result.own(user)
        assert own is not None
        drawn = await asyncio.gather(picture(result.public, True, language="en"), picture(own, True, language="en"))
        if self.recording is not None:
            self.recording.moves += 1
            self.recording.pictures += sum(image is not None for image, _ in drawn)


async def run_once(in_processes: bool, games: int, seconds: float, warm_up: float, path: Path) -> Run:
    run = Run("worker processes" if in_processes else "threads (before)", idle_p99=await idle_lag(2.0))
    if in_processes:
        workers.start()
        await workers.think(os.getpid)  # the fork server and the workers are up before anything is measured
        await workers.draw(os.getpid)
    db = await SqliteDatabase.open(path)
    try:
        table = Table(GameService(db), games, random.Random(7))
        start = time.monotonic()
        until = start + warm_up + seconds
        players = [asyncio.create_task(table.play(i, until)) for i in range(games)]
        await asyncio.sleep(warm_up)  # pieces drawn and fonts loaded in every worker, games under way
        table.recording = run
        stop = asyncio.Event()
        probe = asyncio.create_task(_probe(run.lags, stop))
        measured = time.monotonic()
        await asyncio.gather(*players)
        run.seconds = time.monotonic() - measured
        stop.set()
        await probe
    finally:
        await db.close()
        if in_processes:
            await workers.stop()
    return run


async def idle_lag(seconds: float = 1.0) -> float:
    """The probe's p99 on an idle loop: the floor of what it can measure here."""
    lags: list[float] = []
    stop = asyncio.Event()
    probe = asyncio.create_task(_probe(lags, stop))
    await asyncio.sleep(seconds)
    stop.set()
    await probe
    return _p99(sorted(lags))


async def figures(games: int = 4, seconds: float = 15.0, repeat: int = 3, warm_up: float = 3.0) -> list[str]:
    """The report lines: each mode `repeat` times, alternating, and the median of each figure."""
    runs: dict[bool, list[Run]] = {False: [], True: []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(repeat):
            for in_processes in (False, True):  # alternate, so a disturbance of the machine hits both alike
                path = Path(tmp) / f"lag-{int(in_processes)}-{r}.sqlite3"
                runs[in_processes].append(await run_once(in_processes, games, seconds, warm_up, path))
    lines = [f"Event-loop lag: {games} Generals games against the strong bot, every move drawn (public + own board); "
             f"{seconds:.0f} s per run, median of {repeat} runs per mode; probe: sleep 1 ms, record oversleep; "
             f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
             "  idle p99: the probe alone for 2 s before each run, the floor this machine's load leaves",
             f"  {'mode':<18} {'idle p99':>8} {'lag p50':>8} {'lag p99':>8} {'lag max':>8}   {'bot move p50':>12} "
             f"{'p99':>8} {'max':>8}   {'moves/s':>8} {'pictures/s':>10}"]
    medians: dict[bool, dict[str, float]] = {}
    for in_processes, mode_runs in runs.items():
        each = [run.figures() for run in mode_runs]
        med = {key: statistics.median(f[key] for f in each) for key in each[0]}
        medians[in_processes] = med
        lines.append(f"  {mode_runs[0].mode:<18} {med['idle p99']:6.2f}ms {med['lag p50']:6.2f}ms "
                     f"{med['lag p99']:6.2f}ms {med['lag max']:6.1f}ms   {med['bot p50']:10.0f}ms "
                     f"{med['bot p99']:6.0f}ms {med['bot max']:6.0f}ms   {med['moves/s']:8.1f} "
                     f"{med['pictures/s']:10.1f}")
    before, after = medians[False], medians[True]
    lines.append(f"  goal: lag p99 < {GOAL_LAG_P99:.0f} ms -> {after['lag p99']:.2f} ms "
                 f"({'met' if after['lag p99'] < GOAL_LAG_P99 else 'NOT met'}; before {before['lag p99']:.2f} ms, "
                 f"{before['lag p99'] / max(after['lag p99'], 1e-9):.1f}x)")
    lines.append(f"  goal: a bot's move within {GOAL_BOT_MOVE:.0f} s -> p99 {after['bot p99'] / 1000:.2f} s "
                 f"({'met' if after['bot p99'] / 1000 < GOAL_BOT_MOVE else 'NOT met'}; before "
                 f"{before['bot p99'] / 1000:.2f} s)")
    return lines


def add_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    parser.add_argument("--lag-games", type=int, default=4, help="concurrent games against the strong bot")
    parser.add_argument("--lag-seconds", type=float, default=15.0, help="measured seconds per run")
    parser.add_argument("--lag-repeat", type=int, default=3, help="runs of each mode (alternating)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    args = parser.parse_args()
    for line in await figures(args.lag_games, args.lag_seconds, args.lag_repeat):
        print(line)


if __name__ == "__main__":
    asyncio.run(main())

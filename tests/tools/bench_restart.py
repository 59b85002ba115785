"""Benchmark: a restart of the bot with many stored games and many active ones (issue 15, point 3).

    python -m tests.tools.bench_restart [--stored 100000] [--active 1000] [--stale 10] [--repeat 3]
                                        [--before DIR] [--keep DIR]

A database of `--stored` finished games (tests/tools/big_database.py) gets `--active` games opened through the real
bot (`python -m bot` in its own process) and the offline Discord, of every kind: Chopsticks and Game of the Generals
challenges accepted (each Generals player gets a DM board) and So Long Sucker tables of three. The bot is stopped;
that file is the template. Then, on a fresh copy of it each time, `python -m bot` is started and timed:

- **restart**: every board shows its game's current position;
- **upgrade** (only where the template was written by `--before`): the first start of this tree on a database
  the older code wrote, which knows nothing of what its boards show;
- **stale**: `--stale` Chopsticks moves were stored while the bot was stopped (as a kill between committing a move
  and redrawing leaves them): exactly those boards need an edit.

For each: seconds from spawning the process until it is ready (identified on the gateway, its server received) and
until its boards are restored (its "boards restored" log line; for a tree that does not log it, its last board
edit after a quiet period), the board edits it sent (PATCH requests), and the CPU seconds of the process once
restored and done with its background integrity check of the whole file (so the figure is the whole start-up:
interpreter, imports, the check and the restore). With `--before DIR` (a copy of the repository as it was before a
change) both trees run side by side, alternating, on copies of one template; figures are medians over `--repeat`
runs. The goal beside them: no edit for current boards, ready and restored in under 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from tests.support.codes import Callback
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, InteractionResult
from tests.support.processes import stop_bot_popen
from tests.tools.discord_load import process_cpu_seconds

HERE = Path(__file__).resolve().parents[2]
RESTORED = "boards restored"  # what the bot logs once its restore has finished
CHECKED = "database integrity check"  # what it logs once its background check of the file has finished
QUIET = 2.0  # seconds without a request after which a bot that does not log RESTORED is taken as restored
AT_ONCE = 50  # games being opened at the same time
GOAL_SECONDS = 1.0
# Of every 20 active games: 16 Chopsticks, 2 Game of the Generals, 2 So Long Sucker.
MIX = ("chopsticks",) * 16 + ("generals",) * 2 + ("sucker",) * 2

# Run in the bot's tree (its own service): store one move in each of `count` active Chopsticks games whose turn is
# a person's, as a bot killed after committing them would leave them.
COMMIT_MOVES = """
import asyncio, sys
from bot.service import GameService
from storage.db import SqliteDatabase

async def main(path, count):
    db = await SqliteDatabase.open(path)
    service = GameService(db)
    async with db.reading() as conn:
        rows = list(await conn.execute_fetchall(
            "SELECT id FROM games WHERE status = 'active' AND kind = 'chopsticks' ORDER BY id LIMIT ?", (count,)))
    for (game_id,) in rows:
        game = await service.load(game_id)
        seat = game.state.current_player()
        await service.act(game_id, game.user_at(seat), game.state.legal_actions(seat)[0].text())
    await db.close()

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


@dataclass
class Start:
    """One timed start of the bot."""

    tree: str
    scenario: str
    ready: float
    restored: float
    edits: int
    cpu: float | None
    logged: bool  # the bot logged RESTORED (else: its last edit, after a quiet period)
    imports: float  # of those seconds, the interpreter's start and imports: until the bot logs "starting"


class Bench:
    def __init__(self, fake: FakeDiscord, workdir: Path) -> None:
        self.fake = fake
        self.workdir = workdir
        self.logs = 0

    def env(self, tree: Path, database: Path) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DEV_GUILD", "DATABASE_"))}
        env.update(DISCORD_TOKEN=self.fake.token, DATABASE_PATH=str(database), DISCORD_API_BASE=self.fake.api_base,
                   DISCORD_GATEWAY_URL=self.fake.gateway_url, LOG_LEVEL="INFO", PYTHONPATH=str(tree),
                   PYTHONUNBUFFERED="1")
        return env

    def spawn(self, tree: Path, database: Path) -> tuple[subprocess.Popen[bytes], Path]:
        self.logs += 1
        log_path = self.workdir / f"bot-{self.logs:03d}.log"
        with log_path.open("wb") as log:
            # cwd: the database's folder, so that a developer's .env in the repository is not read.
            process = subprocess.Popen([sys.executable, "-m", "bot"], env=self.env(tree, database),
                                       cwd=database.parent, stdout=log, stderr=subprocess.STDOUT)
        return process, log_path

    async def stop(self, process: subprocess.Popen[bytes]) -> None:
        await stop_bot_popen(process, 30)
        # Wait until the fake has seen the socket close, so the next process's READY is its own.
        deadline = time.monotonic() + 5
        while self.fake.hub.is_ready and time.monotonic() < deadline:
            await asyncio.sleep(0.01)

    async def timed_start(self, tree_name: str, tree: Path, database: Path, scenario: str) -> Start:
        """Start the bot of `tree` on `database`, time it until ready and restored, then stop it."""
        since = len(self.fake.requests)
        expected = self.fake.hub.identify_count + 1
        started, wall = time.perf_counter(), time.time()
        process, log_path = self.spawn(tree, database)
        try:
            while self.fake.hub.identify_count < expected or not self.fake.hub.is_ready:
                if process.poll() is not None:
                    raise RuntimeError(f"the bot exited with {process.returncode}: {log_path.read_text()[-3000:]}")
                await asyncio.sleep(0.002)
            ready = time.perf_counter() - started
            restored, logged = await self._restored(process, log_path, since, started)
            # The CPU of the whole start-up, read once the background integrity check of the file is done too (as
            # long as the bot logs it), so that both trees' figures include it.
            deadline = time.monotonic() + 120
            while CHECKED not in log_path.read_text(errors="replace") and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            cpu = process_cpu_seconds(process.pid)
            edits = sum(1 for r in self.fake.requests[since:] if r.method == "PATCH")
            return Start(tree_name, scenario, ready, max(ready, restored), edits, cpu, logged,
                         _logged_at(log_path, "starting") - wall)
        finally:
            await self.stop(process)
            problems = [line for line in log_path.read_text(errors="replace").splitlines()
                        if " ERROR " in line or "Traceback" in line]
            if problems:
                raise RuntimeError(f"the bot logged errors ({log_path}): {problems[:5]}")

    async def _restored(self, process: subprocess.Popen[bytes], log_path: Path, since: int,
                        started: float) -> tuple[float, bool]:
        """Seconds from the spawn until the restore ended: when the log says so, else the last board edit once
        nothing more came for QUIET seconds."""
        seen = since
        last_edit = 0.0
        quiet_since = time.perf_counter()
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the bot exited with {process.returncode}")
            if RESTORED in log_path.read_text(errors="replace"):
                return time.perf_counter() - started, True
            if len(self.fake.requests) != seen:
                if any(r.method == "PATCH" for r in self.fake.requests[seen:]):
                    last_edit = time.perf_counter() - started
                seen = len(self.fake.requests)
                quiet_since = time.perf_counter()
            elif time.perf_counter() - quiet_since > QUIET:
                return last_edit, False
            await asyncio.sleep(0.005)


def _logged_at(log_path: Path, words: str) -> float:
    """When the bot logged its first line containing `words` (epoch seconds; the log's times are local, to the ms)."""
    line = next(line for line in log_path.read_text(errors="replace").splitlines() if words in line)
    return datetime.strptime(line[:23], "%Y-%m-%d %H:%M:%S,%f").timestamp()


# ----- the template: stored games, then active ones opened through the bot -------------------------------------
class Opener:
    """Opens the active games as players do, through the fake."""

    def __init__(self, fake: FakeDiscord, channels: list[FakeChannel]) -> None:
        self.fake = fake
        self.channels = channels
        self.opened: dict[str, int] = {}

    def users(self, count: int) -> list[FakeUser]:
        return [self.fake.add_user(f"player{len(self.fake.users)}") for _ in range(count)]

    async def _answer(self, send: Callable[[], Awaitable[InteractionResult]], what: str) -> FakeMessage:
        res = await send()
        if (res.message is None or res.errors
                or res.callback_type not in (Callback.CHANNEL_MESSAGE, Callback.UPDATE_MESSAGE)):
            raise RuntimeError(f"{what} failed: {res.callback_type} {res.errors}")
        return res.message

    async def open(self, index: int) -> None:
        kind = MIX[index % len(MIX)]
        channel = self.channels[index % len(self.channels)]
        fake, timeout = self.fake, 60.0
        if kind in ("chopsticks", "generals"):
            challenger, opponent = self.users(2)
            board = await self._answer(lambda: fake.slash(challenger, channel, kind, "challenge",
                                                          options={"opponent": opponent}, timeout=timeout),
                                       f"a {kind} challenge")
            accept = board.button("Accept")["custom_id"]
            await self._answer(lambda: fake.click(opponent, board, accept, timeout=timeout), f"a {kind} accept")
        else:
            host, *others = self.users(3)
            lobby = await self._answer(lambda: fake.slash(host, channel, "sucker", "new", options={"players": 3},
                                                          timeout=timeout), "a table")
            for user in others:
                join = lobby.button("Join")["custom_id"]
                await self._answer(lambda: fake.click(user, lobby, join, timeout=timeout), "a join")  # noqa: B023
            start = lobby.button("Start")["custom_id"]
            await self._answer(lambda: fake.click(host, lobby, start, timeout=timeout), "a start")
        self.opened[kind] = self.opened.get(kind, 0) + 1


async def build_template(bench: Bench, tree: Path, template: Path, stored: int, active: int) -> dict[str, int]:
    """`stored` finished games written by `tree`'s storage, then `active` games opened through its bot."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    # big_database is run from this tree's file with `tree`'s packages, so the file has `tree`'s schema.
    subprocess.run([sys.executable, str(HERE / "tests/tools/big_database.py"), str(template), "--games", str(stored)],
                   env=env, check=True, cwd=template.parent, stdout=subprocess.DEVNULL)
    guild = bench.fake.add_guild("Restart")
    opener = Opener(bench.fake, [bench.fake.add_channel(guild, f"games-{n}") for n in range(50)])
    expected = bench.fake.hub.identify_count + 1
    process, _log = bench.spawn(tree, template)
    try:
        await bench.fake.wait_until_ready(timeout=120, identifies=expected)
        gate = asyncio.Semaphore(AT_ONCE)

        async def gated(index: int) -> None:
            async with gate:
                await opener.open(index)

        await asyncio.gather(*(gated(i) for i in range(active)))
        await asyncio.sleep(QUIET)  # the DM boards and redraws that follow the answers
    finally:
        await bench.stop(process)
    return opener.opened


# ----- the runs ------------------------------------------------------------------------------------------------
async def run(args: argparse.Namespace) -> list[Start]:
    workdir = Path(args.keep or tempfile.mkdtemp(prefix="bench-restart-"))
    workdir.mkdir(parents=True, exist_ok=True)
    trees = {"after": HERE}
    if args.before is not None:
        trees = {"before": Path(args.before).resolve(), "after": HERE}
    starts: list[Start] = []
    async with FakeDiscord(validator=None, check_responses=False) as fake:
        bench = Bench(fake, workdir)
        template = workdir / "template.sqlite3"
        oldest = next(iter(trees.values()))
        clock = time.perf_counter()
        opened = await build_template(bench, oldest, template, args.stored, args.active)
        print(f"template: {args.stored} stored games + {args.active} active {opened}, written by "
              f"{next(iter(trees))} in {time.perf_counter() - clock:.0f} s ({template.stat().st_size / 1e6:.0f} MB)",
              flush=True)
        for repeat in range(args.repeat):
            for name, tree in trees.items():
                database = workdir / f"{name}.sqlite3"
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{database}{suffix}").unlink(missing_ok=True)
                shutil.copy(template, database)
                if name != next(iter(trees)):  # this tree's first start on the older tree's file
                    starts.append(await bench.timed_start(name, tree, database, "upgrade"))
                starts.append(await bench.timed_start(name, tree, database, "restart"))
                subprocess.run([sys.executable, "-c", COMMIT_MOVES, str(database), str(args.stale)],
                               env={**os.environ, "PYTHONPATH": str(tree)}, cwd=workdir, check=True)
                starts.append(await bench.timed_start(name, tree, database, f"{args.stale} stale"))
                print(f"run {repeat + 1}, {name}: " + "; ".join(_line(s) for s in starts[-3:] if s.tree == name),
                      flush=True)
    if args.keep is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return starts


def _line(start: Start) -> str:
    return f"{start.scenario} {start.ready:.2f}/{start.restored:.2f} s {start.edits} edits"


def report(starts: list[Start], args: argparse.Namespace) -> list[str]:
    lines = [f"Restart with {args.stored:,} stored games and {args.active:,} active ones; medians of {args.repeat} "
             f"runs (seconds from spawning `python -m bot`).",
             "(after imports: the same, from the moment the bot logs that it is starting)",
             f"{'tree':<7} {'scenario':<10} {'ready s':>8} {'restored s':>11} {'after imports':>14} {'edits':>6} "
             f"{'CPU s':>6}  goal"]
    keys = list(dict.fromkeys((s.tree, s.scenario) for s in starts))
    for tree, scenario in keys:
        runs = [s for s in starts if s.tree == tree and s.scenario == scenario]
        cpu = [s.cpu for s in runs if s.cpu is not None]
        goal = {"restart": f"0 edits, < {GOAL_SECONDS:g} s", "upgrade": "every board once"}.get(
            scenario, f"{args.stale} edits")
        how = "" if all(s.logged for s in runs) else " (restored: last edit)"
        inside = (f"{statistics.median(s.ready - s.imports for s in runs):.2f}/"
                  f"{statistics.median(s.restored - s.imports for s in runs):.2f}")
        lines.append(f"{tree:<7} {scenario:<10} {statistics.median(s.ready for s in runs):8.2f} "
                     f"{statistics.median(s.restored for s in runs):11.2f} {inside:>14} "
                     f"{statistics.median(s.edits for s in runs):6.0f} "
                     f"{statistics.median(cpu) if cpu else float('nan'):6.2f}  {goal}{how}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.tools.bench_restart", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--stored", type=int, default=100_000, help="finished games in the file")
    parser.add_argument("--active", type=int, default=1000, help="active games, opened through the bot")
    parser.add_argument("--stale", type=int, default=10, help="boards made stale for the third scenario")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", default=None, help="a copy of the repository to compare with, side by side")
    parser.add_argument("--keep", default=None, help="keep the databases and bot logs in this directory")
    args = parser.parse_args(argv)
    starts = asyncio.run(run(args))
    print("\n".join(report(starts, args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

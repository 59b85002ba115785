"""Fair sharing under load (issue 22, points 5 and 6), measured with the real bot in its own process.

    python -m tests.bench --fair [--repeat 3] [--burst 192] [--analyses 32] [--distinct 1000] [--before DIR]

Three measurements, each against `python -m bot` (its own process, as deployed) and the offline Discord in this
process (without OpenAPI validation: the fake's CPU is not the bot's):

- **hint burst**: one player clicks Hint 192 times at once (a table of 4 hands to 10, too big for the solver, so each
  hint is a ~0.1 s search) while 20 other people accept challenges, one every 50 ms from the start of the burst. Each
  Accept's click-to-answer time: p50 and p99 per repeat, and their medians over the repeats; what the burst's clicks
  got (hints, refusals).
- **analysis burst**: 32 people ask `/chopsticks analyze` at once, each for a big rule set no worker has solved yet
  (0.2-0.4 s each), and a player then moves against the computer: the computer's reply time (from the answer to the
  player's click to the board showing the computer's move) beside the same without a burst; medians over repeats.
- **memory**: the resident memory (RSS) of the bot's worker processes (every process the bot started, the fork
  server included; and of the largest of them) before any analysis, after 100, 250, 500, 750 and `--distinct`
  (1,000) analyses of distinct rule sets, asked two at a time.

With `--before DIR` (a copy of the repository as it was before, e.g. `git archive 652558a | tar -x -C DIR`) each
measurement runs on that tree's bot too, side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.base import GameError
from games.chopsticks.rules import VARIANTS, Rules
from games.chopsticks.solver import MAX_POSITIONS, position_count
from tests.support.boards import move_buttons, player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeDiscord, FakeMessage, FakeUser
from tests.tools.discord_load import bot_log_problems, bot_process, callback_clock

HERE = Path(__file__).resolve().parents[2]
ACCEPTORS = 20  # people accepting a challenge during the hint burst
ACCEPT_EVERY = 0.05  # seconds between their Accepts
WAIT = 120.0  # seconds any answer may take before the run gives up


# ----- rule sets ----------------------------------------------------------------------------------------------------
def distinct_rule_sets(seed: int = 1) -> list[dict[str, Any]]:
    """Every 2-player rule set the solver takes (up to two variants), as `/chopsticks analyze` options, shuffled."""
    found = []
    for hands, rollover in itertools.product(range(1, 5), range(2, 11)):
        for count in range(3):
            for combo in itertools.combinations(sorted(VARIANTS), count):
                options: dict[str, Any] = {"hands": hands, "rollover": rollover}
                if combo:
                    options["variants"] = " ".join(combo)
                try:
                    rules = Rules.from_options(2, {**options, "variants": list(combo)})
                except GameError:
                    continue
                if position_count(rules) <= MAX_POSITIONS:
                    found.append(options)
    random.Random(seed).shuffle(found)
    return found


def big_rule_sets() -> Iterator[dict[str, Any]]:
    """Distinct rule sets of 3 hands to 10 (48,400 positions, 0.2-0.4 s to solve), without end of supply for a run."""
    names = sorted(set(VARIANTS) - {"halves", "stumps", "sudden-death", "divisions-only", "transfers-only"})
    for count in range(4):
        for combo in itertools.combinations(names, count):
            try:
                Rules.from_options(2, {"hands": 3, "rollover": 10, "variants": list(combo)})
            except GameError:
                continue
            yield {"hands": 3, "rollover": 10, "variants": " ".join(combo)}


def pairs(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), 2):
        yield items[i:i + 2]


def code_for(options: dict[str, Any]) -> str:
    return "1" * (2 * int(options["hands"]))


# ----- figures ------------------------------------------------------------------------------------------------------
def percentile(values: Sequence[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


@dataclass
class Figures:
    """One tree's figures."""

    tree: str
    accept_p50: list[float] = field(default_factory=list)  # per repeat, seconds
    accept_p99: list[float] = field(default_factory=list)
    accept_late: int = 0  # Accepts answered after Discord's 3 s, over all repeats
    burst: Counter[str] = field(default_factory=Counter)  # what the burst's clicks got, over all repeats
    reply_quiet: list[float] = field(default_factory=list)  # computer's reply without a burst (median of 3), per repeat
    reply_burst: list[float] = field(default_factory=list)  # ... during a burst of analyses
    analyses: Counter[str] = field(default_factory=Counter)  # what the analysis bursts got
    rss: list[tuple[int, float, int, float]] = field(default_factory=list)  # (analyses done, MB, processes, largest)

    def lines(self, args: argparse.Namespace) -> list[str]:
        def ms(values: list[float]) -> str:
            return f"{statistics.median(values) * 1000:8.1f} ms" if values else "     n/a"

        out = [f"[{self.tree}]"]
        if self.accept_p50:
            out.append(f"  hint burst ({args.burst} Hint clicks by one player) while {ACCEPTORS} others accept: Accept "
                       f"p50 {ms(self.accept_p50)}, p99 {ms(self.accept_p99)} (medians of {len(self.accept_p50)}; "
                       f"per repeat p99 " + ", ".join(f"{v * 1000:.0f}" for v in self.accept_p99) + " ms); "
                       f"{self.accept_late} answered past 3 s; the burst got: "
                       + ", ".join(f"{n} {what}" for what, n in sorted(self.burst.items())))
        if self.reply_burst:
            out.append(f"  computer player's reply: {ms(self.reply_quiet)} alone, {ms(self.reply_burst)} during a "
                       f"burst of {args.analyses} analyses (medians of {len(self.reply_burst)}; alone: "
                       + ", ".join(f"{v * 1000:.0f}" for v in self.reply_quiet) + " ms, during: "
                       + ", ".join(f"{v * 1000:.0f}" for v in self.reply_burst) + " ms); the analyses got: "
                       + ", ".join(f"{n} {what}" for what, n in sorted(self.analyses.items())))
        if self.rss:
            out.append("  workers' memory (RSS of all the bot's child processes, and of the largest): " + ", ".join(
                f"{mb:.1f} MB ({largest:.1f} MB) after {done:,}" for done, mb, _n, largest in self.rss)
                + f" analyses; {self.rss[-1][2]} processes")
        return out


# ----- the bot and its processes ------------------------------------------------------------------------------------
def descendants(pid: int) -> list[int]:
    """Every process below `pid` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


@asynccontextmanager
async def running_bot(tree: Path, tmp: Path) -> AsyncIterator[tuple[FakeDiscord, int]]:
    fake = FakeDiscord(validator=None, check_responses=False)
    await fake.start()
    guild = fake.add_guild("Fair")
    fake.add_channel(guild, "games")
    for n in range(2 * ACCEPTORS + 200):
        fake.add_user(f"person{n}")
    log = tmp / "bot.log"
    try:
        async with bot_process(fake, tmp / "bot.sqlite3", log, tree=tree) as process:
            yield fake, process.pid
        problems = bot_log_problems(log)
        if problems:
            raise SystemExit("the bot logged errors:\n" + "\n".join(problems[:20]))
    finally:
        await fake.close()


class People:
    def __init__(self, fake: FakeDiscord) -> None:
        self._left = [u for u in fake.users.values() if not u.bot]

    def take(self, n: int) -> list[FakeUser]:
        taken, self._left = self._left[:n], self._left[n:]
        if len(taken) < n:
            raise RuntimeError("not enough people: raise the count in running_bot")
        return taken


def _button(message: FakeMessage, label: str) -> str:
    return str(next(b["custom_id"] for b in message.buttons() if b["label"] == label))


async def _until(check: Callable[[], bool], timeout: float = WAIT, every: float = 0.002) -> float:
    """Poll `check` until it holds; the moment it did."""
    deadline = time.perf_counter() + timeout
    while not check():
        if time.perf_counter() > deadline:
            raise TimeoutError("the bot did not get there in time")
        await asyncio.sleep(every)
    return time.perf_counter()


# ----- the measurements ---------------------------------------------------------------------------------------------
async def hint_burst(fake: FakeDiscord, people: People, burst: int, figures: Figures) -> None:
    channel = next(iter(fake.channels.values()))
    first, second = people.take(2)
    res = await fake.slash(first, channel, "chopsticks", "new", timeout=WAIT,
                           options={"opponent": second, "hints": True, "hands": 4, "rollover": 10})
    board = res.message
    assert board is not None, res.errors
    await fake.click(second, board, _button(board, "Accept"), timeout=WAIT)
    mover = first if player_to_move(board) == first.id else second
    await fake.click(mover, board, str(move_buttons(board)[0]["custom_id"]), timeout=WAIT)
    flooder = second if mover is first else first
    challenges: list[tuple[FakeUser, FakeMessage]] = []
    for challenger, opponent in pairs(people.take(2 * ACCEPTORS)):
        posted = await fake.slash(challenger, channel, "chopsticks", "challenge", options={"opponent": opponent},
                                  timeout=WAIT)
        assert posted.message is not None, posted.errors
        challenges.append((opponent, posted.message))
    hint = _button(board, "Hint")
    with callback_clock() as answered:
        # The burst is handed to the offline Discord first (all its clicks in ~0.1 s), then the Accepts follow.
        flood = [await fake.click(flooder, board, hint, wait=False, timeout=WAIT) for _ in range(burst)]

        async def accept(opponent: FakeUser, message: FakeMessage, delay: float) -> float:
            await asyncio.sleep(delay)
            started = time.perf_counter()
            res = await fake.click(opponent, message, _button(message, "Accept"), wait=False, timeout=WAIT)
            await res.wait(WAIT)
            if res.callback_type != Callback.UPDATE_MESSAGE:
                raise RuntimeError(f"an Accept was not answered with the board: {res.callback_type} {res.errors}")
            return answered.get(res.id, time.perf_counter()) - started

        latencies = await asyncio.gather(*(accept(o, m, i * ACCEPT_EVERY) for i, (o, m) in enumerate(challenges)))
        await asyncio.gather(*(res.wait(WAIT) for res in flood))
    for res in flood:
        if res.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE:
            await res.wait_for_original(WAIT)
            figures.burst["hints"] += 1
        elif res.callback_type == Callback.CHANNEL_MESSAGE and res.message is not None and res.message.ephemeral:
            figures.burst["refusals"] += 1
        else:
            figures.burst[f"other answers ({res.callback_type})"] += 1
    figures.accept_p50.append(percentile(latencies, 50))
    figures.accept_p99.append(percentile(latencies, 99))
    figures.accept_late += sum(t > 3.0 for t in latencies)


async def analysis_burst(fake: FakeDiscord, people: People, analyses: int, rule_sets: Iterator[dict[str, Any]],
                         figures: Figures) -> None:
    channel = next(iter(fake.channels.values()))
    [player] = people.take(1)
    board: FakeMessage | None = None

    async def reply_time() -> float:
        """Play a move against the computer (in a new game when there is none going): the time from the answer to
        the click (the board with the computer to move) to the board showing the computer's move."""
        nonlocal board
        if board is None or not move_buttons(board):
            res = await fake.slash(player, channel, "chopsticks", "challenge", options={"level": "medium"},
                                   timeout=WAIT)
            board = res.message
            assert board is not None, res.errors
        shown = board
        await _until(lambda: player_to_move(shown) == player.id)
        played = await fake.click(player, shown, str(move_buttons(shown)[0]["custom_id"]), timeout=WAIT)
        answered = time.perf_counter()
        if played.callback_type != Callback.UPDATE_MESSAGE:
            raise RuntimeError(f"the move was not played: {played.errors}")
        # (While the computer thinks the board has no move buttons but still Resign; a game over has nothing.)
        return await _until(lambda: player_to_move(shown) == player.id or not shown.components) - answered

    figures.reply_quiet.append(statistics.median([await reply_time() for _ in range(3)]))
    askers = people.take(analyses)
    sends = [fake.slash(person, channel, "chopsticks", "analyze", wait=False, timeout=WAIT,
                        options={"code": code_for(options), **options})
             for person, options in zip(askers, rule_sets, strict=False)]
    burst = await asyncio.gather(*sends)
    figures.reply_burst.append(await reply_time())
    await asyncio.gather(*(res.wait(WAIT) for res in burst))
    for res in burst:
        if res.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE:
            await res.wait_for_original(WAIT)
            figures.analyses["answered"] += 1
        else:
            figures.analyses["refused"] += 1


async def memory(fake: FakeDiscord, bot_pid: int, people: People, distinct: int, figures: Figures) -> None:
    channel = next(iter(fake.channels.values()))
    askers = people.take(2)
    rule_sets = distinct_rule_sets()[:distinct]
    marks = {0, distinct, *(n for n in (100, 250, 500, 750) if n < distinct)}

    def measure(done: int) -> None:
        sizes = [rss_mb(pid) for pid in descendants(bot_pid)]
        figures.rss.append((done, sum(sizes), len(sizes), max(sizes, default=0.0)))

    measure(0)
    for done, pair in enumerate(pairs(rule_sets), start=1):
        sends = [fake.slash(asker, channel, "chopsticks", "analyze", wait=False, timeout=WAIT,
                            options={"code": code_for(options), **options})
                 for asker, options in zip(askers, pair, strict=False)]
        for res in await asyncio.gather(*sends):
            await res.wait_for_original(WAIT)
        if min(2 * done, distinct) in marks - {0}:
            measure(min(2 * done, distinct))


async def measure_tree(name: str, tree: Path, args: argparse.Namespace) -> Figures:
    figures = Figures(name)
    big = big_rule_sets()
    for _ in range(args.repeat):  # a fresh bot each time: nothing solved, nothing warm
        with tempfile.TemporaryDirectory() as tmp:
            async with running_bot(tree, Path(tmp)) as (fake, _pid):
                people = People(fake)
                if args.burst:
                    await hint_burst(fake, people, args.burst, figures)
                if args.analyses:
                    await analysis_burst(fake, people, args.analyses, big, figures)
    if args.distinct:
        with tempfile.TemporaryDirectory() as tmp:
            async with running_bot(tree, Path(tmp)) as (fake, pid):
                await memory(fake, pid, People(fake), args.distinct, figures)
    return figures


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--fair", action="store_true",
                       help="measure fair sharing under load (tests/tools/bench_fair.py)")
    group.add_argument("--burst", type=int, default=192, help="Hint clicks of the burst (0: skip)")
    group.add_argument("--analyses", type=int, default=32, help="analyses of the burst (0: skip)")
    group.add_argument("--distinct", type=int, default=1000, help="distinct analyses of the memory run (0: skip)")
    group.add_argument("--before", default=None, help="a copy of the repository as it was before, side by side")


async def run(args: argparse.Namespace) -> None:
    """The --fair mode: each tree's figures, printed as they come."""
    trees = [("after", HERE)]
    if args.before:
        trees.insert(0, ("before", Path(args.before).resolve()))
    print(f"Fair sharing: the bot in its own process ({args.repeat} repeats; medians)", flush=True)
    for name, tree in trees:
        for line in (await measure_tree(name, tree, args)).lines(args):
            print(line, flush=True)

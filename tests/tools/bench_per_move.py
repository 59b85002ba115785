"""What one applied Game of the Generals move costs the bot, counted: database statements, view builds, drawing-lock
takes and Discord requests.

    python -m tests.bench --per-move [--per-move-games 2] [--repeat 3] [--no-postgresql] [--by-statement]

Two people play whole Generals games on their DM boards through the real bot (in this process) and the offline
Discord, each move as a player makes it (the piece in the menu, then its direction: tests/tools/requests_per_move.py).
Each choice is made alone, in a window that ends when the bot is idle again, so everything counted in a window is that
choice's. Per applied move (the window that grew the move log, together with the windows of the choices before it,
the piece picked) it counts:

* statements: what reaches the bot's own database connections. On SQLite every statement SQLite runs on the bot's
  connections (the main one and the read-only one), transaction control included, from their trace callbacks; on
  PostgreSQL every statement the bot's storage sends (`PgConnection.execute`), its transactions' BEGIN and COMMIT
  not included. The benchmark's own reads (the move log, the game as stored) are on connections of their own and
  are not counted;
* view builds: calls of the Generals engine's view functions (a player's view, the public view, the hindsight view),
  each a build of one audience's view;
* drawing-lock takes: how often the bot took a game's drawing lock;
* requests: REST requests to Discord (answers, board edits and the rest, turn pings included).

With `--by-statement` it also lists each statement (its text, whitespace folded) with how often it runs per applied
move, to see where the count comes from.

Each figure is the median over `--repeat` runs of the mean per applied move in a run (the same games each run: the
moves come from a seeded random source).
"""

from __future__ import annotations

import argparse
import contextvars
import random
import re
import statistics
import tempfile
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.generals import engine as generals_engine
from storage.postgres import PgConnection
from tests.support.fakediscord import FakeDiscord, InteractionResult
from tests.support.world import TabletopRunner
from tests.tools.move_requests import Meter, Tally
from tests.tools.requests_per_move import GENERALS, generals_game, new_tallies

VIEW_FUNCTIONS = ("player_view", "spectator_view", "hindsight_view")  # games/generals/engine.py builds views with these
_OURS: contextvars.ContextVar[bool] = contextvars.ContextVar("bench_per_move_ours", default=False)


@dataclass
class Counts:
    """Running totals of what the bot did; `snapshot` copies them."""

    statements: Counter[str] = field(default_factory=Counter)  # by the statement's first word
    texts: Counter[str] = field(default_factory=Counter)  # by the statement's whole text
    views: Counter[str] = field(default_factory=Counter)  # by view function
    locks: int = 0
    requests: int = 0

    def snapshot(self) -> Counts:
        return Counts(Counter(self.statements), Counter(self.texts), Counter(self.views), self.locks, self.requests)

    def minus(self, earlier: Counts) -> Counts:
        return Counts(self.statements - earlier.statements, self.texts - earlier.texts, self.views - earlier.views,
                      self.locks - earlier.locks, self.requests - earlier.requests)

    def add(self, other: Counts) -> None:
        self.statements.update(other.statements)
        self.texts.update(other.texts)
        self.views.update(other.views)
        self.locks += other.locks
        self.requests += other.requests


class CostMeter(Meter):
    """The move meter of requests_per_move.py, also adding up `counts` over each applied move's windows."""

    def __init__(self, fake: FakeDiscord, database: str | Path, game_id: int, tally: Tally, counts: Counts,
                 per_move: list[Counts]) -> None:
        super().__init__(fake, database, game_id, tally)
        self.counts, self.per_move = counts, per_move
        self._choosing = Counts()  # the windows of the move being chosen so far

    async def choose(self, send: Callable[[], Awaitable[InteractionResult]]) -> InteractionResult:
        await self.settle()
        moves, start = self.tally.moves, self.counts.snapshot()
        start.requests = len(self.fake.requests)
        result = await super().choose(send)
        end = self.counts.snapshot()
        end.requests = len(self.fake.requests)
        self._choosing.add(end.minus(start))
        if self.tally.moves > moves:
            self.per_move.append(self._choosing)
            self._choosing = Counts()
        return result


_LITERAL = re.compile(r"'(?:[^']|'')*'|(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")  # SQLite's trace has the values in
_SAME = re.compile(r"\?(?:\s*,\s*\?)+")


def _count(counts: Counts, sql: str) -> None:
    counts.statements[_first_word(sql)] += 1
    text = _SAME.sub("?", _LITERAL.sub("?", " ".join(sql.split())))  # one line per statement, whatever its values
    counts.texts[text if len(text) <= 200 else text[:197] + "..."] += 1


def _first_word(sql: str) -> str:
    """The statement's verb (SELECT, INSERT, ...), after any comment lines it starts with."""
    code = [line for line in sql.splitlines() if line.strip() and not line.lstrip().startswith("--")]
    words = code[0].split(None, 1) if code else []
    return words[0].upper() if words else "?"


@contextmanager
def _counting_views(counts: Counts) -> Iterator[None]:
    """Count calls of the engine's view functions (this benchmark's wrapping only: put back at the end)."""
    originals = {name: getattr(generals_engine, name) for name in VIEW_FUNCTIONS}

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def counted(*args: Any, **kwargs: Any) -> Any:
            counts.views[name] += 1
            return fn(*args, **kwargs)
        return counted

    for name, fn in originals.items():
        setattr(generals_engine, name, wrap(name, fn))
    try:
        yield
    finally:
        for name, fn in originals.items():
            setattr(generals_engine, name, fn)


@contextmanager
def _counting_postgres(counts: Counts) -> Iterator[None]:
    """Count the statements the bot's storage sends to PostgreSQL: those made in the bot's tasks (started before
    `_OURS` was set in the benchmark's own context), not the benchmark's reads."""
    original = PgConnection.execute

    async def counted(self: PgConnection, statement: Any) -> Any:
        if not _OURS.get():
            _count(counts, statement.text)
        return await original(self, statement)

    PgConnection.execute = counted  # type: ignore[method-assign]
    try:
        yield
    finally:
        PgConnection.execute = original  # type: ignore[method-assign]


async def _trace_sqlite(bot: Any, counts: Counts) -> None:
    """Count every statement SQLite runs on the bot's connections: the main one (writes and most reads) and the
    read-only one (opened on its first read, on its own thread)."""
    def trace(sql: str) -> None:
        _count(counts, sql)

    db = bot.db
    await db._conn.set_trace_callback(trace)
    reader = db._reader
    if reader is not None:
        read = reader.read

        async def traced_read(fn: Callable[[Any], Any]) -> Any:
            def with_trace(conn: Any) -> Any:
                conn.set_trace_callback(trace)
                return fn(conn)
            return await read(with_trace)

        reader.read = traced_read


def _count_locks(bot: Any, counts: Counts) -> None:
    """Count the takes of the bot's per-game drawing lock."""
    locks = drawing_locks(bot)
    hold = locks.hold

    def counted(key: int) -> Any:
        counts.locks += 1
        return hold(key)

    locks.hold = counted


def drawing_locks(bot: Any) -> Any:
    """The bot's per-game drawing locks (a KeyedLocks)."""
    return bot.delivery.locks


@dataclass
class Run:
    """One run's figures: per applied move, the means."""

    database: str
    moves: int
    statements: float
    by_word: dict[str, float]
    by_text: dict[str, float]
    views: float
    by_view: dict[str, float]
    locks: float
    requests: float


async def one_run(database: str, games: int, target: Path | str, seed: int) -> Run:
    """Play `games` Generals games on a fresh offline Discord, the bot on `target` (a SQLite file or a URL)."""
    fake = FakeDiscord(validator=None, check_responses=False)
    await fake.start()
    guild = fake.add_guild("Per move")
    channel = fake.add_channel(guild, "games")
    counts, per_move = Counts(), list[Counts]()
    url = str(target) if database == "PostgreSQL" else None
    runner = TabletopRunner(fake, Path(target) if url is None else Path(tempfile.gettempdir()) / "unused.sqlite3",
                            url=url)
    try:
        with _counting_views(counts), (_counting_postgres(counts) if url else contextmanager(_nothing)()):
            bot = await runner.start()
            if url is None:
                await _trace_sqlite(bot, counts)
            _count_locks(bot, counts)
            _OURS.set(True)  # from here, this context's statements are the benchmark's own
            try:
                rng = random.Random(seed)
                tallies = new_tallies()

                def meter(fake: FakeDiscord, db: str | Path, game_id: int, tally: Tally) -> Meter:
                    return CostMeter(fake, db, game_id, tally, counts, per_move)

                for _ in range(games):
                    await generals_game(fake, runner.target, channel, tallies[GENERALS], rng, meter=meter)
            finally:
                _OURS.set(False)
    finally:
        await runner.stop_all()
        await fake.close()
    total = Counts()
    for move in per_move:
        total.add(move)
    n = len(per_move) or 1
    return Run(database, len(per_move), total.statements.total() / n,
               {w: c / n for w, c in total.statements.most_common()},
               {t: c / n for t, c in total.texts.most_common()}, total.views.total() / n,
               {v: c / n for v, c in total.views.most_common()}, total.locks / n, total.requests / n)


def _nothing() -> Iterator[None]:
    yield


def _median_run(runs: list[Run]) -> Run:
    def med(get: Callable[[Run], float]) -> float:
        return statistics.median(get(r) for r in runs)

    def med_of(counts: Callable[[Run], dict[str, float]], name: str) -> float:
        return statistics.median(counts(r).get(name, 0.0) for r in runs)

    by_word = {w: med_of(lambda r: r.by_word, w) for w in {w for r in runs for w in r.by_word}}
    by_text = {t: med_of(lambda r: r.by_text, t) for t in {t for r in runs for t in r.by_text}}
    by_view = {v: med_of(lambda r: r.by_view, v) for v in sorted({v for r in runs for v in r.by_view})}
    return Run(runs[0].database, runs[0].moves, med(lambda r: r.statements),
               dict(sorted(by_word.items(), key=lambda item: -item[1])),
               dict(sorted(by_text.items(), key=lambda item: -item[1])), med(lambda r: r.views), by_view,
               med(lambda r: r.locks), med(lambda r: r.requests))


async def figures(games: int, repeat: int, postgresql: bool, seed: int = 1, by_statement: bool = False) -> list[str]:
    """The table: one line per database, the median of `repeat` runs each (with `by_statement`, then each statement
    with its count per applied move)."""
    rows: list[Run] = []
    with tempfile.TemporaryDirectory() as tmp:
        runs = [await one_run("SQLite", games, Path(tmp) / f"run{i}.sqlite3", seed) for i in range(repeat)]
        rows.append(_median_run(runs))
        if postgresql:
            from tests.support.postgres import create_database, running_server

            with running_server() as server:
                runs = []
                for i in range(repeat):
                    url = await create_database(server, f"tabletop_per_move_{i}")
                    runs.append(await one_run("PostgreSQL", games, url, seed))
                rows.append(_median_run(runs))
    lines = [f"Per applied Game of the Generals move ({games} games of two people on DM boards, the median of "
             f"{repeat} runs)",
             f"  {'database':<11} {'moves':>6} {'statements':>11} {'view builds':>12} {'drawing locks':>14} "
             f"{'requests':>9}"]
    for r in rows:
        lines.append(f"  {r.database:<11} {r.moves:>6} {r.statements:>11.2f} {r.views:>12.2f} {r.locks:>14.2f} "
                     f"{r.requests:>9.2f}")
    for r in rows:
        lines.append(f"  {r.database} statements by first word: " + ", ".join(
            f"{w} {c:.2f}" for w, c in r.by_word.items() if c))
        lines.append(f"  {r.database} view builds by function: " + ", ".join(
            f"{v} {c:.2f}" for v, c in r.by_view.items()))
    if by_statement:
        for r in rows:
            lines.append(f"  {r.database} statements per applied move:")
            lines += [f"    {c:6.2f}  {t}" for t, c in r.by_text.items() if c]
    lines += [
        "  per applied move: the window of the interaction that applied it and those of the choices before it (the",
        "  piece picked); statements on SQLite: every statement on the bot's connections, BEGIN and COMMIT included;",
        "  on PostgreSQL: what the storage sends, without its transactions' BEGIN and COMMIT; requests: every REST",
        "  request (answers, board edits, turn pings).",
    ]
    return lines


def add_arguments(group: argparse._ArgumentGroup) -> None:
    group.add_argument("--per-move", action="store_true", help="run the per-move cost benchmark instead of the above")
    group.add_argument("--per-move-games", type=int, default=2, help="Generals games played in each run")
    group.add_argument("--no-postgresql", dest="per_move_postgresql", action="store_false",
                       help="count on SQLite only (no throwaway PostgreSQL server)")
    group.add_argument("--by-statement", action="store_true",
                       help="also list each statement with how often it runs per applied move")

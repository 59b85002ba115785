"""The moves benchmark: Chopsticks games played at once through the service, beside two references.

    python -m tests.tools.bench [--games 1,100,1000] [--moves-per-game 40] [--repeat 3]

N lanes play at once; each lane plays its games one after the other (at N = 1 that is one game after another
until at least `min_moves` moves are played, so that the figures rest on enough moves). Every move of every
game is chosen beforehand with the engine, so all three runs write exactly the same moves:

- ours: the service (`GameService.act`: check, rules, version-guarded write, the ratings when a game ends);
- the floor: raw aiosqlite on one connection behind one lock, one IMMEDIATE transaction per move with the same
  statements and values (the version-guarded UPDATE of the snapshot, the INSERT into the move log and, for a
  game's last move, its places, both ladders' rating rows -- read, then written -- and the rated mark);
- the limit: the same transactions with plain sqlite3 on the event loop's thread (no thread hops at all), the
  cheapest durable way to write one move at a time.

All three use WAL and synchronous=NORMAL, and each move is committed before it counts as done.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite

from bot.service import GameService, Player
from games.chopsticks import ChopsticksState, Rules
from storage.db import SqliteDatabase

USER_BASE = 10_000
GUILD = 1
MIN_MOVES = 1_000  # every N runs at least this many moves
GOAL_OURS_OVER_FLOOR = 1.5  # at N = 1000 (issue 15, point 1)
GOAL_AT = 1000


@dataclass(frozen=True)
class PlannedMove:
    seat: int
    action: str
    state: str  # the snapshot after the move, as JSON
    status: str
    places: tuple[int, ...] | None  # the game's final places, on its last move


Lanes = list[list[list[PlannedMove]]]  # lane -> its games in order -> each game's moves


@dataclass
class Figures:
    moves: int
    seconds: float
    latencies: list[float]
    cpu_seconds: float  # this process's CPU time (all threads) while the moves were played

    @property
    def rate(self) -> float:
        return self.moves / self.seconds

    def quantile(self, q: int) -> float:
        return statistics.quantiles(self.latencies, n=100, method="inclusive")[q - 1]


def plan_game(seed: int, moves_per_game: int) -> list[PlannedMove]:
    """One game's moves, chosen with the engine. Choosing is the players' work, not the writer's: doing it here
    keeps it out of every timing, so all three runs replay exactly the same games."""
    rng = random.Random(seed)
    state = ChopsticksState.start(Rules(), first_seat=0)
    plan = []
    for _ in range(moves_per_game):
        seat = state.current_player()
        if seat is None:
            break
        move = rng.choice(list(state.legal_actions(seat)))
        state = state.apply(seat, move)
        outcome = state.outcome()
        plan.append(PlannedMove(seat, move.text(), json.dumps(state.to_dict(), separators=(",", ":"), sort_keys=True),
                                "finished" if outcome else "active", outcome.places if outcome else None))
    return plan


def plan_lanes(lanes: int, moves_per_game: int, min_moves: int = MIN_MOVES) -> Lanes:
    """`lanes` lanes of games, one game each and more (round robin) until there are at least `min_moves` moves."""
    planned: Lanes = [[] for _ in range(lanes)]
    total, seed = 0, 0
    while seed < lanes or total < min_moves:
        game = plan_game(seed, moves_per_game)
        planned[seed % lanes].append(game)
        total += len(game)
        seed += 1
    return planned


def move_count(lanes: Lanes) -> int:
    return sum(len(game) for lane in lanes for game in lane)


def _player(lane: int, seat: int) -> int:
    return USER_BASE + 2 * lane + seat


async def run_ours(path: Path, lanes: Lanes) -> Figures:
    """Play the planned games through the service, every lane at once."""
    db = await SqliteDatabase.open(path)
    service = GameService(db)
    ids: list[list[int]] = []
    for lane, games in enumerate(lanes):
        ids.append([])
        for _ in games:
            game = await service.create("chopsticks", guild_id=GUILD, channel_id=1 + lane % 50,
                                        players=[Player(_player(lane, 0)), Player(_player(lane, 1))],
                                        options={"first": 0})
            ids[-1].append(game.id)
    latencies: list[float] = []

    async def play(lane: int) -> None:
        for game_id, moves in zip(ids[lane], lanes[lane], strict=True):
            for ply, move in enumerate(moves):
                started = time.perf_counter()
                await service.act(game_id, _player(lane, move.seat), move.action, expected_ply=ply)
                latencies.append(time.perf_counter() - started)

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(play(lane) for lane in range(len(lanes))))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    await db.close()
    return Figures(len(latencies), elapsed, latencies, cpu)


def _statements(game_id: int, ply: int, lane: int, move: PlannedMove) -> Iterator[tuple[str, Any, bool]]:
    """The statements of one move's transaction, as (sql, parameters, many); the floor and the limit run these."""
    now = time.time()
    finished = move.places is not None
    yield ("UPDATE games SET state = ?, status = ?, deadline = ?, remind_at = ?, draw_offer = NULL, finished_at = ?,"
           " version = version + 1, move_count = move_count + 1, updated_at = ? WHERE id = ? AND version = ?"
           " RETURNING move_count",
           (move.state, move.status, None if finished else now + 86400, None if finished else now + 64800,
            now if finished else None, now, game_id, ply), False)
    yield ("INSERT INTO moves (game_id, ply, seat, user_id, action, created_at) VALUES (?, ?, ?, ?, ?, ?)",
           (game_id, ply + 1, move.seat, _player(lane, move.seat), move.action, now), False)
    if move.places is None:
        return
    yield ("UPDATE game_players SET place = ? WHERE game_id = ? AND seat = ?",
           [(place, game_id, seat) for seat, place in enumerate(move.places)], True)
    if ply == 0:  # a game ended by its very first action is not rated
        return
    users = (_player(lane, 0), _player(lane, 1))
    for scope in (GUILD, 0):
        yield ("SELECT mu, sigma, games FROM ratings WHERE kind = 'chopsticks' AND guild_id = ? AND user_id IN (?, ?)",
               (scope, *users), False)
        yield ("INSERT OR REPLACE INTO ratings (kind, guild_id, user_id, mu, sigma, games, wins, draws, losses,"
               " streak, best_streak, updated_at) VALUES ('chopsticks', ?, ?, 25.0, 8.0, 1, 0, 0, 0, 0, 0, ?)",
               [(scope, user, now) for user in users], True)
    yield "UPDATE games SET rated = 1 WHERE id = ?", (game_id,), False


def _prepare(path: Path, lanes: Lanes) -> list[list[int]]:
    """The games' rows (the schema and pragmas are the bot's own: `SqliteDatabase.open` made the file)."""
    conn = sqlite3.connect(path, isolation_level=None)
    with conn:  # one transaction: setting up is not timed
        conn.execute("BEGIN")
        ids: list[list[int]] = []
        for lane, games in enumerate(lanes):
            ids.append([])
            for _ in games:
                cur = conn.execute("INSERT INTO games (kind, guild_id, channel_id, status, initial_state, state,"
                                   " created_at, updated_at) VALUES ('chopsticks', ?, 1, 'active', '{}', '{}', 0, 0)",
                                   (GUILD,))
                assert cur.lastrowid is not None
                conn.executemany("INSERT INTO game_players (game_id, seat, user_id) VALUES (?, ?, ?)",
                                 [(cur.lastrowid, seat, _player(lane, seat)) for seat in (0, 1)])
                ids[-1].append(cur.lastrowid)
    conn.close()
    return ids


async def run_floor(path: Path, lanes: Lanes) -> Figures:
    """The same transactions with raw aiosqlite: one connection, one lock, one statement per trip to its thread."""
    db = await SqliteDatabase.open(path)  # same schema and pragmas
    await db.close()
    ids = _prepare(path, lanes)
    conn = await aiosqlite.connect(path, isolation_level=None)
    await conn.execute("PRAGMA journal_mode = WAL")
    await conn.execute("PRAGMA synchronous = NORMAL")
    await conn.execute("PRAGMA foreign_keys = ON")
    lock = asyncio.Lock()
    latencies: list[float] = []

    async def play(lane: int) -> None:
        for game_id, moves in zip(ids[lane], lanes[lane], strict=True):
            for ply, move in enumerate(moves):
                started = time.perf_counter()
                async with lock:
                    await conn.execute("BEGIN IMMEDIATE")
                    for sql, parameters, many in _statements(game_id, ply, lane, move):
                        if many:
                            await conn.executemany(sql, parameters)
                        elif sql.startswith("UPDATE games SET state"):
                            assert await conn.execute_fetchall(sql, parameters), "the floor lost a version check"
                        else:
                            await conn.execute_fetchall(sql, parameters)
                    await conn.execute("COMMIT")
                latencies.append(time.perf_counter() - started)
                await asyncio.sleep(0)  # let the other lanes in, as the service's callers would

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(play(lane) for lane in range(len(lanes))))
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    await conn.close()
    return Figures(len(latencies), elapsed, latencies, cpu)


def _round_robin(lanes: Lanes, ids: list[list[int]]) -> Iterator[tuple[int, int, int, PlannedMove]]:
    """Every move as (game id, ply, lane, move), the lanes taking turns as they would when played at once."""
    queues = [[(gid, ply, lane, move) for gid, moves in zip(ids[lane], games, strict=True)
               for ply, move in enumerate(moves)] for lane, games in enumerate(lanes)]
    for step in range(max(len(q) for q in queues)):
        for queue in queues:
            if step < len(queue):
                yield queue[step]


async def run_limit(path: Path, lanes: Lanes) -> Figures:
    """The same transactions with plain sqlite3 on this thread: nothing between the statements at all."""
    db = await SqliteDatabase.open(path)
    await db.close()
    ids = _prepare(path, lanes)
    conn = sqlite3.connect(path, isolation_level=None)
    for pragma in ("journal_mode = WAL", "synchronous = NORMAL", "foreign_keys = ON"):
        conn.execute(f"PRAGMA {pragma}")
    latencies: list[float] = []
    started, cpu = time.perf_counter(), time.process_time()
    for game_id, ply, lane, move in _round_robin(lanes, ids):
        began = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        for sql, parameters, many in _statements(game_id, ply, lane, move):
            run: Callable[..., Any] = conn.executemany if many else conn.execute
            assert run(sql, parameters).fetchall() or not sql.startswith("UPDATE games SET state"), \
                "the limit lost a version check"
        conn.execute("COMMIT")
        latencies.append(time.perf_counter() - began)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    conn.close()
    return Figures(len(latencies), elapsed, latencies, cpu)


@dataclass
class Row:
    """One N's runs, side by side."""

    games: int
    moves: int
    ours: list[Figures]
    floor: list[Figures]
    limit: list[Figures]

    def median_rate(self, runs: list[Figures]) -> float:
        return statistics.median(f.rate for f in runs)

    def median_ratio(self, over: list[Figures]) -> float:
        """The median of the runs' ratios (each ratio from runs made side by side)."""
        return statistics.median(o.rate / r.rate for o, r in zip(self.ours, over, strict=True))

    def median_p99(self, runs: list[Figures]) -> float:
        return statistics.median(f.quantile(99) for f in runs)

    def median_cpu(self, runs: list[Figures]) -> float:
        """This process's CPU (both threads) per move, in microseconds."""
        return statistics.median(f.cpu_seconds / f.moves for f in runs) * 1e6


async def measure(tmp: Path, games: int, moves_per_game: int, repeat: int) -> Row:
    lanes = plan_lanes(games, moves_per_game)
    row = Row(games, move_count(lanes), [], [], [])
    for r in range(repeat):  # in turns, so that a disturbance on the machine hits all three alike
        row.ours.append(await run_ours(tmp / f"ours-{games}-{r}.sqlite3", lanes))
        row.floor.append(await run_floor(tmp / f"floor-{games}-{r}.sqlite3", lanes))
        row.limit.append(await run_limit(tmp / f"limit-{games}-{r}.sqlite3", lanes))
    return row


def report(rows: list[Row], repeat: int) -> list[str]:
    """The table: moves/s of each (median of the runs), the ratios, p99 latencies, and the goals beside them."""
    lines = [f"Moves: N concurrent Chopsticks games, median of {repeat} runs (goal: at least {MIN_MOVES:,} moves per N;"
             f" ours/floor >= {GOAL_OURS_OVER_FLOOR} at N = {GOAL_AT:,})",
             f"  {'N':>5} {'moves':>7} {'floor/s':>9} {'limit/s':>9} {'ours/s':>9} {'ours/floor':>10} "
             f"{'ours/limit':>10}  {'p99 floor':>9} {'p99 ours':>9}  {'CPU µs/move floor, ours':>23}  goal"]
    for row in rows:
        ratio = row.median_ratio(row.floor)
        goal = (f"ours/floor >= {GOAL_OURS_OVER_FLOOR}: {'met' if ratio >= GOAL_OURS_OVER_FLOOR else 'NOT met'}"
                if row.games == GOAL_AT else "-")
        moves_goal = "" if row.moves >= MIN_MOVES else f"; only {row.moves} moves (goal {MIN_MOVES:,})"
        lines.append(
            f"  {row.games:>5} {row.moves:>7} {row.median_rate(row.floor):>9.0f} {row.median_rate(row.limit):>9.0f} "
            f"{row.median_rate(row.ours):>9.0f} {ratio:>10.2f} {row.median_ratio(row.limit):>10.2f}  "
            f"{row.median_p99(row.floor) * 1000:>7.2f}ms {row.median_p99(row.ours) * 1000:>7.2f}ms  "
            f"{row.median_cpu(row.floor):>15.0f}, {row.median_cpu(row.ours):>5.0f}  {goal}{moves_goal}")
    return lines

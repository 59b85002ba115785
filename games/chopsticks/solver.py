"""Retrograde analysis of 2-player Chopsticks: win, loss or draw and the distance to the end of every position.

The graph holds every functionally distinct position of the rule set (reachable or not): each seat is any
sorted set of hand values (with its lives left under sudden-death with lives), and the player to move is
listed first. Finished positions (a seat is out) are scored directly; the rest are solved backwards from
them: a position is won if some move reaches a position lost for the opponent (distance: the shortest such
line), lost if every move reaches one won for the opponent (distance: the longest), and drawn otherwise
(play can go on forever, which the engine ends by repetition).

MAX_POSITIONS bounds the graph, so that a solution, which costs about as much as the positions and their moves,
stays within a second even for the biggest rule sets it allows (3 hands with rollover 10 has 48,400 positions; the
standard game has 225).

Solutions are cached per rule set, the most recently used within a memory budget (CACHE_BUDGET): thousands of rule
sets can be asked for (`/chopsticks analyze` takes any), and a cache that kept them all grew a worker by about 2.5 MB
for each big one, without end. A solution keeps one byte per position for its value and two for its distance (a
list of Python ints took sixteen), so a big rule set costs about 0.2 MB and the budget holds some eighty of them.
"""

from __future__ import annotations

import sys
import threading
from array import array
from collections import OrderedDict, deque
from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import comb
from typing import Literal

from games.base import Action, GameError
from games.chopsticks.engine import ChopsticksState
from games.chopsticks.moves import distinct_live, own_moves, self_taps, successors, tap_results
from games.chopsticks.position import Seat
from games.chopsticks.rules import Rules
from games.text import Text

MAX_POSITIONS = 50_000
CACHE_BUDGET = 16 * 2**20  # bytes of solutions a process keeps (each worker process has its own cache)
_SEAT_BYTES = 250  # about what one seat costs a solution: the Seat, its hands, its entry in `index`

Result = Literal["win", "loss", "draw"]
_WIN, _DRAW, _LOSS = 1, 0, -1
_NAMES: dict[int, Result] = {_WIN: "win", _DRAW: "draw", _LOSS: "loss"}


@dataclass(frozen=True)
class Verdict:
    """The value of a position for the player to move, and how many plies the end is away (None: drawn)."""

    result: Result
    distance: int | None

    def text(self) -> str:
        if self.distance is None:
            return self.result
        return f"{self.result} in {self.distance} {'ply' if self.distance == 1 else 'plies'}"


def position_count(rules: Rules) -> int:
    """How many positions the solver's graph has for these rules (without building it)."""
    hand_sets = comb(rules.limit + rules.hands - 1, rules.hands)
    seats = (hand_sets - 1) * max(1, rules.max_lives) + 1
    return seats * seats


def solve(rules: Rules) -> Solution:
    """The solution of a 2-player rule set (kept in SOLUTIONS); GameError if it has more than MAX_POSITIONS
    positions."""
    if rules.players != 2:
        raise GameError(Text("The solver handles 2-player games only."))
    size = position_count(rules)
    if size > MAX_POSITIONS:
        raise GameError(Text("These rules have {size} positions; the solver handles at most {most}.", size=f"{size:,}",
                             most=f"{MAX_POSITIONS:,}"))
    return SOLUTIONS.get(rules)


class Solution:
    """Every position's value for one rule set; build it with `solve(rules)`."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.seats = _all_seats(rules)
        self.index = {seat: i for i, seat in enumerate(self.seats)}
        self.size = len(self.seats) ** 2
        values, distances = _retrograde(rules, self.seats, self.index)
        # Compact arrays, not lists: the cache holds many solutions (a distance is below the number of positions).
        self.values = array("b", values)
        self.distances = array("H" if self.size <= 0xFFFF else "I", distances)

    @property
    def nbytes(self) -> int:
        """About how much memory this solution holds."""
        return (sys.getsizeof(self.values) + sys.getsizeof(self.distances) + sys.getsizeof(self.seats)
                + sys.getsizeof(self.index) + _SEAT_BYTES * len(self.seats))

    # ----- lookups ----------------------------------------------------------------------------------------
    def verdict_of(self, mover: Seat, other: Seat) -> Verdict:
        """The value of the position where `mover` is to move against `other`."""
        pos = self.index[mover] * len(self.seats) + self.index[other]
        value = self.values[pos]
        return Verdict(_NAMES[value], self.distances[pos] if value != _DRAW else None)

    def verdict(self, state: ChopsticksState) -> Verdict:
        """The value of `state` for its player to move (a finished game: its result, distance 0)."""
        self._check(state)
        outcome = state.outcome()
        if outcome is not None:
            if outcome.is_draw:
                return Verdict("draw", 0)
            return Verdict("win" if state.to_move in outcome.winners else "loss", 0)
        table = state.table
        return self.verdict_of(table[state.to_move], table[1 - state.to_move])

    def move_verdicts(self, state: ChopsticksState) -> list[tuple[Action, Verdict]]:
        """Each legal move with the value it leaves the mover (win in n plies counts this move), in legal order."""
        self._check(state)
        if state.outcome() is not None:
            return []
        me = state.to_move
        out = []
        for action, table in successors(self.rules, state.table, me):
            theirs = self.verdict_of(table[1 - me], table[me])
            mine: Result = "win" if theirs.result == "loss" else "loss" if theirs.result == "win" else "draw"
            distance = None if theirs.distance is None else theirs.distance + 1
            out.append((action, Verdict(mine, distance)))
        return out

    def best_actions(self, state: ChopsticksState) -> list[Action]:
        """Every optimal move, in legal order: fastest wins, else draws, else the longest resistance."""
        scored = self.move_verdicts(state)
        if not scored:
            return []
        target = self.verdict(state)
        return [action for action, verdict in scored if verdict == target]

    def _check(self, state: ChopsticksState) -> None:
        if state.rules != self.rules:
            raise GameError(Text("This position is played by other rules than the solution's."))


class SolutionCache:
    """Solutions by rule set: the most recently used ones, within `budget` bytes (the latest one even when it alone
    is bigger). Safe to share between threads (the bot's fallback when it cannot start worker processes)."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.held = 0  # bytes of the solutions kept
        self._kept: OrderedDict[Rules, Solution] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, rules: Rules) -> Solution:
        """The solution of `rules`: the kept one (now the most recently used), or a new one, kept."""
        with self._lock:
            kept = self._kept.get(rules)
            if kept is not None:
                self._kept.move_to_end(rules)
                return kept
        solution = Solution(rules)  # outside the lock: another thread may ask for another rule set meanwhile
        with self._lock:
            if rules in self._kept:  # solved by another thread meanwhile: keep one of them
                self._kept.move_to_end(rules)
                return self._kept[rules]
            self._kept[rules] = solution
            self.held += solution.nbytes
            while self.held > self.budget and len(self._kept) > 1:
                _, oldest = self._kept.popitem(last=False)
                self.held -= oldest.nbytes
        return solution

    def __contains__(self, rules: object) -> bool:
        return rules in self._kept

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()
            self.held = 0


SOLUTIONS = SolutionCache(CACHE_BUDGET)


def _all_seats(rules: Rules) -> list[Seat]:
    """Every seat state: each sorted set of hand values, with every number of lives left when tracked."""
    seats = []
    lives = range(1, rules.max_lives + 1) if rules.max_lives else range(1)
    for hands in combinations_with_replacement(range(rules.limit), rules.hands):
        if not any(hands):
            seats.append(Seat(hands, 0, False))
        else:
            seats.extend(Seat(hands, n, False) for n in lives)
    return seats


def _retrograde(rules: Rules, seats: list[Seat], index: dict[Seat, int]) -> tuple[list[int], list[int]]:
    """Values (+1 win, 0 draw, -1 loss for the player to move) and distances of every position id."""
    n = len(seats)
    size = n * n
    # A move changes one seat: the mover's own (splits, self-taps, ...) or the tapped opponent's. So the
    # position graph is built from per-seat tables instead of generating every position's moves.
    own = [sorted({index[s] for _, s in own_moves(rules, seat)} | {index[s] for _, _, s in self_taps(rules, seat)})
           for seat in seats]
    values = {v for seat in seats for v in seat.hands if v}
    taps = {v: [sorted({index[s] for _, s in tap_results(rules, v, seat)}) if seat.alive else [] for seat in seats]
            for v in values}
    live = [[seat.hands[i] for i in distinct_live(seat.hands)] for seat in seats]
    misere = rules.has("misere")

    value = [_DRAW] * size
    distance = [0] * size
    decided = [False] * size
    pending = [0] * size
    preds: list[list[int]] = [[] for _ in range(size)]
    queue: deque[int] = deque()
    for a, mover in enumerate(seats):
        for b, other in enumerate(seats):
            pos = a * n + b
            if mover.out or other.out:  # a finished game
                decided[pos] = True
                if mover.out != other.out:
                    value[pos] = _WIN if mover.out == misere else _LOSS
                    queue.append(pos)
                continue
            nexts = {b * n + a2 for a2 in own[a]}
            for v in live[a]:
                nexts.update(b2 * n + a for b2 in taps[v][b])
            pending[pos] = len(nexts)
            for nxt in nexts:
                preds[nxt].append(pos)
    while queue:
        pos = queue.popleft()
        lost = value[pos] == _LOSS
        d = distance[pos] + 1
        for prev in preds[pos]:
            if decided[prev]:
                continue
            if lost:
                value[prev], distance[prev], decided[prev] = _WIN, d, True
                queue.append(prev)
            else:
                pending[prev] -= 1
                if not pending[prev]:
                    value[prev], distance[prev], decided[prev] = _LOSS, d, True
                    queue.append(prev)
    return value, distance

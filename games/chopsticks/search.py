"""Depth-limited paranoid search: the searching seat maximises, every other seat plays against it.

Used for games the solver cannot hold: 3 or more players, or 2-player rule sets above its size limit.
Iterative deepening stops once a node budget is spent, so a move's cost is bounded and, since the budget
counts nodes rather than seconds, the choice is the same on any machine (replays and tests stay exact).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from games.base import Action
from games.chopsticks.engine import ChopsticksState
from games.chopsticks.moves import next_to_move, successors
from games.chopsticks.position import Seat, Table
from games.chopsticks.rules import Rules

WIN = 100_000  # beyond any heuristic score; a win found sooner scores higher
DEFAULT_BUDGET = 10_000  # nodes: sized for a move well under a second even at the largest tables (6 players, 4 hands)


@dataclass(frozen=True)
class SearchResult:
    """The chosen move, its score for the searching seat, the deepest completed depth and nodes spent."""

    action: Action
    score: int
    depth: int
    nodes: int


class _OutOfBudget(Exception):
    """Raised inside the tree when the node budget is spent; the last completed depth is used."""


def search_move(state: ChopsticksState, depth: int, rng: random.Random, budget: int = DEFAULT_BUDGET) -> SearchResult:
    """The best move for the player to move, searching up to `depth` plies (fewer if the budget runs out).

    Equally good moves are chosen between with `rng`.
    """
    searcher = _Searcher(state.rules, state.to_move, budget)
    return searcher.run(state.table, depth, rng)


class _Searcher:
    def __init__(self, rules: Rules, root: int, budget: int) -> None:
        self.rules = rules
        self.root = root
        self.budget = budget
        self.nodes = 0
        self.misere = rules.has("misere")

    def run(self, table: Table, max_depth: int, rng: random.Random) -> SearchResult:
        moves = successors(self.rules, table, self.root)
        if not moves:
            raise ValueError("the search was asked to move in a position with no legal moves")
        best: list[Action] = [moves[0][0]]
        best_score, completed = 0, 0
        order = list(range(len(moves)))
        for depth in range(1, max(1, max_depth) + 1):
            try:
                scores = self._root_scores(table, moves, order, depth, enforce_budget=depth > 1)
            except _OutOfBudget:
                break
            best_score = max(scores.values())
            best = [moves[i][0] for i in sorted(scores) if scores[i] == best_score]
            completed = depth
            # Search the most promising moves first next time: alpha-beta cuts more.
            order.sort(key=lambda i: -scores.get(i, -WIN * 2))
            if abs(best_score) >= WIN - 1000:
                break  # a forced result was found; deeper search would not change it
        return SearchResult(rng.choice(best), best_score, completed, self.nodes)

    def _root_scores(self, table: Table, moves: list[tuple[Action, Table]], order: list[int], depth: int,
                     enforce_budget: bool) -> dict[int, int]:
        """Exact scores of every root move that can still be the best (others fall below the best)."""
        scores: dict[int, int] = {}
        best = -WIN * 2
        for i in order:
            _, after = moves[i]
            # alpha = best - 1 keeps ties exact, so equally good moves can be told apart from worse ones.
            score = self._value(table, after, self.root, depth - 1, best - 1, WIN * 2, 1, enforce_budget)
            scores[i] = score
            best = max(best, score)
        return scores

    def _value(self, before: Table, table: Table, mover: int, depth: int, alpha: int, beta: int, ply: int,
               enforce_budget: bool) -> int:
        """The score for the root of `table`, reached by `mover`'s move from `before`."""
        self.nodes += 1
        if enforce_budget and self.nodes > self.budget:
            raise _OutOfBudget
        end = self._terminal(before, table, mover, ply)
        if end is not None:
            return end
        if depth <= 0:
            return self._heuristic(table)
        nxt = next_to_move(table, mover)
        maximising = nxt == self.root  # the root's own move: the best for it; anyone else's: the worst for it
        value = -WIN * 2 if maximising else WIN * 2
        for _, after in successors(self.rules, table, nxt):
            score = self._value(table, after, nxt, depth - 1, alpha, beta, ply + 1, enforce_budget)
            if maximising:
                value = max(value, score)
                alpha = max(alpha, value)
            else:
                value = min(value, score)
                beta = min(beta, value)
            if alpha >= beta:
                break
        return value

    def _terminal(self, before: Table, table: Table, mover: int, ply: int) -> int | None:
        """The score if the game ended with this move (or the root is beaten), else None."""
        root = self.root
        if self.misere:
            gone = [s for s in range(len(table)) if before[s].alive and not table[s].alive]
            if gone:
                return WIN - ply if gone[0] == root else -(WIN - ply)
            return None
        if not table[root].alive:
            return -(WIN - ply)
        if sum(seat.alive for seat in table) <= 1:
            return WIN - ply
        return None

    def _heuristic(self, table: Table) -> int:
        """Root's strength minus its strongest opponent's (reversed in misère, where losing hands is good)."""
        mine = _strength(table[self.root], self.rules)
        others = [_strength(seat, self.rules) for i, seat in enumerate(table) if i != self.root and seat.alive]
        # Knocked-out opponents count: fewer rivals left is progress towards winning.
        score = mine * 2 - (max(others) if others else 0) - sum(others) // max(1, len(others)) - 30 * len(others)
        return -score if self.misere else score


def _strength(seat: Seat, rules: Rules) -> int:
    """Live hands count most; hands close to dying are liabilities; lives left are a buffer."""
    if not seat.alive:
        return 0
    live = [v for v in seat.hands if v]
    danger = sum(1 for v in live if v * 2 > rules.limit)  # easy to finish off with one tap
    return 40 * len(live) - 6 * danger + 25 * seat.lives + sum(live) // rules.unit

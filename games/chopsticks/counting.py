"""Counting reachable positions the way the seed does.

A position is its code (seats in turn order, the player to move first). A seat that is out keeps its turn
in the rotation and passes, so "00 12 13" (an out seat to move) counts as a position of its own; in play
the engine simply skips that seat. A finished game has no successors.
"""

from __future__ import annotations

from collections import deque

from games.chopsticks.moves import successors
from games.chopsticks.position import Table, start_seat, table_code
from games.chopsticks.rules import Rules


def is_finished(rules: Rules, table: Table) -> bool:
    """Whether play has ended: misère at the first knockout, otherwise when at most one player is still in."""
    if rules.has("misere"):
        return any(seat.out for seat in table)
    return sum(seat.alive for seat in table) <= 1


def next_positions(rules: Rules, table: Table) -> list[Table]:
    """The positions after the player to move (listed first) moves or, if out, passes; in code order."""
    if is_finished(rules, table):
        return []
    if table[0].out:
        return [(*table[1:], table[0])]
    return [(*after[1:], after[0]) for _, after in successors(rules, table, 0)]


def reachable(rules: Rules, start: Table | None = None) -> set[Table]:
    """Every position reachable from `start` (default: the rules' starting position), start included."""
    first = start if start is not None else (start_seat(rules),) * rules.players
    seen, queue = {first}, deque([first])
    while queue:
        for nxt in next_positions(rules, queue.popleft()):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def reachable_codes(rules: Rules, start: Table | None = None) -> set[str]:
    return {table_code(t, rules) for t in reachable(rules, start)}

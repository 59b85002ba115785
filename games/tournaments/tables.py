"""So Long Sucker tables: each round seats players at tables of 4 (3 or 5 where the count needs it) by score.

Sizes: as many tables of 4 as fit; one left over makes a table of 5, two make two tables of 3 (quicker than two of
5, and a round lasts as long as its slowest table), three make a table of 3. Never a table of 2: two or fewer people
in all cannot be seated, unless the organiser allows computer fillers, which then fill every short table (3 or fewer
people) up to 4.

Who sits where: players rank by points, then rating, then user id, and are cut into tables in that order (the best
together). Then the seating that puts the fewest pairs of players at a table together again is chosen, and of
those, the one whose tables are closest in points (the sum over each table's pairs of the squared difference of
their points). Fields of up to 12 are searched exhaustively (exact); larger fields improve the ranked cut by swapping
two players of different tables while a swap makes it better (a local search: few repeats, not always the fewest).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from games.tournaments.history import ranked_for_next_round
from games.tournaments.model import Round, Table, Tournament

EXACT_UP_TO = 12


def sizes(count: int, fillers: bool = False) -> list[tuple[int, int]]:
    """The tables for `count` people: (people, seats) each, biggest first (seats > people: computer fillers)."""
    fours, left = divmod(count, 4)
    if count < 3 and not fillers:
        raise ValueError("a So Long Sucker round needs at least 3 players")
    if count == 0:
        return []
    if count < 3:
        return [(count, 4)]
    if left == 1 and fours:
        people = [5] + [4] * (fours - 1)
    elif left == 2:
        people = [4] * (fours - 1) + [3, 3]
    elif left == 3:
        people = [4] * fours + [3]
    else:
        people = [4] * fours
    return [(n, 4 if fillers and n < 4 else n) for n in people]


def pair(tournament: Tournament) -> Round:
    """The next round's tables: each a tuple of seats (None: a computer), by score from the top table down."""
    so_far, ranked = ranked_for_next_round(tournament, "tournament")
    players = [e.player for e in ranked]
    points = {p: so_far[p].points for p in players}
    met = {p: so_far[p].opponents for p in players}
    shape = sizes(len(players), tournament.settings.fillers)
    groups = seat(players, [people for people, _ in shape], points, met)
    seats = dict(shape)  # people -> seats
    return Round(tables=tuple(Table((*group, *(None,) * (seats[len(group)] - len(group)))) for group in groups))


def cost(groups: Sequence[Sequence[int]], points: dict[int, float], met: dict[int, set[int]]) -> tuple[int, float]:
    """(pairs who sat together before, sum of squared differences of points within tables): lower is better."""
    repeats = 0
    spread = 0.0
    for group in groups:
        for a, b in combinations(group, 2):
            repeats += b in met[a]
            spread += (points[a] - points[b]) ** 2
    return repeats, spread


def seat(players: list[int], people: list[int], points: dict[int, float],
         met: dict[int, set[int]]) -> list[list[int]]:
    """`players` (ranked) at tables of the given sizes, with the fewest repeat meetings, then the closest points."""
    start = []
    index = 0
    for size in people:
        start.append(players[index:index + size])
        index += size
    if len(players) <= EXACT_UP_TO:
        best = min(_partitions(players, people), key=lambda groups: (cost(groups, points, met), _order(groups,
                                                                                                       players)))
        return [list(group) for group in best]
    return _improve(start, points, met)


def _order(groups: Sequence[Sequence[int]], players: list[int]) -> list[int]:
    """A last, fixed tie-break between equal seatings: the ranked order read table by table."""
    return [players.index(p) for group in groups for p in group]


def _partitions(players: list[int], people: list[int]) -> list[list[list[int]]]:
    """Every way to seat `players` at tables of the sizes `people` (in that order), players kept in rank order."""
    if not people:
        return [[]]
    out: list[list[list[int]]] = []
    first = players[0]
    # The first player sits at a table of each size in turn; tables of one size are not told apart.
    for size in sorted(set(people), reverse=True):
        rest = list(people)
        rest.remove(size)
        for others in combinations(players[1:], size - 1):
            group = [first, *others]
            remaining = [p for p in players if p not in group]
            out.extend([group, *tail] for tail in _partitions(remaining, rest))
    return out


def _improve(groups: list[list[int]], points: dict[int, float], met: dict[int, set[int]]) -> list[list[int]]:
    best = cost(groups, points, met)
    improved = True
    while improved:
        improved = False
        for i, j in combinations(range(len(groups)), 2):
            for x in range(len(groups[i])):
                for y in range(len(groups[j])):
                    groups[i][x], groups[j][y] = groups[j][y], groups[i][x]
                    now = cost(groups, points, met)
                    if now < best:
                        best = now
                        improved = True
                    else:
                        groups[i][x], groups[j][y] = groups[j][y], groups[i][x]
    return groups

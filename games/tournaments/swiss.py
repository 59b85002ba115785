"""Swiss pairing: the next round as one maximum-weight matching (networkx), its rules encoded as edge weights.

Every two active players are joined by an edge, and when the count is odd a "bye" node is joined to every player.
networkx's `max_weight_matching(..., maxcardinality=True)` finds, among the matchings that pair everyone (one player
with the bye when the count is odd), the one of greatest total weight. Each edge's weight is a large constant less
its cost, and the cost is a sum of rule breaches, each rule weighted by a multiplier larger than the most that all the
rules below it can add up to over a whole round. So the matching first breaks the fewest of the first rule, then, of
those, the fewest of the second, and so on (a lexicographic order, exact because the weights are whole numbers). The
rules, most important first:

1. colour limit: no player's colour difference (games moving first less games moving second) beyond +-2;
2. bye eligibility: the bye only to a player who has not had one (a bye edge to anyone else costs this), unless
   everyone has had one;
3. rematch: no two players who met before (a forfeit counts as met);
4. no three games in a row with the same colour (like the colour limit, FIDE's "absolute" colour rule, but
   given up before a rematch);
5. bye placement: the bye to the lowest score (costs the receiver's points above the lowest, in half points);
6. score groups: the squared difference of the two players' points (in half points), so players meet their own
   score group, and one who must float meets the nearest group, the float spread over as few points as possible;
7. colour preference: a player whose colour difference is not 0 should get the colour that evens it (2 each), one
   at 0 the other colour from their last game (1 each);
8. within a score group, the upper half meets the lower half (rank i against rank i + half the group), as in the
   Dutch system: the distance from that ideal, in places.

Large fields: networkx's algorithm is pure Python and its time grows with players times edges (a field of 256 in one
matching takes about 10 s here), so a field is matched in consecutive blocks of `BLOCK` players by rank (a short last
block joins the one before), each block one exact matching as above; a block that alone would break one of rules 1-3
is merged with the next and matched again (the last block, with the one before it). Fields of fewer than 1.5 x
`BLOCK` (48) are one matching.
Blocks cost little: neighbours in rank are neighbours in score, so a block boundary inside a score group only decides
which of its equals meet, and one between groups is a float the whole matching would make too.

A late entrant starts with the points they were given; a withdrawn player is no longer paired. Players rank by
points, then rating, then user id, which also settles everything the weights leave equal (the graph is built in that
order, and networkx's algorithm is deterministic). Each edge's colours are the orientation of least cost (rules 1,
4, 7, then the higher-ranked player's own wish); when nothing tells them apart (round 1), the higher-ranked player
moves first on odd boards and second on even ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

from games.tournaments.history import Record, ranked_for_next_round
from games.tournaments.model import Game, Round, Tournament

_BYE = -1
BLOCK = 32  # players per matching in a large field (see the docstring): 256 pair in about 0.4 s here


@dataclass(frozen=True)
class _Pair:
    a: _Player  # the higher-ranked
    b: _Player | None  # None: a's bye
    a_first: bool | None  # None: nothing tells the colours apart


@dataclass(frozen=True)
class _Player:
    player: int
    rank: int  # 0 is the top
    half_points: int
    group_index: int  # place within the score group
    group_size: int
    record: Record


def pair(tournament: Tournament) -> Round:
    """The next Swiss round: pairings (first player moves first) and at most one bye, ordered by board."""
    so_far, ranked = ranked_for_next_round(tournament, "Swiss")
    players = _players([so_far[e.player] for e in ranked])
    return Round(games=tuple(_board_order(_in_blocks(players)))) if players else Round()


def _in_blocks(players: list[_Player]) -> list[_Pair]:
    """The matching of consecutive blocks of players by rank, a block merged with the next while it alone cannot
    be paired without a rematch, a colour beyond its limit or a second bye."""
    cuts = list(range(0, len(players), BLOCK))
    if len(players) - cuts[-1] < BLOCK // 2 and len(cuts) > 1:
        cuts.pop()  # a short last block joins the one before
    cuts.append(len(players))
    out: list[_Pair] = []
    start = 0
    index = 1
    previous: tuple[int, int] | None = None  # the block matched last: where it starts, how many pairs it made
    while start < len(players):
        end = cuts[index]
        pairs, clean = _match(players[start:end])
        if not clean and end == len(players) and previous is not None:
            # The last block has no block after it to merge with: it is matched again with the one before it.
            start, made = previous
            del out[len(out) - made:]
            pairs, clean = _match(players[start:end])
        if clean or end == len(players):
            previous = (start, len(pairs))
            out.extend(pairs)
            start = end
        index += 1
    return out


def _players(ranked: Sequence[Record]) -> list[_Player]:
    sizes: dict[int, int] = {}
    for record in ranked:
        half_points = round(record.points * 2)
        sizes[half_points] = sizes.get(half_points, 0) + 1
    out = []
    seen: dict[int, int] = {}
    for rank, record in enumerate(ranked):
        half_points = round(record.points * 2)
        index = seen[half_points] = seen.get(half_points, -1) + 1
        out.append(_Player(record.player, rank, half_points, index, sizes[half_points], record))
    return out


def _match(players: list[_Player]) -> tuple[list[_Pair], bool]:
    """The best pairing of `players` (rules in the module's docstring), and whether it breaks none of rules 1-3."""
    if len(players) == 1:
        return [_Pair(players[0], None, None)], not players[0].record.byes
    pairs = (len(players) + 1) // 2
    lowest = min(p.half_points for p in players)
    spread = max(p.half_points for p in players) - lowest
    nobody_eligible = all(p.record.byes for p in players)
    # Each rule's most per edge, lowest rule first; each multiplier exceeds what the rules below add up to.
    limits = [len(players), 4, spread * spread, spread, 2, 1, 1, 2]
    multipliers = []
    multiplier = 1
    for limit in limits:
        multipliers.append(multiplier)
        multiplier *= limit * pairs + 1
    top = multiplier
    m_shape, m_prefs, m_score, m_bye_score, m_three, m_rematch, m_bye_ok, m_limit = multipliers
    severe = m_rematch  # a cost this high breaks one of rules 1-3

    graph: nx.Graph[int] = nx.Graph()
    found: dict[tuple[int, int], tuple[bool | None, int]] = {}  # (a, b), a ranked higher -> (a moves first, cost)
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            limit, three, prefs, a_first = _colours(a.record, b.record)
            cost = (limit * m_limit + (b.player in a.record.opponents) * m_rematch
                    + (a.half_points - b.half_points) ** 2 * m_score + three * m_three + prefs * m_prefs
                    + _shape(a, b) * m_shape)
            found[(a.player, b.player)] = (a_first, cost)
            graph.add_edge(a.player, b.player, weight=top - cost)
        if len(players) % 2:
            cost = ((a.half_points - lowest) * m_bye_score + (bool(a.record.byes) and not nobody_eligible) * m_bye_ok
                    + (len(players) - 1 - i) * m_shape)  # the lowest-ranked of the lowest group, all else equal
            found[(a.player, _BYE)] = (None, cost)
            graph.add_edge(a.player, _BYE, weight=top - cost)
    by_id = {p.player: p for p in players}
    out = []
    clean = True
    for x, y in nx.max_weight_matching(graph, maxcardinality=True):
        if _BYE in (x, y):
            player = by_id[y if x == _BYE else x]
            out.append(_Pair(player, None, None))
            clean = clean and found[(player.player, _BYE)][1] < severe
            continue
        a, b = sorted((by_id[x], by_id[y]), key=lambda p: p.rank)
        a_first, cost = found[(a.player, b.player)]
        out.append(_Pair(a, b, a_first))
        clean = clean and cost < severe
    return out, clean


def _colours(a: Record, b: Record) -> tuple[int, int, int, bool | None]:
    """The least-cost colours for a (ranked higher) against b: (limit breaches, three-in-a-row, unmet preferences,
    whether a moves first)."""
    options = []
    for a_first in (True, False):
        white, black = (a, b) if a_first else (b, a)
        limit = (white.colour_difference + 1 > 2) + (black.colour_difference - 1 < -2)
        three = (white.colours[-2:] == ["W", "W"]) + (black.colours[-2:] == ["B", "B"])
        prefs = _unmet(white, "W") + _unmet(black, "B")
        options.append(((limit, three, prefs, _unmet(a, "W" if a_first else "B")), a_first))
    (limit, three, prefs, _), a_first = min(options, key=lambda option: option[0])
    if options[0][0] == options[1][0]:
        return limit, three, prefs, None  # nothing tells them apart: decided by the board
    return limit, three, prefs, a_first


def _unmet(record: Record, colour: str) -> int:
    """What giving `colour` to this player costs against their preference."""
    difference = record.colour_difference
    if difference:
        wanted = "B" if difference > 0 else "W"
        return 2 * (colour != wanted)
    if record.colours:
        return int(colour == record.colours[-1])
    return 0


def _shape(a: _Player, b: _Player) -> int:
    if a.half_points != b.half_points:
        return 0
    return abs(abs(a.group_index - b.group_index) - a.group_size // 2)


def _board_order(pairs: list[_Pair]) -> list[Game]:
    """The games by board (the higher score first, then the higher-ranked player), the bye last; colours that
    nothing told apart alternate by board: the higher-ranked player moves first on odd boards."""
    games = sorted((pair for pair in pairs if pair.b is not None),
                   key=lambda pair: (-pair.a.half_points, pair.a.rank))
    out = []
    for board, pair in enumerate(games):
        assert pair.b is not None
        a_first = board % 2 == 0 if pair.a_first is None else pair.a_first
        out.append(Game(pair.a.player, pair.b.player) if a_first else Game(pair.b.player, pair.a.player))
    out.extend(Game(pair.a.player, None) for pair in pairs if pair.b is None)
    return out

"""Move generation: every legal move of a position and the position it leads to, for any rule set.

This is the single definition of the rules' moves; the engine, the solver, the search and the position
counting all build on it. Positions are `Table`s (a `Seat` per player, by seat number); attack letters are
relative to the mover, as in the seed's code.

Decisions the rules page leaves open (all documented in the report and in `Rules.problems`):
- With h hands a split may not kill a hand: it never leaves more dead hands than before (with suicide: at
  most one more, and never all of them). It must change the sorted hands.
- transfers-only forbids splits that revive a hand; divisions-only allows only those. halves asks for all
  hands equal (odd: differing by at most one finger). These restrictions also bind meta's "split the rest".
- meta: when the total exceeds the rollover number, the total minus the rollover number is split again.
- stumps: values are counted in half fingers. The stump split (a lone single finger into ½ ½) is its own
  move, allowed whatever split restrictions apply; every other split leaves at most one hand holding a half.
- swap, logan and cherry rearrange the mover's own hands; positions keep hands sorted, so all three are the
  same move, `swap`: the position stays and the turn passes (swap: two different live hands; logan: a dead
  and a live hand; cherry: two different hands).
- integers: a live hand becomes rollover minus its value (a hand at exactly half the rollover cannot flip).
- sudden-death: dropping to a total of one finger (from any other total) costs a life; at 0 lives the
  player is out and their hands are cleared. A player's own move can cost them a life too.
- zombie: a player who goes out becomes a zombie seat (one finger, `0z`) that only attacks, is never a
  target, and is never counted as still in the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations_with_replacement

from games.base import Action
from games.chopsticks.actions import Attack, Flip, Split, Swap
from games.chopsticks.notation import Hands
from games.chopsticks.position import Seat, Table, out_seat, zombie_seat
from games.chopsticks.rules import Rules

Successor = tuple[Action, Table]

# The per-seat tables below are cached (a solve or a count asks each of them millions of times), keyed by the rule set:
# bounded, since any number of rule sets can be asked for. One rule set's solve uses at most a few thousand seats'
# entries (about 4,000 taps with stumps); the bounds hold several rule sets at once, a few MB in all.
SEAT_CACHE = 4096
TAP_CACHE = 16384


def distinct_live(hands: Hands) -> list[int]:
    """The index of the first hand of each distinct live value (equal hands give equal moves)."""
    return [i for i, v in enumerate(hands) if v and v not in hands[:i]]


def settle(rules: Rules, before: Seat, hands: Sequence[int]) -> Seat:
    """The seat after its hands became `hands`: sorted, with sudden-death lives and zombies applied."""
    new = tuple(sorted(hands))
    lives = before.lives
    if lives and sum(new) == rules.unit and sum(before.hands) != rules.unit:
        lives -= 1  # sudden-death: dropped to a single finger
        if not lives:
            new = (0,) * rules.hands
    if not any(new):
        return zombie_seat(rules) if rules.has("zombie") else out_seat(rules)
    return Seat(new, lives, False)


def tapped(rules: Rules, value: int, tapper: int) -> int:
    """A hand of `value` after a hand of `tapper` taps it: exactly the limit kills; above it rolls or cuts."""
    total = value + tapper
    if total < rules.limit:
        return total
    return 0 if total == rules.limit or rules.has("cutoff") else total - rules.limit


@lru_cache(maxsize=TAP_CACHE)
def tap_results(rules: Rules, tapper: int, target: Seat) -> tuple[tuple[int, Seat], ...]:
    """For each distinct live hand of `target`: its index and the seat after `tapper` taps it."""
    out = []
    for j in distinct_live(target.hands):
        hands = list(target.hands)
        hands[j] = tapped(rules, hands[j], tapper)
        out.append((j, settle(rules, target, hands)))
    return tuple(out)


@lru_cache(maxsize=SEAT_CACHE)
def self_taps(rules: Rules, seat: Seat) -> tuple[tuple[int, int, Seat], ...]:
    """Self-attack: (tapping hand, tapped own hand, resulting seat), one per distinct pair of values."""
    if not rules.has("self-attack") or not seat.alive:
        return ()
    out = []
    hands = seat.hands
    for i in distinct_live(hands):
        seen: set[int] = set()
        for j, v in enumerate(hands):
            if j == i or not v or v in seen:
                continue
            seen.add(v)
            new = list(hands)
            new[j] = tapped(rules, v, hands[i])
            out.append((i, j, settle(rules, seat, new)))
    return tuple(out)


@lru_cache(maxsize=SEAT_CACHE)
def _sorted_hands_with_total(hands: int, limit: int, total: int) -> tuple[Hands, ...]:
    return tuple(c for c in combinations_with_replacement(range(limit), hands) if sum(c) == total)


def _may_become(rules: Rules, before: Hands, after: Hands) -> bool:
    """Whether a split (or meta's re-split) may turn `before` into `after` under these rules."""
    if after == before or not any(after):
        return False
    dead_before, dead_after = before.count(0), after.count(0)
    if dead_after > dead_before + (1 if rules.has("suicide") else 0):
        return False
    if rules.has("transfers-only") and dead_after < dead_before:
        return False
    if rules.has("divisions-only") and dead_after >= dead_before:
        return False
    if rules.unit > 1 and sum(v % rules.unit != 0 for v in after) > 1:
        return False  # stumps: a split never creates a second half finger
    # halves: all hands equal, or with the odd option at most one finger apart
    return not (rules.has("halves") and max(after) - min(after) > (rules.unit if rules.odd else 0))


@lru_cache(maxsize=SEAT_CACHE)
def redistributions(rules: Rules, before: Hands) -> tuple[Hands, ...]:
    """The hands a split can reach from `before`: plain splits, then meta combines, then the stump split."""
    h, limit, total = rules.hands, rules.limit, sum(before)
    out = [a for a in _sorted_hands_with_total(h, limit, total) if _may_become(rules, before, a)]
    if rules.has("meta") and total > limit:
        out += [a for a in _sorted_hands_with_total(h, limit, total - limit) if _may_become(rules, before, a)]
    if rules.has("stumps") and before == (0,) * (h - 1) + (rules.unit,):
        out.append((0,) * (h - 2) + (1, 1))
    return tuple(out)


def _may_swap(rules: Rules, hands: Hands) -> bool:
    live = {v for v in hands if v}
    if rules.has("swap") and len(live) >= 2:
        return True
    if rules.has("logan") and live and 0 in hands:
        return True
    return rules.has("cherry") and len(set(hands)) >= 2


@lru_cache(maxsize=SEAT_CACHE)
def own_moves(rules: Rules, seat: Seat) -> tuple[tuple[Action, Seat], ...]:
    """The mover's moves that change only their own seat, other than self-attacks: splits, swap, flips."""
    if not seat.alive:
        return ()
    hands = seat.hands
    out: list[tuple[Action, Seat]] = [
        (Split(hands, after, rules.unit), settle(rules, seat, after)) for after in redistributions(rules, hands)
    ]
    if _may_swap(rules, hands):
        out.append((Swap(), seat))
    if rules.has("integers"):
        for i in distinct_live(hands):
            flipped = rules.limit - hands[i]
            if flipped != hands[i]:
                new = list(hands)
                new[i] = flipped
                out.append((Flip(i), settle(rules, seat, new)))
    return tuple(out)


def successors(rules: Rules, table: Table, mover: int) -> list[Successor]:
    """Every legal move of `mover` with the table it leads to, in the stable order players see.

    Order: attacks by tapping hand, then by target letter (own hands first with self-attack); then splits
    (plain, meta, stump), swap, flips.
    """
    me = table[mover]
    if me.out:
        return []
    p, h = rules.players, rules.hands
    before, after = table[:mover], table[mover + 1:]
    # (first letter of the seat, seats before it, the seat, seats after it) for every seat that can be tapped
    targets = [(rel * h, table[:s], table[s], table[s + 1:])
               for rel in range(1, p) for s in [(mover + rel) % p] if table[s].alive]
    taps = self_taps(rules, me)
    out: list[Successor] = []
    append = out.append
    for i in distinct_live(me.hands):
        for hand, j, seat in taps:
            if hand == i:
                append((Attack(i, j), (*before, seat, *after)))
        value = me.hands[i]
        for base, head, target, tail in targets:
            for j, seat in tap_results(rules, value, target):
                append((Attack(i, base + j), (*head, seat, *tail)))
    for action, seat in own_moves(rules, me):
        append((action, (*before, seat, *after)))
    return out


def next_to_move(table: Table, mover: int) -> int:
    """The seat after `mover` that still takes turns (zombies do); `mover + 1` when nobody else does."""
    p = len(table)
    for rel in range(1, p):
        seat = (mover + rel) % p
        if not table[seat].out:
            return seat
    return (mover + 1) % p

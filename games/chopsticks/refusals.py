"""Why a Chopsticks move is refused: a reason worded for the player, for each way a move can be illegal.

The engine asks only once a move is not among the legal ones (`ChopsticksState.apply`); the reasons are texts,
shown in the player's language where the refusal is answered. They read the position as `moves.py` does (the rules,
one `Seat` per seat and the seat to move), so this module needs nothing of the engine's.
"""

from __future__ import annotations

from games.base import Action
from games.chopsticks.actions import Attack, Flip, Split, Swap
from games.chopsticks.moves import redistributions
from games.chopsticks.notation import Hands, hands_text, value_label
from games.chopsticks.position import Table
from games.chopsticks.rules import Rules
from games.text import Plural, Text, either


def why_illegal(rules: Rules, table: Table, to_move: int, action: Action) -> Text:
    """A player-facing reason why `action` of the seat `to_move`, not among the legal moves, is refused."""
    me = table[to_move]
    if isinstance(action, Attack):
        return _why_attack_illegal(rules, table, to_move, action)
    if me.zombie:
        return Text("A zombie can only tap.")
    if isinstance(action, Split):
        return _why_split_illegal(rules, me.hands, action)
    if isinstance(action, Swap):
        if not {"swap", "logan", "cherry"} & rules.variants:
            return Text("Swapping your hands is not a move in these rules.")
        needs = [text for name, text in (("swap", Text("swap needs two different live hands")),
                                         ("logan", Text("Logan's clause needs a dead and a live hand")),
                                         ("cherry", Text("rearranging needs two different hands")))
                 if rules.has(name)]
        return Text("You can't swap now: {reasons}.", reasons=either(needs))
    if isinstance(action, Flip):
        if not rules.has("integers"):
            return Text("Flipping a hand is only a move with the integers variant.")
        if not 0 <= action.hand < rules.hands:
            return Text("There is no such hand.")
        if not me.hands[action.hand]:
            return Text("A dead hand cannot flip.")
        return Text("Flipping that hand would not change it.")
    return Text("That move is not allowed here.")


def _why_attack_illegal(rules: Rules, table: Table, to_move: int, attack: Attack) -> Text:
    p, h = rules.players, rules.hands
    if not (0 <= attack.hand < h and 0 <= attack.target < p * h):
        return Text("There is no such hand.")
    rel, j = divmod(attack.target, h)
    mine = table[to_move].hands
    target = table[(to_move + rel) % p]
    if rel == 0 and not rules.has("self-attack"):
        return Text("You cannot tap your own hand.")
    if rel == 0 and j == attack.hand:
        return Text("A hand cannot tap itself.")
    if mine[attack.hand] == 0:
        return Text("A dead hand cannot tap.")
    if rel and target.zombie:
        return Text("Zombies cannot be tapped.")
    if rel and target.out:
        return Text("That player is out.")
    if target.hands[j] == 0:
        return Text("You cannot tap a dead hand.")
    return Text("That tap is not allowed here.")


def _why_split_illegal(rules: Rules, mine: Hands, split: Split) -> Text:
    unit = rules.unit
    before, after = tuple(split.before), tuple(split.after)
    if before != mine:
        return Text("Your hands are {hands}, not {written}.", hands=hands_text(mine, unit),
                    written=hands_text(before, unit))
    if after != tuple(sorted(after)):
        return Text("Write the hands after the split in ascending order ({hands}).",
                    hands=hands_text(tuple(sorted(after)), unit))
    if max(after) >= rules.limit:
        return Plural("A hand can hold at most {count} finger.", "A hand can hold at most {count} fingers.",
                      rules.rollover - 1)
    if after == mine:
        return Text("A split must change your hands: swapping them is not a move.")
    total, new_total = sum(mine), sum(after)
    combining = rules.has("meta") and total > rules.limit and new_total == total - rules.limit
    if new_total != total and not combining:
        if rules.has("meta") and total > rules.limit:
            return Text("A split keeps your {total} fingers (or, combining with meta, {combined}); {hands} has "
                        "{written}.", total=value_label(total, unit),
                        combined=value_label(total - rules.limit, unit), hands=hands_text(after, unit),
                        written=value_label(new_total, unit))
        return Text("A split keeps your {total} fingers; {hands} has {written}.", total=value_label(total, unit),
                    hands=hands_text(after, unit), written=value_label(new_total, unit))
    dead_before, dead_after = mine.count(0), after.count(0)
    if not any(after):
        return Text("A split cannot kill all your hands.")
    if dead_after > dead_before:
        if not rules.has("suicide"):
            return Text("You cannot kill your own hand with a split.")
        if dead_after > dead_before + 1:
            return Text("A split may kill only one of your hands.")
    if rules.has("transfers-only") and dead_after < dead_before:
        return Text("With transfers-only a split cannot revive a dead hand.")
    if rules.has("divisions-only") and dead_after >= dead_before:
        return Text("With divisions-only a split must revive a dead hand.")
    if unit > 1 and sum(v % unit != 0 for v in after) > 1:
        return Text("Only a single finger can be split into two halves; other splits keep at most one half.")
    if rules.has("halves"):
        return Text("With halves a split must share your fingers as evenly as possible.") if rules.odd else \
            Text("With halves a split must share your fingers equally.")
    if after not in redistributions(rules, mine):
        return Text("That split is not allowed here.")
    return Text("That move is not allowed here.")

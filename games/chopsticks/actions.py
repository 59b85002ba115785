"""Chopsticks moves as small frozen values with stable texts (all match [A-Za-z0-9-]{1,40}).

Hands are lettered in code order: the mover's hands are A, B, ...; the next seat's follow (C, D in a
2-player game with two hands), and so on.

    AC          Attack: hand A taps hand C (the seed's form); AB with self-attack taps your own hand.
    04-13       Split: your hands before and after (the seed's form). The same form covers a meta combine
                (44-12: the total drops by the rollover number) and the stump split (01-aa: a = ½).
    swap        Swap: swap, Logan's dead-for-live swap or a cherry rearrangement; it spends the turn.
    flipB       Flip (integers): hand B becomes the rollover number minus its fingers.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import ascii_uppercase

from games.base import Action, IllegalMoveError
from games.chopsticks.notation import Hands, hands_text, parse_value
from games.chopsticks.rules import Rules
from games.text import Plural, Text

SWAP_TEXT = "swap"
FLIP_PREFIX = "flip"


@dataclass(frozen=True)
class Attack(Action):
    """One of the mover's hands taps a hand; both fields are letter positions in code order (AC = 0, 2)."""

    hand: int
    target: int

    def text(self) -> str:
        return ascii_uppercase[self.hand] + ascii_uppercase[self.target]


@dataclass(frozen=True)
class Split(Action):
    """The mover's hands before and after, sorted, in units of 1/unit finger: `04-13` turns 0,4 into 1,3."""

    before: Hands
    after: Hands
    unit: int = 1

    def text(self) -> str:
        return hands_text(self.before, self.unit) + "-" + hands_text(self.after, self.unit)


@dataclass(frozen=True)
class Swap(Action):
    """Rearrange your own hands (swap, logan, cherry): the position stays, the turn passes."""

    def text(self) -> str:
        return SWAP_TEXT


@dataclass(frozen=True)
class Flip(Action):
    """Integers: the mover's hand (a letter position) becomes the rollover number minus its value."""

    hand: int

    def text(self) -> str:
        return FLIP_PREFIX + ascii_uppercase[self.hand]


def parse_action_text(text: str, rules: Rules) -> Action:
    """The action written as `text` (any letter case); IllegalMoveError if it is not a move's form."""
    text = text.strip()
    h, p, unit = rules.hands, rules.players, rules.unit
    lower = text.lower()
    if lower == SWAP_TEXT:
        return Swap()
    if "-" in text:
        before_s, _, after_s = text.partition("-")
        before = [parse_value(c, unit) for c in before_s]
        after = [parse_value(c, unit) for c in after_s]
        if len(before) != h or len(after) != h or None in before or None in after:
            raise IllegalMoveError(Plural("{text} is not a split: write it like {example} ({count} digit each side).",
                                          "{text} is not a split: write it like {example} ({count} digits each "
                                          "side).", h, text=repr(text), example=f"{'0' * (h - 1)}4-{'1' * (h - 1)}3"))
        return Split(tuple(v for v in before if v is not None), tuple(v for v in after if v is not None), unit)
    letters = ascii_uppercase[: p * h]
    upper = text.upper()
    if lower.startswith(FLIP_PREFIX) and len(text) == len(FLIP_PREFIX) + 1:
        letter = upper[-1]
        if letter not in letters[:h]:
            raise IllegalMoveError(Text("{letter} is not one of your hands; yours are {yours}.", letter=letter,
                                        yours=letters[:h]))
        return Flip(letters.index(letter))
    if len(upper) != 2 or upper[0] not in letters or upper[1] not in letters:
        raise IllegalMoveError(
            Text("{text} is not a move: an attack is two hand letters like AC, a split is like 04-13.", text=repr(text))
        )
    src, dst = letters.index(upper[0]), letters.index(upper[1])
    if src >= h:
        raise IllegalMoveError(Text("{letter} is not one of your hands; yours are {yours}.", letter=upper[0],
                                    yours=letters[:h]))
    return Attack(src, dst)

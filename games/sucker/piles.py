"""Piles on the table and the two order-of-play rules that read them."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from games.base import GameError
from games.sucker.actions import COLOURS


@dataclass(frozen=True)
class Chip:
    """One chip in a pile: its colour (the owning seat's index) and the seat that played it."""

    colour: int
    by: int


Pile = tuple[Chip, ...]  # bottom -> top


def captures(pile: Pile) -> bool:
    """Whether the top chip matches the chip directly beneath it (the pile is captured)."""
    return len(pile) >= 2 and pile[-1].colour == pile[-2].colour


def colours_in(pile: Pile) -> frozenset[int]:
    return frozenset(chip.colour for chip in pile)


def colour_counts(pile: Pile, colours: int) -> list[int]:
    """How many chips of each colour the pile holds, indexed by colour."""
    counts = [0] * colours
    for chip in pile:
        counts[chip.colour] += 1
    return counts


def forced_next(pile: Pile, live: Collection[int]) -> int:
    """The seat forced to move when every live seat's colour is in `pile`.

    It is the seat whose colour's most recently played chip (its topmost one, since chips only go on top)
    lies deepest. Chips are read by colour, as in the seed ("most-recently-played chip (by color)"), not by
    who played them: only that reading is defined for every pile, because a live player may never have
    played on the pile although their colour is in it.
    """
    topmost = {chip.colour: depth for depth, chip in enumerate(pile)}
    missing = [seat for seat in live if seat not in topmost]
    if missing:
        raise ValueError(f"colours {missing} are not in the pile; the next player is not forced")
    return min(live, key=lambda seat: topmost[seat])


def parse_initials(text: str, players: int) -> list[int]:
    """Colours written with their initials ("RBGY"), as colour indices."""
    initials = [name[0].upper() for name in COLOURS[:players]]
    try:
        return [initials.index(letter) for letter in text.upper()]
    except ValueError:
        raise GameError(f"{text!r}: write colours with the initials {''.join(initials)}.") from None

"""So Long Sucker actions and their stable text forms.

Players are named by their colour in every text (`next:blue`, `give:red:blue`), so a log reads the same way
the table talks and no text depends on whether seats count from 0 or 1. Piles count from 1 in texts, as on
the board; internally an action keeps the 0-based pile index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from games.base import Action, IllegalMoveError
from games.sucker.rules import COLOURS as COLOURS  # the colours live with the game's fixed numbers; named here too
from games.sucker.texts import colour_name
from games.text import Joined, Text

NEW_PILE = "new"


@dataclass(frozen=True)
class Play(Action):
    """Play a chip of `colour` on top of pile `pile` (0-based), or start a new pile when `pile` is None."""

    colour: int
    pile: int | None

    def text(self) -> str:
        where = NEW_PILE if self.pile is None else str(self.pile + 1)
        return f"play:{COLOURS[self.colour]}:{where}"


@dataclass(frozen=True)
class Kill(Action):
    """After a capture, the capturing owner kills one chip of `colour` from the captured pile."""

    colour: int

    def text(self) -> str:
        return f"kill:{COLOURS[self.colour]}"


@dataclass(frozen=True)
class NameNext(Action):
    """The mover names the seat that moves next."""

    seat: int

    def text(self) -> str:
        return f"next:{COLOURS[self.seat]}"


@dataclass(frozen=True)
class Decline(Action):
    """A prisoner holder asked to rescue the stuck player declines."""

    def text(self) -> str:
        return "decline"


@dataclass(frozen=True)
class Give(Action):
    """Transfer `count` prisoners of `colour` to seat `to` (a free action; to the stuck player it is a rescue)."""

    colour: int
    to: int
    count: int = 1

    def text(self) -> str:
        suffix = f":{self.count}" if self.count != 1 else ""
        return f"give:{COLOURS[self.colour]}:{COLOURS[self.to]}{suffix}"


@dataclass(frozen=True)
class KillPrisoner(Action):
    """Kill `count` prisoners of `colour` from one's own holdings (a free action)."""

    colour: int
    count: int = 1

    def text(self) -> str:
        suffix = f":{self.count}" if self.count != 1 else ""
        return f"kill-prisoner:{COLOURS[self.colour]}{suffix}"


FREE_ACTIONS = (Give, KillPrisoner)
TEXT_PATTERN = re.compile(r"[A-Za-z0-9:._-]{1,60}")



def parse_action(text: str, players: int) -> Action:
    """The action a text means in a game of `players`; IllegalMoveError if it means nothing."""
    parts = text.strip().lower().split(":")
    verb, args = parts[0], parts[1:]
    if verb == "decline" and not args:
        return Decline()
    if verb == "play" and len(args) == 2:
        return Play(colour_index(args[0], players), None if args[1] == NEW_PILE else _number(args[1], "pile") - 1)
    if verb == "kill" and len(args) == 1:
        return Kill(colour_index(args[0], players))
    if verb == "next" and len(args) == 1:
        return NameNext(colour_index(args[0], players))
    if verb == "give" and len(args) in (2, 3):
        count = _number(args[2], "count") if len(args) == 3 else 1
        return Give(colour_index(args[0], players), colour_index(args[1], players), count)
    if verb == "kill-prisoner" and len(args) in (1, 2):
        count = _number(args[1], "count") if len(args) == 2 else 1
        return KillPrisoner(colour_index(args[0], players), count)
    raise IllegalMoveError(Text("'{text}' is not a So Long Sucker action. Write play:<colour>:<pile number or new>, "
                                "kill:<colour>, next:<colour>, decline, give:<colour>:<to colour>[:count] or "
                                "kill-prisoner:<colour>[:count].", text=text))


def colour_index(name: str, players: int) -> int:
    """The seat (and colour index) of the colour `name` in a game of `players`; IllegalMoveError if none."""
    if name in COLOURS[:players]:
        return COLOURS.index(name)
    raise IllegalMoveError(Text("There is no '{name}' in this game; the colours are {colours}.", name=name,
                                colours=Joined([colour_name(c) for c in COLOURS[:players]], ", ")))


def _number(digits: str, what: str) -> int:
    # Canonical texts never have leading zeros, so "02" is refused rather than silently read as 2.
    if not digits.isdigit() or digits.startswith("0"):
        if what == "pile":
            raise IllegalMoveError(Text("'{text}' is not a pile number.", text=digits))
        raise IllegalMoveError(Text("'{text}' is not a count number.", text=digits))
    return int(digits)

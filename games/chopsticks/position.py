"""A position as the rules see it: one `Seat` per player, and the seed's position code for it.

Code grammar (extends the seed's): every seat in turn order starting with the player to move, each as its
hands in ascending order (see `notation` for half fingers); a zombie seat is its dead hands followed by `z`
(`0z`); when players have more than one life, `/` and one digit per seat in the same order give the lives
left (0 for a seat that is out or a zombie): `1201/23`.
"""

from __future__ import annotations

from typing import NamedTuple

from games.base import InvalidStateError
from games.chopsticks.notation import ZOMBIE_MARK, Hands, hands_text, parse_value
from games.chopsticks.rules import Rules
from games.text import Plural, Text


class Seat(NamedTuple):
    """One player's hands (sorted, in units), lives left (0 when lives are not tracked) and zombie flag."""

    hands: Hands
    lives: int = 0
    zombie: bool = False

    @property
    def out(self) -> bool:
        """No longer takes turns: every hand dead and not a zombie."""
        return not self.zombie and not any(self.hands)

    @property
    def alive(self) -> bool:
        """Still in the running: a live hand and not a zombie."""
        return not self.zombie and any(self.hands)


Table = tuple[Seat, ...]


def zombie_seat(rules: Rules) -> Seat:
    """What a knocked-out player becomes with the zombie variant: one finger on one hand."""
    return Seat((0,) * (rules.hands - 1) + (rules.unit,), 0, True)


def out_seat(rules: Rules) -> Seat:
    return Seat((0,) * rules.hands, 0, False)


def start_seat(rules: Rules) -> Seat:
    return Seat((rules.start_value,) * rules.hands, rules.max_lives, False)


def seat_code(seat: Seat, rules: Rules) -> str:
    if seat.zombie:
        return "0" * (rules.hands - 1) + ZOMBIE_MARK
    return hands_text(seat.hands, rules.unit)


def table_code(seats: Table, rules: Rules) -> str:
    """The code of seats already listed in turn order (the player to move first)."""
    body = "".join(seat_code(seat, rules) for seat in seats)
    if rules.lives > 1:
        body += "/" + "".join(str(seat.lives) for seat in seats)
    return body


def parse_table(code: str, rules: Rules) -> Table:
    """The seats written in `code`, in code order; InvalidStateError with a player-facing reason if malformed."""
    h, p, unit = rules.hands, rules.players, rules.unit
    body, slash, lives_text = code.strip().partition("/")
    if len(body) != p * h:
        raise InvalidStateError(Text("A position code for {players} with {hands} has {wanted} hand characters, not "
                                     "{found}.", players=Plural("{count} player", "{count} players", p),
                                     hands=Plural("{count} hand", "{count} hands", h), wanted=p * h,
                                     found=len(body)))
    seats = []
    for i in range(p):
        chunk = body[i * h:(i + 1) * h]
        if chunk.lower().endswith(ZOMBIE_MARK):
            if not rules.has("zombie") or chunk[:-1] != "0" * (h - 1):
                raise InvalidStateError(Text("{chunk}: a zombie is written {zombie}, and only with the zombie "
                                             "variant.", chunk=repr(chunk), zombie="0" * (h - 1) + ZOMBIE_MARK))
            seats.append(zombie_seat(rules))
            continue
        values = [parse_value(c, unit) for c in chunk]
        if any(v is None for v in values):
            if unit == 2:
                raise InvalidStateError(Text("{chunk}: write each hand as a digit (or a-j for half fingers).",
                                             chunk=repr(chunk)))
            raise InvalidStateError(Text("{chunk}: write each hand as a digit.", chunk=repr(chunk)))
        hands = tuple(v for v in values if v is not None)
        if list(hands) != sorted(hands):
            raise InvalidStateError(Text("Write each player's hands in ascending order: {sorted}, not {chunk}.",
                                         sorted=hands_text(tuple(sorted(hands)), unit), chunk=chunk))
        if max(hands) >= rules.limit:
            raise InvalidStateError(Plural("A hand holds at most {count} finger; {chunk} has more.",
                                           "A hand holds at most {count} fingers; {chunk} has more.",
                                           rules.rollover - 1, chunk=chunk))
        seats.append(Seat(hands, rules.max_lives if any(hands) else 0, False))
    if slash:
        seats = _with_lives(seats, lives_text, rules)
    return tuple(seats)


def _with_lives(seats: list[Seat], text: str, rules: Rules) -> list[Seat]:
    if rules.lives == 1:
        raise InvalidStateError(Text("Only games with sudden-death lives write lives after a '/'."))
    if len(text) != len(seats) or not all(c in "0123456789" for c in text):
        raise InvalidStateError(Plural("After the '/' write one digit of lives per player ({count} digit).",
                                       "After the '/' write one digit of lives per player ({count} digits).",
                                       len(seats)))
    out = []
    for seat, char in zip(seats, text, strict=True):
        lives = int(char)
        if seat.alive and not 1 <= lives <= rules.lives:
            raise InvalidStateError(Text("A player still in has 1 to {most} lives, not {lives}.", most=rules.lives,
                                         lives=lives))
        if not seat.alive and lives:
            raise InvalidStateError(Text("A player who is out (or a zombie) has 0 lives left."))
        out.append(seat._replace(lives=lives))
    return out

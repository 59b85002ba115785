"""Who sits at a So Long Sucker table, as the table talks about them: a person by their mention and colour
(`<@1234> (blue)`), a computer seat as `Bot 1 (green)`, numbered in seat order among the computer seats; and
the latest action in those words (`<@1234> (blue) gives a yellow chip to Bot 1 (green)`).

The engine narrates by seat and colour (`games.sucker.narration`); only this layer knows which seat is whom. The
names are texts (the colour, and "Bot", are words of the reader's language), rendered where they are shown.
"""

from __future__ import annotations

import functools
from functools import partial

from bot.i18n import LANGUAGES, render
from bot.service import GameInfo
from games.sucker.narration import words
from games.sucker.texts import colour_name, every_colour_word
from games.sucker.views import SuckerView
from games.text import Text


def bot_number(game: GameInfo, seat: int) -> int:
    """The computer seat `seat`'s number among the table's computer seats, from 1 in seat order."""
    return sum(1 for s in game.seats[: seat + 1] if s.computer is not None)


def who(game: GameInfo, seat: int) -> Text | str:
    """A seat without its colour: `<@1234>` for a person, `Bot 1` for a computer seat."""
    user = game.user_at(seat)
    return f"<@{user}>" if user is not None else Text("Bot {number}", number=bot_number(game, seat))


def name(game: GameInfo, view: SuckerView, seat: int) -> Text:
    """A seat as the table talks about it: who sits there and their colour."""
    if not 0 <= seat < len(game.seats):
        return Text("someone")
    return Text("{who} ({colour})", who=who(game, seat), colour=colour_name(view.colours[seat]))


def last_said(game: GameInfo, view: SuckerView) -> Text | None:
    """The latest action in words, people named as people (None before the first action and after a draw)."""
    if view.narration is None:
        return None
    return words(view.narration, partial(name, game, view))


def latest_steps(game: GameInfo, view: SuckerView) -> list[Text]:
    """The latest action in words; when computer seats made it, every step of their run in order, from the action
    that began it (a person's, when the table still keeps it): what they did between two redraws is all told."""
    if view.narration is None:
        return []
    recent = view.recent or (view.narration,)
    steps = [recent[-1]]
    for said in reversed(recent[:-1]):
        if not 0 <= steps[0].actor < len(game.seats) or game.seats[steps[0].actor].computer is None:
            break  # the earliest step so far is a person's: the run began there
        steps.insert(0, said)
    return [words(said, partial(name, game, view)) for said in steps]


def computer_seats(game: GameInfo, view: SuckerView) -> list[tuple[int, Text]]:
    """(seat, "Bot N (colour)") of every computer seat still in the game."""
    return [(s.seat, name(game, view, s.seat)) for s in game.seats
            if s.computer is not None and not view.seats[s.seat].defeated]


def typed_colour(typed: str) -> str:
    """The colour a player typed, as the game names it ("blue"), in any language we speak ("синий", "синяя" and
    "синюю" are blue too); what they typed, cleaned, when it is no colour (the game then says which ones exist)."""
    key = folded(typed)
    return _colour_words().get(key, key)


@functools.cache
def _colour_words() -> dict[str, str]:
    return {folded(render(text, language)): english
            for language in LANGUAGES for english, text in every_colour_word()}


def folded(word: str) -> str:
    """A word as typed words are compared: trimmed, lower case, the Russian yo as ye (often written so)."""
    return word.strip().lower().replace("\u0451", "\u0435")

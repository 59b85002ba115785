"""So Long Sucker's words for colours, and texts made of other texts (lists, capitals).

A colour is two things at this table: a player (seat i owns colour i, and the engine calls players by their colour)
and a chip. English says "red" for both, but other languages do not (Russian: the player "красный", a chip
"красная", "красную фишку"), so each use is a text of its own, kept apart by its gettext context:

- `colour_name`: a colour as a name — a player ("red names blue to move next", "<@1> (blue)") or a colour to type
  ("there is no chip of colour «red»");
- `chip_colour`: a chip's colour standing alone, as a label ("red on pile 2", "top: red");
- `chip_colour_object`: a single chip's colour where the chip is what is played, given or killed ("plays a red chip").

The action texts (`play:red:2`) and the views' colour fields stay the English names: they are notation and keys,
never shown as words.
"""

from __future__ import annotations

from collections.abc import Iterable

from games.sucker.rules import COLOURS
from games.text import Text, TextIn, Translate

# Translators: a player's colour used as their name ("red names blue", "<@1> (blue)"); Russian: masculine nominative.
_NAMES: dict[str, Text] = {
    "red": TextIn("colour", "red"),
    "blue": TextIn("colour", "blue"),
    "green": TextIn("colour", "green"),
    "yellow": TextIn("colour", "yellow"),
    "purple": TextIn("colour", "purple"),
    "orange": TextIn("colour", "orange"),
}
# Translators: a chip's colour as a label ("red on pile 2"); Russian: feminine nominative (фишка).
_CHIPS: dict[str, Text] = {
    "red": TextIn("chip colour", "red"),
    "blue": TextIn("chip colour", "blue"),
    "green": TextIn("chip colour", "green"),
    "yellow": TextIn("chip colour", "yellow"),
    "purple": TextIn("chip colour", "purple"),
    "orange": TextIn("chip colour", "orange"),
}
# Translators: the colour of one chip that is played, given or killed ("plays a red chip"); Russian: feminine
# accusative (красную фишку).
_OBJECTS: dict[str, Text] = {
    "red": TextIn("chip colour, object", "red"),
    "blue": TextIn("chip colour, object", "blue"),
    "green": TextIn("chip colour, object", "green"),
    "yellow": TextIn("chip colour, object", "yellow"),
    "purple": TextIn("chip colour, object", "purple"),
    "orange": TextIn("chip colour, object", "orange"),
}
assert set(_NAMES) == set(_CHIPS) == set(_OBJECTS) == set(COLOURS)


def _english(colour: int | str) -> str | None:
    if isinstance(colour, str):
        return colour if colour in COLOURS else None
    return COLOURS[colour] if 0 <= colour < len(COLOURS) else None


def _word(words: dict[str, Text], colour: int | str) -> Text | str:
    english = _english(colour)
    if english is None:  # no such colour: only a broken position or a forged text gets here
        return Text("colour {number}", number=colour) if isinstance(colour, int) else colour
    return words[english]


def colour_name(colour: int | str) -> Text | str:
    """A colour (by its index or English name) as a name: a player, or a colour to type."""
    return _word(_NAMES, colour)


def chip_colour(colour: int | str) -> Text | str:
    """A chip's colour standing alone, as a label."""
    return _word(_CHIPS, colour)


def chip_colour_object(colour: int | str) -> Text | str:
    """The colour of one chip that is played, given or killed."""
    return _word(_OBJECTS, colour)


def every_colour_word() -> Iterable[tuple[str, Text]]:
    """(English name, text) of every way a colour is written, for reading a colour a player typed."""
    for words in (_NAMES, _CHIPS, _OBJECTS):
        yield from words.items()


class Capitalised(Text):
    """A text with its first letter made a capital, in whatever language it is rendered ("Green moves next")."""

    def __init__(self, text: Text | str) -> None:
        super().__init__("", text=text)

    def render(self, translate: Translate | None = None) -> str:
        text = self.args["text"]
        said = text.render(translate) if isinstance(text, Text) else text
        return said[:1].upper() + said[1:]

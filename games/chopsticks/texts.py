"""Texts made of other texts: lines, lists and alternatives whose parts are each translated where shown.

A `Text` has one template; the rules page, a list of refusals or "a or b" are several texts put together, and each
part must be rendered in the reader's language like the rest (see games/text.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from games.text import Text, Translate


class Joined(Text):
    """Texts (or plain strings: codes, names) one after another, with `separator` between them; each part is
    rendered in the same language as the whole. It has no template of its own, so nothing here is translated."""

    def __init__(self, parts: Iterable[Text | str], separator: Text | str = "\n") -> None:
        super().__init__("", parts=tuple(parts), separator=separator)

    @property
    def parts(self) -> tuple[Text | str, ...]:
        parts: tuple[Text | str, ...] = self.args["parts"]
        return parts

    def render(self, translate: Translate | None = None) -> str:
        separator = self.args["separator"]
        between = separator.render(translate) if isinstance(separator, Text) else separator
        return between.join(part.render(translate) if isinstance(part, Text) else part for part in self.parts)


def either(choices: Sequence[Text | str]) -> Text | str:
    """"a or b or c", in the reader's language."""
    if not choices:
        return ""
    said: Text | str = choices[0]
    for choice in choices[1:]:
        said = Text("{first} or {second}", first=said, second=choice)
    return said


def versus(names: Sequence[Text | str]) -> Text | str:
    """"<@1> vs <@2>" for the players of a game, in the reader's language."""
    if not names:
        return ""
    said: Text | str = names[0]
    for name in names[1:]:
        said = Text("{first} vs {second}", first=said, second=name)
    return said

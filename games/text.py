"""Words for people, kept untranslated until they are shown.

A text is its English template (the gettext msgid, with `{name}` placeholders) and the values that fill it; the
place that shows it renders it in the reader's language (`bot.i18n.render`). Rules, views and refusals in
`games/` therefore never need to know who reads them, and `str(text)` is the English, so a refusal raised with a
`Text` still reads as English to code and tests that never translate.

    Text("Your own piece stands on {square}.", square="e5")
    Plural("{count} chip", "{count} chips", count)
    TextIn("button", "Resign")                   # the same English, a different job: translated apart
    Text("Start your own with {command}.", command=Command("generals challenge"))  # "/генералы вызов" in Russian

Values may be texts themselves (rendered in the same language) or anything `str.format` takes. The templates are
found in the source by Babel (keywords `Text`, `Plural` and `TextIn`; `python -m tests.tools.catalogues`), so a
template must be a string literal at the call, never a variable or an f-string.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from string import Formatter
from typing import Any

Translate = Callable[["Text"], str]  # a text's template in some language (the plural form already chosen)


@dataclass(frozen=True, init=False)
class Text:
    msgid: str
    args: Mapping[str, Any] = field(default_factory=dict)
    context: str | None = None
    plural: str | None = None  # the English plural template; `count` chooses the form
    count: int | None = None

    def __init__(self, msgid: str, /, *, context: str | None = None, **args: Any) -> None:
        object.__setattr__(self, "msgid", msgid)
        object.__setattr__(self, "args", dict(args))
        object.__setattr__(self, "context", context)
        object.__setattr__(self, "plural", None)
        object.__setattr__(self, "count", None)

    def render(self, translate: Translate | None = None) -> str:
        """The text with its values filled in, in the language `translate` gives (None: English)."""
        template = self.english_template() if translate is None else translate(self)
        values = {name: value.render(translate) if isinstance(value, Text) else value
                  for name, value in self.args.items()}
        return template.format(**values)

    def english_template(self) -> str:
        if self.plural is not None and self.count != 1:
            return self.plural
        return self.msgid

    def placeholders(self) -> frozenset[str]:
        return placeholders(self.msgid) | (placeholders(self.plural) if self.plural else frozenset())

    def __str__(self) -> str:
        return self.render()


def Plural(singular: str, plural: str, count: int, /, *, context: str | None = None,
           **args: Any) -> Text:
    """A text whose form depends on `count` (available to the templates as `{count}`)."""
    text = Text(singular, context=context, count=count, **args)
    object.__setattr__(text, "plural", plural)
    object.__setattr__(text, "count", count)
    return text


def TextIn(context: str, msgid: str, /, **args: Any) -> Text:
    """A text whose English is used elsewhere for something else (a button's "Resign" and a past "Resign"), kept
    apart in the catalogues by `context`."""
    return Text(msgid, context=context, **args)


COMMAND_NAME = "command name"  # the gettext context of slash-command names, as Discord shows them in its menus


class Command(Text):
    """A slash command named in a text, by its English words: `Command("generals challenge")` (a leading "/" is
    allowed, as `GameDescription.start_command` has it). It is shown as the reader's Discord client shows that
    command, "/" and each word in the reader's language ("/генералы вызов"), so a refusal names a command the
    reader can find in their own menu; `str()` of it is the English, "/generals challenge"."""

    def __init__(self, words: str) -> None:
        super().__init__("", words=tuple(words.removeprefix("/").split()))

    @property
    def words(self) -> tuple[str, ...]:
        words: tuple[str, ...] = self.args["words"]
        return words

    def render(self, translate: Translate | None = None) -> str:
        # Each word on its own: Discord translates a group's name and its subcommands' names apart, and a word
        # without a translation falls back to its English, as Discord's menu would show it.
        if translate is None:
            return "/" + " ".join(self.words)
        return "/" + " ".join(translate(TextIn(COMMAND_NAME, word)) for word in self.words)


class OptionName(Text):
    """A slash command's option named in a text, by its English name: shown as the reader's client names it
    (`OptionName("code")` is "`код`" in Russian), so a refusal names the option the reader sees in their menu."""

    def __init__(self, name: str, *, quoted: bool = False) -> None:
        super().__init__("", name=name, quoted=quoted)

    def render(self, translate: Translate | None = None) -> str:
        name: str = self.args["name"]
        shown = name if translate is None else translate(TextIn(COMMAND_NAME, name))
        return f"`{shown}`" if self.args["quoted"] else shown


# Everything Unicode or Discord breaks a line at (Python's str.splitlines() list: \n, \r, \v, \f, \x1c-\x1e, \x85,
# U+2028, U+2029), and the bidirectional embeddings, overrides and isolates that would reorder the text after it.
_LINE_BREAKS = re.compile("[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]+")
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
# Discord's inline markdown (bold, italics, underline, strike-through, spoilers, code, masked links) anywhere, and
# what marks a whole line (a quote, a heading, subtext, a list) at the start.
_INLINE_MARKUP = re.compile(r"([\\*_~|`\[\]])")
_LINE_MARKUP = re.compile(r"^([>#+-])")
_ORDERED_LIST = re.compile(r"^(\d+)\.")


def one_line(words: str) -> str:
    """`words` on one line: every line or paragraph break a space, bidirectional overrides dropped (for where Discord
    shows no markdown: a menu's option, a button)."""
    return _BIDI_CONTROLS.sub("", _LINE_BREAKS.sub(" ", words)).strip()


class Typed(Text):
    """Words a person typed (a deal, a formation's name), shown as written but on one line and as plain text: line
    breaks become spaces, Discord's markdown is escaped and bidirectional overrides are dropped, so what a player
    writes cannot add a line, a quote or a heading to the bot's message, nor restyle or reorder the words around it.
    The same in every language: nothing in it is translated."""

    def __init__(self, words: str) -> None:
        super().__init__("", words=words)

    def render(self, translate: Translate | None = None) -> str:
        line = _INLINE_MARKUP.sub(r"\\\1", one_line(str(self.args["words"])))
        return _ORDERED_LIST.sub(r"\1\\.", _LINE_MARKUP.sub(r"\\\1", line))


def placeholders(template: str) -> frozenset[str]:
    """The names a template fills in, e.g. {"square"} for "Your own piece stands on {square}."."""
    return frozenset(name.split(".")[0].split("[")[0]
                     for _, name, _, _ in Formatter().parse(template) if name)


def english(value: Text | str) -> str:
    return value.render() if isinstance(value, Text) else value


# ----- texts made of other texts: each part rendered in the reader's language like the whole ----------------------
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


def _chained(parts: Sequence[Text | str], link: Callable[[Text | str, Text | str], Text]) -> Text | str:
    """The parts linked two by two from the left (`link(link(a, b), c)`), "" for none."""
    return reduce(link, parts) if parts else ""


def both(names: Sequence[Text | str]) -> Text | str:
    """"a and b and c", in the reader's language."""
    return _chained(names, lambda first, second: Text("{first} and {second}", first=first, second=second))


def either(choices: Sequence[Text | str]) -> Text | str:
    """"a or b or c", in the reader's language."""
    return _chained(choices, lambda first, second: Text("{first} or {second}", first=first, second=second))


def versus(names: Sequence[Text | str]) -> Text | str:
    """"<@1> vs <@2>" for the players of a game, in the reader's language."""
    return _chained(names, lambda first, second: Text("{first} vs {second}", first=first, second=second))

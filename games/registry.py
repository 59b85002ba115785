"""The one place that knows every game kind: its description, and where its engine and computer players are.

Every list of games in the product (command choices, help, ladders, settings, refusal hints, which Discord
presenters the bot loads) derives from `descriptions()`. A description is plain data: it names its engine,
its computer players and its Discord presenter by module path, so reading a description never imports an
engine (the Discord layer reads descriptions; only the service builds states).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from games.base import InvalidStateError
from games.text import Plural, Text, TextIn


@dataclass(frozen=True)
class GameDescription:
    """Everything the product needs to know about one kind of game, besides its rules."""

    kind: str  # the stored name, e.g. "chopsticks"
    # The texts players read are `Text`s (games/text.py), translated where shown; `str()` of one is its English.
    title: Text | str  # how players call it, e.g. Text("Chopsticks")
    min_players: int
    max_players: int
    hidden_information: bool  # whether players see different things (private boards, leak tests)
    bot_levels: tuple[str, ...]  # computer player levels, weakest first; empty: no computer player
    default_bot_level: str | None
    start_command: str  # the command that starts a game, e.g. "/chopsticks challenge"
    summary: Text | str  # a few lines for /help: what the game is
    engine: str  # "module:StateClass" (resolved by games.engines, for the service only)
    computer: str | None  # "module:function", a ComputerPlayer
    presenter: str  # the Discord extension module that presents it (loaded by the bot)
    # How to play, for /<game> rules and /help: one text of Discord markdown (at most 4000 characters).
    rules: Text | str = ""
    # What a turn timer counts, as in "24 h per move": So Long Sucker's clock runs per decision (a play, a kill,
    # naming the next player, a rescue), so lobbies, challenges and boards all take the word from here.
    turn_word: Text | str = field(default_factory=lambda: TextIn("turn word", "move"))

    def player_range(self) -> Text:
        if self.min_players == self.max_players:
            return Plural("{count} player", "{count} players", self.min_players)
        return Text("{low}-{high} players", low=self.min_players, high=self.max_players)


_DESCRIPTIONS: dict[str, GameDescription] = {}
# The built-in games in the order players see them; any other package of games/ with a `description` module
# (a new game) is found and listed after them, so adding a game changes no file outside its own.
BUILTIN_ORDER = ("chopsticks", "generals", "sucker")


def register(description: GameDescription) -> GameDescription:
    """Make a game kind known (the built-in ones register themselves; tests may add their own)."""
    known = _DESCRIPTIONS.get(description.kind)
    if known is not None and known != description:
        raise ValueError(f"game kind {description.kind!r} registered twice")
    _DESCRIPTIONS[description.kind] = description
    return description


def unregister(kind: str) -> None:
    """Forget a game kind that was registered at run time (tests clean up after themselves)."""
    _DESCRIPTIONS.pop(kind, None)


def descriptions() -> tuple[GameDescription, ...]:
    """Every game kind, in the order players see them listed."""
    _load_builtin_games()
    return tuple(_DESCRIPTIONS.values())


def describe(kind: str) -> GameDescription:
    _load_builtin_games()
    try:
        return _DESCRIPTIONS[kind]
    except KeyError:
        raise InvalidStateError(f"unknown game kind {kind!r}") from None


def registered_kinds() -> list[str]:
    return sorted(d.kind for d in descriptions())


@cache
def resolve(target: str) -> Any:
    """The object a description names as "module:name" (imported on first use)."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


@cache
def _load_builtin_games() -> None:
    # Imported on first use rather than at import time, so `games.base` and this module load without any game.
    import games

    found = {m.name for m in pkgutil.iter_modules(games.__path__) if m.ispkg
             and importlib.util.find_spec(f"games.{m.name}.description") is not None}
    for name in sorted(found, key=lambda n: (BUILTIN_ORDER.index(n) if n in BUILTIN_ORDER else len(BUILTIN_ORDER), n)):
        register(importlib.import_module(f"games.{name}.description").DESCRIPTION)

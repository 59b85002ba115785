"""Game kinds by name, so storage and the service can rebuild any game from its kind and snapshot."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import Any

from games.base import GameState, InvalidStateError

_KINDS: dict[str, type[GameState]] = {}


def register(cls: type[GameState]) -> type[GameState]:
    """Class decorator: make a game kind known by its `kind` name."""
    if cls.kind in _KINDS and _KINDS[cls.kind] is not cls:
        raise ValueError(f"game kind {cls.kind!r} registered twice")
    _KINDS[cls.kind] = cls
    return cls


def game_class(kind: str) -> type[GameState]:
    _load_builtin_games()
    try:
        return _KINDS[kind]
    except KeyError:
        raise InvalidStateError(f"unknown game kind {kind!r}") from None


def registered_kinds() -> list[str]:
    _load_builtin_games()
    return sorted(_KINDS)


def replay(kind: str, initial: Mapping[str, Any], moves: Iterable[tuple[int, str]]) -> GameState:
    """Rebuild a game from its initial snapshot and its move log of (seat, action text)."""
    state = game_class(kind).from_dict(initial)
    for seat, text in moves:
        state = state.apply_text(seat, text)
    return state


BUILTIN_GAMES = ("games.chopsticks", "games.generals", "games.sucker")


def _load_builtin_games() -> None:
    # Imported lazily so that `games.base` has no import cycle with the games that register themselves.
    for module in BUILTIN_GAMES:
        importlib.import_module(module)

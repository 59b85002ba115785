"""Engines and computer players by game kind, for the service, storage tools and tests.

Never for the Discord layer: it gets views from the service (an import contract in pyproject.toml checks it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from games.base import Action, GameState, InvalidStateError
from games.registry import describe, resolve

# A computer player: (state, seat, level, rng) -> the action it takes. It must only use what that seat may know.
ComputerPlayer = Callable[[Any, int, str, random.Random], Action]


def game_class(kind: str) -> type[GameState[Any, Any]]:
    """The engine of `kind` (for the service, storage tools and tests; never for the Discord layer)."""
    cls = resolve(describe(kind).engine)
    if not (isinstance(cls, type) and issubclass(cls, GameState)):
        raise TypeError(f"{describe(kind).engine} is not a game state class")
    return cls


def computer_player(kind: str) -> ComputerPlayer:
    target = describe(kind).computer
    if target is None:
        raise InvalidStateError(f"{describe(kind).title} has no computer player")
    player: ComputerPlayer = resolve(target)
    return player


def replay(kind: str, initial: Mapping[str, Any], moves: Iterable[tuple[int, str]]) -> GameState[Any, Any]:
    """Rebuild a game from its initial snapshot and its move log of (seat, action text)."""
    state = game_class(kind).from_dict(initial)
    for seat, text in moves:
        state = state.apply_text(seat, text)
    return state

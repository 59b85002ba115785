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
    return _state_class(describe(kind).engine)


def _state_class(target: str) -> type[GameState[Any, Any]]:
    cls = resolve(target)
    if not (isinstance(cls, type) and issubclass(cls, GameState)):
        raise TypeError(f"{target} is not a game state class")
    return cls


def computer_player(kind: str) -> ComputerPlayer:
    return _computer(computer_targets(kind)[1])


def _computer(target: str) -> ComputerPlayer:
    player: ComputerPlayer = resolve(target)
    return player


def computer_targets(kind: str) -> tuple[str, str]:
    """Where the engine and the computer player of `kind` are ("module:name"), for `computer_move`."""
    description = describe(kind)
    if description.computer is None:
        raise InvalidStateError(f"{description.title} has no computer player")
    return description.engine, description.computer


def computer_move(engine: str, computer: str, snapshot: Mapping[str, Any], seat: int, level: str,
                  seed: str | None = None) -> str:
    """The text of the action the computer player `computer` takes at `level` for `seat`, in the game of `engine`
    stored as `snapshot` (`computer_targets` names both).

    Plain data in and out, so that the bot can run it in another process (whose registry need not know the game:
    a kind registered at run time). Its randomness is the operating system's, drawn here: nobody can foresee or
    reconstruct a computer player's choices (its hidden setup above all) from anything public, and the chosen
    action, which the move log stores, replays exactly. Only a test pins it, with a `seed` (the golden transcripts,
    tests/tools/transcript.py): the bot passes one only when its service was given one (`GameService.computer_seed`),
    which no setting does."""
    state = _state_class(engine).from_dict(snapshot)
    rng = random.SystemRandom() if seed is None else random.Random(seed)
    return _computer(computer)(state, seat, level, rng).text()


def replay(kind: str, initial: Mapping[str, Any], moves: Iterable[tuple[int, str]]) -> GameState[Any, Any]:
    """Rebuild a game from its initial snapshot and its move log of (seat, action text)."""
    state = game_class(kind).from_dict(initial)
    for seat, text in moves:
        state = state.apply_text(seat, text)
    return state

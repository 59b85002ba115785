"""Pure game rules: no Discord, no database, no asyncio, no global randomness."""

from games.base import (
    Action,
    GameError,
    GameOverError,
    GameState,
    IllegalMoveError,
    InvalidStateError,
    NotYourTurnError,
    Outcome,
)
from games.registry import game_class, registered_kinds, replay

__all__ = [
    "Action",
    "GameError",
    "GameOverError",
    "GameState",
    "IllegalMoveError",
    "InvalidStateError",
    "NotYourTurnError",
    "Outcome",
    "game_class",
    "registered_kinds",
    "replay",
]

"""Pure game rules: no Discord, no database, no asyncio, no global randomness."""

from games.base import (
    Action,
    EndReason,
    GameError,
    GameOverError,
    GameState,
    IllegalMoveError,
    InvalidStateError,
    NotYourTurnError,
    Outcome,
)
from games.engines import game_class, replay
from games.registry import GameDescription, describe, descriptions, registered_kinds

__all__ = [
    "Action",
    "EndReason",
    "GameDescription",
    "GameError",
    "GameOverError",
    "GameState",
    "IllegalMoveError",
    "InvalidStateError",
    "NotYourTurnError",
    "Outcome",
    "describe",
    "descriptions",
    "game_class",
    "registered_kinds",
    "replay",
]

"""The computer player as the service calls it: the engine hands the AI one seat's view, and nothing else.

Kept apart from `ai.py`, which never imports the engine (it only ever sees a `PlayerView`), and from the engine,
which never imports computer players.
"""

from __future__ import annotations

import random

from games.base import Action, GameError, GameOverError, NotYourTurnError
from games.generals.ai import LEVELS, choose_action
from games.generals.engine import GeneralsState


def bot_action(state: GeneralsState, player: int, level: str, rng: random.Random) -> Action:
    """The computer player's action for `player`, chosen from that seat's view (so it cannot play on hidden
    information); `rng` must be randomness no player can know (the service passes the operating system's)."""
    if level not in LEVELS:
        raise GameError(f"There is no {level!r} Generals bot; choose from {', '.join(LEVELS)}.")
    if state.is_over:
        raise GameOverError("The game is over.")
    if not state.legal_actions(player):
        raise NotYourTurnError("It is not the bot's turn.")
    return state.parse_action(choose_action(state.view_for(player), level, rng))

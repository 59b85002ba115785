"""Game of the Generals (Salpakan), with the bot as the neutral arbiter (rules: ../shared/rules/generals.md)."""

from games.generals.actions import Deploy, Move, Ready, Swap, public_log_text
from games.generals.engine import GeneralsState
from games.generals.pieces import Rank, Result, challenge
from games.generals.rules import Settings
from games.generals.setup import (
    FORMATIONS,
    SetupError,
    format_grid,
    formation,
    grid_from_squares,
    import_grid,
    random_setup,
)
from games.generals.views import PlayerView, PublicView

__all__ = [
    "FORMATIONS",
    "Deploy",
    "GeneralsState",
    "Move",
    "PlayerView",
    "PublicView",
    "Rank",
    "Ready",
    "Result",
    "Settings",
    "SetupError",
    "Swap",
    "challenge",
    "format_grid",
    "formation",
    "grid_from_squares",
    "import_grid",
    "public_log_text",
    "random_setup",
]

"""Chopsticks, the finger game (rules: ../shared/rules/chopsticks.md)."""

from games.chopsticks.actions import Attack, Flip, Split, Swap
from games.chopsticks.engine import ChopsticksState, parse_code
from games.chopsticks.rules import PRESETS, VARIANTS, Rules
from games.chopsticks.views import ChopsticksView, MoveChoice

__all__ = [
    "PRESETS",
    "VARIANTS",
    "Attack",
    "ChopsticksState",
    "ChopsticksView",
    "Flip",
    "MoveChoice",
    "Rules",
    "Split",
    "Swap",
    "parse_code",
]

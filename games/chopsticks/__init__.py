"""Chopsticks, the finger game (rules: ../shared/rules/chopsticks.md)."""

from games.chopsticks.actions import Attack, Flip, Split, Swap
from games.chopsticks.engine import ChopsticksState, ChopsticksView, parse_code
from games.chopsticks.rules import PRESETS, VARIANTS, Rules

__all__ = [
    "PRESETS",
    "VARIANTS",
    "Attack",
    "ChopsticksState",
    "ChopsticksView",
    "Flip",
    "Rules",
    "Split",
    "Swap",
    "parse_code",
]

"""Chopsticks, the finger game (rules: ../shared/rules/chopsticks.md)."""

from games.chopsticks.engine import Attack, ChopsticksState, ChopsticksView, Split, parse_code
from games.chopsticks.rules import Rules

__all__ = ["Attack", "ChopsticksState", "ChopsticksView", "Rules", "Split", "parse_code"]

"""So Long Sucker, the game of alliances and betrayal (rules: ../shared/rules/so-long-sucker.md)."""

from games.sucker.actions import COLOURS, Decline, Give, Kill, KillPrisoner, NameNext, Play
from games.sucker.engine import SuckerState
from games.sucker.narration import Deed, Narration
from games.sucker.piles import Chip, Pile, forced_next
from games.sucker.rules import (
    DEFAULT_CHIPS,
    DEFAULT_PLAYERS,
    MAX_CHIPS,
    MAX_PLAYERS,
    MIN_CHIPS,
    MIN_PLAYERS,
    Phase,
)
from games.sucker.views import ChipView, ChoiceView, PileView, SeatView, SuckerView

__all__ = [
    "COLOURS",
    "DEFAULT_CHIPS",
    "DEFAULT_PLAYERS",
    "MAX_CHIPS",
    "MAX_PLAYERS",
    "MIN_CHIPS",
    "MIN_PLAYERS",
    "Chip",
    "ChipView",
    "ChoiceView",
    "Decline",
    "Deed",
    "Give",
    "Kill",
    "KillPrisoner",
    "NameNext",
    "Narration",
    "Phase",
    "Pile",
    "PileView",
    "Play",
    "SeatView",
    "SuckerState",
    "SuckerView",
    "forced_next",
]

"""Deals: promises made at the table, numbered and kept with the game but never enforced. Who may still take part
in one is a rule of the game, so it lives here rather than with the buttons."""

from __future__ import annotations

from games.base import GameOverError, IllegalMoveError
from games.sucker.engine import SuckerState
from games.text import Text


def check_deal_party(state: SuckerState, seat: int) -> None:
    """Refuse `seat` a part in a deal (proposing one, accepting one, or taking an acceptance back) when that can no
    longer mean anything: the game is over, or they are defeated and have left the table with nothing."""
    if state.outcome() is not None:
        raise GameOverError(Text("This game is over: its deals can no longer be made, accepted or taken back."))
    if not 0 <= seat < state.players:
        raise IllegalMoveError(Text("There is no seat {number} in this game.", number=seat))
    if not state.is_live(seat):
        raise IllegalMoveError(Text("You are out of this game (defeated): deals are for the players still in it."))

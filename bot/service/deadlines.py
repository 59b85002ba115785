"""When a decision's deadline and its one reminder fall: set as the decision passes to a person, kept while it stays
with them, none while a computer player decides.

Pure functions of the game and the clock: creating a game, accepting a challenge and writing a move ask them; the
timers part (game_timers.py) fires what they set, once it is due.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.service.model import Game
from games import GameState
from storage import Seat

REMINDER_FRACTION = 0.75  # the one reminder comes when three quarters of the turn time has passed


def turn_timers(
    state: GameState[Any, Any], seats: Sequence[Seat], timeout: float, now: float
) -> tuple[float | None, float | None]:
    """The deadline and reminder of a decision that begins `now`: none when nobody, or a computer player, decides."""
    seat = state.current_player()
    if seat is None or seats[seat].computer is not None:
        return None, None
    return now + timeout, now + timeout * REMINDER_FRACTION


def next_timers(game: Game, state: GameState[Any, Any], now: float) -> tuple[float | None, float | None]:
    """The deadline and reminder after `game` moves to `state`. They move only when the decision passes to someone
    else: free actions by others (transfers) and setup edits leave them where they are, and the secret setup has one
    deadline from start to play."""
    record = game.record
    same_decider = state.current_player() == game.state.current_player()
    still_setting_up = not state.began() and record.deadline is not None
    if still_setting_up or (same_decider and state.began() == game.state.began() and record.deadline is not None):
        return record.deadline, record.remind_at
    return turn_timers(state, record.seats, record.turn_timeout, now)

"""So Long Sucker's fixed numbers and the phases of a turn."""

from __future__ import annotations

from enum import StrEnum

MIN_PLAYERS, MAX_PLAYERS, DEFAULT_PLAYERS = 3, 6, 4
MIN_CHIPS, MAX_CHIPS, DEFAULT_CHIPS = 3, 10, 7



class Phase(StrEnum):
    """What kind of decision the game is waiting for."""

    PLAY = "play"  # the mover plays a chip
    KILL = "kill"  # the capturing owner kills one chip of the captured pile
    NAME = "name"  # the mover names the next player
    RESCUE = "rescue"  # prisoner holders decide, one at a time, whether to rescue the stuck mover
    OVER = "over"

"""So Long Sucker's fixed numbers and the phases of a turn."""

from __future__ import annotations

from enum import StrEnum

MIN_PLAYERS, MAX_PLAYERS, DEFAULT_PLAYERS = 3, 6, 4
MIN_CHIPS, MAX_CHIPS, DEFAULT_CHIPS = 3, 10, 7
# Every game ends after this many decisions in all (plays, moves named, kills, rescues given or declined; not the free
# transfers and kills of prisoners): the players still in share the win (rules: "No game without end").
DECISION_LIMIT = 1000
# Seat i owns COLOURS[i]; a game of n players uses the first n. These English names are also the notation (action
# texts such as `play:red:2`); the words people read for them are in games/sucker/texts.py.
COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow", "purple", "orange")


class Phase(StrEnum):
    """What kind of decision the game is waiting for."""

    PLAY = "play"  # the mover plays a chip
    KILL = "kill"  # the capturing owner kills one chip of the captured pile
    NAME = "name"  # the mover names the next player
    RESCUE = "rescue"  # prisoner holders decide, one at a time, whether to rescue the stuck mover
    OVER = "over"

"""A clock the tests move by hand: the service's `clock`, so that timers fall due when a test says so."""

from __future__ import annotations

import time
from typing import Any


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


# Longer than a person stays "at the table" after their move (bot/notifications.py AT_TABLE): a test that moves its
# clock on by this before each click plays as people who come back to the game when pinged, so every decision pings.
AWAY = 61.0


def real_time_clock(service: Any) -> Clock:
    """Pin the bot's (or service's) clock to a `Clock` that starts at the real time (the games' deadlines stay real)
    and that the test moves on by hand."""
    clock = Clock(time.time())
    service.clock = clock
    return clock

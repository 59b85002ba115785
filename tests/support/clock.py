"""A clock the tests move by hand: the service's `clock`, so that timers fall due when a test says so."""

from __future__ import annotations


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

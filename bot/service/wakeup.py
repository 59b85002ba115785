"""`TimerWakeup`: how writes wake the timer loop (bot/service/timers.py).

`set()` says that the deadlines changed in a way the loop must read again (it fires what is due and reads the next
deadline). `at(when)` says that a write set a deadline or reminder falling at `when` and did nothing else the loop
needs to read: a move, which moves its own game's deadline. The loop then only needs to wake earlier if `when` is
before the deadline it already waits for; a deadline the write moved later or removed makes it wake too early, find
nothing due and read again, never too late. So a move costs the loop no statement unless a deadline falls at once.
"""

from __future__ import annotations

import asyncio


class TimerWakeup(asyncio.Event):
    def __init__(self) -> None:
        super().__init__()
        self._full = False  # a `set()` since the last `take`: read the deadlines again
        self._earliest: float | None = None  # the earliest `at` since the last `take`

    def set(self) -> None:
        self._full = True
        super().set()

    def at(self, when: float | None) -> None:
        """A write set a deadline at `when` (None: none); it moved or removed no other game's."""
        if when is None:
            return
        if self._earliest is None or when < self._earliest:
            self._earliest = when
        super().set()

    def take(self) -> tuple[bool, float | None]:
        """Clear the event; returns whether a `set()` came since the last take, and the earliest `at` since then."""
        taken = self._full, self._earliest
        self._full, self._earliest = False, None
        self.clear()
        return taken

"""Who is told of committed changes: the Discord layer listens here to notify players (whose decision it is, a game's
end, ...), each listener in a task of its own so that a slow notification never holds up a move."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from bot.service.results import Result
from bot.service.tasks import background

Listener = Callable[[Result[Any, Any]], Coroutine[Any, Any, None]]


class Publisher:
    def __init__(self) -> None:
        # Told of every committed change, once it is committed; the bot appends and removes its listeners here.
        self.listeners: list[Listener] = []
        self._telling: set[asyncio.Task[None]] = set()

    def publish(self, result: Result[Any, Any]) -> Result[Any, Any]:
        """Tell the listeners about a committed change (with its events, if any: a change without one, such as a
        computer player's decision that leaves the decision with it, may still say something, like a defeat);
        returns `result`."""
        for listener in self.listeners:
            task = background(listener(result), name=f"events-{result.id}")
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)
        return result

    async def told(self) -> None:
        """Wait until every listener has heard every change so far (tests and shutdown)."""
        while self._telling:
            await asyncio.gather(*self._telling, return_exceptions=True)

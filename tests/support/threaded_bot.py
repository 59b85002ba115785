"""A bot process of its own that a test can pause: the real bot on an event loop in a thread of the test process.

Its loop can be blocked for a while (`pause`), as a long garbage collection, a SIGSTOP or a frozen VM stops a process:
nothing of it runs, while the fake Discord, the databases' clocks and the other bots (on the test's own loop) go on.
Whatever the paused bot had in flight (a request to Discord, a query) is answered meanwhile and read once it wakes.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Coroutine
from typing import Any, TypeVar

import aiosqlite

from bot.client import TabletopBot
from tests.support.world import TabletopRunner

T = TypeVar("T")


class ThreadedBot:
    def __init__(self, runner: TabletopRunner) -> None:
        self.runner = runner
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="paused-bot", daemon=True)
        self._thread.start()

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the bot's own loop and wait for it from the test's."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    async def start(self, **overrides: Any) -> TabletopBot:
        """Start the bot (settings changed as `TabletopRunner.start_with`) and wait until it is connected."""
        return await self.run(self.runner.start_with(**overrides))

    def pause(self, seconds: float) -> None:
        """Block the bot's event loop for `seconds` from now (time.sleep in a callback of the loop itself), at a moment
        it has no SQLite transaction open: a process paused inside one would hold the file's write lock, and every
        other process would wait for it (SQLite's nature; what is proved here is what happens around the pause)."""

        def sleep_when_idle() -> None:
            if self._in_transaction():
                self._loop.call_later(0.005, sleep_when_idle)
            else:
                time.sleep(seconds)

        self._loop.call_soon_threadsafe(sleep_when_idle)

    def _in_transaction(self) -> bool:
        for bot, _ in self.runner.running:
            connection = getattr(bot.service.db, "_conn", None)  # a SQLite file's one connection (storage/db.py)
            if isinstance(connection, aiosqlite.Connection) and connection.in_transaction:
                return True
        return False

    async def close(self) -> None:
        """Stop the bot (after a pause, once it is over) and its loop."""
        try:
            await self.run(self.runner.stop_all())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            await asyncio.to_thread(self._thread.join)
            self._loop.close()

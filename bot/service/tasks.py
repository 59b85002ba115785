"""Background tasks that never die silently: every task the bot starts on its own goes through `background`.

asyncio only reports a task's exception when the task is garbage-collected unretrieved ("Task exception was never
retrieved"), and not at all when something gathers it with `return_exceptions=True` at shutdown: a board restore
or a timer loop that failed would leave no trace. `background` logs the failure, with its traceback, the moment the
task ends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from storage.health import UnusableDatabaseError

log = logging.getLogger(__name__)
T = TypeVar("T")


def background(coro: Coroutine[Any, Any, T], *, name: str) -> asyncio.Task[T]:
    """Run `coro` as a task named `name`; an exception that ends it is logged as an ERROR naming the task."""
    task = asyncio.create_task(coro, name=name)
    task.add_done_callback(_log_failure)
    return task


def _log_failure(task: asyncio.Task[Any]) -> None:
    if task.cancelled():
        return
    exc = task.exception()  # also marks it retrieved: asyncio will not report it a second time
    if exc is None:
        return
    if isinstance(exc, UnusableDatabaseError):  # its message names the file and what to do
        log.error("background task %s stopped: %s", task.get_name(), exc, exc_info=exc)
    else:
        log.error("background task %s failed", task.get_name(), exc_info=exc)


class Background:
    """One named background task that its owner starts at most once (until stopped) and stops: cancelled, then
    waited for."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._task: asyncio.Task[None] | None = None

    def start(self, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run `work()` with `background` unless it already runs (the coroutine is made only then)."""
        if self._task is None:
            self._task = background(work(), name=self._name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            # gather, not `suppress(CancelledError)`: a stop that is itself cancelled must not pass for a finished one
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None


async def repeatedly(
    seconds: float, work: Callable[[], Awaitable[object]], failed: str, *, level: int = logging.ERROR
) -> None:
    """Do `work` every `seconds` until cancelled (run it with `background`); a failed round is logged at `level` with
    `failed` (said once per failure, with its traceback) and the next round comes as planned."""
    while True:
        await asyncio.sleep(seconds)
        try:
            await work()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.log(level, "%s; trying again in %s s", failed, seconds, exc_info=True)

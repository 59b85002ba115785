"""Issue 14, point 5: a task the bot starts on its own never ends without a log line; a failure is an ERROR that
names the task and carries the traceback, at the moment it happens (not when the task is garbage-collected)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from bot.service.tasks import background
from storage.health import DamagedDatabaseError


async def _fails() -> None:
    await asyncio.sleep(0)
    raise KeyError("no such game")


async def test_a_failed_task_is_logged_with_its_traceback_at_once(caplog: pytest.LogCaptureFixture) -> None:
    task = background(_fails(), name="restore-boards")
    await asyncio.gather(task, return_exceptions=True)  # as a shutdown gathers: this alone would swallow it
    await asyncio.sleep(0)  # done callbacks run on the next turn of the loop
    [record] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert record.getMessage() == "background task restore-boards failed"
    assert record.exc_info is not None and isinstance(record.exc_info[1], KeyError)
    assert "_fails" in caplog.text and "KeyError: 'no such game'" in caplog.text  # the traceback


async def test_damage_is_named_and_a_cancelled_or_finished_task_logs_nothing(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    async def meets_damage() -> None:
        raise DamagedDatabaseError(f"the database {tmp_path} is damaged (database disk image is malformed)")

    damaged = background(meets_damage(), name="turn-timers")
    cancelled = background(asyncio.sleep(60), name="bot-turns-1")
    finished = background(asyncio.sleep(0, "done"), name="events-1")
    cancelled.cancel()
    await asyncio.gather(damaged, cancelled, finished, return_exceptions=True)
    await asyncio.sleep(0)
    assert finished.result() == "done"
    assert [r.getMessage() for r in caplog.records] == [
        f"background task turn-timers stopped: the database {tmp_path} is damaged (database disk image is malformed)"]


async def test_the_timer_loop_stops_even_when_woken_at_the_moment_it_is_stopped(database_target: str) -> None:
    """Python 3.11's `asyncio.wait_for` swallows a cancellation that arrives just as what it waits for finishes: the
    timer loop, woken by a move at the moment the bot stopped, slept on and the stop waited forever (CI hung)."""
    from bot.service import GameService
    from bot.service.lobbies import LobbyService
    from bot.service.timers import TimerLoop
    from storage.connection import open_database

    async def never(*_args: object) -> None:
        raise AssertionError("nothing is due")

    db = await open_database(database_target)
    try:
        service = GameService(db)
        for turns_between in range(8):  # every interleaving of the wake-up and the stop, one of which lost the stop
            timers = TimerLoop(service, never, LobbyService(service), never)
            timers.start()
            await asyncio.sleep(0.05)  # asleep until the next deadline, or until woken
            service.timers_changed.set()
            for _ in range(turns_between):
                await asyncio.sleep(0)
            async with asyncio.timeout(5):
                await timers.stop()
    finally:
        await db.close()

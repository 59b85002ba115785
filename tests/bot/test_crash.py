"""Crash safety in small: the real bot process is SIGKILLed three times under a load of every game kind, for at least
8 s so that the turn timers of the server with a short turn time fire (the full run, `python -m tests.tools.crash
--kills 50`, is the same machinery; see tests/tools/crash.py). The checks themselves are tested on purpose-broken
data in test_crash_checks.py."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.tools.crash import run


async def test_kills_lose_no_acknowledged_action_and_every_game_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.CRITICAL, logger="aiohttp.server")  # requests a killed bot left half-sent
    figures = await run(kills=3, seed=11, tables=6, workdir=tmp_path, min_seconds=8)
    report = figures.report()
    assert figures.kills == 3 and figures.restarts == 3, report
    assert figures.acknowledged_moves > 0 and figures.continued > 0, report
    assert figures.integrity == "ok", report
    assert figures.lost == [], report
    assert figures.corrupt == [], report
    assert figures.stuck == [], report
    assert figures.acknowledged_private > 0, report  # private and deferred answers count as acknowledged
    assert figures.timers.forfeits + figures.timers.reminders > 0, report  # timers fired during the load
    assert figures.timers.problems == [] and figures.overdue == [], report
    assert figures.ratings == [], report
    assert figures.bot_errors == [], report
    assert figures.ok, report

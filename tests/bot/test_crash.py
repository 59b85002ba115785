"""Crash safety in small: the real bot process is SIGKILLed three times under a load of every game kind (the full
run, `python -m tests.tools.crash --kills 50`, is the same machinery; see tests/tools/crash.py)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.tools.crash import run


async def test_kills_lose_no_acknowledged_action_and_every_game_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.CRITICAL, logger="aiohttp.server")  # requests a killed bot left half-sent
    figures = await run(kills=3, seed=11, tables=6, workdir=tmp_path)
    report = figures.report()
    assert figures.kills == 3 and figures.restarts == 3, report
    assert figures.acknowledged_moves > 0 and figures.continued > 0, report
    assert figures.integrity == "ok", report
    assert figures.lost == [], report
    assert figures.corrupt == [], report
    assert figures.stuck == [], report

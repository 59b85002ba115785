"""Crash safety in small: the real bot process is SIGKILLed three times under a load of every game kind, for at least
8 s so that the turn timers of the server with a short turn time fire (the full run, `python -m tests.tools.crash
--kills 50`, is the same machinery; see tests/tools/crash.py). The checks themselves are tested on purpose-broken
data in test_crash_checks.py. Also with two processes (shards 0 and 1 of 2) on one database, a SQLite file or PostgreSQL
(issue 17), each kill hitting one of them. Two small tournaments run along (a Swiss of Chopsticks of 4 players and 2
rounds, a So Long Sucker table of 3 players); the full run's are bigger (issue 25)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.support import postgres
from tests.tools.crash import run
from tests.tools.crash_tournaments import TournamentSizes


@pytest.mark.parametrize(("processes", "database"), [(1, "sqlite"), (2, "sqlite"), (2, "postgresql")])
async def test_kills_lose_no_acknowledged_action_and_every_game_goes_on(
    processes: int, database: str, tmp_path: Path, caplog: pytest.LogCaptureFixture, request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.CRITICAL, logger="aiohttp.server")  # requests a killed bot left half-sent
    if database == "postgresql":  # the session's server (or a skip saying why there is none)
        server: postgres.PostgresServer = request.getfixturevalue("postgres_server")
        monkeypatch.setenv(postgres.URL, server.url())
    figures = await run(kills=3, seed=11, tables=6, workdir=tmp_path, min_seconds=8, processes=processes,
                        database=database, tournaments=TournamentSizes(4, 2, 3, 1))
    report = figures.report()
    assert figures.kills == 3 and figures.restarts == 3, report
    assert len(figures.killed) == processes, report
    assert figures.acknowledged_moves > 0 and figures.continued > 0, report
    assert figures.integrity.startswith("ok"), report
    assert figures.lost == [], report
    assert figures.corrupt == [], report
    assert figures.stuck == [], report
    assert figures.acknowledged_private > 0, report  # private and deferred answers count as acknowledged
    assert figures.timers.forfeits + figures.timers.reminders > 0, report  # timers fired during the load
    assert figures.timers.problems == [] and figures.overdue == [], report
    assert figures.ratings == [], report
    assert len(figures.tournaments) == 2 and figures.tournament_problems == [], report
    assert figures.bot_errors == [], report
    assert figures.ok, report

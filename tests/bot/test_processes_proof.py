"""Issue 17, point 5, at a small scale (the full proof: `python -m tests.tools.shards_proof`): two `python -m bot`
processes, shards 0 and 1 of 2, on one database, PostgreSQL and a SQLite file alike. Started together on an empty
database they migrate once and sync commands once; a process killed while its bot thinks is replaced in that turn by
the other; turn timers that run out in many games at once are each announced exactly once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.postgres import PostgresServer
from tests.tools.shards_proof import bot_killed_while_thinking, started_together, turn_times_run_out


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
async def test_two_shard_processes_on_one_database_do_each_side_effect_once(
    database: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    server: PostgresServer | None = request.getfixturevalue("postgres_server") if database == "postgresql" else None
    parts = [await started_together(server, tmp_path),
             await bot_killed_while_thinking(server, tmp_path, kills=1),
             await turn_times_run_out(server, tmp_path, games=40)]
    report = "\n".join(part.report() for part in parts)
    assert all(not part.problems for part in parts), report
    assert "kills while the bot thought: 1" in report and "reminders: 40, endings: 40" in report, report

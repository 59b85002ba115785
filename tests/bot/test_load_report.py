"""What the load benchmark reports: the pace it ran at, the CPU per interaction and the goal beside the latency."""

from __future__ import annotations

import gc

from tests.support.world import TabletopRunner, World
from tests.tools.discord_load import GOAL_P99, GOAL_RATE, prepare_world, run_load


async def test_a_paced_load_reports_its_pace_cpu_and_goal(world: World, bots: TabletopRunner) -> None:
    prepare_world(world.fake, games=10, channels=3)
    await bots.start()
    collector = gc.get_threshold()
    report = await run_load(world.fake, bots.target, games=10, channels=3, rounds=2, rate=400, timeout=30)
    lines = "\n".join(report.lines())
    assert report.play.interactions == 4 * sum(report.in_progress)
    assert "paced at 400 interactions/s" in lines
    # The bot runs in this process here: its own CPU cannot be told apart, and the report says so.
    assert "the bot's own: n/a (it runs in this process)" in lines and "ms per interaction" in lines
    assert f"goal: p99 < {GOAL_P99 * 1000:.0f} ms at ~{GOAL_RATE}/s" in lines
    # The fake's own collections set as the bot's for the load (its pauses are not the bot's), and put back after.
    assert "garbage collection during the load: young generation of 10000" in lines
    assert gc.get_threshold() == collector and gc.get_freeze_count() == 0
    if report.validated:  # the fake validates every request when the OpenAPI description is there
        assert "measure the fake's validation too" in report.lines()[0]
    else:
        assert "OpenAPI validation off" in report.lines()[0]

"""A small version of the load benchmark: games across channels, clicks arriving together, one move per turn."""

from __future__ import annotations

from tests.support.world import TabletopRunner, World
from tests.tools.discord_load import prepare_world, run_load


async def test_concurrent_clicks_in_many_games_apply_exactly_one_move_per_turn(
    world: World, bots: TabletopRunner
) -> None:
    prepare_world(world.fake, games=20, channels=5)
    await bots.start()
    report = await run_load(world.fake, bots.database, games=20, channels=5, rounds=4, mover_clicks=3,
                            rival_clicks=1, timeout=30)
    # run_load raises on any doubled, lost or unexplained click; here the totals it checked.
    going = sum(report.in_progress)
    assert report.applied == going and report.refused == 3 * going
    assert report.play.interactions == 4 * going == report.play.callbacks == report.play.total_requests
    assert report.setup.total_requests == 2 * 20
    assert all("look at the board again" in text or "not your turn" in text for text in report.refusals)

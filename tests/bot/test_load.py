"""A small version of the load benchmark: games across channels, clicks arriving together, one move per turn."""

from __future__ import annotations

from tests.support.world import TabletopRunner, World
from tests.tools.discord_load import prepare_world, run_load


async def test_concurrent_clicks_in_many_games_apply_exactly_one_move_per_turn(
    world: World, bots: TabletopRunner
) -> None:
    prepare_world(world.fake, games=20, channels=5)
    await bots.start()
    report = await run_load(world.fake, bots.target, games=20, channels=5, rounds=4, mover_clicks=3,
                            rival_clicks=1, timeout=30)
    # run_load raises on any doubled, lost or unexplained click; here the totals it checked.
    going = sum(report.in_progress)
    assert report.applied == going and report.refused == 3 * going
    # Each click costs its answer; besides, each applied move tells the next player (a new message, and the
    # deletion of the notification before it), which may still be on its way when the round's figures are taken.
    # A notification may land in the phase after the action that caused it, so they are bounded over both phases:
    # at most one per accepted challenge and per applied move, each with the deletion of the one before.
    assert report.play.interactions == 4 * going == report.play.callbacks
    assert report.setup.callbacks == 2 * 20
    for phase in (report.setup, report.play):
        assert phase.total_requests == phase.callbacks + phase.notifications
    assert report.setup.notifications + report.play.notifications <= 2 * (20 + report.applied)
    assert all("look at the board again" in text or "not your turn" in text for text in report.refusals)

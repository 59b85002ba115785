"""The fewest requests (issue 13, point 3): one small game of each kind, played as people click, costs exactly the
minimum per applied move: Generals 3 (the mover's answer, the opponent's board, the public board), on DM boards
and with one player on the ephemeral My board; So Long Sucker 1 per decision (the decider's answer) where a chip
is played in one step; Chopsticks 1. Turn notifications are counted apart (tests/tools/requests_per_move.py)."""

from __future__ import annotations

import logging
import random

import pytest

from tests.support.world import TabletopRunner, World
from tests.tools.move_requests import Tally
from tests.tools.requests_per_move import (
    CHOPSTICKS,
    GENERALS,
    GENERALS_MY_BOARD,
    SUCKER,
    chopsticks_game,
    generals_game,
    new_tallies,
    sucker_game,
)

# Side A shuffles a front-row Private (a piece with one move, then with several: each picked, then moved); side B's
# 5★ General walks up, takes the Private on d3 (a challenge the game goes on after) and then the Flag on e3 (see
# tests.support.generals).
ORIGINAL = "/webhooks/{webhook_id}/{webhook_token}/messages/@original"
SHORT_GAME = (["a3-a4", "a4-a3"] * 4, ["e6-e5", "e5-e4", "e4-d4", "d4-d3", "d3-e3"])


def _at_minimum(tally: Tally) -> None:
    assert tally.moves > 0 and not tally.failed, (tally.moves, tally.failed)
    assert tally.per_move == tally.minimum, (tally.per_move, tally.over, dict(tally.kinds))
    assert tally.kinds["answers"] == tally.moves  # exactly one answer per applying interaction


async def test_each_applied_move_costs_the_minimum_of_requests(world: World, bots: TabletopRunner,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    await bots.start()
    fake, database, channel, rng = world.fake, bots.target, world.channel, random.Random(3)
    tallies = new_tallies()
    await generals_game(fake, database, channel, tallies[GENERALS], rng, plan=SHORT_GAME)
    await generals_game(fake, database, channel, tallies[GENERALS_MY_BOARD], rng, plan=SHORT_GAME, my_board=True)
    await sucker_game(fake, database, channel, tallies[SUCKER], rng)
    await chopsticks_game(fake, database, channel, tallies[CHOPSTICKS], rng, max_moves=10)

    for name in (GENERALS, GENERALS_MY_BOARD):
        generals = tallies[name]
        _at_minimum(generals)
        # Every move is a pick (a step, apart: its one interaction response) and then a direction, even a piece's
        # only move: the pick never moves a piece.
        assert generals.steps == generals.moves
        assert generals.kinds["boards"] == 2 * generals.moves and generals.kinds["endings"] == 1
    # Bob's ephemeral board follows Alice's moves through his interaction's token.
    assert tallies[GENERALS_MY_BOARD].routes["boards"][f"PATCH {ORIGINAL}"] > 0
    sucker = tallies[SUCKER]
    assert sucker.steps == 0  # every chip went in one step (four players' plays fit the menus)
    _at_minimum(sucker)
    _at_minimum(tallies[CHOPSTICKS])
    # Turn notifications happen, and are counted apart: at most a new ping and the old one's deletion per move.
    for tally in tallies.values():
        assert 0 < tally.kinds["notifications"] <= 2 * tally.moves
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

"""One list of end reasons for every game; older snapshots' spellings still load."""

from __future__ import annotations

import random

import pytest

from games.base import EndReason, InvalidStateError, Outcome
from games.chopsticks.engine import ChopsticksState
from games.generals.engine import GeneralsState
from games.sucker.engine import SuckerState


def test_a_draw_by_agreement_has_one_reason_in_every_game() -> None:
    chopsticks = ChopsticksState.from_code("1111").agree_draw().outcome()
    sucker = SuckerState.from_table(holdings=["R", "B", "G"]).agree_draw().outcome()
    generals = GeneralsState.new(2, {}, random.Random(0)).agree_draw().outcome()
    assert chopsticks is not None and sucker is not None and generals is not None
    assert chopsticks.reason is sucker.reason is generals.reason is EndReason.DRAW_AGREED


def test_snapshots_with_the_old_spelling_load_and_unknown_reasons_are_refused() -> None:
    assert Outcome.from_dict({"places": [1, 1], "reason": "agreement"}).reason is EndReason.DRAW_AGREED
    assert Outcome.from_dict({"places": [1, 2], "reason": "flag-eliminated"}).reason is EndReason.FLAG_CAPTURED
    assert Outcome((1, 2), EndReason.RESIGN).to_dict() == {"places": [1, 2], "reason": "resign"}
    with pytest.raises(InvalidStateError):
        Outcome.from_dict({"places": [1, 2], "reason": "gave up"})

"""Random playouts to the end, under every setting, keep the engine contract."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games import replay
from games.generals import GeneralsState
from games.generals.rules import SETTING_NAMES
from games.generals.squares import parse_square

VARIANTS = st.lists(st.sampled_from([n for n in SETTING_NAMES if n != "no-challenge-draw"]), unique=True).filter(
    lambda names: not {"flag-rush-immediate", "flag-rush-always-wait"} <= set(names))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), variants=VARIANTS, draw_after=st.sampled_from([None, 20, 80]))
def test_random_playouts_to_the_end(seed: int, variants: list[str], draw_after: int | None) -> None:
    rng = random.Random(seed)
    options = {"variants": variants + ([f"no-challenge-draw={draw_after}"] if draw_after else [])}
    state = GeneralsState.new(2, options, rng)
    initial = state.to_dict()
    log: list[tuple[int, str]] = []
    while (player := state.current_player()) is not None:
        actions = state.legal_actions(player)
        assert actions and list(actions) == list(state.legal_actions(player))
        if state.phase == "setup" and state.drafts[player] is not None and rng.random() < 0.3:
            a, b = rng.sample([p.square for p in state.view_for(player).own], 2)
            text = f"swap:{a}-{b}"
        else:
            action = rng.choice(list(actions))
            assert state.parse_action(action.text()) == action
            text = action.text()
        state = state.apply_text(player, text)
        log.append((player, text))
        if len(log) % 7 == 0:
            assert GeneralsState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
        assert len(log) < 5000
    outcome = state.outcome()
    assert outcome is not None
    assert GeneralsState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    assert replay("generals", initial, log) == state
    reveal = state.public_view().reveal
    assert reveal is not None and reveal == state.view_for(0).reveal == state.view_for(1).reveal
    assert {parse_square(p.square) for p in reveal.pieces} == {p.square for a in state.armies for p in a} - {None}

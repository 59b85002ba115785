"""Random playouts of every registered game keep the engine contract."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games import game_class, registered_kinds, replay


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(registered_kinds()), meta=st.sampled_from(
    [None, "resign", "draw-agreed"]))
def test_random_playouts_keep_the_contract(seed: int, kind: str, meta: str | None) -> None:
    rng = random.Random(seed)
    cls = game_class(kind)
    players = rng.randint(cls.MIN_PLAYERS, cls.MAX_PLAYERS)
    state = cls.new(players, {}, rng)
    initial = state.to_dict()
    log: list[tuple[int, str]] = []
    stop_at = rng.randrange(1, 60)
    played = 0  # moves of play: actions of the game's own once play began (no setup step, no meta action)
    for ply in range(200):
        player = state.current_player()
        if player is None:
            assert state.outcome() is not None
            break
        actions = state.legal_actions(player)
        assert actions, "a game that is not over has a legal action for the player to move"
        assert list(actions) == list(state.legal_actions(player)), "legal actions come in a stable order"
        played += state.began() and not (meta is not None and ply == stop_at)
        if meta is not None and ply == stop_at:
            text = meta
            state = state.apply_text(player, text)
        else:
            action = rng.choice(list(actions))
            text = action.text()
            assert state.parse_action(text) == action, "an action's text form parses back to it"
            state = state.apply(player, action)
        log.append((player, text))
        snapshot = json.loads(json.dumps(state.to_dict()))
        assert cls.from_dict(snapshot) == state
        assert state.moves_of_play() == played, "moves of play count neither setup steps nor meta actions"
    assert replay(kind, initial, log) == state

"""No game without end (../shared/rules/*.md, "No game without end"): every engine ends a game at the length limit its
rules state, the limit is part of the state so a replay ends where the game did, games stored before there was a
limit still load (and replay as they were played), and a game can be stopped with the places the rules give."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from games import EndReason, replay
from games.base import MOVE_LIMIT, NO_PERSON_LEFT
from games.chopsticks.description import RULES as CHOPSTICKS_RULES
from games.chopsticks.engine import ChopsticksState
from games.chopsticks.rules import MAX_PLIES, Rules
from games.generals import GeneralsState, Settings
from games.generals.description import RULES as GENERALS_RULES
from games.generals.rules import MOVE_LIMIT as GENERALS_MOVES
from games.generals.rules import QUIET_LIMIT
from games.sucker import Phase, SuckerState
from games.sucker.description import RULES as SUCKER_RULES
from games.sucker.rules import DECISION_LIMIT
from tests.support.generals import QUIET

BIG = {"hands": 4, "rollover": 10}


def _random_playout(state: ChopsticksState, rng: random.Random) -> tuple[ChopsticksState, list[tuple[int, str]]]:
    log = []
    while (seat := state.current_player()) is not None:
        action = rng.choice(state.legal_actions(seat))
        log.append((seat, action.text()))
        state = state.apply(seat, action)
    return state, log


# ----- Chopsticks: a draw after 300 plies ---------------------------------------------------------------------
def test_a_big_chopsticks_table_ends_by_300_moves_at_the_latest() -> None:
    """Six players with four hands and rollover 10 rarely repeat a position: the limit ends what would go on."""
    endings = set()
    for seed in range(8):
        rng = random.Random(seed)
        start = ChopsticksState.new(6, BIG, rng)
        end, log = _random_playout(start, rng)
        outcome = end.outcome()
        assert outcome is not None and end.ply <= MAX_PLIES
        endings.add(outcome.reason)
        if outcome.reason is EndReason.MOVE_LIMIT:
            assert end.ply == MAX_PLIES and {outcome.places[s] for s in range(6) if not end.is_out(s)} == {1}
        # The limit is in the state: its snapshot and the log replay to the same end.
        assert replay("chopsticks", start.to_dict(), log).to_dict() == end.to_dict()
    assert EndReason.MOVE_LIMIT in endings


def test_the_300th_move_draws_among_those_still_in() -> None:
    state = ChopsticksState.new(3, {}, random.Random(1)).resign(2)  # seat 2 out: the others play on
    almost = replace(state, ply=MAX_PLIES - 1)
    seat = almost.current_player()
    assert seat is not None
    after = almost.apply(seat, almost.legal_actions(seat)[0])
    outcome = after.outcome()
    assert outcome is not None and outcome.reason is EndReason.MOVE_LIMIT and outcome.places == (1, 1, 3)
    assert after.current_player() is None


def test_a_chopsticks_game_stored_before_the_limit_loads_and_replays_as_played() -> None:
    rng = random.Random(5)
    start = ChopsticksState.new(6, BIG, rng)
    old_start = start.to_dict()
    del old_start["rules"]["max_plies"]  # as snapshots were stored before the limit
    loaded = ChopsticksState.from_dict(old_start)
    assert loaded.rules.max_plies is None and loaded.past_limit() is None
    # It plays on past 300 moves as it always did (a replay of an old game must end where it ended) ...
    state = loaded
    for _ in range(MAX_PLIES + 20):
        seat = state.current_player()
        if seat is None:
            break
        state = state.apply(seat, random.Random(state.ply).choice(state.legal_actions(seat)))
    if state.outcome() is None:
        assert state.ply > MAX_PLIES
        # ... and the service, asking, learns it is past the limit the rules set now, and stops it.
        assert state.past_limit() is EndReason.MOVE_LIMIT
        stopped = state.apply_text(0, MOVE_LIMIT)
        outcome = stopped.outcome()
        assert outcome is not None and outcome.reason is EndReason.MOVE_LIMIT
        assert ChopsticksState.from_dict(stopped.to_dict()) == stopped


def test_stopping_a_chopsticks_table_keeps_the_places_of_those_out() -> None:
    """No person left: the seats out keep the places their going out gave them, those still in share first."""
    state = ChopsticksState.new(6, BIG, random.Random(2)).resign(0).resign(3)
    assert state.seats_in() == (1, 2, 4, 5)
    stopped = state.apply_text(1, NO_PERSON_LEFT)
    outcome = stopped.outcome()
    assert outcome is not None and outcome.reason is EndReason.NO_PERSON_LEFT
    assert outcome.places == (6, 1, 1, 5, 1, 1) and stopped.seats_in() == ()


def test_chopsticks_rules_texts_state_the_limit() -> None:
    assert "After 300 moves in all, the game is drawn." in [str(line) for line in Rules(players=6).describe()]
    assert "after 300 moves in all it is drawn" in str(CHOPSTICKS_RULES)


# ----- Game of the Generals: a draw after 500 moves of play, or 100 without a challenge --------------------------


def _shuffle(state: GeneralsState, moves: int) -> GeneralsState:
    """`moves` quiet moves: the Major and the far Private step back and forth (from QUIET, A to move)."""
    cycle = ["e4-d4", "a5-a6", "d4-e4", "a6-a5"]
    for i in range(moves):
        seat = state.current_player()
        assert seat is not None, f"over after {i} moves"
        state = state.apply_text(seat, cycle[state.quiet % 4])
    return state


def test_a_generals_game_is_drawn_after_100_moves_without_a_challenge_whatever_the_setting() -> None:
    for settings in (Settings(), Settings(no_challenge_draw=400)):
        state = _shuffle(GeneralsState.from_board(QUIET, settings), QUIET_LIMIT - 1)
        assert state.outcome() is None
        drawn = _shuffle(state, 1)
        outcome = drawn.outcome()
        assert outcome is not None and outcome.is_draw and outcome.reason is EndReason.NO_CHALLENGE_DRAW
    # A smaller setting still draws sooner.
    early = _shuffle(GeneralsState.from_board(QUIET, Settings(no_challenge_draw=10)), 10).outcome()
    assert early is not None and early.reason is EndReason.NO_CHALLENGE_DRAW


def test_a_generals_game_is_drawn_after_500_moves_of_play_and_setting_up_is_no_move() -> None:
    state = GeneralsState.new(2, {}, random.Random(3))
    for seat in (0, 1):
        state = state.apply_text(seat, state.expand(seat, "formation:balanced", random.Random(seat)))
        state = state.apply_text(seat, "ready")
    assert state.began() and state.ply == 0  # the setup counted no move
    board = GeneralsState.from_board(QUIET)
    almost = replace(board, ply=GENERALS_MOVES - 1)
    drawn = _shuffle(almost, 1)
    outcome = drawn.outcome()
    assert outcome is not None and outcome.is_draw and outcome.reason is EndReason.MOVE_LIMIT
    assert _shuffle(replace(board, ply=GENERALS_MOVES - 2), 1).outcome() is None


def test_a_generals_game_stored_before_the_limits_loads_without_them() -> None:
    data = GeneralsState.from_board(QUIET).to_dict()
    for key in ("move_limit", "quiet_limit"):
        del data["settings"][key]
    old = GeneralsState.from_dict(data)
    assert old.settings.move_limit is None and old.settings.quiet_limit is None and old.past_limit() is None
    long_quiet = _shuffle(old, QUIET_LIMIT + 4)  # played on, as it was
    assert long_quiet.outcome() is None and long_quiet.past_limit() is EndReason.NO_CHALLENGE_DRAW
    stopped = long_quiet.apply_text(0, MOVE_LIMIT)
    assert stopped.outcome() is not None and stopped.outcome().is_draw  # type: ignore[union-attr]


def test_generals_rules_text_states_the_limits() -> None:
    text = str(GENERALS_RULES)
    assert "drawn after 500 moves of play in all" in text and "after 100 moves in a row without a challenge" in text


# ----- So Long Sucker: 1,000 decisions -------------------------------------------------------------------------
def _act(state: SuckerState, seat: int, text: str) -> SuckerState:
    return state.apply(seat, state.parse_action(text))


def test_so_long_sucker_ends_after_1000_decisions_the_players_still_in_sharing_the_win() -> None:
    state = SuckerState.from_table(holdings=["RR", "BB", "GG", "YY"], chain=(0,), defeated=())
    state = state.resign(3)  # yellow out first
    state = replace(state, decisions=DECISION_LIMIT - 2)
    state = _act(state, 0, "play:red:new")  # a decision: 999
    assert state.outcome() is None and state.phase is Phase.NAME
    over = _act(state, 0, "next:blue")  # the 1,000th
    outcome = over.outcome()
    assert outcome is not None and outcome.reason is EndReason.MOVE_LIMIT and outcome.places == (1, 1, 1, 4)
    assert over.phase is Phase.OVER and over.current_player() is None


def test_free_transfers_are_no_decisions_but_a_rescue_is() -> None:
    state = SuckerState.from_table(holdings=["", "BBR", "GG", "YB"], piles=["RG"], chain=(3, 0))
    assert state.phase is Phase.RESCUE
    given = _act(state, 3, "give:blue:blue")  # yellow hands blue a prisoner: free, no decision
    assert given.decisions == state.decisions
    rescued = _act(given, 1, "give:red:red")  # blue rescues red: a decision
    assert rescued.decisions == state.decisions + 1


def test_a_sucker_game_stored_before_the_limit_loads_and_is_stopped_past_it() -> None:
    state = SuckerState.from_table(3, holdings=["RR", "BB", "GG"], chain=(0,))
    data = state.to_dict()
    del data["decisions"], data["decision_limit"]
    data["turn"] = DECISION_LIMIT + 5
    old = SuckerState.from_dict(data)
    assert old.decision_limit is None and old.decisions == DECISION_LIMIT + 5
    assert old.past_limit() is EndReason.MOVE_LIMIT and state.past_limit() is None
    stopped = old.apply_text(0, MOVE_LIMIT)
    assert stopped.outcome() is not None and stopped.outcome().places == (1, 1, 1)  # type: ignore[union-attr]
    assert SuckerState.from_dict(stopped.to_dict()) == stopped


def test_stopping_a_sucker_table_keeps_the_places_of_the_defeated() -> None:
    state = SuckerState.from_table(holdings=["RR", "BB", "GG", "YY"], chain=(0,)).resign(1)
    assert state.seats_in() == (0, 2, 3)
    outcome = state.stop(EndReason.NO_PERSON_LEFT).outcome()
    assert outcome is not None and outcome.places == (1, 4, 1, 1)


def test_sucker_rules_text_states_the_limit() -> None:
    assert "after 1000 decisions in all" in str(SUCKER_RULES)


@pytest.mark.parametrize("state", [ChopsticksState.new(2, {}, random.Random(0)),
                                   GeneralsState.new(2, {}, random.Random(0)),
                                   SuckerState.new(3, {}, random.Random(0))])
def test_a_game_that_is_over_cannot_be_stopped_again(state: ChopsticksState | GeneralsState | SuckerState) -> None:
    from games import GameOverError

    stopped = state.stop(EndReason.NO_PERSON_LEFT)
    assert stopped.seats_in() == ()
    with pytest.raises(GameOverError):
        stopped.stop(EndReason.MOVE_LIMIT)

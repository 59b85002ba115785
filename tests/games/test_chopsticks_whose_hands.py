"""Chopsticks views say whose hands a move names: the targets of the legal moves, and the last move's hands."""

from __future__ import annotations

from games.base import EndReason
from games.chopsticks.engine import ChopsticksState
from games.chopsticks.rules import Rules
from games.chopsticks.views import MoveChoice, Tap


def _english(move: MoveChoice) -> tuple[str, str, int | None, int | None]:
    """The move with its words in English (they are a text, translated where shown)."""
    return move.text, str(move.label), move.hand, move.target_seat


def test_at_three_players_equal_looking_taps_have_different_targets() -> None:
    state = ChopsticksState.start(Rules(players=3))
    assert [_english(m) for m in state.public_view().moves] == [
        ("AC", "your 1 taps their 1", 0, 1),
        ("AE", "your 1 taps their 1", 0, 2),
    ]
    # Seat 1 to move now: its letters start at its own hands, so C is seat 2's and E is seat 0's.
    after = state.apply(0, state.parse_action("AC"))
    assert [(m.text, m.target_seat) for m in after.public_view().moves] == [
        ("AC", 2), ("AE", 0), ("BC", 2), ("BE", 0)]


def test_the_last_move_names_the_owners_of_its_letters() -> None:
    state = ChopsticksState.start(Rules(players=3))
    after = state.apply(0, state.parse_action("AE"))
    assert after.public_view().last == (0, "AE")
    assert after.public_view().last_tap == Tap(hand="A", target_seat=2, target="E", values=("1", "1"))
    second = after.apply(1, after.parse_action("BE"))  # seat 1's E is seat 0's first hand
    assert second.public_view().last_tap == Tap(hand="B", target_seat=0, target="E", values=("1", "1"))


def test_own_hands_splits_and_resignations() -> None:
    rules = Rules.from_options(2, {"variants": ["self-attack"]})
    state = ChopsticksState.from_code("1213", rules)
    assert _english(state.public_view().moves[0]) == ("AB", "your 1 taps your 2", 0, 0)
    own = state.apply(0, state.parse_action("AB"))
    assert own.public_view().last_tap == Tap(hand="A", target_seat=0, target="B", values=("1", "2"))
    before_split = ChopsticksState.from_code("0413")
    split = before_split.apply(0, before_split.parse_action("04-13"))
    assert split.public_view().last == (0, "04-13") and split.public_view().last_tap is None
    assert state.resign(0, EndReason.RESIGN).public_view().last_tap is None
    assert state.public_view().last_tap is None  # no move yet

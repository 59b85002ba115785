"""So Long Sucker action texts, plain-words descriptions, views and snapshots."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from games import IllegalMoveError, InvalidStateError
from games.sucker import (
    COLOURS,
    Chip,
    Decline,
    Give,
    Kill,
    KillPrisoner,
    NameNext,
    Phase,
    Play,
    SuckerState,
)
from games.sucker.actions import TEXT_PATTERN

R, B, G, Y = 0, 1, 2, 3


def act(state: SuckerState, seat: int, text: str) -> SuckerState:
    return state.apply(seat, state.parse_action(text))


SIX = SuckerState.from_table(6, 10, holdings=["R", "B", "G", "Y", "P", "O"])


@pytest.mark.parametrize(("action", "text"), [
    (Play(R, None), "play:red:new"),
    (Play(B, 1), "play:blue:2"),
    (Play(5, 59), "play:orange:60"),
    (Kill(G), "kill:green"),
    (NameNext(4), "next:purple"),
    (Decline(), "decline"),
    (Give(R, 3), "give:red:yellow"),
    (Give(4, 5, 10), "give:purple:orange:10"),
    (KillPrisoner(5), "kill-prisoner:orange"),
    (KillPrisoner(4, 9), "kill-prisoner:purple:9"),
])
def test_action_texts_are_short_stable_and_parse_back(action: Any, text: str) -> None:
    assert action.text() == text
    assert TEXT_PATTERN.fullmatch(text)
    assert SIX.parse_action(text) == action
    assert SIX.parse_action(f"  {text.upper()} ") == action


def test_give_of_one_written_with_a_count_is_the_same_action() -> None:
    assert SIX.parse_action("give:red:blue:1") == Give(R, B)


@pytest.mark.parametrize("text", ["", "play", "play:red", "play:pink:1", "play:red:0", "play:red:02", "play:red:x",
                                  "kill:red:1", "next", "give:red", "give:red:blue:0", "decline:now",
                                  "kill-prisoner", "resign:now"])
def test_texts_that_mean_nothing_are_refused(text: str) -> None:
    with pytest.raises(IllegalMoveError):
        SIX.parse_action(text)


def test_colours_beyond_the_players_are_refused() -> None:
    four = SuckerState.from_table(holdings=["R", "B", "G", "Y"])
    with pytest.raises(IllegalMoveError, match="no 'purple'"):
        four.parse_action("next:purple")
    assert four.colours == COLOURS[:4]


def test_describe_in_plain_words() -> None:
    state = SuckerState.from_table(holdings=["RB", "BR", "G", "YR"], piles=["G", "BR"], chain=(R,))
    assert state.describe(Play(B, 1)) == "red plays a blue chip on pile 2"
    assert state.describe(Play(R, None)) == "red starts a new pile with a red chip"
    assert state.describe(Play(R, 1)) == "red plays a red chip on pile 2: red captures it"
    assert state.describe(Give(R, Y), B) == "blue gives a red chip to yellow"
    assert state.describe(Give(R, G, 2), Y) == "yellow gives 2 red chips to green"
    assert state.describe(KillPrisoner(R), B) == "blue kills a red prisoner"
    capture = act(state, R, "play:red:2")
    assert capture.describe(Kill(B)) == "red kills a blue chip from pile 2 and takes the rest"
    naming = act(state, R, "play:blue:1")
    assert naming.describe(NameNext(R)) == "red chooses to move again"
    assert naming.describe(NameNext(Y)) == "red names yellow to move next"


def test_describe_capture_by_a_defeated_colour_and_rescues() -> None:
    state = SuckerState.from_table(holdings=["RB", "", "GR", "Y"], piles=["B"], chain=(B, R), defeated=(B,))
    assert state.describe(Play(B, 0)) == "red plays a blue chip on pile 1: blue is out of the game, so the whole " \
                                         "pile is killed"
    stuck = SuckerState.from_table(holdings=["", "BR", "G", "Y"], chain=(Y, R))
    assert stuck.describe(Decline()) == "blue declines to rescue red"
    assert stuck.describe(Give(R, R)) == "blue rescues red with a red chip"


def test_public_view_shows_the_whole_table() -> None:
    pile = (Chip(B, B), Chip(R, Y))
    before = SuckerState.from_table(holdings=["RRG", "B", "G", "YR"], piles=["G", pile], chain=(Y, R))
    state = act(before, R, "play:red:2")
    view = state.public_view()
    assert view.decision == "kill" and view.to_decide == R and view.capture == (2, R)
    assert str(view.prompt) == "red must kill a chip of the captured pile 2"
    assert view.choices == ("kill:red", "kill:blue")
    assert [c.colour for c in view.piles[1].chips] == ["blue", "red", "red"]
    assert [c.played_by for c in view.piles[1].chips] == ["blue", "yellow", "red"]
    assert view.piles[1].top == "red" and view.piles[1].number == 2
    seat = view.seats[Y]
    assert seat.holdings == (("yellow", 1), ("red", 1)) and seat.own == 1 and seat.prisoners == 1
    assert seat.total == 2 and not seat.defeated
    assert view.dead == tuple(zip(COLOURS, state.dead, strict=False))
    assert view.last == (R, "play:red:2") and view.ply == 1
    assert view.viewer is None and view.viewer_actions == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.ply = 3  # type: ignore[misc]


def test_a_players_view_adds_what_they_may_do() -> None:
    state = SuckerState.from_table(holdings=["", "BR", "G", "YB"], chain=(Y, R))
    view = state.view_for(Y)
    assert view.decision == "rescue" and view.stuck == R and view.to_decide == B and view.mover == R
    assert view.choices == ("give:red:red", "decline")
    assert view.viewer == Y
    assert view.viewer_actions == ("give:blue:red", "give:blue:blue", "give:blue:green", "kill-prisoner:blue")
    declined = act(state, B, "decline")
    assert declined.public_view().declined == (B,)


def test_the_view_of_a_finished_game() -> None:
    view = SuckerState.from_table(3, holdings=["R", "B", "G"]).resign(1).resign(2).public_view()
    assert view.outcome is not None and view.outcome.winners == (0,)
    assert view.to_decide is None and view.decision is None and view.choices == () and view.mover is None
    assert str(view.prompt) == "the game is over"


def test_snapshot_round_trips_through_json() -> None:
    pile = (Chip(B, B), Chip(R, Y))
    state = SuckerState.from_table(holdings=["RG", "B", "G", "YR"], piles=["G", pile], chain=(Y, R))
    state = act(state, R, "play:red:2")
    data = json.loads(json.dumps(state.to_dict()))
    assert data["format"] == 2 and data["phase"] == "kill"
    assert SuckerState.from_dict(data) == state


@pytest.mark.parametrize(("change", "message"), [
    ({"format": 1}, "format"),
    ({"players": 9}, "out of range"),
    ({"phase": "dance"}, "bad"),
    ({"dead": [0, 0, 0, 0]}, "created or lost"),
    ({"holdings": [[1, 0, 0, 0]]}, "out of range"),
    ({"piles": [[[0, 7]]]}, "out of range"),
    ({"chain": []}, "nobody holds the move"),
    ({"defeated": [0, 0]}, "defeated twice"),
    ({"phase": "kill"}, "names no pile"),
    ({"phase": "name", "pile": 0}, "names no pile"),
    ({"result": {"places": [1, 2, 3, 4], "reason": "resign"}}, "disagree"),
])
def test_snapshot_validation_refuses_broken_states(change: dict[str, Any], message: str) -> None:
    data = SuckerState.from_table(holdings=["R", "B", "G", "Y"]).to_dict()
    data.update(change)
    with pytest.raises(InvalidStateError, match=message):
        SuckerState.from_dict(data)


def test_snapshot_refuses_a_missing_field() -> None:
    data = SuckerState.from_table(holdings=["R", "B", "G", "Y"]).to_dict()
    del data["chain"]
    with pytest.raises(InvalidStateError):
        SuckerState.from_dict(data)


def test_phase_values_are_the_view_decision_kinds() -> None:
    assert [p.value for p in Phase] == ["play", "kill", "name", "rescue", "over"]


def test_the_turn_counts_decisions_not_free_transfers() -> None:
    state = SuckerState.from_table(4, holdings=["RRB", "BB", "GG", "YY"], chain=(0,))
    before = state.turn
    given = state.apply(0, state.parse_action("give:blue:green"))  # red gives a prisoner out of turn order
    assert given.turn == before and given.turn_token() == before, "a pending decision stays valid"
    played = given.apply(0, given.parse_action("play:red:new"))
    assert played.turn == before + 1


@pytest.mark.parametrize(("holdings", "text", "message"), [
    (["R", "B", "G", "Y"], "give:blue:yellow:9", "You hold 0 blue prisoners, not 9."),
    (["RB", "B", "G", "Y"], "kill-prisoner:blue:2", "You hold 1 blue prisoner, not 2."),
    (["RBBB", "B", "G", "Y"], "give:blue:green:5", "You hold 3 blue prisoners, not 5."),
])
def test_too_many_prisoners_is_refused_in_counted_words(holdings: list[str], text: str, message: str) -> None:
    state = SuckerState.from_table(holdings=holdings, chain=(G,))
    with pytest.raises(IllegalMoveError) as refused:
        act(state, R, text)
    assert str(refused.value) == message

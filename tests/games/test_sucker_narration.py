"""What the table is told about each action, read from the position before it (piles bottom -> top)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games import EndReason, InvalidStateError
from games.sucker import Deed, Narration, SuckerState
from games.sucker.narration import words

R, B, G, Y = 0, 1, 2, 3


def act(state: SuckerState, seat: int, text: str) -> SuckerState:
    return state.apply(seat, state.parse_action(text))


def told(state: SuckerState) -> tuple[Narration | None, str | None]:
    """The latest action as the public view carries it, and in the engine's own words."""
    view = state.public_view()
    return view.narration, view.last_said


# Red to play, holding a red chip and a blue prisoner; pile 2 is blue under red.
TABLE = SuckerState.from_table(holdings=["RB", "B", "G", "Y"], piles=["G", "BR"], chain=(R,))


def test_a_play_without_capture_says_no_capture() -> None:
    # Blue is in the pile, but not directly beneath: no capture (it once said "blue captures it").
    assert told(act(TABLE, R, "play:blue:2")) == (
        Narration(R, Deed.PLAY, "blue", pile=2), "red plays a blue chip on pile 2")


def test_a_new_pile() -> None:
    assert told(act(TABLE, R, "play:red:new")) == (
        Narration(R, Deed.NEW_PILE, "red", pile=3), "red starts a new pile with a red chip")


def test_a_capture_by_the_player_and_by_another_colour() -> None:
    assert told(act(TABLE, R, "play:red:2")) == (
        Narration(R, Deed.PLAY, "red", pile=2, captor=R), "red plays a red chip on pile 2: red captures it")
    yellow = SuckerState.from_table(holdings=["R", "B", "G", "YR"], piles=["BR"], chain=(G, Y))
    assert told(act(yellow, Y, "play:red:1")) == (
        Narration(Y, Deed.PLAY, "red", pile=1, captor=R), "yellow plays a red chip on pile 1: red captures it")


def test_a_capture_by_a_defeated_colour_kills_the_pile() -> None:
    state = SuckerState.from_table(holdings=["R", "", "G", "YB"], piles=["RB", "G"], chain=(G, Y), defeated=(B,))
    said, text = told(act(state, Y, "play:blue:1"))
    assert said == Narration(Y, Deed.PLAY, "blue", pile=1, pile_killed=True)
    assert text == "yellow plays a blue chip on pile 1: blue is out of the game, so the whole pile is killed"


def test_the_kill_after_a_capture_names_the_pile_it_was() -> None:
    captured = act(TABLE, R, "play:red:2")
    assert told(act(captured, R, "kill:blue")) == (
        Narration(R, Deed.KILL, "blue", pile=2), "red kills a blue chip from pile 2 and takes the rest")


def test_naming_the_next_player_or_oneself() -> None:
    played = act(TABLE, R, "play:blue:1")  # pile 1 is now green, blue: red and yellow may be named
    assert told(act(played, R, "next:yellow")) == (
        Narration(R, Deed.NAME, target=Y), "red names yellow to move next")
    assert told(act(played, R, "next:red"))[1] == "red chooses to move again"


def test_a_forced_next_player_is_said_with_the_play() -> None:
    state = SuckerState.from_table(holdings=["R", "B", "G", "Y"], piles=["RBG"], chain=(G, Y))
    after = act(state, Y, "play:yellow:1")
    assert after.current_player() == R
    assert told(after) == (
        Narration(Y, Deed.PLAY, "yellow", pile=1, forced=R),
        "yellow plays a yellow chip on pile 1; every colour still in is in that pile, so red must move next")


STUCK = SuckerState.from_table(holdings=["", "BR", "G", "YB"], chain=(Y, R))  # red must play and holds nothing


def test_a_rescue() -> None:
    assert told(act(STUCK, B, "give:red:red")) == (
        Narration(B, Deed.RESCUE, "red", 1, R), "blue rescues red with a red chip")


def test_a_rescue_by_someone_not_yet_asked() -> None:
    assert STUCK.rescuer() == B
    assert told(act(STUCK, Y, "give:blue:red"))[1] == "yellow rescues red with a blue chip"


def test_a_declined_rescue_names_who_was_not_rescued() -> None:
    # Blue declines while red is stuck: said from before, so never "declines to rescue nobody".
    assert told(act(STUCK, B, "decline")) == (
        Narration(B, Deed.DECLINE, target=R), "blue declines to rescue red")


def test_the_last_declined_rescue_says_who_is_defeated() -> None:
    alone = SuckerState.from_table(holdings=["", "BR", "G", "Y"], chain=(Y, R))
    after = act(alone, B, "decline")
    assert after.defeated == (R,)
    assert told(after) == (Narration(B, Deed.DECLINE, target=R, defeated=(R,)),
                           "blue declines to rescue red; red is defeated")


def test_gifts_and_kills_of_prisoners() -> None:
    state = SuckerState.from_table(holdings=["RB", "BRR", "G", "YR"], chain=(G,))
    assert told(act(state, B, "give:red:yellow")) == (
        Narration(B, Deed.GIVE, "red", 1, Y), "blue gives a red chip to yellow")
    assert told(act(state, B, "give:red:green:2"))[1] == "blue gives 2 red chips to green"
    assert told(act(state, R, "kill-prisoner:blue")) == (
        Narration(R, Deed.KILL_PRISONER, "blue"), "red kills a blue prisoner")
    assert told(act(state, B, "kill-prisoner:red:2"))[1] == "blue kills 2 red prisoners"


def test_killing_ones_last_prisoner_while_holding_the_move_can_defeat_oneself() -> None:
    state = SuckerState.from_table(holdings=["B", "B", "G", "Y"], chain=(R,))
    after = act(state, R, "kill-prisoner:blue")
    assert after.defeated == (R,)
    assert told(after)[1] == "red kills a blue prisoner; red is defeated"


def test_a_resignation_says_what_leaves_the_game() -> None:
    state = SuckerState.from_table(holdings=["RRB", "B", "G", "Y"], chain=(G, R))
    assert told(state.resign(R)) == (
        Narration(R, Deed.RESIGN, count=3), "red resigns; the 3 chips they held leave the game")
    assert told(SuckerState.from_table(holdings=["", "B", "G", "Y"], chain=(R, B)).resign(R))[1] == "red resigns"


def test_a_resigning_captor_takes_the_captured_pile_with_them() -> None:
    state = act(SuckerState.from_table(holdings=["R", "B", "G", "YR"], piles=["BR"], chain=(G, Y)), Y, "play:red:1")
    assert state.capture_owner() == R
    said, text = told(state.resign(R))
    assert said == Narration(R, Deed.RESIGN, count=1, pile=1, pile_killed=True)
    assert text == "red resigns; the chip they held leaves the game; pile 1, which their colour captured, is killed"


def test_a_timeout() -> None:
    state = SuckerState.from_table(holdings=["RR", "B", "G", "Y"], chain=(R,))
    assert told(state.resign(R, EndReason.TIMEOUT)) == (
        Narration(R, Deed.TIMEOUT, count=2), "red runs out of time and is out; the 2 chips they held leave the game")


def test_a_timed_out_rescue_is_a_decline() -> None:
    decline = STUCK.timeout_action(B)
    assert decline is not None
    assert told(STUCK.apply(B, decline))[1] == "blue declines to rescue red"


def test_people_can_be_named_any_way() -> None:
    said = Narration(B, Deed.GIVE, "yellow", 1, R)
    people = {R: "@alice (red)", B: "@bob (blue)"}
    assert str(words(said, people.__getitem__)) == "@bob (blue) gives a yellow chip to @alice (red)"


def test_nothing_is_said_before_the_first_action_or_after_a_draw() -> None:
    assert told(TABLE) == (None, None)
    assert told(act(TABLE, R, "play:red:new").agree_draw()) == (None, None)


# ----- snapshots ------------------------------------------------------------------------------------------------
def _json(state: SuckerState) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(state.to_dict()))
    return data


def test_the_narration_is_kept_in_the_snapshot() -> None:
    state = act(STUCK, B, "decline")
    assert SuckerState.from_dict(_json(state)) == state


@pytest.mark.parametrize(("before", "seat", "text", "said"), [
    (TABLE, R, "play:red:2", "red plays a red chip on pile 2"),  # a capture, but the log alone cannot tell
    (STUCK, B, "decline", "blue declines a rescue"),
    (STUCK, B, "give:red:red", "blue gives a red chip to red"),
    (TABLE, R, "play:red:new", "red starts a new pile with a red chip"),
])
def test_an_older_snapshot_is_told_only_what_its_log_says(before: SuckerState, seat: int, text: str,
                                                          said: str) -> None:
    data = _json(act(before, seat, text))
    del data["narration"]
    data["last_said"] = "words from before narrations were kept"
    assert SuckerState.from_dict(data).public_view().last_said == said


def test_an_older_snapshot_after_a_resignation() -> None:
    data = _json(TABLE.resign(R))
    del data["narration"]
    assert SuckerState.from_dict(data).public_view().last_said == "red resigns"


@pytest.mark.parametrize("change", [
    {"actor": 7},
    {"deed": "dance"},
    {"colour": "pink"},
    {"target": None},
    {"pile": 0},
    {"defeated": [9]},
])
def test_a_broken_narration_is_refused(change: dict[str, Any]) -> None:
    data = _json(act(STUCK, B, "give:red:red"))
    data["narration"].update(change)
    with pytest.raises(InvalidStateError):
        SuckerState.from_dict(data)


# ----- the latest actions, step by step ---------------------------------------------------------------------------
def test_every_step_of_a_run_is_kept_in_order_a_defeat_in_the_middle_too() -> None:
    # Red names blue, who holds nothing; yellow, the only holder of prisoners, declines: blue is defeated and the
    # move goes back to red, who plays on. The latest narration alone ("red starts a new pile") hides the defeat.
    start = SuckerState.from_table(holdings=["RR", "", "G", "YB"], piles=["G"], chain=(R,))
    named = act(act(start, R, "play:red:1"), R, "next:blue")
    assert named.current_player() == Y and named.stuck() == B
    after = act(act(named, Y, "decline"), R, "play:red:new")
    assert after.defeated == (B,)
    assert [said.deed for said in after.public_view().recent] == [Deed.PLAY, Deed.NAME, Deed.DECLINE, Deed.NEW_PILE]
    assert after.public_view().recent[2] == Narration(Y, Deed.DECLINE, target=B, defeated=(B,))
    assert after.public_view().recent[-1] == after.public_view().narration
    assert SuckerState.from_dict(_json(after)) == after  # kept in the snapshot


def test_only_the_latest_steps_are_kept() -> None:
    state = SuckerState.from_table(holdings=["RB", "B", "G", "Y"], chain=(R,))
    for _ in range(10):  # a blue prisoner handed back and forth
        state = act(act(state, R, "give:blue:yellow"), Y, "give:blue:red")
    assert len(state.recent) == 16 and all(said.deed is Deed.GIVE for said in state.recent)


def test_an_older_snapshot_keeps_its_latest_narration_as_its_recent_steps() -> None:
    data = _json(act(STUCK, B, "decline"))
    del data["recent"]
    restored = SuckerState.from_dict(data)
    assert restored.recent == (restored.said,)


def test_players_defeated_by_one_decision_are_named_in_the_order_they_fell() -> None:
    """Read in the golden transcript: "green and blue and yellow are defeated" hid the order, which sets their places
    (../shared/rules/so-long-sucker.md: the others finish in reverse order of defeat)."""
    said = Narration(B, Deed.PLAY, "blue", pile=1, forced=G, defeated=(G, B, Y))
    text = words(said, lambda seat: ("red", "blue", "green", "yellow")[seat]).render()
    assert text.endswith("green, then blue, then yellow are defeated"), text

"""The rules page reproduced by the engine: setup phase, moves, refusals, both ways to win, every setting."""

from __future__ import annotations

import json
import random

import pytest

from games import GameError, GameOverError, InvalidStateError, NotYourTurnError, replay
from games.generals import GeneralsState, Rank, Result, Settings, SetupError, import_grid, public_log_text
from games.generals.computer import bot_action
from games.generals.pieces import FULL_ARMY
from tests.support.generals import QUIET

COMPACT_A = "5G,4G,3G,2G,1G,COL,LTC,MAJ,CPT/1LT,2LT,SGT,PVT,PVT,PVT,PVT,PVT,PVT/SPY,SPY,FLG,.,.,.,.,.,."
COMPACT_B = ".,.,.,.,.,.,FLG,SPY,SPY/PVT,PVT,PVT,PVT,PVT,PVT,SGT,2LT,1LT/CPT,MAJ,LTC,COL,1G,2G,3G,4G,5G"



def play(state: GeneralsState, *texts: str) -> GeneralsState:
    """Apply action texts, each by the player to move."""
    for text in texts:
        player = state.current_player()
        assert player is not None, f"the game ended before {text}"
        state = state.apply_text(player, text)
    return state


def refusal(state: GeneralsState, player: int, text: str) -> str:
    with pytest.raises(GameError) as refused:
        state.apply_text(player, text)
    return str(refused.value)


# ----- creation and setup ---------------------------------------------------------------------------------
def test_new_game_first_mover_and_options() -> None:
    assert GeneralsState.new(2, {"first": 1}, random.Random(0)).first == 1
    assert {GeneralsState.new(2, {}, random.Random(seed)).first for seed in range(20)} == {0, 1}
    state = GeneralsState.new(2, {"variants": ["reveal-winner", "no-challenge-draw=40"], "show-flag": True},
                              random.Random(0))
    assert state.settings == Settings(reveal_winner=True, show_flag=True, no_challenge_draw=40)
    with pytest.raises(GameError, match="for 2 players"):
        GeneralsState.new(3, {}, random.Random(0))
    with pytest.raises(GameError, match=r"^There is no seat 3; Game of the Generals has seats 1 and 2\.$"):
        GeneralsState.new(2, {"first": 2}, random.Random(0))
    with pytest.raises(GameError, match=r"^Unknown setting\(s\): fog"):
        GeneralsState.new(2, {"variants": ["fog"]}, random.Random(0))
    with pytest.raises(GameError, match="at most one of flag-rush-immediate and flag-rush-always-wait"):
        GeneralsState.new(2, {"variants": "flag-rush-immediate,flag-rush-always-wait"}, random.Random(0))
    with pytest.raises(GameError, match="needs its number of moves"):
        GeneralsState.new(2, {"variants": ["no-challenge-draw"]}, random.Random(0))


def test_setup_phase_either_seat_acts_and_play_starts_when_both_are_ready() -> None:
    state = GeneralsState.new(2, {"first": 1}, random.Random(5))
    assert (state.phase, state.current_player()) == ("setup", 0)
    offers = [a.text() for a in state.legal_actions(0)]
    assert len(offers) == 4 and all(t.startswith("setup:") for t in offers)
    assert len(state.legal_actions(1)) == 4, "setup actions are free: both seats may act"

    state = state.apply_text(1, "setup:" + COMPACT_B)  # seat 1 acts while seat 0 is named
    assert state.current_player() == 0
    state = state.apply_text(1, "swap:a8-i6")
    # While armies are deployed no view names the latest setup action: the opponent's and the channel's
    # views stay identical whatever seat 1 rearranges, so their boards are never redrawn for it.
    assert state.view_for(1).last is state.view_for(0).last is state.public_view().last is None
    before = (state.view_for(0), state.public_view())
    assert (state.apply_text(1, "swap:a8-b8").view_for(0), state.apply_text(1, "swap:a8-b8").public_view()) == before
    assert {p.square: p.rank for p in state.view_for(1).own}["a8"] == Rank.GENERAL_5
    assert (state.view_for(0).own, state.view_for(0).enemy, state.public_view().pieces) == ((), (), ())
    state = state.apply_text(1, "swap:a8-i6")
    assert state.legal_actions(1)[-1].text() == "ready"
    assert refusal(state, 0, "ready") == "Deploy a setup first (a formation or a grid), then say you are ready."
    assert refusal(state, 0, "swap:a1-b1") == "Deploy a setup first (a formation or a grid), then swap squares."
    assert refusal(state, 0, "e3-e4") == "Play starts when both players are ready; set up your army first."

    state = state.apply_text(1, "ready")
    assert state.current_player() == 0 and state.legal_actions(1) == ()
    assert refusal(state, 1, "swap:a8-b8") == ("Your setup is locked in; play starts when your opponent is ready "
                                               "too.")
    state = state.apply_text(0, offers[1]).apply_text(0, "swap:a1-b1").apply_text(0, "ready")
    assert (state.phase, state.current_player()) == ("play", 1)
    assert refusal(state, 1, "ready") == "The setup phase is over."
    assert len(state.view_for(0).own) == 21 and len(state.view_for(0).enemy) == 21


def test_labelled_grid_must_be_the_players_own_ranks() -> None:
    state = GeneralsState.new(2, {}, random.Random(1))
    labelled_b = "8 | " + COMPACT_B.replace("/", "\n7 | ", 1).replace("/", "\n6 | ", 1).replace(",", " ")
    assert refusal(state, 0, "setup:" + labelled_b) == ("That grid is labelled with the other side's ranks; you "
                                                        "deploy on ranks 1-3.")
    assert state.apply_text(1, "setup:" + labelled_b).drafts[1] == import_grid(COMPACT_B, 1)


def test_a_deployment_is_on_the_players_own_ranks() -> None:
    state = GeneralsState.from_setups(import_grid(COMPACT_A, 0), import_grid(COMPACT_B, 1))
    view = state.public_view()
    ranks: dict[int, set[int]] = {p.seat: set() for p in view.pieces}
    for p in view.pieces:
        ranks[p.seat].add(int(p.square[1]))
    assert ranks == {0: {1, 2, 3}, 1: {6, 7, 8}}
    own = {p.square: p.rank for p in state.view_for(1).own}
    assert own["g8"] == Rank.FLAG and own["i6"] == Rank.GENERAL_5


# ----- moves and refusals ---------------------------------------------------------------------------------
def test_legal_moves_in_a_stable_order() -> None:
    state = GeneralsState.from_board(QUIET)
    assert [a.text() for a in state.legal_actions(0)] == [
        "a1-b1", "a1-a2", "e3-e2", "e3-d3", "e3-f3", "e4-d4", "e4-f4", "e4-e5"]
    assert state.legal_actions(1) == ()
    for action in state.legal_actions(0):
        assert state.parse_action(action.text()) == action
    assert state.parse_action(" E4 - E5 ") == state.parse_action("e4e5") == state.parse_action("e4-e5")


def test_refusals_name_the_problem_and_never_a_rank() -> None:
    state = GeneralsState.from_board(QUIET)
    assert refusal(state, 0, "f4-f5") == "You have no piece on f4."
    assert refusal(state, 0, "e4-f5") == ("e4-f5 is not a move: a piece steps one square forward, back or "
                                          "sideways, never diagonally.")
    assert refusal(state, 0, "e4-e6") == ("e4-e6 is not a move: a piece steps one square forward, back or "
                                          "sideways, never diagonally.")
    assert refusal(state, 0, "e3-e4") == "Your own piece stands on e4."
    assert refusal(state, 0, "z9-e4") == "'z9' is not a square: files run a-i and ranks 1-8, like e3."
    assert refusal(state, 0, "hello") == "'hello' is not a move: write it like e3-e4 (from-to)."
    assert refusal(state, 1, "f4-f3") == "It is not your turn."
    with pytest.raises(NotYourTurnError):
        state.apply_text(1, "f4-f3")
    over = state.resign(1)
    with pytest.raises(GameOverError, match=r"^The game is over\.$"):
        over.apply_text(0, "e4-e5")


def test_a_quiet_move_and_a_challenge_as_each_audience_sees_them() -> None:
    state = play(GeneralsState.from_board(QUIET), "e4-e5")
    last = state.view_for(0).last
    assert last is not None and (last.kind, last.src, last.dst, last.challenge, last.your_rank) == (
        "move", "e4", "e5", None, Rank.MAJOR)
    assert state.view_for(1).last == state.public_view().last
    state = play(state, "f4-f5", "e5-f5")  # the Major challenges the Private
    public = state.public_view().last
    assert public is not None and (public.challenge, public.your_rank, public.their_rank) == (
        Result.ATTACKER, None, None)
    b_last = state.view_for(1).last
    assert b_last is not None and (b_last.your_rank, b_last.their_rank) == (Rank.PRIVATE, None)
    assert state.public_view().lost == (18, 19)  # from_board counts pieces not on the board as lost
    # B learns that whatever took its Private is an officer (not a Spy or a Flag).
    b_knows = {p.square: p.possible for p in state.view_for(1).enemy}
    assert b_knows["f5"] == frozenset(r for r in FULL_ARMY if r.is_officer)
    # A learns the Private lost to a Major: it was something a Major beats.
    assert frozenset({Rank.CAPTAIN, Rank.FIRST_LIEUTENANT, Rank.SECOND_LIEUTENANT, Rank.SERGEANT, Rank.PRIVATE}
                     ) in state.view_for(0).enemy_lost


def test_a_losing_challenge_tells_the_loser_what_beat_it_could_be() -> None:
    state = play(GeneralsState.from_board({"e4": "MAJ", "e5": "3g", "a1": "FLG", "i8": "flg"}), "e4-e5")
    assert {p.square: p.possible for p in state.view_for(0).enemy}["e5"] == {
        Rank.LIEUTENANT_COLONEL, Rank.COLONEL, Rank.GENERAL_1, Rank.GENERAL_2, Rank.GENERAL_3, Rank.GENERAL_4,
        Rank.GENERAL_5, Rank.SPY}
    last = state.view_for(0).last
    assert last is not None and last.their_rank is None


# ----- winning ------------------------------------------------------------------------------------------------
RUSH = """
8 | .   .   .   .   .   .   .   .   .
7 | .   .   .   .   FLG .   .   .   .
6 | .   .   .   .   .   .   .   .   .
5 | .   .   .   .   .   .   .   .   .
4 | .   .   .   .   .   .   .   .   .
3 | pvt .   .   .   .   .   .   .   .
2 | .   .   .   .   .   .   .   .   .
1 | PVT .   .   .   .   .   .   .   flg
"""


def test_a_flag_on_the_back_rank_with_no_enemy_beside_it_wins_at_once() -> None:
    state = play(GeneralsState.from_board(RUSH), "e7-e8")
    outcome = state.outcome()
    assert outcome is not None and (outcome.winners, outcome.reason) == ((0,), "flag-reached-back-rank")


def test_a_flag_beside_an_enemy_waits_one_move_unannounced() -> None:
    guarded = RUSH.replace("8 | .   .   .   .", "8 | .   .   .   pvt")
    state = play(GeneralsState.from_board(guarded), "e7-e8")
    assert state.outcome() is None and state.current_player() == 1
    last = state.public_view().last
    assert last is not None and (last.kind, last.challenge) == ("move", None)
    won = play(state, "a3-a4")  # the one reply does not eliminate the Flag
    outcome = won.outcome()
    assert outcome is not None and (outcome.winners, outcome.reason) == ((0,), "flag-reached-back-rank")
    caught = play(state, "d8-e8")  # the reply challenges the Flag
    outcome = caught.outcome()
    assert outcome is not None and (outcome.winners, outcome.reason) == ((1,), "flag-eliminated")


def test_the_waiting_flag_wins_before_anything_else_the_reply_does() -> None:
    # B's own Flag reaches rank 1 unopposed with the one reply: A's Flag arrived first and wins.
    position = RUSH.replace("8 | .   .   .   .", "8 | .   .   .   pvt").replace(
        "1 | PVT .   .   .   .   .   .   .   flg", "1 | PVT .   .   .   .   .   .   .   .").replace(
        "2 | .   .   .   .   .   .   .   .   .", "2 | .   .   .   .   .   .   .   .   flg")
    state = play(GeneralsState.from_board(position), "e7-e8", "i2-i1")
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0,)


def test_side_b_flag_rushes_to_rank_1() -> None:
    position = {"e2": "flg", "a8": "pvt", "a1": "FLG", "i5": "PVT"}
    state = play(GeneralsState.from_board(position, to_move=1), "e2-e1")
    outcome = state.outcome()
    assert outcome is not None and (outcome.winners, outcome.reason) == ((1,), "flag-reached-back-rank")


def test_a_piece_that_would_have_won_as_a_flag_is_known_not_to_be_one() -> None:
    pieces = {"e7": "PVT", "d7": "SGT", "a1": "FLG", "a3": "pvt", "c8": "pvt", "i1": "flg"}
    state = play(GeneralsState.from_board(pieces), "e7-e8")  # unopposed: a Flag would have won
    assert Rank.FLAG not in {p.square: p.possible for p in state.view_for(1).enemy}["e8"]
    state = play(state, "a3-a4", "d7-d8")  # d8 stands beside c8: a Flag there would wait
    assert Rank.FLAG in {p.square: p.possible for p in state.view_for(1).enemy}["d8"]
    state = play(state, "a4-a5")  # B's move passes without the game ending: d8 is no Flag either
    assert Rank.FLAG not in {p.square: p.possible for p in state.view_for(1).enemy}["d8"]


def test_flag_rush_immediate_wins_even_beside_an_enemy() -> None:
    guarded = RUSH.replace("8 | .   .   .   .", "8 | .   .   .   pvt")
    state = play(GeneralsState.from_board(guarded, Settings(flag_rush="immediate")), "e7-e8")
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0,)


def test_flag_rush_always_wait_waits_even_when_unopposed() -> None:
    state = play(GeneralsState.from_board(RUSH, Settings(flag_rush="always-wait")), "e7-e8")
    assert state.outcome() is None
    outcome = play(state, "a3-a4").outcome()
    assert outcome is not None and (outcome.winners, outcome.reason) == ((0,), "flag-reached-back-rank")


def test_a_flag_that_attacks_anything_but_a_flag_loses_the_game() -> None:
    state = play(GeneralsState.from_board({"e4": "FLG", "e5": "pvt", "i8": "flg"}), "e4-e5")
    outcome = state.outcome()
    assert outcome is not None and (outcome.winners, outcome.reason) == ((1,), "flag-eliminated")
    state = play(GeneralsState.from_board({"e4": "FLG", "e5": "flg"}), "e4-e5")
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0,), "flag against flag: the attacker wins"


def test_resign_timeout_and_draw() -> None:
    state = GeneralsState.from_board(QUIET)
    for text, winners, reason in (("resign", (1,), "resign"), ("timeout", (1,), "timeout")):
        outcome = state.apply_text(0, text).outcome()
        assert outcome is not None and (outcome.winners, outcome.reason) == (winners, reason)
    draw = state.apply_text(1, "draw-agreed").outcome()
    assert draw is not None and draw.is_draw and draw.reason == "draw-agreed"
    in_setup = GeneralsState.new(2, {}, random.Random(0)).resign(1)
    assert in_setup.outcome() == in_setup.view_for(0).outcome and in_setup.public_view().reveal is None
    with pytest.raises(GameOverError):
        in_setup.agree_draw()


def test_the_whole_board_is_revealed_to_everyone_at_the_end() -> None:
    state = GeneralsState.from_board(QUIET)
    assert state.public_view().reveal is None and state.view_for(0).reveal is None
    over = play(state, "e4-f4")  # the Major takes a Private; then A resigns
    over = over.resign(0)
    reveal = over.public_view().reveal
    assert reveal is not None and reveal == over.view_for(0).reveal == over.view_for(1).reveal
    assert [(p.square, p.seat, p.rank.abbreviation) for p in reveal.pieces] == [
        ("a1", 0, "FLG"), ("e3", 0, "SGT"), ("f4", 0, "MAJ"), ("a5", 1, "PVT"), ("i8", 1, "FLG")]
    assert len(reveal.lost[0]) == 18 and len(reveal.lost[1]) == 19


# ----- settings ------------------------------------------------------------------------------------------------
def test_show_flag_marks_each_flag_for_the_opponent_only() -> None:
    state = GeneralsState.from_board(QUIET, Settings(show_flag=True))
    a_knows = {p.square: p.possible for p in state.view_for(0).enemy}
    assert a_knows["i8"] == {Rank.FLAG} and all(Rank.FLAG not in s for sq, s in a_knows.items() if sq != "i8")
    assert {p.square: p.possible for p in state.view_for(1).enemy}["a1"] == {Rank.FLAG}
    assert "FLG" not in json.dumps(state.public_view().to_dict()["pieces"])


def test_reveal_winner_tells_the_loser_the_rank_that_beat_it() -> None:
    position = {"e4": "MAJ", "e5": "3g", "a1": "FLG", "i8": "flg"}
    state = play(GeneralsState.from_board(position, Settings(reveal_winner=True)), "e4-e5")
    a_last, b_last = state.view_for(0).last, state.view_for(1).last
    assert a_last is not None and a_last.their_rank == Rank.GENERAL_3
    assert {p.square: p.possible for p in state.view_for(0).enemy}["e5"] == {Rank.GENERAL_3}
    assert b_last is not None and (b_last.your_rank, b_last.their_rank) == (Rank.GENERAL_3, None)
    public = state.public_view().last
    assert public is not None and public.their_rank is None and public.your_rank is None


def test_small_army() -> None:
    settings = Settings(small_army=True)
    state = GeneralsState.new(2, {"variants": ["small-army"]}, random.Random(2))
    assert state.settings == settings
    state = play(state, state.legal_actions(0)[0].text(), "ready")
    state = play(state, state.legal_actions(1)[2].text(), "ready")
    assert len(state.view_for(0).own) == 11 and len(state.public_view().pieces) == 22
    fresh = GeneralsState.new(2, {"variants": ["small-army"]}, random.Random(2))
    with pytest.raises(SetupError, match="The army is 11 pieces"):
        fresh.apply_text(0, "setup:" + COMPACT_A)


def test_no_challenge_draw_after_n_quiet_moves() -> None:
    state = GeneralsState.from_board(QUIET, Settings(no_challenge_draw=3))
    state = play(state, "e4-e5", "a5-a4")
    assert state.public_view().quiet == 2 and state.outcome() is None
    drawn = play(state, "a1-a2")
    outcome = drawn.outcome()
    assert outcome is not None and outcome.is_draw and outcome.reason == "no-challenge-draw"
    # A challenge (the Sergeant takes the Private on e4) starts the count again.
    challenged = play(GeneralsState.from_board(QUIET, Settings(no_challenge_draw=3)), "e4-e5", "f4-e4",
                      "e3-e4", "a5-a4", "a1-a2")
    assert challenged.outcome() is None and challenged.public_view().quiet == 2


def test_no_challenge_draw_is_not_delayed_by_a_waiting_flag() -> None:
    guarded = RUSH.replace("8 | .   .   .   .", "8 | .   .   .   pvt")
    state = play(GeneralsState.from_board(guarded, Settings(no_challenge_draw=1)), "e7-e8")
    outcome = state.outcome()
    assert outcome is not None and outcome.reason == "no-challenge-draw"


# ----- serialisation and replay -------------------------------------------------------------------------------
def test_json_round_trip_and_validation() -> None:
    state = play(GeneralsState.from_board(QUIET, Settings(reveal_winner=True)), "e4-f4")
    data = json.loads(json.dumps(state.to_dict()))
    assert GeneralsState.from_dict(data) == state
    with pytest.raises(InvalidStateError, match="unknown Generals format 2"):
        GeneralsState.from_dict({**data, "format": 2})
    crowded = json.loads(json.dumps(data))
    crowded["armies"][1][0][1] = "a1"
    with pytest.raises(InvalidStateError, match="two pieces on one square"):
        GeneralsState.from_dict(crowded)
    short = json.loads(json.dumps(data))
    short["armies"][0].pop()
    with pytest.raises(InvalidStateError, match="does not match the settings"):
        GeneralsState.from_dict(short)
    with pytest.raises(InvalidStateError):
        GeneralsState.from_dict({**data, "settings": {"flag_rush": "sometimes"}})


def test_replay_from_the_log_reproduces_the_game_including_setups() -> None:
    rng = random.Random(11)
    state = GeneralsState.new(2, {"variants": ["reveal-winner"]}, rng)
    initial = state.to_dict()
    log: list[tuple[int, str]] = []
    while (player := state.current_player()) is not None and len(log) < 120:
        action = bot_action(state, player, "greedy", rng)
        log.append((player, action.text()))
        state = state.apply(player, action)
    assert log[0][1].startswith("setup:")
    assert replay("generals", initial, log) == state
    # The log's setup texts carry ranks: what others may be shown of them.
    assert [public_log_text(text) for _, text in log[:4]] == ["setup", "ready", "setup", "ready"]
    assert public_log_text("swap:a1-b1") == "setup" and public_log_text(log[-1][1]) == log[-1][1]


def test_the_state_never_changes_in_place() -> None:
    state = GeneralsState.from_board(QUIET)
    before = state.to_dict()
    state.apply_text(0, "e4-f4")
    state.resign(0)
    assert state.to_dict() == before

"""Every rule of ../shared/rules/so-long-sucker.md, on literal positions (piles bottom -> top)."""

from __future__ import annotations

import random

import pytest

from games import EndReason, GameError, GameOverError, IllegalMoveError, NotYourTurnError
from games.sucker import Chip, Phase, SuckerState

R, B, G, Y = 0, 1, 2, 3


def act(state: SuckerState, seat: int, text: str) -> SuckerState:
    return state.apply(seat, state.parse_action(text))


def texts(state: SuckerState, seat: int) -> list[str]:
    return [a.text() for a in state.legal_actions(seat)]


# ----- the cases at the bottom of the rules page -----------------------------------------------------------
def test_case_rbgy_every_colour_in_the_pile_so_red_moves() -> None:
    state = SuckerState.from_table(holdings=["R", "B", "G", "Y"], piles=["RBG"], chain=(G, Y))
    after = act(state, Y, "play:yellow:1")
    assert [c.colour for c in after.piles[0]] == [R, B, G, Y]
    assert after.phase is Phase.PLAY and after.current_player() == R


def test_case_rbgyr_blue_moves_not_the_bottom_red() -> None:
    state = SuckerState.from_table(holdings=["R", "B", "G", "Y"], piles=["RBGY"], chain=(R,))
    after = act(state, R, "play:red:1")
    assert [c.colour for c in after.piles[0]] == [R, B, G, Y, R]
    assert after.phase is Phase.PLAY and after.current_player() == B


def test_case_yellow_plays_a_red_prisoner_on_red_and_red_captures() -> None:
    state = SuckerState.from_table(holdings=["RR", "B", "G", "YR"], piles=["BR"], chain=(G, Y))
    after = act(state, Y, "play:red:1")
    assert after.phase is Phase.KILL
    assert after.current_player() == R and after.capture_owner() == R
    with pytest.raises(NotYourTurnError):
        act(after, Y, "kill:blue")
    assert texts(after, R)[:2] == ["kill:red", "kill:blue"]
    done = act(after, R, "kill:blue")
    assert done.piles == ()
    assert done.holdings[R] == (4, 0, 0, 0)  # two red chips back from the pile
    assert done.dead[B] == 7 - 1  # every blue chip but blue's own one is dead now
    assert done.phase is Phase.PLAY and done.current_player() == R
    assert done.chain == (G, Y, R)  # yellow gave red the move


# ----- capture ----------------------------------------------------------------------------------------------
def test_owner_capturing_with_their_own_play_keeps_the_move_without_joining_the_chain() -> None:
    state = SuckerState.from_table(holdings=["RR", "B", "G", "Y"], piles=["GR"], chain=(Y, R))
    after = act(act(state, R, "play:red:1"), R, "kill:green")
    assert after.holdings[R] == (3, 0, 0, 0) and after.mover == R and after.chain == (Y, R)


def test_capture_only_by_two_equal_chips_in_a_row() -> None:
    state = SuckerState.from_table(holdings=["RR", "B", "G", "Y"], piles=["RG"], chain=(R,))
    after = act(state, R, "play:red:1")
    assert after.phase is Phase.NAME  # red beneath green does not count


def test_capture_by_a_defeated_colour_kills_the_pile_and_the_move_returns_to_the_player() -> None:
    state = SuckerState.from_table(holdings=["R", "", "G", "YB"], piles=["RB", "G"], chain=(G, Y), defeated=(B,))
    after = act(state, Y, "play:blue:1")
    assert after.piles == ((Chip(G, G),),)
    assert after.dead[B] == 7 and after.dead[R] == 7 - 1
    assert after.phase is Phase.PLAY and after.mover == Y and after.chain == (G, Y)
    assert sum(after.chip_totals()) == 4 * 7


def test_capture_by_a_defeated_colour_leaving_the_player_without_chips_asks_for_a_rescue() -> None:
    state = SuckerState.from_table(holdings=["RG", "", "G", "B"], piles=["B"], chain=(G, Y), defeated=(B,))
    after = act(state, Y, "play:blue:1")
    assert after.phase is Phase.RESCUE and after.stuck() == Y and after.current_player() == R


# ----- naming the next player -------------------------------------------------------------------------------
def test_naming_is_restricted_to_players_whose_colour_is_not_in_the_pile() -> None:
    state = SuckerState.from_table(holdings=["RG", "B", "G", "Y"], piles=["B"], chain=(R,))
    after = act(state, R, "play:green:1")
    assert after.phase is Phase.NAME and after.current_player() == R
    assert after.name_candidates() == (R, Y)
    assert texts(after, R)[:2] == ["next:red", "next:yellow"]
    for refused in ("next:blue", "next:green"):
        with pytest.raises(IllegalMoveError, match="in the pile"):
            act(after, R, refused)
    named = act(after, R, "next:yellow")
    assert named.mover == Y and named.chain == (R, Y)
    assert act(after, R, "next:red").chain == (R,)  # naming oneself passes the move to nobody


def test_a_defeated_player_cannot_be_named_and_their_colour_blocks_nobody() -> None:
    state = SuckerState.from_table(holdings=["R", "B", "G", ""], piles=["YB"], chain=(R,), defeated=(Y,))
    after = act(state, R, "play:red:1")
    assert after.name_candidates() == (G,)
    with pytest.raises(IllegalMoveError, match="out of the game"):
        act(after, R, "next:yellow")


def test_forced_next_player_ignores_defeated_colours() -> None:
    state = SuckerState.from_table(holdings=["R", "B", "G", ""], piles=["YRB"], chain=(G,), defeated=(Y,))
    after = act(state, G, "play:green:1")
    assert after.phase is Phase.PLAY and after.mover == R  # yellow's chip lies deeper but yellow is out


def test_forced_next_player_reads_chips_by_colour_not_by_who_played_them() -> None:
    # Yellow plays the last red: by colour the topmost red is at the top, so blue's is deepest. (By who played,
    # red's latest chip would be the bottom one and red would move.)
    pile = (Chip(R, R), Chip(B, B), Chip(G, G), Chip(Y, Y))
    state = SuckerState.from_table(holdings=["R", "B", "G", "YR"], piles=[pile], chain=(Y,))
    after = act(state, Y, "play:red:1")
    assert after.piles[0][-1] == Chip(R, Y)
    assert after.mover == B


def test_forced_next_player_may_be_the_mover() -> None:
    state = SuckerState.from_table(3, holdings=["RG", "B", "G"], piles=["RBG"], chain=(R,))
    after = act(state, R, "play:red:1")  # [R B G R]: topmost red 4, blue 2, green 3 -> blue
    assert after.mover == B
    state = SuckerState.from_table(3, holdings=["RG", "B", "G"], piles=["BGR"], chain=(G, R))
    after = act(state, R, "play:green:1")  # [B G R G]: topmost blue 1 -> blue
    assert after.mover == B
    state = SuckerState.from_table(3, holdings=["RG", "B", "G"], piles=["RGB"], chain=(G, R))
    after = act(state, R, "play:green:1")  # [R G B G]: topmost red 1 -> red itself
    assert after.mover == R and after.chain == (G, R)


# ----- rescue and defeat -------------------------------------------------------------------------------------
def stuck_red() -> SuckerState:
    """Yellow gave red the move; red holds nothing; blue and yellow hold prisoners, green only its own."""
    return SuckerState.from_table(holdings=["", "BBR", "GG", "YB"], piles=["RG"], chain=(Y, R))


def test_a_player_given_the_move_without_chips_waits_for_rescue_in_seat_order() -> None:
    state = stuck_red()
    assert state.phase is Phase.RESCUE and state.stuck() == R
    assert state.current_player() == B  # green holds no prisoner, so it is not asked
    assert texts(state, B)[:2] == ["give:red:red", "decline"]
    assert state.legal_actions(R) == ()


def test_rescue_asking_wraps_around_the_table_and_never_asks_twice() -> None:
    state = SuckerState.from_table(holdings=["RY", "B", "GYY", ""], chain=(B, Y))
    assert state.stuck() == Y and state.current_player() == R
    state = act(state, R, "decline")
    assert state.current_player() == G
    state = act(act(state, G, "give:yellow:blue"), B, "give:yellow:red")  # red holds a prisoner again
    assert state.current_player() == G and state.declined == (R,)
    state = act(state, G, "decline")
    assert state.defeated == (Y,) and state.mover == B


def test_defeat_only_after_every_prisoner_holder_declines() -> None:
    state = act(stuck_red(), B, "decline")
    assert state.phase is Phase.RESCUE and state.current_player() == Y and R not in state.defeated
    with pytest.raises(NotYourTurnError):
        act(state, B, "decline")
    state = act(state, Y, "decline")
    assert state.defeated == (R,)
    assert state.phase is Phase.PLAY and state.mover == Y  # back to the player who gave red the move


def test_a_rescue_lets_the_stuck_player_play() -> None:
    state = act(stuck_red(), B, "give:red:red")
    assert state.phase is Phase.PLAY and state.mover == R and state.holdings[R][R] == 1
    assert state.gifts[B][R] == 1


def test_a_transfer_to_the_stuck_player_by_someone_not_yet_asked_is_a_rescue() -> None:
    state = act(stuck_red(), Y, "give:blue:red")
    assert state.phase is Phase.PLAY and state.mover == R and state.holdings[R][B] == 1


def test_nobody_holding_prisoners_means_immediate_defeat() -> None:
    state = SuckerState.from_table(holdings=["RR", "", "GG", "YY"], piles=["B"], chain=(R,))
    after = act(act(state, R, "play:red:new"), R, "next:blue")
    assert after.defeated == (B,) and after.mover == R and after.phase is Phase.PLAY


def test_the_move_passes_back_two_levels_along_the_chain_of_givers() -> None:
    # Yellow gave red the move; red plays its last chip and names blue, who holds nothing.
    state = SuckerState.from_table(holdings=["R", "", "GG", "YY"], piles=[], chain=(Y, R))
    state = act(act(state, R, "play:red:new"), R, "next:blue")
    # Blue is defeated, the move returns to red, who is stuck too and is defeated, so it returns to yellow.
    assert state.defeated == (B, R)
    assert state.phase is Phase.PLAY and state.mover == Y and state.chain == (Y,)


def test_the_returned_move_can_be_rescued_at_the_second_level() -> None:
    state = SuckerState.from_table(holdings=["R", "", "GY", "YY"], piles=[], chain=(Y, R))
    state = act(act(state, R, "play:red:new"), R, "next:blue")
    # Green holds a prisoner: it is asked about blue first, then about red.
    assert state.stuck() == B and state.current_player() == G
    state = act(state, G, "decline")
    assert state.defeated == (B,) and state.stuck() == R and state.current_player() == G
    state = act(state, G, "give:yellow:red")
    assert state.phase is Phase.PLAY and state.mover == R and state.chain == (Y, R)


def test_the_chain_skips_players_defeated_meanwhile() -> None:
    # Green gave blue the move, blue gave it to yellow, and blue has resigned since.
    state = SuckerState.from_table(5, holdings=["", "", "GG", "Y", "PP"], chain=(G, B, Y), defeated=(B,))
    after = act(act(state, Y, "play:yellow:new"), Y, "next:red")
    # Red falls, yellow gets the move back without a chip and falls, blue is passed over: green moves.
    assert after.defeated == (B, R, Y) and after.mover == G and after.chain == (G,)


def test_when_the_chain_runs_out_the_next_seat_still_in_moves() -> None:
    state = SuckerState.from_table(holdings=["", "B", "GG", "YY"], piles=["R"], chain=(R,))
    assert state.defeated == (R,) and state.mover == B and state.chain == (B,)


def test_giving_away_ones_last_chip_while_holding_the_move_makes_one_stuck() -> None:
    state = SuckerState.from_table(holdings=["G", "BR", "GG", "YY"], piles=[], chain=(R,))
    after = act(state, R, "give:green:yellow")
    assert after.phase is Phase.RESCUE and after.stuck() == R and after.current_player() == B


# ----- prisoners at any time ---------------------------------------------------------------------------------
def test_anyone_holding_prisoners_may_transfer_or_kill_them_out_of_turn() -> None:
    state = SuckerState.from_table(holdings=["RR", "BRRG", "G", "Y"], piles=[], chain=(R,))
    assert state.current_player() == R
    assert texts(state, B) == [
        "give:red:red", "give:red:green", "give:red:yellow", "give:green:red", "give:green:green",
        "give:green:yellow", "kill-prisoner:red", "kill-prisoner:green",
    ]
    given = act(state, B, "give:red:yellow:2")
    assert given.holdings[B] == (0, 1, 1, 0) and given.holdings[Y] == (2, 0, 0, 1)
    assert given.gifts[B][Y] == 2 and given.current_player() == R
    killed = act(state, B, "kill-prisoner:green")
    assert killed.dead[G] == state.dead[G] + 1 and killed.holdings[B][G] == 0
    assert texts(state, G) == [] and texts(state, Y) == []


def test_nobody_may_transfer_or_kill_their_own_colour() -> None:
    state = SuckerState.from_table(holdings=["RR", "BR", "G", "Y"], piles=[], chain=(R,))
    for seat, text in ((B, "give:blue:red"), (B, "kill-prisoner:blue"), (R, "give:red:blue")):
        with pytest.raises(IllegalMoveError, match="own colour"):
            act(state, seat, text)


def test_transfers_need_the_chips_and_a_live_receiver() -> None:
    state = SuckerState.from_table(holdings=["RR", "BR", "G", ""], piles=["Y"], chain=(R,), defeated=(Y,))
    with pytest.raises(IllegalMoveError, match="not 2"):
        act(state, B, "give:red:green:2")
    with pytest.raises(IllegalMoveError, match="out of the game"):
        act(state, B, "give:red:yellow")
    with pytest.raises(IllegalMoveError, match="another player"):
        act(state, B, "give:red:blue")
    with pytest.raises(IllegalMoveError, match="out of the game"):
        act(state, Y, "kill-prisoner:red")


def test_the_capturing_owner_may_transfer_while_choosing_the_kill() -> None:
    state = SuckerState.from_table(holdings=["RRB", "B", "G", "YR"], piles=["BR"], chain=(Y,))
    state = act(act(state, Y, "play:red:1"), R, "give:blue:green")
    assert state.phase is Phase.KILL and state.current_player() == R


# ----- decisions and turns -------------------------------------------------------------------------------------
def test_decisions_out_of_turn_or_out_of_phase_are_refused() -> None:
    state = SuckerState.from_table(holdings=["RR", "B", "G", "Y"], piles=["B"], chain=(R,))
    with pytest.raises(NotYourTurnError, match="red must play"):
        act(state, B, "play:blue:new")
    with pytest.raises(IllegalMoveError, match="red must play"):
        act(state, R, "next:blue")
    with pytest.raises(IllegalMoveError, match="no green chip"):
        act(state, R, "play:green:1")
    with pytest.raises(IllegalMoveError, match="no pile 2"):
        act(state, R, "play:red:2")


# ----- winning, resigning, draws ------------------------------------------------------------------------------
def test_the_last_survivor_wins_even_with_no_chips() -> None:
    state = SuckerState.from_table(3, holdings=["R", "", ""], piles=["BG"], chain=(G, R))
    state = act(act(state, R, "play:red:new"), R, "next:blue")
    # Blue falls; red gets the move back without a chip and falls; green is the last one in.
    outcome = state.outcome()
    assert outcome is not None and outcome.reason == "last-survivor"
    assert state.defeated == (B, R)
    assert outcome.places == (2, 3, 1) and outcome.winners == (G,)
    assert state.held(G) == 0 and state.current_player() is None
    with pytest.raises(GameOverError):
        act(state, G, "play:green:new")


def test_finishing_order_is_the_reverse_order_of_defeat() -> None:
    state = SuckerState.from_table(holdings=["", "", "", "Y"], piles=["RBG"], chain=(B, G, R))
    outcome = state.outcome()
    # Red falls, then green (who gave red the move), then blue: yellow, holding a chip, survives.
    assert state.defeated == (R, G, B)
    assert outcome is not None and outcome.places == (4, 2, 3, 1)


def test_resigning_mover_is_defeated_chips_killed_and_the_move_returns() -> None:
    state = SuckerState.from_table(holdings=["RRB", "B", "G", "Y"], piles=[], chain=(Y, R))
    after = state.resign(R)
    assert after.defeated == (R,) and after.holdings[R] == (0, 0, 0, 0)
    assert after.dead[R] == 7 and after.dead[B] == 7 - 1
    assert after.mover == Y and after.last == (R, "resign")
    with pytest.raises(IllegalMoveError, match="already out"):
        after.resign(R)


def test_resigning_capturing_owner_makes_it_a_capture_by_a_defeated_colour() -> None:
    state = SuckerState.from_table(holdings=["RR", "B", "G", "YR"], piles=["BR"], chain=(G, Y))
    capture = act(state, Y, "play:red:1")
    after = capture.resign(R)
    assert after.piles == () and after.phase is Phase.PLAY and after.mover == Y
    assert all(total == 7 for total in after.chip_totals())


def test_resigning_rescuer_is_no_longer_asked() -> None:
    after = stuck_red().resign(B)
    assert after.current_player() == Y and after.stuck() == R


def test_resigning_stuck_player_passes_the_move_back() -> None:
    after = stuck_red().resign(R)
    assert after.defeated == (R,) and after.mover == Y and after.phase is Phase.PLAY


def test_resignation_that_empties_the_naming_choice_forces_the_next_player() -> None:
    state = SuckerState.from_table(holdings=["RR", "B", "G", "Y"], piles=["BG"], chain=(R,))
    naming = act(state, R, "play:red:1")
    assert naming.name_candidates() == (Y,)
    after = naming.resign(Y)
    assert after.phase is Phase.PLAY and after.mover == B  # [B G R]: blue's chip lies deepest


def test_resignation_leaving_one_player_ends_the_game_with_its_reason() -> None:
    state = SuckerState.from_table(3, holdings=["R", "B", "G"], chain=(R,))
    after = state.resign(B).resign(R, EndReason.TIMEOUT)
    outcome = after.outcome()
    assert outcome is not None and outcome.reason == "timeout" and outcome.places == (2, 3, 1)
    with pytest.raises(GameOverError):
        after.resign(G)


def test_agreed_draw_shares_first_place_among_players_still_in() -> None:
    state = SuckerState.from_table(holdings=["R", "", "G", "Y"], piles=["B"], chain=(R,), defeated=(B,))
    outcome = state.agree_draw().outcome()
    assert outcome is not None and outcome.places == (1, 4, 1, 1) and outcome.reason == EndReason.DRAW_AGREED


# ----- setting up ----------------------------------------------------------------------------------------------
def test_new_game_defaults_and_options() -> None:
    state = SuckerState.new(4, {}, random.Random(1))
    assert state.colours == ("red", "blue", "green", "yellow")
    assert all(state.holdings[s] == tuple(7 if c == s else 0 for c in range(4)) for s in range(4))
    assert state.phase is Phase.PLAY and state.piles == () and state.current_player() in range(4)
    custom = SuckerState.new(6, {"chips": 3, "first": 5}, random.Random(1))
    assert custom.current_player() == 5 and custom.colours[5] == "orange" and custom.chip_totals() == (3,) * 6
    firsts = {SuckerState.new(3, {}, random.Random(seed)).current_player() for seed in range(30)}
    assert firsts == {0, 1, 2}


@pytest.mark.parametrize(("players", "options"), [(2, {}), (7, {}), (4, {"chips": 2}), (4, {"chips": 11}),
                                                  (4, {"first": 4})])
def test_new_game_refuses_bad_options(players: int, options: dict[str, int]) -> None:
    with pytest.raises(GameError):
        SuckerState.new(players, options, random.Random(0))

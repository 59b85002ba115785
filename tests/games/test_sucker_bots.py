"""The basic So Long Sucker bot: legal, not foolish, and games between bots always end."""

from __future__ import annotations

import random

import pytest

from games import GameError, NotYourTurnError
from games.engines import replay
from games.registry import describe
from games.sucker import Phase, SuckerState
from games.sucker.bots import LEVELS, bot_action

R, B, G, Y = 0, 1, 2, 3


def bot(state: SuckerState, seed: int = 0) -> str:
    seat = state.current_player()
    assert seat is not None
    return bot_action(state, seat, "basic", random.Random(seed)).text()


def act(state: SuckerState, seat: int, text: str) -> SuckerState:
    return state.apply(seat, state.parse_action(text))


@pytest.mark.parametrize("players", [3, 4, 6])
@pytest.mark.parametrize("chips", [3, 7, 10])
def test_bots_only_games_always_finish(players: int, chips: int) -> None:
    kinds: set[str] = set()
    for seed in range(6):
        rng = random.Random(seed * 100 + players * 10 + chips)
        state = SuckerState.new(players, {"chips": chips}, rng)
        initial, log = state.to_dict(), []
        limit = 12 * players * chips  # every decision spends, kills or gives back chips: this is generous
        for _ in range(limit):
            seat = state.current_player()
            if seat is None:
                break
            kinds.add(state.phase.value)
            action = bot_action(state, seat, "basic", rng)
            assert action in state.legal_actions(seat)
            state = state.apply(seat, action)
            log.append((seat, action.text()))
        outcome = state.outcome()
        assert outcome is not None, f"{players} players, {chips} chips, seed {seed}: no end in {limit} decisions"
        assert sorted(outcome.places) == list(range(1, players + 1)) and len(outcome.winners) == 1
        assert replay("sucker", initial, log) == state
    assert {"play", "kill", "name"} <= kinds


def test_bots_make_rescue_decisions_in_bot_games() -> None:
    asked = 0
    for seed in range(20):
        rng = random.Random(seed)
        state = SuckerState.new(4, {"chips": 5}, rng)
        while (seat := state.current_player()) is not None:
            asked += state.phase is Phase.RESCUE
            state = state.apply(seat, bot_action(state, seat, "basic", rng))
    assert asked > 0


def test_bot_captures_when_it_can() -> None:
    state = SuckerState.from_table(holdings=["RB", "B", "G", "Y"], piles=["BR", "G"], chain=(R,))
    assert bot(state) == "play:red:1"


def test_bot_never_hands_a_rival_a_pile_when_it_can_avoid_it() -> None:
    state = SuckerState.from_table(holdings=["G", "B", "G", "Y"], piles=["BG", "Y"], chain=(R,))
    assert all(bot(state, seed) != "play:green:1" for seed in range(20))


def test_bot_does_not_put_a_rivals_colour_on_its_own_chips() -> None:
    state = SuckerState.from_table(holdings=["RB", "B", "G", "Y"], piles=["RGRG"], chain=(R,))
    assert all(bot(state, seed) != "play:blue:1" for seed in range(20))


def test_bot_names_a_player_who_cannot_capture_its_chips() -> None:
    # Yellow could take the pile with red's two chips, green the smaller one; blue threatens nothing.
    state = SuckerState.from_table(holdings=["RR", "B", "G", "Y"], piles=["RBRY", "RG"], chain=(R,))
    naming = act(state, R, "play:red:new")
    assert naming.phase is Phase.NAME and naming.name_candidates() == (B, G, Y)
    assert {bot(naming, seed) for seed in range(20)} == {"next:blue"}


def test_bot_kills_a_chip_of_the_strongest_rival_never_its_own() -> None:
    state = SuckerState.from_table(holdings=["R", "BBBB", "G", "YR"], piles=["GBR"], chain=(Y,))
    capture = act(state, Y, "play:red:1")
    assert capture.phase is Phase.KILL and capture.current_player() == R
    assert {bot(capture, seed) for seed in range(20)} == {"kill:blue"}


def test_bot_rescues_a_player_who_gave_it_chips() -> None:
    # Red hands its last chip to blue; red is then stuck, and blue is asked first.
    state = SuckerState.from_table(holdings=["G", "B", "G", "Y"], chain=(Y, R))
    stuck = act(state, R, "give:green:blue")
    assert stuck.stuck() == R and stuck.current_player() == B
    assert bot(stuck) == "give:green:red"


def test_bot_declines_to_rescue_a_stranger() -> None:
    state = SuckerState.from_table(holdings=["", "BG", "G", "Y"], chain=(Y, R))
    assert state.current_player() == B and bot(state) == "decline"


def test_bot_refuses_unknown_levels_and_other_players_decisions() -> None:
    state = SuckerState.from_table(holdings=["R", "B", "G", "Y"])
    with pytest.raises(GameError, match="no 'perfect'"):
        bot_action(state, R, "perfect", random.Random(0))
    with pytest.raises(NotYourTurnError):
        bot_action(state, B, "basic", random.Random(0))
    assert LEVELS == ("basic",) == describe("sucker").bot_levels

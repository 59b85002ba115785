"""Computer opponents: the perfect player against random play, itself and exhaustive positions; the search
for 3+ players; the easy and medium levels."""

from __future__ import annotations

import random
import time

import pytest

from games import GameError, NotYourTurnError
from games.chopsticks import ChopsticksState, Rules
from games.chopsticks.bots import bot_action, choose_move, easy_move
from games.chopsticks.counting import reachable
from games.chopsticks.position import table_code
from games.chopsticks.search import search_move
from games.chopsticks.solver import solve

CUTOFF_SELF = Rules(variants=frozenset({"cutoff", "self-attack"}))
CUTOFF_SUICIDE = Rules(variants=frozenset({"cutoff", "suicide"}))


def play(rules: Rules, levels: dict[int, str], seed: int, first: int = 0) -> ChopsticksState:
    """A game between bots of `levels` by seat; other seats play uniformly random legal moves."""
    rng = random.Random(seed)
    state = ChopsticksState.start(rules, first)
    while state.outcome() is None:
        seat = state.to_move
        if seat in levels:
            action = bot_action(state, seat, levels[seat], rng)
        else:
            action = rng.choice(list(state.legal_actions(seat)))
        state = state.apply(seat, action)
    return state


def tally(states: list[ChopsticksState], seat_of: list[int]) -> dict[str, int]:
    counts = {"win": 0, "draw": 0, "loss": 0}
    for state, seat in zip(states, seat_of, strict=True):
        outcome = state.outcome()
        assert outcome is not None
        counts["draw" if outcome.is_draw else "win" if seat in outcome.winners else "loss"] += 1
    return counts


def test_random_play_never_beats_perfect_in_the_standard_game() -> None:
    """100 games, perfect moving first in half of them (measured: 99 wins, 1 draw)."""
    seats = [g % 2 for g in range(100)]
    games = [play(Rules(), {seat: "perfect"}, seed=g) for g, seat in enumerate(seats)]
    result = tally(games, seats)
    assert result["loss"] == 0
    assert result["win"] >= 90


def test_perfect_always_wins_cutoff_self_attack_moving_first() -> None:
    games = [play(CUTOFF_SELF, {0: "perfect"}, seed=g) for g in range(100)]
    assert tally(games, [0] * 100) == {"win": 100, "draw": 0, "loss": 0}


def test_perfect_always_wins_cutoff_suicide_moving_second() -> None:
    games = [play(CUTOFF_SUICIDE, {1: "perfect"}, seed=g) for g in range(100)]
    assert tally(games, [1] * 100) == {"win": 100, "draw": 0, "loss": 0}


def test_perfect_against_perfect_is_drawn_by_repetition() -> None:
    for seed in range(5):
        state = play(Rules(), {0: "perfect", 1: "perfect"}, seed=seed)
        assert state.outcome() is not None and state.outcome().reason == "repetition"  # type: ignore[union-attr]


@pytest.mark.parametrize("rules", [Rules(), CUTOFF_SELF, CUTOFF_SUICIDE], ids=["standard", "cutoff-self", "cutoff-sui"])
def test_perfect_keeps_the_value_of_every_reachable_position(rules: Rules) -> None:
    """Exhaustive: from each reachable position the perfect move keeps the solver's value and distance."""
    solution = solve(rules)
    rng = random.Random(0)
    for table in reachable(rules):
        state = ChopsticksState.from_code(table_code(table, rules), rules)
        if state.outcome() is not None:
            continue
        before = solution.verdict(state)
        after = solution.verdict(state.apply(0, choose_move(state, "perfect", rng)))
        flipped = {"win": "loss", "loss": "win", "draw": "draw"}[after.result]
        assert flipped == before.result
        if before.distance is not None:
            assert after.distance == before.distance - 1


def test_easy_and_medium_are_beatable() -> None:
    for level in ("easy", "medium"):
        games = [play(CUTOFF_SELF, {0: "perfect", 1: level}, seed=g) for g in range(10)]
        assert tally(games, [0] * 10)["win"] == 10
    easy_vs_random = [play(Rules(), {0: "easy"}, seed=g) for g in range(20)]
    assert tally(easy_vs_random, [0] * 20)["win"] < 20


def test_easy_takes_a_win_in_one() -> None:
    rng = random.Random(0)
    for _ in range(10):
        assert easy_move(ChopsticksState.from_code("1401"), rng).text() == "BD"


def test_three_player_games_with_bots_play_to_the_end() -> None:
    for seed in range(2):
        state = play(Rules(players=3), {0: "easy", 1: "medium", 2: "perfect"}, seed=seed)
        assert state.outcome() is not None and state.ply > 0
    zombies = play(Rules(players=4, variants=frozenset({"zombie"})), {0: "perfect", 1: "medium", 2: "easy"}, seed=1)
    assert zombies.outcome() is not None


def test_search_takes_a_knockout_and_is_repeatable() -> None:
    state = ChopsticksState.from_code("140001", Rules(players=3))  # seat 1 is out; 4 taps 1 wins
    assert search_move(state, 4, random.Random(0)).action.text() == "BF"
    wide = ChopsticksState.start(Rules(players=4))
    picks = {search_move(wide, 4, random.Random(7)).action for _ in range(2)}
    assert len(picks) == 1


WIDE = [
    Rules(players=3),
    Rules(players=6),
    Rules(players=6, hands=4, rollover=10, variants=frozenset({"self-attack", "meta", "suicide", "integers"})),
    Rules(players=2, hands=4, rollover=10),  # too big for the solver: perfect searches
]


@pytest.mark.parametrize("rules", WIDE, ids=lambda r: f"p{r.players}h{r.hands}r{r.rollover}")
def test_search_decisions_take_under_a_second(rules: Rules) -> None:
    rng = random.Random(3)
    state = ChopsticksState.start(rules)
    slowest = 0.0
    for _ in range(6):
        if state.outcome() is not None:
            break
        start = time.perf_counter()
        action = bot_action(state, state.to_move, "perfect", rng)
        slowest = max(slowest, time.perf_counter() - start)
        state = state.apply(state.to_move, action)
        if state.outcome() is None:
            state = state.apply(state.to_move, rng.choice(list(state.legal_actions(state.to_move))))
    assert slowest < 1.0


def test_bot_action_refusals() -> None:
    state = ChopsticksState.start(Rules())
    with pytest.raises(GameError, match="no 'genius'"):
        bot_action(state, 0, "genius", random.Random(0))
    with pytest.raises(NotYourTurnError):
        bot_action(state, 1, "easy", random.Random(0))

"""The standard game's facts from ../shared/rules/chopsticks.md, reproduced by the engine."""

from __future__ import annotations

import random
from collections import deque

import pytest

from games import GameOverError, IllegalMoveError, InvalidStateError, NotYourTurnError
from games.chopsticks import Attack, ChopsticksState, Rules, Split
from games.chopsticks.bots import simple_move

PAIRS = ["00", "01", "02", "03", "04", "11", "12", "13", "14", "22", "23", "24", "33", "34", "44"]


def successors(state: ChopsticksState) -> list[ChopsticksState]:
    return [state.apply(state.to_move, a) for a in state.legal_actions(state.to_move)]


def counting_successors(code: str, rules: Rules) -> list[str]:
    """Successor codes as the seed counts them: a seat that is out keeps its turn in the rotation and passes."""
    state = ChopsticksState.from_code(code, rules)
    if state.result is not None:
        return []
    p = rules.players
    if state.is_out(0):
        return [code[rules.hands:] + code[: rules.hands]]
    out = []
    for action in state.legal_actions(0):
        after = state.apply(0, action)
        out.append("".join("".join(map(str, after.hands[(1 + i) % p])) for i in range(p)))
    return out


def reachable_codes(players: int) -> set[str]:
    rules = Rules(players=players)
    start = ChopsticksState.start(rules).code()
    seen, queue = {start}, deque([start])
    while queue:
        for nxt in counting_successors(queue.popleft(), rules):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def test_start_and_first_moves() -> None:
    start = ChopsticksState.start(Rules())
    assert start.code() == "1111"
    assert {s.code() for s in successors(start)} == {"1211"}
    assert {s.code() for s in successors(ChopsticksState.from_code("1211"))} == {"1212", "1312"}


def test_1312_has_exactly_the_seeds_five_successors() -> None:
    state = ChopsticksState.from_code("1312")
    assert [s.code() for s in successors(state)] == ["2213", "1313", "2413", "0113", "1222"]
    assert [a.text() for a in state.legal_actions(0)] == ["AC", "AD", "BC", "BD", "13-22"]


def test_225_distinct_204_reachable_21_unreachable() -> None:
    all_codes = {a + b for a in PAIRS for b in PAIRS}
    assert len(all_codes) == 225
    reachable = reachable_codes(2)
    assert len(reachable) == 204
    assert sorted(all_codes - reachable) == [
        "0000", "0100", "0200", "0300", "0400", "1100", "1101", "1200", "1300", "1400", "2200",
        "2202", "2300", "2400", "3300", "3303", "3400", "3444", "4400", "4404", "4444",
    ]


def test_14_reachable_end_positions() -> None:
    ends = sorted(c for c in reachable_codes(2) if c.startswith("00"))
    assert ends == ["0001", "0002", "0003", "0004", "0011", "0012", "0013", "0014", "0022", "0023",
                    "0024", "0033", "0034", "0044"]


def test_shortest_game_is_five_moves() -> None:
    line = ["1111", "1211", "1312", "0113", "1401", "0014"]
    state = ChopsticksState.start(Rules())
    for code in line[1:]:
        state = next(s for s in successors(state) if s.code() == code)
    assert state.result is not None and state.result.reason == "knockout"
    assert state.ply == 5
    # and none shorter: breadth-first search from the start finds no end within 4 moves
    frontier = [ChopsticksState.start(Rules())]
    for _ in range(4):
        frontier = [s for f in frontier for s in successors(f)]
        assert all(s.result is None for s in frontier)


def test_three_player_reachable_positions() -> None:
    assert len(reachable_codes(3)) == 3337


def test_attack_rollover_kill_and_dead_hands() -> None:
    state = ChopsticksState.from_code("1412")  # mover 14, other 12
    assert state.apply(0, Attack(1, 3)).hands[1] == (1, 1)  # BD: 4 taps 2 -> 6 -> rolls over to 1
    assert state.apply(0, Attack(1, 2)).hands[1] == (0, 2)  # BC: 4 taps 1 -> exactly 5 -> dead
    assert state.apply(0, Attack(0, 3)).hands[1] == (1, 3)  # AD: 1 taps 2 -> 3
    dead = ChopsticksState.from_code("0412")
    with pytest.raises(IllegalMoveError, match="dead hand cannot tap"):
        dead.apply(0, Attack(0, 2))
    with pytest.raises(IllegalMoveError, match="cannot tap a dead hand"):
        ChopsticksState.from_code("1204").apply(0, Attack(0, 2))


def test_splits_follow_the_rules() -> None:
    state = ChopsticksState.from_code("0413")
    assert sorted(a.text() for a in state.legal_actions(0) if isinstance(a, Split)) == ["04-13", "04-22"]
    with pytest.raises(IllegalMoveError, match="swapping"):
        ChopsticksState.from_code("1313").apply(0, Split((1, 3), (1, 3)))
    with pytest.raises(IllegalMoveError, match="kill your own hand"):
        ChopsticksState.from_code("1313").apply(0, Split((1, 3), (0, 4)))
    assert ChopsticksState.from_code("0212").apply(0, Split((0, 2), (1, 1))).code() == "1211"


def test_turns_game_over_and_parse_errors() -> None:
    state = ChopsticksState.start(Rules())
    with pytest.raises(NotYourTurnError):
        state.apply(1, Attack(0, 2))
    with pytest.raises(IllegalMoveError, match="not a move"):
        state.parse_action("ZZ")
    with pytest.raises(IllegalMoveError, match="not one of your hands"):
        state.parse_action("CA")
    over = ChopsticksState.from_code("0014")
    assert over.result is not None and over.result.winners == (1,)
    with pytest.raises(GameOverError):
        over.apply(0, Attack(0, 2))


def test_third_repetition_is_a_draw() -> None:
    # Both players shuffle 13 <-> 22: "1313" with seat 0 to move recurs after every four moves.
    state = ChopsticksState.from_code("1313")
    cycle = ["13-22", "13-22", "22-13", "22-13"]
    for ply in range(8):
        assert state.result is None, ply
        state = state.apply(state.to_move, state.parse_action(cycle[ply % 4]))
    assert state.code() == "1313" and state.to_move == 0
    assert state.result is not None and state.result.reason == "repetition"
    assert state.result.is_draw


def test_resign_and_agreement() -> None:
    state = ChopsticksState.start(Rules(), first_seat=1)
    resigned = state.resign(0)
    assert resigned.result is not None and resigned.result.winners == (1,)
    assert resigned.result.reason == "resign"
    drawn = state.agree_draw()
    assert drawn.result is not None and drawn.result.is_draw


def test_serialisation_round_trip_and_validation() -> None:
    state = ChopsticksState.from_code("1312").apply(0, Attack(1, 3))
    assert ChopsticksState.from_dict(state.to_dict()) == state
    bad = state.to_dict() | {"hands": [[2, 1], [1, 1]]}
    with pytest.raises(InvalidStateError):
        ChopsticksState.from_dict(bad)
    with pytest.raises(InvalidStateError):
        ChopsticksState.from_dict(state.to_dict() | {"format": 99})


def test_variants_are_refused_until_implemented() -> None:
    with pytest.raises(ValueError, match="not available yet"):
        ChopsticksState.new(2, {"variants": ["cutoff"]}, random.Random(0))


def test_simple_bot_takes_a_win_in_one_and_avoids_losing_in_one() -> None:
    # 1401: mover has 14, opponent 01: BD (4 taps 1 -> 5 -> 0) wins at once.
    assert simple_move(ChopsticksState.from_code("1401"), random.Random(0)).text() == "BD"
    rng = random.Random(3)
    for _ in range(20):
        state = ChopsticksState.from_code("1312")
        move = simple_move(state, rng)
        after = state.apply(0, move)
        assert all(after.apply(1, r).result is None for r in after.legal_actions(1))

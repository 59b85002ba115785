"""The standard game's facts from ../shared/rules/chopsticks.md, reproduced by the engine."""

from __future__ import annotations

import itertools
import random
from collections import deque
from functools import cache

import pytest

from games import GameOverError, IllegalMoveError, InvalidStateError, NotYourTurnError
from games.base import Action
from games.chopsticks import Attack, ChopsticksState, Rules, Split
from games.chopsticks.bots import simple_move
from games.chopsticks.counting import reachable_codes as count_reachable

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


@cache
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


def reachable_codes_fast(rules: Rules) -> set[str]:
    """The same count through the counting module, which works on move tables rather than game states."""
    return count_reachable(rules)


def legal(code: str, rules: Rules) -> tuple[Action, ...]:
    return tuple(ChopsticksState.from_code(code, rules).legal_actions(0))


def splits(code: str, rules: Rules) -> list[str]:
    return [a.text() for a in legal(code, rules) if isinstance(a, Split)]


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


def distances_from_start() -> dict[str, int]:
    """Breadth-first distance (in moves) of every reachable code from 1111."""
    rules = Rules()
    start = "1111"
    dist, queue = {start: 0}, deque([start])
    while queue:
        code = queue.popleft()
        for nxt in counting_successors(code, rules):
            if nxt not in dist:
                dist[nxt] = dist[code] + 1
                queue.append(nxt)
    return dist


def test_the_first_player_wins_8_of_the_14_endgames_by_the_shortest_games() -> None:
    ends = {code: d for code, d in distances_from_start().items() if code.startswith("00")}
    assert len(ends) == 14
    assert sorted(code for code, d in ends.items() if d % 2) == [
        "0001", "0003", "0004", "0012", "0013", "0014", "0023", "0033"]


def test_the_longest_game_moving_away_from_the_start_is_9_moves() -> None:
    dist = distances_from_start()
    assert max(dist.values()) == 9
    assert sorted(code for code, d in dist.items() if d == 9 and code.startswith("00")) == ["0001", "0004"]
    for line in ["1111 1211 1212 2212 2322 0223 0202 0402 0104 0001",
                 "1111 1211 1212 2312 2323 0323 0303 0103 0401 0004"]:
        codes = line.split()
        assert [dist[c] for c in codes] == list(range(10))
        assert all(b in counting_successors(a, Rules()) for a, b in itertools.pairwise(codes))


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


def test_four_player_reachable_positions() -> None:
    # The seed says "more than 25,000"; counted the seed's way (an out seat keeps its turn and passes).
    count = len(reachable_codes_fast(Rules(players=4)))
    assert count > 25_000
    assert count == 50_567


def test_counting_module_agrees_with_the_engine() -> None:
    assert reachable_codes_fast(Rules()) == reachable_codes(2)
    assert reachable_codes_fast(Rules(players=3)) == reachable_codes(3)


def test_meta_examples_from_the_rules_page() -> None:
    meta = Rules(variants=frozenset({"meta"}))
    assert splits("4411", meta) == ["44-12"]
    assert splits("3411", meta) == ["34-11"]
    assert splits("2411", meta) == ["24-33"]  # 6 - 5 = 1 cannot be held on two live hands
    assert splits("3311", meta) == ["33-24"]
    both = Rules(variants=frozenset({"meta", "suicide"}))
    assert splits("2411", both) == ["24-33", "24-01"]
    assert splits("3311", both) == ["33-24", "33-01"]
    assert splits("3411", both) == ["34-02", "34-11"]
    assert splits("4411", both) == ["44-03", "44-12"]
    after = ChopsticksState.from_code("4411", meta).apply(0, Split((4, 4), (1, 2)))
    assert after.code() == "1112"


def test_meta_opens_two_moves_and_six_with_suicide() -> None:
    """The seed: meta adds 34-11 and 44-12; with suicide also 24-01, 33-01, 34-02, 44-03 (at most 20 moves)."""
    def combines(rules: Rules) -> set[str]:
        return {a.text() for code in reachable_codes(2) for a in legal(code, rules)
                if isinstance(a, Split) and sum(a.after) != sum(a.before)}

    assert combines(Rules(variants=frozenset({"meta"}))) == {"34-11", "44-12"}
    assert combines(Rules(variants=frozenset({"meta", "suicide"}))) == {
        "34-11", "44-12", "24-01", "33-01", "34-02", "44-03"}


def test_suicide_splits() -> None:
    suicide = Rules(variants=frozenset({"suicide"}))
    assert splits("1211", suicide) == ["12-03"]
    assert splits("1111", suicide) == ["11-02"]
    assert splits("0111", suicide) == []  # never both hands
    assert splits("1311", suicide) == ["13-04", "13-22"]


def test_the_seeds_suicide_line() -> None:
    """[1201] -> 12-03 -> [0103] -> the opponent is forced to play BD -> [0401], and a quick win follows."""
    state = ChopsticksState.from_code("1201", Rules(variants=frozenset({"suicide"})))
    state = state.apply(0, state.parse_action("12-03"))
    assert state.code() == "0103"
    assert [a.text() for a in state.legal_actions(1)] == ["BD"]
    state = state.apply(1, Attack(1, 3))
    assert state.code() == "0401"
    state = state.apply(0, state.parse_action("BD"))
    assert state.code() == "0004" and state.result is not None and state.result.winners == (0,)


REACHABLE_REMARKS = [
    # variants, reachable count, the unreachable ones beyond the 15 where the player who just moved is out
    ((), 204, ["1101", "2202", "3303", "3444", "4404", "4444"]),
    (("suicide",), 207, ["1101", "3444", "4444"]),
    (("suicide", "meta"), 208, ["3444", "4444"]),
    (("suicide", "meta", "sans"), 210, []),
]


@pytest.mark.parametrize(("variants", "count", "extra"), REACHABLE_REMARKS)
def test_the_seeds_remarks_on_unreachable_positions(variants: tuple[str, ...], count: int, extra: list[str]) -> None:
    """Suicide reaches all of item 2 but 1101; suicide+meta reaches 1101; adding sans reaches 3444 and 4444."""
    rules = Rules(variants=frozenset(variants))
    reachable = reachable_codes_fast(rules)
    assert len(reachable) == count
    unreachable = {a + b for a in PAIRS for b in PAIRS} - reachable
    assert sorted(unreachable) == sorted([p + "00" for p in PAIRS] + extra)


def test_more_hands_and_players_in_codes() -> None:
    rules = Rules(players=3, hands=3)
    state = ChopsticksState.start(rules)
    assert state.code() == "111111111"
    state = state.apply(0, state.parse_action("AD"))
    assert state.code() == "112111111"  # seat 1, just tapped, moves next
    assert ChopsticksState.from_code("013111", Rules(hands=3)).legal_actions(0) == (
        Attack(1, 3), Attack(2, 3), Split((0, 1, 3), (0, 2, 2)), Split((0, 1, 3), (1, 1, 2)))


def test_out_seats_are_skipped_in_play() -> None:
    state = ChopsticksState.from_code("140112", Rules(players=3))
    state = state.apply(0, state.parse_action("BD"))  # 4 taps the lone 1: seat 1 is out
    assert state.out_order == (1,) and state.to_move == 2
    assert state.code() == "121400"


def test_simple_bot_takes_a_win_in_one_and_avoids_losing_in_one() -> None:
    # 1401: mover has 14, opponent 01: BD (4 taps 1 -> 5 -> 0) wins at once.
    assert simple_move(ChopsticksState.from_code("1401"), random.Random(0)).text() == "BD"
    rng = random.Random(3)
    for _ in range(20):
        state = ChopsticksState.from_code("1312")
        move = simple_move(state, rng)
        after = state.apply(0, move)
        assert all(after.apply(1, r).result is None for r in after.legal_actions(1))

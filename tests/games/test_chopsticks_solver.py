"""The solver: the seed's theory, exhaustive consistency of every value, lives, limits and speed."""

from __future__ import annotations

import time

import pytest

from games import GameError
from games.chopsticks import Attack, ChopsticksState, Rules, moves
from games.chopsticks.moves import successors
from games.chopsticks.position import Seat
from games.chopsticks.solver import (
    CACHE_BUDGET,
    MAX_POSITIONS,
    SOLUTIONS,
    Solution,
    SolutionCache,
    Verdict,
    position_count,
    solve,
)


def rules(*variants: str, **kw: int) -> Rules:
    return Rules(variants=frozenset(variants), **kw)  # type: ignore[arg-type]


def start_verdict(rule_set: Rules) -> Verdict:
    return solve(rule_set).verdict(ChopsticksState.start(rule_set))


def test_standard_game_is_a_draw() -> None:
    assert start_verdict(Rules()) == Verdict("draw", None)
    assert solve(Rules()).size == 225


def test_cutoff_with_self_attack_is_a_first_player_win() -> None:
    verdict = start_verdict(rules("cutoff", "self-attack"))
    assert verdict.result == "win" and verdict.distance == 23
    # The seed's winning strategy starts by reaching [2,1],[1,1]: tap your own hand.
    state = ChopsticksState.start(rules("cutoff", "self-attack"))
    assert [a.text() for a in solve(state.rules).best_actions(state)] == ["AB"]
    assert state.apply(0, Attack(0, 1)).code() == "1112"


def test_cutoff_with_suicide_is_a_second_player_win() -> None:
    verdict = start_verdict(rules("cutoff", "suicide"))
    assert verdict.result == "loss" and verdict.distance == 26


def test_other_rule_sets_from_the_start() -> None:
    # Not in the seed, recorded so that a change in the rules shows up here.
    assert start_verdict(rules("cutoff")).result == "draw"
    assert start_verdict(rules("misere")).result == "draw"
    assert start_verdict(rules("halves", "cutoff", "transfers-only")) == Verdict("loss", 8)


def test_literal_positions() -> None:
    solution = solve(Rules())
    assert solution.verdict(ChopsticksState.from_code("1401")) == Verdict("win", 1)
    assert solution.verdict(ChopsticksState.from_code("0014")) == Verdict("loss", 0)
    assert [a.text() for a in solution.best_actions(ChopsticksState.from_code("1401"))] == ["BD"]
    assert solve(rules("misere")).verdict(ChopsticksState.from_code("0014", rules("misere"))) == Verdict("win", 0)


def test_finished_games_by_repetition_or_agreement() -> None:
    state = ChopsticksState.from_code("1401").agree_draw()
    assert solve(Rules()).verdict(state) == Verdict("draw", 0)
    assert solve(Rules()).best_actions(state) == []


SOLVED = [Rules(), rules("cutoff", "self-attack"), rules("cutoff", "suicide"), rules("misere"),
          rules("sudden-death", lives=3), rules("stumps"), rules("meta", "suicide", "integers", "swap"),
          Rules(hands=3, rollover=4, variants=frozenset({"self-attack", "halves"}), odd=True),
          rules("logan", "sans", "transfers-only")]


@pytest.mark.parametrize("rule_set", SOLVED, ids=lambda r: "+".join(sorted(r.variants)) or f"h{r.hands}r{r.rollover}")
def test_every_value_agrees_with_its_moves(rule_set: Rules) -> None:
    """Exhaustive: won = some move loses for the opponent (shortest), lost = every move wins for them
    (longest), drawn = neither; finished positions score directly."""
    solution = solve(rule_set)
    assert solution.size == position_count(rule_set) == len(solution.seats) ** 2
    for mover in solution.seats:
        for other in solution.seats:
            verdict = solution.verdict_of(mover, other)
            if mover.out or other.out:
                assert verdict.distance == 0 or (mover.out and other.out)
                continue
            replies = [solution.verdict_of(t[1], t[0]) for _, t in successors(rule_set, (mover, other), 0)]
            lost = [r.distance for r in replies if r.result == "loss" and r.distance is not None]
            won = [r.distance for r in replies if r.result == "win" and r.distance is not None]
            if lost:
                assert verdict == Verdict("win", 1 + min(lost))
            elif len(won) == len(replies):
                assert verdict == Verdict("loss", 1 + max(won))
            else:
                assert verdict == Verdict("draw", None)


def test_best_actions_are_the_optimal_moves() -> None:
    solution = solve(Rules())
    for code in ["1111", "1312", "1401", "0113", "2424"]:
        state = ChopsticksState.from_code(code)
        target = solution.verdict(state)
        best = solution.best_actions(state)
        assert best and all(a in state.legal_actions(0) for a in best)
        assert [a for a, v in solution.move_verdicts(state) if v == target] == best


def test_lives_are_part_of_the_position() -> None:
    three = rules("sudden-death", lives=3)
    solution = solve(three)
    assert solution.size == (14 * 3 + 1) ** 2
    last_life = ChopsticksState.from_code("1114/31", three)
    assert solution.verdict(last_life) == Verdict("win", 1)  # AD drops them to 01 with no life left
    spare = ChopsticksState.from_code("1114/33", three)
    assert solution.verdict(spare) != Verdict("win", 1)
    played = spare.apply(0, Attack(0, 3))  # reached in play: they lose a life
    assert played.code() == "0111/23"
    assert solution.verdict(played) == solution.verdict_of(Seat((0, 1), 2), Seat((1, 1), 3))


def test_limits() -> None:
    with pytest.raises(GameError, match="2-player games only"):
        solve(Rules(players=3))
    with pytest.raises(GameError, match=f"at most {MAX_POSITIONS:,}"):
        solve(Rules(hands=4, rollover=10))
    assert position_count(Rules(hands=3, rollover=10)) == 48_400 <= MAX_POSITIONS
    with pytest.raises(GameError, match="other rules"):
        solve(Rules()).verdict(ChopsticksState.start(rules("cutoff")))


def test_solving_the_standard_game_takes_under_50_ms() -> None:
    best = min(_timed(lambda: Solution(Rules())) for _ in range(3))
    assert best < 0.05, f"{best * 1000:.1f} ms"


def test_solutions_are_cached_per_rule_set() -> None:
    assert solve(Rules()) is solve(Rules())
    assert solve(rules("cutoff")) is not solve(Rules())


def test_the_cache_keeps_the_most_recently_used_solutions_within_its_budget() -> None:
    # Issue 22, point 6: every rule set ever asked for was kept (about 2.5 MB for a big one), and `/chopsticks analyze`
    # takes thousands of them. Three big rule sets of ~45,000 positions, in a budget that holds two.
    big = [Rules(hands=3, rollover=10), rules("stumps", rollover=10), rules("sudden-death", rollover=10, lives=4)]
    sizes = [Solution(r).nbytes for r in big]
    assert all(100_000 < size < 400_000 for size in sizes), sizes  # compact: ~5 bytes per position, not ~20
    cache = SolutionCache(budget=sizes[0] + sizes[1] + sizes[2] // 2)
    first = cache.get(big[0])
    assert cache.get(big[1]) is not first and cache.get(big[0]) is first  # kept, and now the most recently used
    cache.get(big[2])  # over budget: the least recently used one goes
    assert big[1] not in cache and big[0] in cache and big[2] in cache and len(cache) == 2
    assert cache.held == sizes[0] + sizes[2] <= cache.budget
    again = cache.get(big[1])  # asked again: solved again, kept, and the least recently used one goes
    assert again is cache.get(big[1]) and big[0] not in cache and cache.held <= cache.budget
    # One solution bigger than the whole budget is still handed out (and kept alone until the next one).
    tiny = SolutionCache(budget=1)
    assert tiny.get(Rules()).verdict(ChopsticksState.start(Rules())) == Verdict("draw", None) and len(tiny) == 1
    tiny.get(rules("cutoff"))
    assert Rules() not in tiny and len(tiny) == 1
    # The process's own cache has a budget; the move tables the solver builds on are bounded too.
    assert SOLUTIONS.budget == CACHE_BUDGET <= 64 * 2**20 and solve(Rules()) is solve(Rules()) and Rules() in SOLUTIONS
    for table in (moves.tap_results, moves.self_taps, moves.own_moves, moves.redistributions):
        assert table.cache_info().maxsize is not None


def _timed(work: object) -> float:
    assert callable(work)
    start = time.perf_counter()
    work()
    return time.perf_counter() - start

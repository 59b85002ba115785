"""The computer players: they read one view, play legal moves, and the strong one plays sensibly."""

from __future__ import annotations

import ast
import inspect
import random
import time
from collections import Counter
from pathlib import Path

import pytest

from games.generals import GeneralsState, PlayerView, Rank, Settings, ai, computer
from games.generals.ai import Model, choose_action, sample_armies
from games.generals.squares import NEIGHBOURS, parse_square


def test_the_ai_takes_a_view_and_cannot_reach_the_state() -> None:
    assert list(inspect.signature(choose_action).parameters) == ["view", "level", "rng"]
    assert inspect.signature(choose_action).parameters["view"].annotation in (PlayerView, "PlayerView")
    tree = ast.parse(Path(ai.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert "games.generals.engine" not in imported and "games.generals" not in imported
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert "GeneralsState" not in names


@pytest.mark.parametrize("level", ai.LEVELS)
def test_every_level_sets_up_then_plays_legal_moves(level: str) -> None:
    rng = random.Random(level)
    state = GeneralsState.new(2, {"variants": ["small-army"]}, rng)
    for _ in range(40):
        player = state.current_player()
        if player is None:
            break
        action = computer.bot_action(state, player, level, rng)
        assert action in state.legal_actions(player) or action.text().startswith("setup:")
        state = state.apply(player, action)
    assert state.phase in ("play", "over") and state.ply > 0


def test_the_same_view_and_seed_give_the_same_choice() -> None:
    state = GeneralsState.from_board({"e4": "MAJ", "e5": "pvt", "f4": "sgt", "a1": "FLG", "i8": "flg"})
    view = state.view_for(0)
    assert choose_action(view, "strong", random.Random(3)) == choose_action(view, "strong", random.Random(3))


def strong(state: GeneralsState, player: int = 0, seed: int = 0) -> str:
    return choose_action(state.view_for(player), "strong", random.Random(seed))


def test_strong_takes_a_known_flag() -> None:
    state = GeneralsState.from_board({"e4": "PVT", "e5": "flg", "d5": "5g", "f4": "spy", "a1": "FLG"},
                                     Settings(show_flag=True))
    assert strong(state) == "e4-e5"


def test_strong_runs_its_flag_home_when_nothing_guards_the_back_rank() -> None:
    state = GeneralsState.from_board({"e7": "FLG", "a4": "5G", "b5": "5g", "a8": "pvt", "i1": "flg"})
    assert all(strong(state, seed=s) == "e7-e8" for s in range(3))


def test_strong_challenges_an_intruder_that_could_win_on_its_back_rank() -> None:
    state = GeneralsState.from_board({"e3": "5G", "a1": "FLG", "e2": "pvt", "i8": "flg", "a8": "pvt"})
    assert strong(state) == "e3-e2"


def test_strong_does_not_attack_a_piece_it_knows_is_stronger() -> None:
    pieces = {"e4": "CPT", "d5": "MAJ", "e5": "5g", "a1": "FLG", "i8": "flg", "a8": "pvt", "c8": "pvt"}
    state = GeneralsState.from_board(pieces, Settings(reveal_winner=True))
    state = state.apply_text(0, "e4-e5").apply_text(1, "a8-a7")  # the Captain dies and learns it met the 5★
    assert {p.square: p.possible for p in state.view_for(0).enemy}["e5"] == {Rank.GENERAL_5}
    for seed in range(3):
        move = strong(state, seed=seed)
        assert move != "d5-e5"
        if move.startswith("d5-"):
            assert parse_square("e5") not in NEIGHBOURS[parse_square(move[3:]) or 0]


def test_sampled_armies_respect_every_deduction_and_the_army() -> None:
    pieces = {"e4": "MAJ", "d4": "PVT", "a1": "FLG", "e5": "1lt", "d5": "spy", "h6": "pvt", "i8": "flg"}
    state = GeneralsState.from_board(pieces).apply_text(0, "e4-e5").apply_text(1, "h6-h5")
    state = state.apply_text(0, "d4-d5")  # the Private takes the Spy
    view = state.view_for(0)
    model = Model.from_view(view)
    army = Counter(view.settings.army)
    for world in sample_armies(model, random.Random(1), 200):
        assert set(world) == set(model.theirs)
        assert all(world[sq] in model.theirs[sq] for sq in world)
        assert Counter(world.values())[Rank.FLAG] == 1
        assert all(n <= army[r] for r, n in Counter(world.values()).items())
        # One Spy is known to be gone, so at most one of the standing pieces is a Spy.
        assert Counter(world.values())[Rank.SPY] <= 1


def test_strong_decides_fast_even_in_a_crowded_melee() -> None:
    # Both whole armies interleaved like a chessboard on ranks 3-7: some 80 moves, each with dozens of replies.
    rng = random.Random(1)
    armies = [[r.abbreviation for r in Settings().army] for _ in (0, 1)]
    for army in armies:
        rng.shuffle(army)
    pieces = {}
    for file in "abcdefghi":
        for rank in range(3, 9):
            side = (ord(file) + rank) % 2
            if armies[side]:
                token = armies[side].pop()
                pieces[f"{file}{rank}"] = token if side == 0 else token.lower()
    state = GeneralsState.from_board(pieces)
    assert len(state.legal_actions(0)) > 60
    started = time.perf_counter()
    computer.bot_action(state, 0, "strong", random.Random(0))
    assert time.perf_counter() - started < 1.0


def test_strong_beats_the_random_mover_quickly() -> None:
    rng = random.Random(2024)
    state = GeneralsState.new(2, {"first": 1}, rng)
    slowest = 0.0
    while (player := state.current_player()) is not None:
        started = time.perf_counter()
        action = computer.bot_action(state, player, "strong" if player == 0 else "random", rng)
        if player == 0:
            slowest = max(slowest, time.perf_counter() - started)
        state = state.apply(player, action)
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == (0,)
    assert slowest < 1.0

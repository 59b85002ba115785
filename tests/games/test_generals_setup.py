"""Setups: the text grid both ways, refusals with their exact reasons, formations, random setups, swaps."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.generals import (
    FORMATIONS,
    GeneralsState,
    Rank,
    Settings,
    SetupError,
    format_grid,
    formation,
    grid_from_squares,
    import_grid,
    random_setup,
)
from games.generals.pieces import FULL_ARMY, SMALL_ARMY
from games.generals.setup import compact, deployment, parse_grid, swap, validate
from games.generals.squares import NEIGHBOURS, home_squares, parse_square, rank_of

GRID_A = """\
    a   b   c   d   e   f   g   h   i
3 | 5G  4G  3G  2G  1G  COL LTC MAJ CPT
2 | 1LT 2LT SGT PVT PVT PVT PVT PVT PVT
1 | SPY SPY FLG .   .   .   .   .   ."""
COMPACT_A = "5G,4G,3G,2G,1G,COL,LTC,MAJ,CPT/1LT,2LT,SGT,PVT,PVT,PVT,PVT,PVT,PVT/SPY,SPY,FLG,.,.,.,.,.,."


def test_export_then_import_round_trips() -> None:
    grid = import_grid(GRID_A, 0)
    assert format_grid(grid, 0) == GRID_A
    assert compact(grid) == COMPACT_A
    assert parse_grid(COMPACT_A) == (grid, None)
    placed = deployment(grid, 0)
    assert placed[parse_square("a3") or 0] == Rank.GENERAL_5
    assert placed[parse_square("c1") or 0] == Rank.FLAG
    assert parse_square("d1") not in placed


def test_a_views_own_pieces_export_as_the_grid() -> None:
    state = GeneralsState.new(2, {}, random.Random(0)).apply_text(1, "setup:" + COMPACT_A)
    view = state.view_for(1)
    grid = grid_from_squares({p.square: p.rank for p in view.own}, view.seat)
    assert format_grid(grid, 1).splitlines()[1] == "8 | 5G  4G  3G  2G  1G  COL LTC MAJ CPT"
    with pytest.raises(SetupError, match=r"^e4 is not one of your deployment squares\.$"):
        grid_from_squares({"e4": Rank.MAJOR}, 1)


def test_side_b_grid_is_absolute_with_rank_8_on_top() -> None:
    text = GRID_A.replace("3 |", "8 |").replace("2 |", "7 |").replace("1 |", "6 |")
    grid = import_grid(text, 1)
    assert format_grid(grid, 1) == text
    placed = deployment(grid, 1)
    assert placed[parse_square("a8") or 0] == Rank.GENERAL_5
    assert placed[parse_square("c6") or 0] == Rank.FLAG


def test_import_is_forgiving_about_layout() -> None:
    unlabelled = "\n".join(line.split("|")[1] for line in GRID_A.splitlines()[1:]).lower()
    assert import_grid(unlabelled, 0) == import_grid(GRID_A, 0)
    # Labelled rows may come in any order; the labels say which rank each is.
    shuffled = "\n".join([GRID_A.splitlines()[3], GRID_A.splitlines()[1], GRID_A.splitlines()[2]])
    assert import_grid(shuffled, 0) == import_grid(GRID_A, 0)
    dashes = GRID_A.replace(".  ", "-  ").replace("  .", "  -")
    assert import_grid(dashes, 0) == import_grid(GRID_A, 0)


@pytest.mark.parametrize(("text", "side", "reason"), [
    ("5G,4G/PVT", 0, "A setup is 3 rows of 9 squares; this one has 2 row(s)."),
    (COMPACT_A.replace("CPT/", "/"), 0,
     "Row 1 of the setup has 8 squares; each row has 9 (write . for an empty square)."),
    (COMPACT_A.replace("MAJ", "MAJOR"), 0,
     "'MAJOR' (row 1, file h) is not a piece: write one of 5G 4G 3G 2G 1G COL LTC MAJ CPT 1LT 2LT SGT PVT SPY "
     "FLG, or . for an empty square."),
    (COMPACT_A.replace("SPY,SPY,FLG,.", "SPY,PVT,FLG,PVT"), 0,
     "The army is 21 pieces (5G 4G 3G 2G 1G COL LTC MAJ CPT 1LT 2LT SGT PVT x6 SPY x2 FLG); this setup has 22 — "
     "too many: 2 PVT; missing: 1 SPY."),
    (COMPACT_A.replace("FLG", "."), 0,
     "The army is 21 pieces (5G 4G 3G 2G 1G COL LTC MAJ CPT 1LT 2LT SGT PVT x6 SPY x2 FLG); this setup has 20 — "
     "missing: 1 FLG."),
    (GRID_A, 1, "The rows are labelled 3, 2, 1, but your ranks are 8, 7, 6."),
    (GRID_A.replace("1 |", "5 |"), 0, "The rows are labelled 3, 2, 5; a setup uses ranks 1-3 (side A) or 6-8 "
                                      "(side B)."),
    (GRID_A.replace("1 |", "  "), 0, "Label every row of the setup with its rank, or none of them."),
])
def test_invalid_setups_are_refused_with_the_exact_reason(text: str, side: int, reason: str) -> None:
    with pytest.raises(SetupError) as refused:
        import_grid(text, side)
    assert str(refused.value) == reason


def test_small_army_setup() -> None:
    small = "5G,4G,3G,COL,MAJ,CPT,SGT,PVT,PVT/SPY,FLG,.,.,.,.,.,.,./.,.,.,.,.,.,.,.,."
    grid = import_grid(small, 0, Settings(small_army=True))
    assert Counter(c for c in grid if c is not None) == Counter(SMALL_ARMY)
    with pytest.raises(SetupError, match="The army is 11 pieces"):
        import_grid(COMPACT_A, 0, Settings(small_army=True))


@pytest.mark.parametrize("name", FORMATIONS)
@pytest.mark.parametrize("small", [False, True])
def test_formations_are_valid_for_both_sides_and_vary(name: str, small: bool) -> None:
    settings = Settings(small_army=small)
    army = SMALL_ARMY if small else FULL_ARMY
    seen = set()
    for seed in range(30):
        for side in (0, 1):
            grid = formation(name, random.Random(2 * seed + side), side, settings)
            validate(grid, army)
            placed = deployment(grid, side)
            assert set(placed) <= set(home_squares(side))
            flag = next(sq for sq, r in placed.items() if r == Rank.FLAG)
            if name in ("balanced", "flag-fortress", "blitz"):
                assert rank_of(flag) == (1 if side == 0 else 8), "these formations keep the Flag on the back row"
            seen.add(grid)
    assert len(seen) > 30, "a formation varies with the rng"


def test_blitz_puts_every_general_in_the_front_row() -> None:
    for side, front in ((0, 3), (1, 6)):
        placed = deployment(formation("blitz", random.Random(7), side), side)
        generals = [sq for sq, r in placed.items() if r >= Rank.GENERAL_1]
        assert len(generals) == 5 and {rank_of(sq) for sq in generals} == {front}


def test_flag_fortress_walls_the_flag_in() -> None:
    for seed in range(20):
        placed = deployment(formation("flag-fortress", random.Random(seed), 0), 0)
        flag = next(sq for sq, r in placed.items() if r == Rank.FLAG)
        assert all(nb in placed for nb in NEIGHBOURS[flag])


def test_random_setup_is_uniformish_and_valid() -> None:
    rng = random.Random(3)
    flags: Counter[int] = Counter()
    for _ in range(300):
        grid = random_setup(rng, 1)
        validate(grid, FULL_ARMY)
        flags[grid.index(Rank.FLAG)] += 1
    assert len(flags) == 27


def test_swap() -> None:
    grid = import_grid(GRID_A, 0)
    a3, i1, c1 = (parse_square(s) or 0 for s in ("a3", "i1", "c1"))
    swapped = swap(grid, 0, a3, i1)
    assert compact(swapped) == COMPACT_A.replace("5G,", ".,", 1)[:-1] + "5G"
    assert swap(swapped, 0, a3, i1) == grid
    with pytest.raises(SetupError, match=r"^Both squares are empty; there is nothing to swap\.$"):
        swap(grid, 0, parse_square("d1") or 0, parse_square("e1") or 0)
    with pytest.raises(SetupError, match=r"^You deploy on ranks 1-3; swap squares there\.$"):
        swap(grid, 0, c1, parse_square("c4") or 0)
    with pytest.raises(SetupError, match=r"^Swap two different squares\.$"):
        swap(grid, 0, c1, c1)


def test_a_setup_seen_by_its_owner_loads_the_same_way_round_on_either_side() -> None:
    from games.generals.setup import as_owner_sees_it

    grid = random_setup(random.Random(3), 0)
    on_b = as_owner_sees_it(as_owner_sees_it(grid, 0), 1)
    assert as_owner_sees_it(as_owner_sees_it(grid, 1), 1) == grid  # its own inverse
    front_a, front_b = grid[:9], on_b[-9:]  # A's front row is rank 3 (first), B's is rank 6 (last)
    assert front_b == tuple(reversed(front_a))  # and B's left is file i

"""The arbiter's challenge table: every ordered pair of ranks, in the table and on the board, both ways."""

from __future__ import annotations

import pytest

from games.generals import GeneralsState, Rank, Result, challenge
from games.generals.pieces import (
    ABBREVIATIONS,
    FULL_ARMY,
    SMALL_ARMY,
    attackers_consistent,
    defenders_consistent,
    parse_rank,
)

# Rows attack, columns defend. A = attacker won, D = defender won, B = both eliminated (the seed's table).
TABLE = """
     5G  4G  3G  2G  1G  COL LTC MAJ CPT 1LT 2LT SGT PVT SPY FLG
5G   B   A   A   A   A   A   A   A   A   A   A   A   A   D   A
4G   D   B   A   A   A   A   A   A   A   A   A   A   A   D   A
3G   D   D   B   A   A   A   A   A   A   A   A   A   A   D   A
2G   D   D   D   B   A   A   A   A   A   A   A   A   A   D   A
1G   D   D   D   D   B   A   A   A   A   A   A   A   A   D   A
COL  D   D   D   D   D   B   A   A   A   A   A   A   A   D   A
LTC  D   D   D   D   D   D   B   A   A   A   A   A   A   D   A
MAJ  D   D   D   D   D   D   D   B   A   A   A   A   A   D   A
CPT  D   D   D   D   D   D   D   D   B   A   A   A   A   D   A
1LT  D   D   D   D   D   D   D   D   D   B   A   A   A   D   A
2LT  D   D   D   D   D   D   D   D   D   D   B   A   A   D   A
SGT  D   D   D   D   D   D   D   D   D   D   D   B   A   D   A
PVT  D   D   D   D   D   D   D   D   D   D   D   D   B   A   A
SPY  A   A   A   A   A   A   A   A   A   A   A   A   D   B   A
FLG  D   D   D   D   D   D   D   D   D   D   D   D   D   D   A
"""
LETTER = {"A": Result.ATTACKER, "D": Result.DEFENDER, "B": Result.BOTH}


def table() -> dict[tuple[Rank, Rank], Result]:
    header, *rows = [line.split() for line in TABLE.strip().splitlines()]
    out = {}
    for row in rows:
        attacker = parse_rank(row[0])
        assert attacker is not None
        for column, letter in zip(header, row[1:], strict=True):
            defender = parse_rank(column)
            assert defender is not None
            out[attacker, defender] = LETTER[letter]
    return out


PAIRS = sorted(table().items())


def test_the_table_covers_every_ordered_pair() -> None:
    assert len(PAIRS) == 15 * 15


@pytest.mark.parametrize(("pair", "ruling"), PAIRS, ids=[f"{a.abbreviation}-{d.abbreviation}" for (a, d), _ in PAIRS])
def test_challenge_table(pair: tuple[Rank, Rank], ruling: Result) -> None:
    assert challenge(*pair) == ruling


def _duel(attacker: Rank, defender: Rank, attacking_seat: int) -> tuple[GeneralsState, GeneralsState]:
    """A position with the attacker on e4 (side A) or e5 (side B) facing the defender, and the state after."""
    a_square, b_square = "e4", "e5"
    a_rank, b_rank = (attacker, defender) if attacking_seat == 0 else (defender, attacker)
    pieces = {a_square: ABBREVIATIONS[a_rank], b_square: ABBREVIATIONS[b_rank].lower()}
    if a_rank != Rank.FLAG:
        pieces["a1"] = "FLG"
    if b_rank != Rank.FLAG:
        pieces["i8"] = "flg"
    state = GeneralsState.from_board(pieces, to_move=attacking_seat)
    move = "e4-e5" if attacking_seat == 0 else "e5-e4"
    return state, state.apply_text(attacking_seat, move)


@pytest.mark.parametrize("attacking_seat", [0, 1])
def test_every_pair_on_the_board_both_ways(attacking_seat: int) -> None:
    for (attacker, defender), ruling in PAIRS:
        before, after = _duel(attacker, defender, attacking_seat)
        src, dst = ("e4", "e5") if attacking_seat == 0 else ("e5", "e4")
        view = after.public_view()
        assert view.last is not None and view.last.challenge == ruling
        on_board = {p.square: p.seat for p in view.pieces}
        survivor = {Result.ATTACKER: (dst, attacking_seat), Result.DEFENDER: (dst, 1 - attacking_seat)}.get(ruling)
        assert src not in on_board
        if survivor is None:
            assert dst not in on_board
        else:
            assert on_board.get(survivor[0]) == survivor[1]
        flag_lost = (attacker == Rank.FLAG and ruling != Result.ATTACKER) or (
            defender == Rank.FLAG and ruling != Result.DEFENDER)
        outcome = after.outcome()
        if flag_lost:
            assert outcome is not None and outcome.reason == "flag-eliminated"
            loser = attacking_seat if attacker == Rank.FLAG and ruling != Result.ATTACKER else 1 - attacking_seat
            assert outcome.winners == (1 - loser,)
        else:
            assert outcome is None
        eliminated = {Result.ATTACKER: [1 - attacking_seat], Result.DEFENDER: [attacking_seat],
                      Result.BOTH: [0, 1]}[ruling]
        before_lost = before.public_view().lost
        assert view.lost == tuple(before_lost[seat] + (seat in eliminated) for seat in (0, 1))


def test_what_each_ruling_teaches() -> None:
    # A Major that attacks and loses met a higher officer or a Spy.
    assert defenders_consistent(Rank.MAJOR, Result.DEFENDER) == {
        Rank.LIEUTENANT_COLONEL, Rank.COLONEL, Rank.GENERAL_1, Rank.GENERAL_2, Rank.GENERAL_3, Rank.GENERAL_4,
        Rank.GENERAL_5, Rank.SPY}
    # A Private that defends and wins was attacked by a Spy or a Flag.
    assert attackers_consistent(Rank.PRIVATE, Result.DEFENDER) == {Rank.SPY, Rank.FLAG}
    # A Flag attacking a Private dies, so the piece that took a defending Private is no Flag.
    assert Rank.FLAG not in attackers_consistent(Rank.PRIVATE, Result.ATTACKER)
    assert attackers_consistent(Rank.SPY, Result.ATTACKER) == {Rank.PRIVATE}
    assert defenders_consistent(Rank.SPY, Result.BOTH) == {Rank.SPY}


def test_armies() -> None:
    assert len(FULL_ARMY) == 21 and len(SMALL_ARMY) == 11
    assert [ABBREVIATIONS[r] for r in SMALL_ARMY] == ["5G", "4G", "3G", "COL", "MAJ", "CPT", "SGT", "PVT", "PVT",
                                                      "SPY", "FLG"]
    assert FULL_ARMY.count(Rank.PRIVATE) == 6 and FULL_ARMY.count(Rank.SPY) == 2


def test_rank_names_parse_case_insensitively_with_aliases() -> None:
    assert parse_rank("flg") == Rank.FLAG
    assert all(Rank), "no rank is falsy, so `if rank:` never mistakes the Flag for nothing"
    assert parse_rank("5*g") == parse_rank("5★G") == parse_rank("G5") == Rank.GENERAL_5
    assert parse_rank("ltc") == Rank.LIEUTENANT_COLONEL
    assert parse_rank("XYZ") is None

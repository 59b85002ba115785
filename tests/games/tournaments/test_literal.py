"""Small tournaments whose pairings and standings are written out by hand, one of each format."""

from __future__ import annotations

import pytest

from games.tournaments import knockout, next_round, swiss
from games.tournaments.model import (
    TABLE_TIEBREAKS,
    DrawRule,
    Entrant,
    Format,
    Game,
    Result,
    Round,
    Settings,
    Table,
    Tiebreak,
    Tournament,
    default_tiebreaks,
    from_dict,
    place_points_from,
    to_dict,
)
from games.tournaments.roundrobin import berger
from games.tournaments.standings import Standing, standings
from tests.games.tournaments.helpers import entrants, new, pairs, play, seat

W, L, D = Result.FIRST_WINS, Result.SECOND_WINS, Result.DRAW


def test_a_four_player_swiss_of_three_rounds() -> None:
    t = new(Format.SWISS, 4, rounds=3)
    # Round 1: the top half meets the bottom half; the higher-ranked moves first on board 1, second on board 2.
    assert pairs(next_round(t)) == [(1, 3), (4, 2)]
    t = play(t, [W, D])  # 1 beats 3, 4 and 2 draw: 1 has 1, 2 and 4 have 1/2, 3 has 0
    # Round 2: score groups 1 | 2, 4 | 3; 1 floats down to 2 (the higher of the 1/2 group), 4 to 3. Colours alternate.
    assert pairs(next_round(t)) == [(2, 1), (3, 4)]
    t = play(t, [L, W])  # 1 beats 2, 3 beats 4: 1 has 2, 3 has 1, 2 and 4 have 1/2
    # Round 3: the only games not yet played. 1 and 4 both last moved second: the higher-ranked (1) moves first;
    # 3 and 2 both last moved first: the higher-ranked (3, on points) moves second.
    assert pairs(next_round(t)) == [(1, 4), (2, 3)]
    t = play(t, [D, W])  # 1 and 4 draw, 2 beats 3
    with pytest.raises(ValueError, match="only 3 rounds"):
        next_round(t)
    # Final points: 1: 2.5, 2: 1.5, 3: 1, 4: 1. Opponents' points: 1 met 3, 2, 4 (1 + 1.5 + 1 = 3.5), 2 met 4, 1, 3
    # (1 + 2.5 + 1 = 4.5), 3 met 1, 4, 2 (5), 4 met 2, 3, 1 (5). Cut 1 drops each one's lowest.
    # Sonneborn-Berger: 1: 1x1 (beat 3) + 1.5x1 (beat 2) + 1x0.5 (drew 4) = 3; 2: 1x0.5 + 0 + 1x1 = 1.5;
    # 3: 0 + 1x1 (beat 4) + 0 = 1; 4: 1.5x0.5 + 0 + 2.5x0.5 = 2. So 4 is ahead of 3 on Sonneborn-Berger.
    # Direct encounter is among players still tied, and nobody is by then; wins: 1 has 2, 2 and 3 one each.
    assert standings(t) == [
        Standing(1, 1, 2.5, (2.5, 3.5, 3.0, 0.0, 2.0), 3, False),
        Standing(2, 2, 1.5, (3.5, 4.5, 1.5, 0.0, 1.0), 3, False),
        Standing(3, 4, 1.0, (4.0, 5.0, 2.0, 0.0, 0.0), 3, False),
        Standing(4, 3, 1.0, (4.0, 5.0, 1.0, 0.0, 1.0), 3, False),
    ]
    assert from_dict(to_dict(t)) == t


def test_direct_encounter_and_the_order_of_tie_breaks() -> None:
    t = new(Format.SWISS, 4, rounds=3, tiebreaks=(Tiebreak.DIRECT_ENCOUNTER, Tiebreak.WINS))
    t = play(t, [W, D])
    t = play(t, [L, W])
    t = play(t, [D, W])
    # 3 and 4 are tied on 1 point; 3 beat 4 in round 2, so 3 is ahead on direct encounter (1 against 0).
    rows = standings(t)
    assert [(row.place, row.player, row.tiebreaks) for row in rows] == [
        (1, 1, (0.0, 2.0)), (2, 2, (0.0, 1.0)), (3, 3, (1.0, 1.0)), (4, 4, (0.0, 0.0))]


def test_a_swiss_bye_goes_to_the_lowest_and_scores_a_point() -> None:
    t = new(Format.SWISS, 3, rounds=2)
    assert pairs(next_round(t)) == [(1, 2), (3, None)]  # the lowest seed of the one score group
    t = play(t, [W])
    # 1 has 1, 3 has 1 (the bye), 2 has 0: the bye goes to 2 now (3 had one); 1 meets 3.
    assert sorted(pairs(next_round(t)), key=str) == sorted([(3, 1), (2, None)], key=str)
    t = play(t, [D])
    # 3 is ahead of 1: equal after Buchholz cut 1 (1.5 each), but 3's bye counts as an opponent with 3's own 1.5
    # points, so its Buchholz is 1.5 + 1.5 = 3 against 1's 1 (player 2) + 1.5 (player 3) = 2.5.
    rows = standings(t)
    assert [(row.player, row.points) for row in rows] == [(3, 1.5), (1, 1.5), (2, 1.0)]
    assert [row.tiebreaks[:2] for row in rows] == [(1.5, 3.0), (1.5, 2.5), (1.5, 2.5)]


def test_a_five_player_round_robin_follows_bergers_table() -> None:
    t = new(Format.ROUND_ROBIN, 5)
    # FIDE's Berger table for 6, number 6 being the bye.
    expected = [
        [(2, 5), (3, 4), (1, None)],
        [(5, 3), (1, 2), (4, None)],
        [(3, 1), (4, 5), (2, None)],
        [(1, 4), (2, 3), (5, None)],
        [(4, 2), (5, 1), (3, None)],
    ]
    for round_pairs in expected:
        assert pairs(next_round(t)) == round_pairs
        t = play(t, [W, W])
    with pytest.raises(ValueError, match="only 5 rounds"):
        next_round(t)
    # Whoever moved first won: 1 moved first twice (beat 2, 4), 2 twice (5, 3), 3 twice (4, 1), 4 twice (5, 2),
    # 5 twice (3, 1): everyone 2 points, and the bye scores nothing.
    assert {row.points for row in standings(t)} == {2.0}


def test_a_double_round_robin_swaps_colours_in_its_second_cycle() -> None:
    t = new(Format.ROUND_ROBIN, 4, double=True)
    assert berger(4, 1) == [(1, 4), (2, 3)]
    first_cycle = []
    for _ in range(3):
        first_cycle.append(pairs(next_round(t)))
        t = play(t, [D, D])
    assert first_cycle == [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    for round_pairs in first_cycle:
        assert pairs(next_round(t)) == [(b, a) for a, b in round_pairs]
        t = play(t, [D, D])
    with pytest.raises(ValueError):
        next_round(t)


def test_an_eight_player_knockout() -> None:
    t = new(Format.KNOCKOUT, 8, draw_rule=DrawRule.HIGHER_SEED)
    assert knockout.bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert pairs(next_round(t)) == [(1, 8), (4, 5), (2, 7), (3, 6)]
    t = play(t, [W, L, D, L])  # 1, 5, 2 (a draw: the higher seed goes through), 6
    assert pairs(next_round(t)) == [(1, 5), (2, 6)]
    t = play(t, [L, W])  # 5, 2
    assert pairs(next_round(t)) == [(2, 5)]
    t = play(t, [W])
    assert knockout.finished(t)
    with pytest.raises(ValueError, match="over"):
        next_round(t)
    # Places by how far each got: the semi-finalists share third, the first round's losers fifth; within a place,
    # by points, then tie-breaks. Buchholz cut 1 counts a round without a game as a virtual opponent with the
    # player's own points: 6 met 3 (0) and 2 (3), and a virtual 1: 4 after the cut; 1 met 8 (0) and 5 (2), and a
    # virtual 1: 3. The first round's losers have no points: the cut leaves the points of whoever knocked them out:
    # 7's 3 (player 2), 4's 2 (player 5), then 3 and 8 with 1 each and nothing else between them: the seed.
    assert [(row.place, row.player) for row in standings(t)] == [
        (1, 2), (2, 5), (3, 6), (3, 1), (5, 7), (5, 4), (5, 3), (5, 8)]


def test_a_six_player_knockout_gives_its_byes_to_the_top_seeds() -> None:
    t = new(Format.KNOCKOUT, 6, draw_rule=DrawRule.SECOND_MOVER)
    assert pairs(next_round(t)) == [(1, None), (4, 5), (2, None), (3, 6)]
    t = play(t, [D, W])  # 4-5 drawn: 5 moved second and goes through; 3 beats 6
    assert pairs(next_round(t)) == [(1, 5), (2, 3)]
    t = play(t, [W, L])
    assert pairs(next_round(t)) == [(1, 3)]
    t = play(t, [L])
    assert [(row.place, row.player) for row in standings(t)] == [(1, 3), (2, 1), (3, 2), (3, 5), (5, 4), (5, 6)]


def test_a_drawn_knockout_game_is_replayed_with_colours_swapped() -> None:
    t = new(Format.KNOCKOUT, 4)
    t = play(t, [D, W])  # 1-4 drawn, 2 beats 3
    assert knockout.replays(t) == (Game(4, 1),)
    with pytest.raises(ValueError, match="undecided"):
        next_round(t)
    last = t.rounds[-1]
    t = t.with_round(Round(games=(*last.games, Game(4, 1, W))))
    t = from_dict(to_dict(t))
    assert knockout.replays(t) == ()
    assert pairs(next_round(t)) == [(2, 4)]  # 4 won the replay


def test_an_eight_player_so_long_sucker_tournament_of_two_rounds() -> None:
    t = new(Format.TABLES, 8, rounds=2, tiebreaks=(Tiebreak.BUCHHOLZ, Tiebreak.WINS))  # as made before 0024
    assert [table.seats for table in next_round(t).tables] == [(1, 2, 3, 4), (5, 6, 7, 8)]
    t = seat(t, [(1, 2, 3, 4), (4, 3, 2, 1)])  # 1 and 8 win their tables
    # Points: 1: 4, 2: 2, 3: 1, 4: 0; 8: 4, 7: 2, 6: 1, 5: 0. Round 2 seats by points with nobody meeting again:
    # each table takes two of each first-round table, the best together.
    assert [table.seats for table in next_round(t).tables] == [(1, 8, 2, 7), (3, 6, 4, 5)]
    t = seat(t, [(2, 1, 3, 4), (1, 2, 3, 4)])
    # 8 wins again (8 points), 1 second (6), 2: 2 + 1 = 3, 7: 2 + 0 = 2, 3: 1 + 4 = 5, 6: 1 + 2 = 3, 4: 0 + 1 = 1,
    # 5: 0 + 0. Buchholz: the points of everyone sat with: 2 sat with 1, 3, 4 (6 + 5 + 1) and 1, 8, 7 (6 + 8 + 2).
    rows = standings(t)
    assert [(row.place, row.player, row.points) for row in rows] == [
        (1, 8, 8.0), (2, 1, 6.0), (3, 3, 5.0), (4, 2, 3.0), (5, 6, 3.0), (6, 7, 2.0), (7, 4, 1.0), (8, 5, 0.0)]
    assert rows[3].tiebreaks == (6 + 5 + 1 + 6 + 8 + 2, 0.0)
    assert rows[4].tiebreaks == (0 + 2 + 8 + 5 + 1 + 0, 0.0)  # 6 sat with 5, 7, 8 and 3, 4, 5: behind 2


def test_so_long_sucker_tables_rank_ties_by_table_mates_then_tables_won_then_who_finished_ahead() -> None:
    assert default_tiebreaks(Format.TABLES) == TABLE_TIEBREAKS == (
        Tiebreak.TABLE_MATES, Tiebreak.TABLES_WON, Tiebreak.FINISHED_AHEAD)
    assert default_tiebreaks(Format.SWISS) == Settings(Format.SWISS).tiebreaks  # two-player formats unchanged
    # Round 1: (1, 2, 3, 4) and (5, 6, 7, 8) finish in seat order. Round 2: at (1, 5, 3, 7) 3 wins, 1 is second,
    # 5 third, 7 last; at (2, 6, 4, 8) 8 wins, 6 is second, 2 third, 4 last. Points (4 / 2 / 1 / 0):
    # 1: 4 + 2 = 6; 3: 1 + 4 = 5; 5: 4 + 1 = 5; 8: 0 + 4 = 4; 6: 2 + 2 = 4; 2: 2 + 1 = 3; 7: 1 + 0 = 1; 4: 0.
    t = Tournament(Settings(Format.TABLES, rounds=2, tiebreaks=TABLE_TIEBREAKS), entrants(8), (
        Round(tables=(Table((1, 2, 3, 4), (1, 2, 3, 4)), Table((5, 6, 7, 8), (1, 2, 3, 4)))),
        Round(tables=(Table((1, 5, 3, 7), (2, 3, 1, 4)), Table((2, 6, 4, 8), (3, 2, 4, 1)))),
    ))
    rows = standings(t)
    # 3 and 5 (5 points): table-mates 3: 1, 2, 4 (6 + 3 + 0) and 1, 5, 7 (6 + 5 + 1) = 21; 5: 6, 7, 8 (4 + 1 + 4)
    # and 1, 3, 7 (6 + 5 + 1) = 21. One table won each. They met in round 2, where 3 won and 5 was third: 3 is
    # ahead (+1, and -1 for 5).
    # 8 and 6 (4 points): table-mates 8: 5, 6, 7 (5 + 4 + 1) and 2, 6, 4 (3 + 4 + 0) = 17; 6: 5, 7, 8 (5 + 1 + 4)
    # and 2, 4, 8 (3 + 0 + 4) = 17. 8 won a table (0 + 4), 6 none (2 + 2): 8 is ahead, whatever their meetings.
    assert [(row.place, row.player, row.points, row.tiebreaks) for row in rows] == [
        (1, 1, 6.0, (3 + 5 + 0 + 5 + 5 + 1, 1.0, 0.0)),
        (2, 3, 5.0, (21.0, 1.0, 1.0)),
        (3, 5, 5.0, (21.0, 1.0, -1.0)),
        (4, 8, 4.0, (17.0, 1.0, 0.0)),
        (5, 6, 4.0, (17.0, 0.0, 0.0)),
        (6, 2, 3.0, (6 + 5 + 0 + 4 + 0 + 4, 0.0, 0.0)),
        (7, 7, 1.0, (5 + 4 + 4 + 6 + 5 + 5, 0.0, 0.0)),
        (8, 4, 0.0, (6 + 3 + 5 + 3 + 4 + 4, 0.0, 0.0)),
    ]
    # A shared place counts neither way; tables before the tie was met count as they finished.
    t = Tournament(Settings(Format.TABLES, rounds=1, tiebreaks=(Tiebreak.FINISHED_AHEAD,)), entrants(4),
                   (Round(tables=(Table((1, 2, 3, 4), (2, 2, 2, 1)),)),))
    assert [(row.place, row.player, row.tiebreaks) for row in standings(t)] == [
        (1, 4, (0.0,)), (2, 1, (0.0,)), (2, 2, (0.0,)), (2, 3, (0.0,))]


def test_tables_of_three_and_five_and_computer_fillers() -> None:
    from games.tournaments.tables import sizes

    assert sizes(4) == [(4, 4)]
    assert sizes(5) == [(5, 5)]
    assert sizes(6) == [(3, 3), (3, 3)]
    assert sizes(7) == [(4, 4), (3, 3)]
    assert sizes(9) == [(5, 5), (4, 4)]
    assert sizes(10) == [(4, 4), (3, 3), (3, 3)]
    assert sizes(7, fillers=True) == [(4, 4), (3, 4)]
    assert sizes(2, fillers=True) == [(2, 4)]
    with pytest.raises(ValueError, match="at least 3"):
        sizes(2)
    t = new(Format.TABLES, 7, rounds=1, fillers=True)
    assert [table.seats for table in next_round(t).tables] == [(1, 2, 3, 4), (5, 6, 7, None)]


def test_withdrawals_and_late_entries() -> None:
    # Swiss: 4 leaves after round 1; 5 joins for round 2 with 1 point given.
    t = new(Format.SWISS, 4, rounds=2)
    t = play(t, [W, W])  # (1, 3): 1 wins; (4, 2): 4 wins
    t = t.with_entrant(Entrant(4, t.entrant(4).rating, left=2)).with_entrant(Entrant(5, 1000.0, 2, 1.0))
    # 4 is gone: 1 and 5 have 1 point each and meet, 5 moving first (1 moved first in round 1); 2 and 3 have none
    # and have not met; both moved second in round 1, so the higher-ranked, 2, moves first.
    assert pairs(next_round(t)) == [(5, 1), (2, 3)]
    t = play(t, [D, D])
    rows = {row.player: row for row in standings(t)}
    assert rows[4].withdrawn and rows[4].points == 1.0 and rows[4].games == 1
    assert rows[5].points == 1.5 and rows[5].games == 1 and not rows[5].withdrawn
    # A round robin turns a withdrawn player's games into forfeits; a knockout's too.
    t = new(Format.ROUND_ROBIN, 4)
    t = play(t, [W, W])
    t = t.with_entrant(Entrant(4, t.entrant(4).rating, left=2))
    assert next_round(t).games == (Game(4, 3, Result.FIRST_FORFEITS), Game(1, 2))
    t = new(Format.KNOCKOUT, 4)
    t = play(t, [W, W])  # 1 and 2 go through
    t = t.with_entrant(Entrant(2, t.entrant(2).rating, left=2))
    assert next_round(t).games == (Game(1, 2, Result.SECOND_FORFEITS),)


def test_table_points_given_for_a_table_of_four_make_those_of_three_and_five() -> None:
    assert place_points_from((4.0, 2.0, 1.0, 0.0)) == Settings(Format.TABLES).place_points  # the defaults
    made = Settings(Format.TABLES, place_points=place_points_from((6.0, 3.0, 1.0, 0.0)))
    assert [made.points_for_place(3, place) for place in (1, 2, 3)] == [6.0, 3.0, 0.0]
    assert [made.points_for_place(5, place) for place in (1, 2, 3, 4, 5)] == [6.0, 3.0, 1.0, 1.0, 0.0]
    assert from_dict(to_dict(Tournament(made, ()))).settings == made
    for wrong in ((1.0, 2.0, 3.0, 4.0), (4.0, 2.0, 1.0), (4.0, 2.0, 1.0, -1.0), (101.0, 2.0, 1.0, 0.0)):
        with pytest.raises(ValueError):  # a better place scoring less, not four places, below 0, above 100
            place_points_from(wrong)


def test_a_large_field_s_last_block_that_cannot_avoid_a_rematch_is_paired_with_the_block_before_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Blocks of 4 stand in for blocks of 32: 8 players are two blocks. The bottom four played a round robin among
    # themselves (rounds 1-3); the top four joined for round 4 with 3 points each and have met nobody. The top block
    # pairs cleanly on its own; the bottom block alone can only repeat a game, and needs the top block to avoid it.
    monkeypatch.setattr(swiss, "BLOCK", 4)
    bottom = (5, 6, 7, 8)
    rounds = tuple(Round(games=tuple(Game(a, b, Result.DRAW) for a, b in pairs))
                   for pairs in (((5, 6), (7, 8)), ((5, 7), (6, 8)), ((5, 8), (6, 7))))
    entrants = (*(Entrant(p, 1500.0 - p, joined=4, start_points=3.0) for p in (1, 2, 3, 4)),
                *(Entrant(p, 1500.0 - p) for p in bottom))
    t = Tournament(Settings(Format.SWISS, rounds=5), entrants, rounds)
    met = {frozenset(g.players()) for r in rounds for g in r.games}
    paired = [frozenset(g.players()) for g in next_round(t).games]
    assert sorted(p for pair in paired for p in pair) == list(range(1, 9))
    assert not set(paired) & met, paired  # no rematch: each of the bottom four meets one of the top four

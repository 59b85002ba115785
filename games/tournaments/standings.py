"""Standings: place, player, points, each tie-break in the tournament's order, games played, withdrawn.

Scoring: a win 1, a draw 1/2, a loss 0; a forfeit scores as a win or a loss but is no game played; a bye scores the
tournament's bye points (1 by default); a late entrant starts with the points they were given. At So Long Sucker
tables each place scores its points (4/2/1/0 at a table of four by default; see model.DEFAULT_PLACE_POINTS).

Tie-breaks (two-player formats), each a number where more is better:
- Buchholz: the sum of the opponents' points. A round without a game against someone (a bye, a forfeit either way,
  a round before a late entry or after a withdrawal) counts as a game against a virtual opponent with the player's
  own points, so neither a bye nor an absent opponent changes it (FIDE's simplified "dummy opponent").
- Buchholz cut 1: Buchholz less its lowest single contribution.
- Sonneborn-Berger: the sum, over the rounds, of the opponent's points times the points scored against them (the
  virtual opponent of a round without a game counts as above, times what that round scored).
- Direct encounter: among the players still tied, the points each scored in games against the others.
- Wins: the games won, forfeit wins included, byes not.
At So Long Sucker tables: Buchholz is the sum of the points of everyone the player sat with (each time; computer
seats and rounds without a table count nothing), and wins are the tables won.

Tie-breaks of So Long Sucker tables (model.TABLE_TIEBREAKS, in this order), each a number where more is better:
- Table-mates' points: the tables' Buchholz, as above. It comes first because the points of a table are shared out
  among its players: the same points earned at tables of strong players are worth more.
- Tables won: a win is the game's aim and scores most, so of two players equal so far, the one with more wins (say
  4 + 0 against 2 + 2) ranks higher.
- Finished ahead: among the players still tied, at each table the player shared with some of them, one for each of
  them the player finished ahead of, less one for each who finished ahead of the player (a shared place counts
  neither way). The direct encounter of a table: it decides only between players who met.

Players equal on points and on every tie-break share a place (listed by seed). A knockout places by how far each
player got, alone (the winner, the finalist, the semi-finalists sharing third, ...), listed within a place by
points and tie-breaks, then seed. In a round robin the bye (odd counts) scores nothing: everyone has one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from games.tournaments import knockout
from games.tournaments.history import Record, records
from games.tournaments.model import Format, Tiebreak, Tournament, seeded


@dataclass(frozen=True)
class Standing:
    place: int
    player: int
    points: float
    tiebreaks: tuple[float, ...]  # in the order of the tournament's settings
    games: int
    withdrawn: bool


def standings(tournament: Tournament) -> list[Standing]:
    """Everyone who entered, best first."""
    settings = tournament.settings
    found = records(tournament)
    tables = settings.format is Format.TABLES
    order = settings.tiebreaks
    seed = {e.player: index for index, e in enumerate(seeded(tournament.entrants))}
    entrants = {e.player: e for e in tournament.entrants}
    keys: dict[int, list[float]] = {p: [found[p].points] for p in found}
    for tiebreak in order:
        groups: dict[tuple[float, ...], list[int]] = {}
        for player, key in keys.items():
            groups.setdefault(tuple(key), []).append(player)
        for group in groups.values():
            for player in group:
                keys[player].append(_value(tiebreak, found[player], found, group, tables, tournament))
    # A knockout places by how far each got, alone; the other formats by points, then the tie-breaks.
    places = ({p: [stage] for p, stage in _stages(tournament).items()} if settings.format is Format.KNOCKOUT
              else keys)
    ranked = sorted(found, key=lambda p: ([-value for value in places[p]], [-value for value in keys[p]], seed[p]))
    rows = []
    place = 1
    for index, player in enumerate(ranked):
        if index and places[player] != places[ranked[index - 1]]:
            place = index + 1
        left = entrants[player].left
        rows.append(Standing(place, player, found[player].points, tuple(keys[player][1:]), found[player].games,
                             left is not None and left <= len(tournament.rounds) + 1))
    return rows


def _value(tiebreak: Tiebreak, record: Record, found: dict[int, Record], group: Sequence[int],
           tables: bool, tournament: Tournament) -> float:
    if tiebreak is Tiebreak.TABLE_MATES:
        return sum(found[opponent].points for opponent, _ in record.outcomes if opponent is not None)
    if tiebreak is Tiebreak.TABLES_WON:
        return float(record.wins)
    if tiebreak is Tiebreak.FINISHED_AHEAD:
        return float(_finished_ahead(tournament, record.player, set(group) - {record.player}))
    contributions = [found[opponent].points if opponent is not None else record.points
                     for opponent, _ in record.outcomes if opponent is not None or not tables]
    if tiebreak is Tiebreak.BUCHHOLZ:
        return sum(contributions)
    if tiebreak is Tiebreak.BUCHHOLZ_CUT_1:
        return sum(contributions) - min(contributions, default=0.0)
    if tiebreak is Tiebreak.SONNEBORN_BERGER:
        return sum((found[opponent].points if opponent is not None else record.points) * score
                   for opponent, score in record.outcomes if opponent is not None or not tables)
    if tiebreak is Tiebreak.DIRECT_ENCOUNTER:
        others = set(group) - {record.player}
        return float(sum(score for opponent, score in record.outcomes if opponent in others))
    return float(record.wins)


def _finished_ahead(tournament: Tournament, player: int, others: set[int]) -> int:
    """At the ended tables `player` shared with `others`: those of them `player` finished ahead of, less those who
    finished ahead of `player`."""
    score = 0
    for round_ in tournament.rounds:
        for table in round_.tables:
            if table.places is None or player not in table.seats:
                continue
            mine = table.places[table.seats.index(player)]
            for seat, place in zip(table.seats, table.places, strict=True):
                if seat in others:
                    score += (place > mine) - (place < mine)
    return score


def _stages(tournament: Tournament) -> dict[int, int]:
    """How far each knockout player got: the round they lost in (or the rounds + 1 for the winner and those still
    in)."""
    total = len(tournament.rounds)
    stage = {e.player: total + 1 for e in tournament.entrants}
    for number, round_ in enumerate(tournament.rounds, 1):
        for game in knockout.matches(round_):
            through = knockout.winner(tournament, game)
            if through is None:
                continue
            for player in game.players():
                if player != through:
                    stage[player] = number
    return stage

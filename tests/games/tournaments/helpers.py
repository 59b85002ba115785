"""Building tournaments in tests: entrants by seed, a round played with given results."""

from __future__ import annotations

from collections.abc import Sequence

from games.tournaments import next_round
from games.tournaments.model import Entrant, Format, Game, Result, Round, Settings, Table, Tournament


def entrants(count: int) -> tuple[Entrant, ...]:
    """Players 1..count, seeded in that order (player 1 has the highest rating)."""
    return tuple(Entrant(player, 2000.0 - 10 * player) for player in range(1, count + 1))


def new(fmt: Format, count: int, **settings: object) -> Tournament:
    return Tournament(Settings(fmt, **settings), entrants(count))  # type: ignore[arg-type]


def pairs(round_: Round) -> list[tuple[int, int | None]]:
    return [(game.first, game.second) for game in round_.games]


def play(tournament: Tournament, results: Sequence[Result | None]) -> Tournament:
    """The next round paired and played: each game (byes left out of `results`) ended with its result in order."""
    round_ = next_round(tournament)
    given = iter(results)
    games = tuple(game if game.is_bye or game.result is not None else Game(game.first, game.second, next(given))
                  for game in round_.games)
    assert next(given, None) is None, "more results than games"
    return tournament.with_round(Round(games=games))


def seat(tournament: Tournament, places: Sequence[Sequence[int]]) -> Tournament:
    """The next round of tables seated and played: each table ending with the places given."""
    round_ = next_round(tournament)
    assert len(places) == len(round_.tables)
    return tournament.with_round(Round(tables=tuple(Table(table.seats, tuple(p)) for table, p in
                                                    zip(round_.tables, places, strict=True))))

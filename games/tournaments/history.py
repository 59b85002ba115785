"""What each player has done so far in a tournament: points, opponents, colours, byes (read from its rounds)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from games.tournaments.model import Entrant, Format, Game, Result, Round, Settings, Tournament


@dataclass
class Record:
    """One player's tournament so far. `colours` lists "W" (moved first) and "B" for games played over the board;
    `outcomes` lists each round's (opponent or None, points) in order, None as opponent for a round without a
    game against someone (a bye, a round before joining or after leaving, a forfeit) so tie-breaks can count it."""

    player: int
    points: float = 0.0
    opponents: set[int] = field(default_factory=set)
    colours: list[str] = field(default_factory=list)
    byes: int = 0
    wins: int = 0
    games: int = 0  # games played over the board
    outcomes: list[tuple[int | None, float]] = field(default_factory=list)

    @property
    def colour_difference(self) -> int:
        return self.colours.count("W") - self.colours.count("B")


def records(tournament: Tournament, rounds: Sequence[Round] | None = None) -> dict[int, Record]:
    """Every entrant's record over `rounds` (all of the tournament's by default). Unfinished games count as met
    (for pairing) but score nothing yet."""
    played = tournament.rounds if rounds is None else rounds
    settings = tournament.settings
    out = {e.player: Record(e.player, points=e.start_points) for e in tournament.entrants}
    for round_ in played:
        seen: set[int] = set()
        for game in _deciding_games(round_):
            _add_game(out, settings, game.first, game.second, game.result)
            seen.update(game.players())
        for table in round_.tables:
            _add_table(out, settings, table.seats, table.places)
            seen.update(table.players())
        for record in out.values():
            if record.player not in seen:
                record.outcomes.append((None, 0.0))
    return out


def next_round(tournament: Tournament, total: int, name: str) -> int:
    """The number of the round to pair next, refused (ValueError) past the `total` rounds of the `name`d format or
    while the last round has not finished."""
    number = len(tournament.rounds) + 1
    if number > total:
        raise ValueError(f"the {name} has only {total} rounds")
    if tournament.rounds and not tournament.rounds[-1].finished:
        raise ValueError("the last round has not finished")
    return number


def ranked_for_next_round(tournament: Tournament, name: str) -> tuple[dict[int, Record], list[Entrant]]:
    """For a format paired by score (`name`d in its refusals, see next_round): every entrant's record so far and
    the entrants who play the next round, by points, then rating, then user id."""
    number = next_round(tournament, tournament.settings.rounds, name)
    so_far = records(tournament)
    active = [e for e in tournament.entrants if e.plays_in(number)]
    return so_far, sorted(active, key=lambda e: (-so_far[e.player].points, -e.rating, e.player))


def _deciding_games(round_: Round) -> list[Game]:
    """A round's games, a knockout pair's replays counted once: the last game between them (earlier draws settle
    nothing)."""
    last: dict[frozenset[int], Game] = {}
    for game in round_.games:
        last[frozenset(game.players())] = game
    return list(last.values())


def _add_game(out: dict[int, Record], settings: Settings, first: int, second: int | None,
              result: Result | None) -> None:
    one = out[first]
    if second is None:
        points = 0.0 if settings.format is Format.ROUND_ROBIN else settings.bye_points  # everyone has one there
        one.byes += 1
        one.points += points
        one.outcomes.append((None, points))
        return
    two = out[second]
    one.opponents.add(second)
    two.opponents.add(first)
    if result is None:
        one.outcomes.append((second, 0.0))
        two.outcomes.append((first, 0.0))
        return
    a, b = result.scores()
    one.points += a
    two.points += b
    if result.played:
        one.colours.append("W")
        two.colours.append("B")
        one.games += 1
        two.games += 1
        one.outcomes.append((second, a))
        two.outcomes.append((first, b))
    else:  # a forfeit: scored, but no game against that opponent for the tie-breaks
        one.outcomes.append((None, a))
        two.outcomes.append((None, b))
    one.wins += a == 1.0
    two.wins += b == 1.0


def _add_table(out: dict[int, Record], settings: Settings, seats: tuple[int | None, ...],
               places: tuple[int, ...] | None) -> None:
    people = [seat for seat in seats if seat is not None]
    for index, seat in enumerate(seats):
        if seat is None:
            continue
        record = out[seat]
        record.opponents.update(p for p in people if p != seat)
        if places is None:
            continue
        points = settings.points_for_place(len(seats), places[index])
        record.points += points
        record.games += 1
        record.wins += places[index] == 1
        # Every other person at the table is an opponent for the tie-breaks (computer seats are not).
        for other in people:
            if other != seat:
                record.outcomes.append((other, points))

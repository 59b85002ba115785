"""A tournament as plain, immutable data: its settings, its entrants and its rounds so far, and the snapshot of it.

Everything a tournament must store is here, and everything else (the next round, the standings) is computed from it
by pure functions, so a stored tournament gives the same pairings and standings in any process at any time.

Two-player formats (Swiss, round robin, knockout) pair people in `Game`s: `first` moves first (has "white"), `second`
is None for a bye. So Long Sucker seats `Table`s. A result is stored from `first`'s side; a table's result is each
seat's place (1 is the winner).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from itertools import pairwise
from typing import Any

from games.base import InvalidStateError

FORMAT_VERSION = 1


class Format(StrEnum):
    SWISS = "swiss"
    ROUND_ROBIN = "round-robin"
    KNOCKOUT = "knockout"
    TABLES = "tables"  # So Long Sucker: tables of 3-5 seated by score


class Tiebreak(StrEnum):
    BUCHHOLZ = "buchholz"
    BUCHHOLZ_CUT_1 = "buchholz-cut-1"
    SONNEBORN_BERGER = "sonneborn-berger"
    DIRECT_ENCOUNTER = "direct-encounter"
    WINS = "wins"
    # So Long Sucker tables' own (standings.py): what the two-player ones mean little for at a table of four.
    TABLE_MATES = "table-mates"
    TABLES_WON = "tables-won"
    FINISHED_AHEAD = "finished-ahead"


class DrawRule(StrEnum):
    """What settles a drawn knockout game, chosen when the tournament is made and shown to its players."""

    REPLAY = "replay"  # the two play again (the other player moves first), until one wins
    HIGHER_SEED = "higher-seed"  # the higher seed (the higher rating at the start) goes through
    SECOND_MOVER = "second-mover"  # the player who moved second goes through


class Result(StrEnum):
    """A two-player game's result, from the first player's side. A forfeit is a game not played over the board."""

    FIRST_WINS = "1-0"
    SECOND_WINS = "0-1"
    DRAW = "1/2-1/2"
    SECOND_FORFEITS = "+/-"
    FIRST_FORFEITS = "-/+"
    BOTH_FORFEIT = "-/-"

    def scores(self) -> tuple[float, float]:
        """The points of the first and of the second player."""
        return _SCORES[self]

    @property
    def played(self) -> bool:
        """Whether the game was played over the board (not a forfeit)."""
        return self in (Result.FIRST_WINS, Result.SECOND_WINS, Result.DRAW)


_SCORES = {
    Result.FIRST_WINS: (1.0, 0.0), Result.SECOND_WINS: (0.0, 1.0), Result.DRAW: (0.5, 0.5),
    Result.SECOND_FORFEITS: (1.0, 0.0), Result.FIRST_FORFEITS: (0.0, 1.0), Result.BOTH_FORFEIT: (0.0, 0.0),
}


@dataclass(frozen=True)
class Entrant:
    """A player in the tournament: their user id, their rating when they joined (it seeds them), and when they
    play. A late join enters at round `joined` with `start_points`; a withdrawn player is not paired from round
    `left` on (they stay in the standings, marked)."""

    player: int
    rating: float
    joined: int = 1
    start_points: float = 0.0
    left: int | None = None

    def plays_in(self, round_number: int) -> bool:
        return self.joined <= round_number and (self.left is None or round_number < self.left)


@dataclass(frozen=True)
class Game:
    """Two players paired (`first` moves first), or a bye (`second` is None); `result` is None until it ends."""

    first: int
    second: int | None
    result: Result | None = None

    @property
    def is_bye(self) -> bool:
        return self.second is None

    def players(self) -> tuple[int, ...]:
        return (self.first,) if self.second is None else (self.first, self.second)


@dataclass(frozen=True)
class Table:
    """A So Long Sucker table: its seats in order (None: a computer seat) and, once it ends, each seat's place (1 is
    the winner; equal places share)."""

    seats: tuple[int | None, ...]
    places: tuple[int, ...] | None = None

    def players(self) -> tuple[int, ...]:
        return tuple(seat for seat in self.seats if seat is not None)


@dataclass(frozen=True)
class Round:
    games: tuple[Game, ...] = ()
    tables: tuple[Table, ...] = ()

    @property
    def finished(self) -> bool:
        return (all(game.result is not None or game.is_bye for game in self.games)
                and all(table.places is not None for table in self.tables))

    def players(self) -> tuple[int, ...]:
        parts: tuple[Game | Table, ...] = (*self.games, *self.tables)
        return tuple(player for part in parts for player in part.players())


# Points by place at a So Long Sucker table, by its size: the winner always 4, the runner-up 2, the last 0, and every
# place between them 1, so a place is worth the same at tables of every size wherever it can be.
DEFAULT_PLACE_POINTS: Mapping[int, tuple[float, ...]] = {
    3: (4.0, 2.0, 0.0),
    4: (4.0, 2.0, 1.0, 0.0),
    5: (4.0, 2.0, 1.0, 1.0, 0.0),
}


MOST_PLACE_POINTS = 100.0  # the most a place may score (a bound on what an organiser may type)


def place_points_from(four: Sequence[float]) -> tuple[tuple[int, tuple[float, ...]], ...]:
    """Points by place at tables of 3, 4 and 5 from those of a table of 4 (first, second, third, last), as the
    defaults are made: a table of 3 has no third place, a table of 5 two places worth the third's. ValueError unless
    they are four numbers from 0 to MOST_PLACE_POINTS, none above the one before (a better place never scores less)."""
    if (len(four) != 4 or any(not 0 <= n <= MOST_PLACE_POINTS for n in four)
            or any(later > earlier for earlier, later in pairwise(four))):
        raise ValueError(f"not points by place at a table of 4: {list(four)}")
    first, second, third, last = four
    return ((3, (first, second, last)), (4, (first, second, third, last)), (5, (first, second, third, third, last)))


DEFAULT_TIEBREAKS = (Tiebreak.BUCHHOLZ_CUT_1, Tiebreak.BUCHHOLZ, Tiebreak.SONNEBORN_BERGER,
                     Tiebreak.DIRECT_ENCOUNTER, Tiebreak.WINS)
# At So Long Sucker tables: first how strong the tables you sat at were (the tables' Buchholz: equal points earned
# against stronger table-mates rank higher), then the tables won (a win scores most and is the game's aim: 4 + 0
# ranks above 2 + 2), then how the tied players did where they met (who finished ahead of whom at a shared table).
TABLE_TIEBREAKS = (Tiebreak.TABLE_MATES, Tiebreak.TABLES_WON, Tiebreak.FINISHED_AHEAD)


def default_tiebreaks(fmt: Format) -> tuple[Tiebreak, ...]:
    """The tie-breaks a new tournament of format `fmt` ranks ties by."""
    return TABLE_TIEBREAKS if fmt is Format.TABLES else DEFAULT_TIEBREAKS


@dataclass(frozen=True)
class Settings:
    """How a tournament is played, fixed when it is made. `rounds`: a Swiss's number of rounds (the other formats
    know theirs); `double`: a round robin of two cycles; `bye_points`: what a bye scores; `fillers`: computer seats
    may fill a short So Long Sucker table up to 4."""

    format: Format
    rounds: int = 0
    double: bool = False
    bye_points: float = 1.0
    tiebreaks: tuple[Tiebreak, ...] = DEFAULT_TIEBREAKS
    draw_rule: DrawRule = DrawRule.REPLAY
    place_points: tuple[tuple[int, tuple[float, ...]], ...] = tuple(sorted(DEFAULT_PLACE_POINTS.items()))
    fillers: bool = False

    def points_for_place(self, size: int, place: int) -> float:
        """The points of `place` (1-based) at a table of `size` seats."""
        points = dict(self.place_points)[size]
        return points[min(place, len(points)) - 1]


@dataclass(frozen=True)
class Tournament:
    settings: Settings
    entrants: tuple[Entrant, ...]
    rounds: tuple[Round, ...] = field(default=())

    def entrant(self, player: int) -> Entrant:
        for entrant in self.entrants:
            if entrant.player == player:
                return entrant
        raise KeyError(player)

    def with_round(self, round_: Round) -> Tournament:
        return replace(self, rounds=(*self.rounds, round_))

    def with_result(self, round_number: int, index: int, result: Result | tuple[int, ...]) -> Tournament:
        """The tournament with game (or table) `index` of round `round_number` (1-based) ended: a `Result`, or a
        table's places."""
        old = self.rounds[round_number - 1]
        if isinstance(result, Result):
            games = list(old.games)
            games[index] = replace(games[index], result=result)
            new = replace(old, games=tuple(games))
        else:
            tables = list(old.tables)
            tables[index] = replace(tables[index], places=tuple(result))
            new = replace(old, tables=tuple(tables))
        rounds = list(self.rounds)
        rounds[round_number - 1] = new
        return replace(self, rounds=tuple(rounds))

    def with_entrant(self, entrant: Entrant) -> Tournament:
        """The tournament with `entrant` added, or replacing the entrant of the same player (a withdrawal)."""
        others = tuple(e for e in self.entrants if e.player != entrant.player)
        return replace(self, entrants=(*others, entrant))


def seeded(entrants: Iterable[Entrant]) -> list[Entrant]:
    """Entrants by seed: the higher rating first, then the lower user id."""
    return sorted(entrants, key=lambda entrant: (-entrant.rating, entrant.player))


def to_dict(tournament: Tournament) -> dict[str, Any]:
    """A JSON-able snapshot of the tournament, with its format version."""
    s = tournament.settings
    return {
        "format": FORMAT_VERSION,
        "settings": {
            "format": s.format.value, "rounds": s.rounds, "double": s.double, "bye_points": s.bye_points,
            "tiebreaks": [tiebreak.value for tiebreak in s.tiebreaks], "draw_rule": s.draw_rule.value,
            "place_points": {str(size): list(points) for size, points in s.place_points}, "fillers": s.fillers,
        },
        "entrants": [[e.player, e.rating, e.joined, e.start_points, e.left] for e in tournament.entrants],
        "rounds": [{
            "games": [[g.first, g.second, None if g.result is None else g.result.value] for g in r.games],
            "tables": [[list(t.seats), None if t.places is None else list(t.places)] for t in r.tables],
        } for r in tournament.rounds],
    }


def from_dict(data: Mapping[str, Any]) -> Tournament:
    """The tournament of a snapshot, every shape and value checked (InvalidStateError otherwise)."""
    if not isinstance(data, Mapping) or data.get("format") != FORMAT_VERSION:
        found = data.get("format") if isinstance(data, Mapping) else None
        raise InvalidStateError(f"unknown tournament format {found!r}")
    try:
        raw = data["settings"]
        settings = Settings(
            format=Format(raw["format"]), rounds=_int(raw["rounds"]), double=_bool(raw["double"]),
            bye_points=float(raw["bye_points"]), tiebreaks=tuple(Tiebreak(t) for t in raw["tiebreaks"]),
            draw_rule=DrawRule(raw["draw_rule"]),
            place_points=tuple(sorted((int(size), tuple(float(p) for p in points))
                                      for size, points in raw["place_points"].items())),
            fillers=_bool(raw["fillers"]))
        for size, points in settings.place_points:
            _require(len(points) == size, f"{len(points)} place points for a table of {size}")
        entrants = tuple(Entrant(_int(p), float(rating), _int(joined), float(start), None if left is None
                                 else _int(left)) for p, rating, joined, start, left in data["entrants"])
        _require(len({e.player for e in entrants}) == len(entrants), "an entrant twice")
        rounds = tuple(Round(
            games=tuple(Game(_int(first), None if second is None else _int(second),
                             None if result is None else Result(result)) for first, second, result in r["games"]),
            tables=tuple(Table(tuple(None if seat is None else _int(seat) for seat in seats),
                               None if places is None else tuple(_int(place) for place in places))
                         for seats, places in r["tables"]),
        ) for r in data["rounds"])
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise InvalidStateError(f"malformed tournament: {error}") from error
    known = {e.player for e in entrants}
    for number, round_ in enumerate(rounds, 1):
        players = round_.players()
        _require(set(players) <= known, f"someone not entered in round {number}")
        # A player is in one game or table a round, but a drawn knockout game may be replayed in its round.
        meetings = {frozenset(game.players()) for game in round_.games} | {
            frozenset(table.players()) for table in round_.tables}
        _require(sum(len(group) for group in meetings) == len(set(players)), f"a player twice in round {number}")
        for table in round_.tables:
            _require(table.places is None or len(table.places) == len(table.seats), f"places of round {number}")
    return Tournament(settings, entrants, rounds)


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidStateError(f"not a whole number: {value!r}")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise InvalidStateError(f"not true or false: {value!r}")
    return value


def _require(condition: bool, what: str) -> None:
    if not condition:
        raise InvalidStateError(f"invalid tournament: {what}")

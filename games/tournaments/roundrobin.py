"""Round robin by Berger tables: everyone meets everyone once (single) or twice (double, colours swapped).

Players are numbered by seed (rating, then user id): 1 is the top seed. With an odd count, number n+1 is the bye.
Berger's round r (1-based) for n numbers (n even): player n meets p = ((r - 1) * n/2 mod (n - 1)) + 1, p moving
first in odd rounds and n in even ones; on every further board k the players p + k and p - k meet (counted round
1..n-1), p + k moving first. This is FIDE's Berger table (C.05 Annex 1) exactly: round 1 of six is 1-6, 2-5, 3-4,
round 2 is 6-4, 5-3, 1-2.
"""

from __future__ import annotations

from games.tournaments.history import next_round
from games.tournaments.model import Game, Result, Round, Tournament, seeded


def rounds_of(count: int, double: bool) -> int:
    """How many rounds a round robin of `count` players has."""
    cycle = count - 1 if count % 2 == 0 else count
    return cycle * (2 if double else 1)


def berger(count: int, round_number: int) -> list[tuple[int, int]]:
    """Berger's round `round_number` (1-based, within one cycle) for `count` numbers (even): (first, second) pairs
    of numbers 1..count, board by board."""
    last = count
    p = (round_number - 1) * (count // 2) % (count - 1) + 1
    boards = [(p, last) if round_number % 2 else (last, p)]
    for k in range(1, count // 2):
        boards.append((_wrap(p + k, count - 1), _wrap(p - k, count - 1)))
    return boards


def _wrap(number: int, size: int) -> int:
    return (number - 1) % size + 1


def pair(tournament: Tournament) -> Round:
    """The next round robin round. A withdrawn player's games are lost by forfeit; the bye is the phantom's game."""
    entrants = seeded(tournament.entrants)
    if any(e.joined > 1 for e in entrants):
        raise ValueError("a round robin takes no late entries")
    number = next_round(tournament, rounds_of(len(entrants), tournament.settings.double), "round robin")
    count = len(entrants) + len(entrants) % 2
    cycle = count - 1
    second_cycle = number > cycle
    games = []
    for first, second in berger(count, (number - 1) % cycle + 1):
        if second_cycle:
            first, second = second, first
        one = entrants[first - 1] if first <= len(entrants) else None
        two = entrants[second - 1] if second <= len(entrants) else None
        if one is None or two is None:
            present = one or two
            assert present is not None
            if present.plays_in(number):
                games.append(Game(present.player, None))
            continue
        games.append(Game(one.player, two.player, _absence(one.plays_in(number), two.plays_in(number))))
    return Round(games=tuple(sorted(games, key=lambda game: game.is_bye)))


def _absence(first_plays: bool, second_plays: bool) -> Result | None:
    """The result a withdrawal settles in advance: a forfeit by whoever no longer plays."""
    if first_plays and second_plays:
        return None
    if first_plays:
        return Result.SECOND_FORFEITS
    return Result.FIRST_FORFEITS if second_plays else Result.BOTH_FORFEIT

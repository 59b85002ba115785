"""Tournaments, pure: formats and their pairings, standings and tie-breaks, and the texts that name them.

A tournament is plain immutable data (`model.Tournament`: settings, entrants, rounds so far) with a versioned
snapshot (`model.to_dict` / `model.from_dict`); `next_round` and `standings.standings` compute from it, the same
for the same input in any process (no randomness: ties go by rating, then user id). No storage, no Discord, no
asyncio here: the service stores a tournament and asks these functions what comes next.
"""

from __future__ import annotations

from games.tournaments import knockout, roundrobin, swiss, tables
from games.tournaments.model import Format, Round, Tournament


def next_round(tournament: Tournament) -> Round:
    """The next round of `tournament` from its entrants and results so far (ValueError when there is none)."""
    fmt = tournament.settings.format
    if fmt is Format.SWISS:
        return swiss.pair(tournament)
    if fmt is Format.ROUND_ROBIN:
        return roundrobin.pair(tournament)
    if fmt is Format.KNOCKOUT:
        return knockout.pair(tournament)
    return tables.pair(tournament)


def total_rounds(tournament: Tournament) -> int:
    """How many rounds the tournament has (a knockout's replays are within their round)."""
    settings = tournament.settings
    if settings.format is Format.ROUND_ROBIN:
        return roundrobin.rounds_of(len(tournament.entrants), settings.double)
    if settings.format is Format.KNOCKOUT:
        return knockout.rounds_of(len(tournament.entrants))
    return settings.rounds


def is_over(tournament: Tournament) -> bool:
    """Whether every round has been played (a knockout: its final decided, replays included)."""
    if tournament.settings.format is Format.KNOCKOUT:
        return bool(tournament.rounds) and knockout.finished(tournament)
    return len(tournament.rounds) >= total_rounds(tournament) and (
        not tournament.rounds or tournament.rounds[-1].finished)

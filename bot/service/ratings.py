"""Ratings with openskill's Plackett-Luce model, applied when a game ends (no Discord here).

Rated: games between people only (no computer seat) whose play proper began with a move (`moves_of_play`: a secret
setup's steps, resignations, timeouts and agreed draws are none); resignations and timeouts count as losses
because the engine's finishing order puts those players last. Each finished game updates one ladder for its
server and the global one, in the same transaction as its final move, and, on a server that runs seasons, its
current season's ladder (bot/service/seasons.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from openskill.models import PlackettLuce

from bot.service.model import UNRATED
from bot.service.results import RatingChange
from bot.service.seasons import season_writer
from games import Outcome
from storage import GameRecord
from storage.ratings import GLOBAL, RatingRow, read_ratings, set_rated, write_ratings
from storage.sql import Plan

MODEL = PlackettLuce()
PROVISIONAL_GAMES = 10  # a rating is shown as provisional until the player has this many rated games


def is_rated(game: GameRecord, moves_of_play: int) -> bool:
    """Only people, and only games in which a move of play was made (`GameState.moves_of_play` of the final
    position): a game given up before it, after however many setup steps or other players' resignations, was
    abandoned rather than played. Nor a game made unrated (`UNRATED`: a game of an unrated tournament)."""
    if game.options.get(UNRATED):
        return False
    return all(seat.user_id is not None for seat in game.seats) and moves_of_play >= 1


def display_rating(row: RatingRow) -> int:
    """The familiar number: the conservative ordinal (mu - 3 sigma) scaled so that a newcomer shows 1000."""
    return round(1000 + 40 * row.ordinal)


def is_provisional(row: RatingRow) -> bool:
    return row.games < PROVISIONAL_GAMES


def rate(rows: list[RatingRow], places: tuple[int, ...]) -> list[RatingRow]:
    """New rows for the players of one game, seat order in and out, ranked by their places."""
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in rows]
    rated = MODEL.rate(teams, ranks=list(places))
    draw = len(set(places)) == 1
    out = []
    for row, team, place in zip(rows, rated, places, strict=True):
        won = place == 1 and not draw
        lost = place != 1
        streak = (max(row.streak, 0) + 1) if won else (min(row.streak, 0) - 1) if lost else 0
        out.append(replace(
            row, mu=team[0].mu, sigma=team[0].sigma, games=row.games + 1, wins=row.wins + won,
            draws=row.draws + draw, losses=row.losses + lost, streak=streak, best_streak=max(row.best_streak, streak),
        ))
    return out


def result_writer(
    game: GameRecord, outcome: Outcome, moves_of_play: int, now: float, changes: list[RatingChange]
) -> Callable[[], Plan[None]] | None:
    """The update of the server's and the global ladder for a finished game, as statements that run inside the final
    move's write, right after its version-guarded update (`GameStore.record_move(then=...)`); they add each person's
    rating before and after, per ladder, to `changes` (a season's are not announced with the game: its ladder says
    them). None for an unrated game (`is_rated`)."""
    if not is_rated(game, moves_of_play):
        return None
    users = [seat.user_id for seat in game.seats if seat.user_id is not None]
    scopes = [GLOBAL] if game.guild_id is None else [game.guild_id, GLOBAL]

    def write() -> Plan[None]:
        # Each row is read, recomputed and written back in the move's write transaction, read first (READ_FIRST,
        # storage/sql.py): another process finishing a game of the same player waits for it instead of being
        # overwritten.
        for scope in scopes:
            known = yield from read_ratings(game.kind, scope, users)
            rows = [known.get(u) or RatingRow(game.kind, scope, u, MODEL.mu, MODEL.sigma) for u in users]
            rated = rate(rows, outcome.places)
            yield from write_ratings(rated, now)
            changes.extend(RatingChange(new.user_id, scope, display_rating(old), display_rating(new),
                                        is_provisional(new)) for old, new in zip(rows, rated, strict=True))
            if scope == game.guild_id:  # the server's season starts from the server's all-time rows before this game
                yield from season_writer(game.kind, scope, game.channel_id, users, known, outcome.places, now,
                                         MODEL.mu, MODEL.sigma, rate)
        yield from set_rated(game.id)

    return write

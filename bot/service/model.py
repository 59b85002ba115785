"""What the game use-cases share: the records they pass around and how a stored game is shown.

`Game` is a stored game with its omniscient engine state: it stays inside the service package. What leaves the
package for the Discord layer is a `Result` (bot/service/results.py), built here by `present`: the public view, each
seated person's own view and the events of a change, never the engine state. Nothing here needs a `GameService`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from bot.service.results import DecisionPassed, Event, GameInfo, OwnView, Result, SeatInfo
from games import GameState
from games.base import EndReason
from games.text import Text
from storage import GameRecord
from storage.archive import archived_at

# Options about the table rather than the rules (hints shown, which bot "Add bot" seats, which seat sent a
# challenge when it is not the first); engines never see them.
REMATCH_OF = "rematch_of"  # the finished game a rematch was asked from (its challenge says "asks for a rematch")
TOURNAMENT = "tournament"  # the tournament whose pairing made the game (bot/service/tournaments.py)
TOURNAMENT_ROUND = "tournament_round"  # the round of that tournament it was made for
UNRATED = "unrated"  # true: the game changes no ladder (a game of a tournament played unrated)
TABLE_OPTIONS = frozenset({"hints", "bot_level", "challenger", REMATCH_OF, TOURNAMENT, TOURNAMENT_ROUND, UNRATED})


class ServiceError(Exception):
    """A refusal to show the user, worded so they know what to do instead."""


class StaleStateError(ServiceError):
    """The game moved on after the user looked at it."""


# The one answer to a lost race, whatever the write (a move, an accept, a draw offer): look again, then decide.
STALE_TEXT = Text("The game changed while you were choosing: look at the board again.")


@dataclass(frozen=True)
class Player:
    """Who sits in a seat when a game is created: a user, or a computer player of some level."""

    user_id: int | None = None
    computer: str | None = None


@dataclass(frozen=True)
class Game:
    """A game as stored, with its engine state rebuilt from the snapshot (omniscient: stays in the service)."""

    record: GameRecord
    state: GameState[Any, Any]

    @property
    def id(self) -> int:
        return self.record.id

    def user_at(self, seat: int) -> int | None:
        return self.record.seats[seat].user_id

    def is_computer(self, seat: int) -> bool:
        return self.record.seats[seat].computer is not None

    def seat_of(self, user_id: int) -> int | None:
        return self.record.seat_of(user_id)


class TimerEvent(Enum):
    REMINDER = "reminder"
    FORFEIT = "forfeit"
    DEFAULTED = "defaulted"  # time ran out and the game's default decision was taken (e.g. decline a rescue)
    EXPIRED = "expired"  # a challenge nobody accepted in time
    CALLED_OFF = "called-off"  # nobody finished their secret setup in time: the game never began
    TURN_PING = "turn-ping"  # a turn notification held back while its person was at the table (bot/notifications.py)


# ----- from a stored game to what each audience may see ----------------------------------------------------
def turn_token(game: Game) -> int:
    """What a drawn decision carries to be checked against: the game's own token, else the move count."""
    token = game.state.turn_token()
    return game.record.move_count if token is None else token


def seat_infos(record: GameRecord) -> tuple[SeatInfo, ...]:
    """Who sits in each seat of a stored game, and their place once it ended."""
    return tuple(SeatInfo(s.seat, s.user_id, s.computer, s.place) for s in record.seats)


def draws_allowed(game: Game) -> bool:
    """Draws by agreement: two people, no computer player (they never agree to one)."""
    return game.state.num_players == 2 and not any(s.computer for s in game.record.seats)


def info(game: Game) -> GameInfo:
    """The public facts of a stored game."""
    r = game.record
    return GameInfo(
        id=r.id, kind=r.kind, guild_id=r.guild_id, channel_id=r.channel_id, message_id=r.message_id,
        thread_id=r.thread_id, status=r.status, options=dict(r.options), seats=seat_infos(r), move_count=r.move_count,
        moves_of_play=game.state.moves_of_play(),
        version=r.version, turn_token=turn_token(game), to_decide=game.state.current_player(), began=game.state.began(),
        draw_offer=r.draw_offer, draw_declined=r.draw_declined, draws_allowed=draws_allowed(game),
        turn_timeout=r.turn_timeout,
        deadline=r.deadline, created_at=r.created_at, updated_at=r.updated_at, finished_at=r.finished_at,
    )


def present(game: Game, events: tuple[Event, ...] = ()) -> Result[Any, Any]:
    """What every audience may see of `game`: the public view, and each seated person's own view."""
    private = tuple(OwnView(seat.seat, seat.user_id, game.state.view_for(seat.seat))
                    for seat in game.record.seats if seat.user_id is not None)
    return Result(info(game), game.state.public_view(), private, events)


def decision_events(game: Game, actor: int | None) -> tuple[Event, ...]:
    """The event that the decision is now the seat to move's, unless the game is not being played or `actor` brought
    that decision about themselves: nobody is told of a decision they are looking at (the person who accepted a
    challenge and moves first sees the board already)."""
    seat = game.state.current_player()
    if game.record.status != "active" or seat is None:
        return ()
    user = game.user_at(seat)
    if user is not None and user == actor:
        return ()
    return (DecisionPassed(seat, user),)


def must_stop(record: GameRecord, state: GameState[Any, Any]) -> EndReason | None:
    """Why a game that is still on must end now, or None (rules: "No game without end"): no person is left in it
    (every person resigned, ran out of time or is out: computer players alone would play on without end), or it was
    stored before its kind had a length limit and has reached the one the rules set now."""
    if state.is_over:
        return None
    if all(record.seats[seat].computer is not None for seat in state.seats_in()):
        return EndReason.NO_PERSON_LEFT
    return state.past_limit()


def refuse_archived(record: GameRecord) -> None:
    """Refuse a game whose moves were moved to the archive file: it can be neither played nor replayed here."""
    archived = archived_at(record.state)
    if archived is not None:  # its snapshots and moves are in the archive file now (python -m bot.archive)
        ended = record.finished_at or record.updated_at
        raise ServiceError(Text("Game #{number} ended <t:{ended}:d> and was archived <t:{archived}:d>: its moves are "
                                "no longer kept here, so it cannot be replayed or played. Its result still counts in "
                                "/stats and /history; a bot admin can bring it back from the archive.",
                                number=record.id, ended=int(ended), archived=int(archived)))

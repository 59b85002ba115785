"""What the service hands the Discord layer: a game as each audience may see it, and what just happened.

Nothing here holds an engine state or a stored snapshot. `GameInfo` is the public part of a game's record;
`Result.public` is what anyone may see; `Result.private` holds each seated person's own view, labelled with
whose it is, so a private board can only be drawn for, and delivered to, its owner.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from games.base import EndReason

PublicT = TypeVar("PublicT")
PrivateT = TypeVar("PrivateT")


@dataclass(frozen=True)
class SeatInfo:
    """Who sits in a seat: a person (`user_id`) or a computer player (`computer`, its level)."""

    seat: int
    user_id: int | None
    computer: str | None
    place: int | None = None  # once the game is over: 1 = first


@dataclass(frozen=True)
class GameInfo:
    """The public facts of one game: who plays, where it is shown, its status and clock. Never its position."""

    id: int
    kind: str
    guild_id: int | None
    channel_id: int
    message_id: int | None
    thread_id: int | None
    status: str  # pending, active, finished, declined, expired
    options: Mapping[str, Any]
    seats: tuple[SeatInfo, ...]
    move_count: int  # every stored action (setup steps and resignations included): the store's count, not the players'
    moves_of_play: int  # the moves players count (the engine's `moves_of_play`): what every text that counts moves says
    version: int  # bumped by every stored change of the game: what a drawn board records having shown
    turn_token: int  # what a drawn decision carries, to be refused as stale once the game moved on
    to_decide: int | None  # the seat whose decision it is now (None: nobody's, e.g. the game is over)
    began: bool  # play proper has begun (False while players still set up in secret)
    draw_offer: int | None  # the seat that offered a draw, until the opponent accepts or plays on
    draw_declined: int | None  # the seat whose draw offer the latest move declined (by playing on)
    draws_allowed: bool  # whether Offer draw is on the table in this game at all
    turn_timeout: float
    deadline: float | None
    created_at: float
    updated_at: float
    finished_at: float | None

    def user_at(self, seat: int) -> int | None:
        return self.seats[seat].user_id

    def is_computer(self, seat: int) -> bool:
        return self.seats[seat].computer is not None

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)

    @property
    def computer_to_move(self) -> bool:
        return self.status == "active" and self.to_decide is not None and self.is_computer(self.to_decide)


@dataclass(frozen=True)
class OwnView(Generic[PrivateT]):
    """One seated person's own view, labelled with whose it is."""

    seat: int
    user_id: int
    view: PrivateT


# ----- events: what a change did, for announcements and notifications ----------------------------------------
@dataclass(frozen=True)
class DecisionPassed:
    """The decision passed to `seat` (a person when `user_id` is set, else a computer player)."""

    seat: int
    user_id: int | None


@dataclass(frozen=True)
class PlayBegan:
    """Every player finished their secret setup; play proper starts with `seat` to move."""

    seat: int
    user_id: int | None


@dataclass(frozen=True)
class GameStarted:
    """A lobby's game began: these people sit in it."""

    user_ids: tuple[int, ...]


@dataclass(frozen=True)
class RatingChange:
    user_id: int
    scope: int  # a server id, or storage.ratings.GLOBAL
    before: int  # the displayed rating
    after: int
    provisional: bool


@dataclass(frozen=True)
class GameEnded:
    places: tuple[int, ...]  # by seat, 1 = first; equal places are ties
    reason: EndReason
    rating_changes: tuple[RatingChange, ...] = ()
    # Ended by a turn timer: the timer loop sends its ending message (at least once, from the owed announcement),
    # not the Notifier.
    by_timer: bool = False

    @property
    def is_draw(self) -> bool:
        return len(set(self.places)) == 1

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, place in enumerate(self.places) if place == 1)


Event = DecisionPassed | PlayBegan | GameStarted | GameEnded


@dataclass(frozen=True)
class Result(Generic[PublicT, PrivateT]):
    """A game as every audience may see it now, and the events of the change that produced it (if any)."""

    game: GameInfo
    public: PublicT
    private: tuple[OwnView[PrivateT], ...] = ()
    events: tuple[Event, ...] = field(default=())

    @property
    def id(self) -> int:
        return self.game.id

    def own(self, user_id: int) -> PrivateT | None:
        """The view of the person `user_id`, if they sit in this game."""
        return next((own.view for own in self.private if own.user_id == user_id), None)

    def ended(self) -> GameEnded | None:
        return next((e for e in self.events if isinstance(e, GameEnded)), None)


@dataclass(frozen=True)
class ReplayFrame(Generic[PublicT]):
    """One position of a stored game, as a replay may show it (hidden ranks only once the game is over).

    `ply` numbers the frames: frame 0 is where play began, after any secret setup (`setup_steps` actions, summarised
    as that one step), and each logged action after it is one frame (a move of play, or a resignation, a timeout, an
    agreed draw), up to `total`; `last` is the action that led here, (seat, action text), None at frame 0. What a
    frame says to people counts moves of play, as everything else does: `game.moves_of_play` made by this frame, of
    `moves` in the whole game."""

    game: GameInfo
    view: PublicT
    ply: int
    total: int
    last: tuple[int, str] | None = None
    setup_steps: int = 0
    moves: int = 0


@dataclass(frozen=True)
class PastGame:
    """One line of a player's history: which game, where, and how it went for them."""

    id: int
    kind: str
    status: str
    guild_id: int | None
    channel_id: int
    message_id: int | None
    created_at: float
    place: int | None  # the player's place once the game is over
    seats: tuple[SeatInfo, ...]
    thread_id: int | None = None  # the game's thread (So Long Sucker's table, where its board is once posted there)

"""The engine contract every game follows (see DESIGN.md §2).

A state is an immutable value: `apply` returns a new state and never changes the old one, so the service
can compute the next state, try to persist it, and simply drop it if the write loses a race.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Generic, Self, TypeVar


class EndReason(StrEnum):
    """Why a game ended, one list for every game; the Discord layer turns each into words."""

    RESIGN = "resign"  # a player gave up
    TIMEOUT = "timeout"  # a player ran out of time
    DRAW_AGREED = "draw-agreed"  # every player agreed to a draw
    KNOCKOUT = "knockout"  # every opponent is out (Chopsticks)
    MISERE = "misere"  # the first to lose every hand wins (Chopsticks misère)
    REPETITION = "repetition"  # the same position came up a third time (Chopsticks)
    LAST_SURVIVOR = "last-survivor"  # everyone else was defeated (So Long Sucker)
    FLAG_CAPTURED = "flag-eliminated"  # a Flag was captured (Game of the Generals)
    FLAG_HOME = "flag-reached-back-rank"  # a Flag reached the far side (Game of the Generals)
    NO_CHALLENGE_DRAW = "no-challenge-draw"  # too many moves without a challenge (Game of the Generals)
    NO_PERSON_LEFT = "no-person-left"  # every person left; the computer players still in share the best place
    MOVE_LIMIT = "move-limit"  # the game reached the length its rules allow (rules: "No game without end")


# Older snapshots spelled a reason differently; they are read as today's reason.
_LEGACY_REASONS = {"agreement": EndReason.DRAW_AGREED}

# Reserved action texts in a move log. They are not game moves, but they change the outcome, so they are
# logged and replayed like moves.
RESIGN = EndReason.RESIGN.value
TIMEOUT = EndReason.TIMEOUT.value
DRAW_AGREED = EndReason.DRAW_AGREED.value
# The service ends a game that must not go on (`GameState.stop`): no person is left in it, or it was stored before
# its kind had a length limit and has now reached the one the rules set.
NO_PERSON_LEFT = EndReason.NO_PERSON_LEFT.value
MOVE_LIMIT = EndReason.MOVE_LIMIT.value
STOPS = frozenset({NO_PERSON_LEFT, MOVE_LIMIT})
META_ACTIONS = frozenset({RESIGN, TIMEOUT, DRAW_AGREED, *STOPS})


class GameError(ValueError):
    """A refused action or a bad input; the message is written to be shown to a player."""


class IllegalMoveError(GameError):
    """The action is not one of the legal actions in this position."""


class NotYourTurnError(GameError):
    """Someone other than the player to move tried to move."""


class GameOverError(GameError):
    """The game has ended; nothing more can be played."""


class InvalidStateError(GameError):
    """A serialised state is malformed or from an unknown format version."""


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: a place per seat (1 = first; equal places are ties) and why."""

    places: tuple[int, ...]
    reason: EndReason

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, place in enumerate(self.places) if place == 1)

    @property
    def is_draw(self) -> bool:
        return len(self.winners) == len(self.places)

    @classmethod
    def by_elimination(cls, players: int, out_in_order: Sequence[int], reason: EndReason) -> Outcome:
        """Seats still in share first place; the others follow in reverse order of going out, ranked as in
        sport (two sharing first are followed by third)."""
        places = [1] * players
        place = players - len(out_in_order) + 1
        for seat in reversed(out_in_order):
            places[seat] = place
            place += 1
        return cls(tuple(places), reason)

    def to_dict(self) -> dict[str, Any]:
        return {"places": list(self.places), "reason": self.reason.value}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        try:
            places = tuple(int(p) for p in data["places"])
            text = str(data["reason"])
            reason = _LEGACY_REASONS.get(text) or EndReason(text)
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidStateError(f"bad outcome: {exc}") from exc
        return cls(places, reason)


class Action(ABC):
    """A move. Concrete actions are small frozen dataclasses with a stable text form."""

    @abstractmethod
    def text(self) -> str:
        """The stable text used in logs, custom ids and replays."""


PublicViewT = TypeVar("PublicViewT", covariant=True)
PlayerViewT = TypeVar("PlayerViewT", covariant=True)


class GameState(ABC, Generic[PublicViewT, PlayerViewT]):
    """One position of one game, with everything needed to continue it.

    The two type parameters are the frozen view types: what a spectator may know, and what one player may
    know. Computer players live outside the engine (see `GameDescription.computer`): an engine never imports
    them, and they read what they may know from the engine's views.
    """

    kind: ClassVar[str]
    FORMAT_VERSION: ClassVar[int]
    MIN_PLAYERS: ClassVar[int]
    MAX_PLAYERS: ClassVar[int]

    @classmethod
    @abstractmethod
    def new(cls, players: int, options: Mapping[str, Any], rng: random.Random) -> Self:
        """A fresh game; all randomness comes from `rng` so it is replayable."""

    @property
    @abstractmethod
    def num_players(self) -> int: ...

    @abstractmethod
    def current_player(self) -> int | None:
        """The seat that must decide now, or None when the game is over."""

    @abstractmethod
    def legal_actions(self, player: int) -> Sequence[Action]:
        """The actions `player` may take now, in a stable order (empty when it is not their decision)."""

    @abstractmethod
    def parse_action(self, text: str) -> Action:
        """The action whose text form is `text` in this position; IllegalMoveError if it means nothing."""

    @abstractmethod
    def apply(self, player: int, action: Action) -> Self:
        """The state after `player` takes `action`; raises a GameError subclass when refused."""

    @abstractmethod
    def resign(self, player: int, reason: EndReason = EndReason.RESIGN) -> Self:
        """The state after `player` gives up (resignation or a turn timeout)."""

    @abstractmethod
    def agree_draw(self) -> Self:
        """The state after all players agreed to a draw."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """None while the game goes on."""

    @abstractmethod
    def public_view(self) -> PublicViewT:
        """What a spectator may know, as a frozen value."""

    @abstractmethod
    def view_for(self, player: int) -> PlayerViewT:
        """What `player` may know, as a frozen value."""

    def review_view(self, game_over: bool) -> PublicViewT:
        """What a replay of this position may show: the public view, unless the game is over and the game has
        more to show then (hidden ranks revealed in hindsight)."""
        return self.public_view()

    def began(self) -> bool:
        """Whether play proper has begun (False while players still set up in secret)."""
        return True

    @abstractmethod
    def moves_of_play(self) -> int:
        """How many moves of play have been made: the players' own actions since play proper began. Neither the
        steps of a secret setup nor the meta actions (a resignation, a timeout, an agreed draw) are moves of play;
        a game whose play never began with a move is not rated."""

    def setting_up(self) -> tuple[int, ...]:
        """The seats still setting up in secret before play begins (none once play began, or in games without a
        secret setup). Their time is one deadline for the whole setup."""
        return ()

    def expand(self, player: int, text: str, rng: random.Random) -> str:
        """The action text to log for what `player` asked for: the same text, except where a request needs
        randomness to become an action (a random formation); the log stores the result, so replays are exact."""
        return text

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """A JSON-able snapshot carrying `FORMAT_VERSION`."""

    @classmethod
    @abstractmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """Inverse of `to_dict`; validates and raises InvalidStateError."""

    def seats_in(self) -> tuple[int, ...]:
        """The seats still playing: not out, defeated, resigned or timed out (none once the game is over)."""
        return () if self.is_over else tuple(range(self.num_players))

    def past_limit(self) -> EndReason | None:
        """Why a game that is still on has reached its length limit, or None. A state ends by itself at its limit;
        only one stored before its kind had a limit (its snapshot carries none) can be past the one the rules set now
        (the service then stops it, `stop`), so that older games still replay exactly as they were played."""
        return None

    def stop(self, reason: EndReason) -> Self:
        """The game ends here for `reason` (STOPS): the seats still in share the best remaining place, the others keep
        the places they had."""
        raise GameError(f"a {self.kind} game cannot be stopped")

    def timeout_action(self, player: int) -> Action | None:
        """What `player` does when their time runs out, if not forfeiting (the default: None, they resign)."""
        return None

    def turn_token(self) -> int | None:
        """A number that changes whenever a pending decision may have become stale; None: every action counts.

        Games with free actions (transfers at any time) return a count that those actions do not change, so a
        decision drawn before someone's transfer is still accepted afterwards."""
        return None

    @property
    def is_over(self) -> bool:
        return self.outcome() is not None

    def apply_text(self, player: int, text: str) -> Self:
        """Apply a logged action text, including the reserved meta actions (used by replay)."""
        if text in (RESIGN, TIMEOUT):
            return self.resign(player, EndReason(text))
        if text == DRAW_AGREED:
            return self.agree_draw()
        if text in STOPS:
            return self.stop(EndReason(text))
        return self.apply(player, self.parse_action(text))

"""A stored game as plain data: its row with its seats, a row of its move log, and the errors of reading or writing
one. The store (storage/games.py), its writes (storage/game_writes.py) and its cache (storage/game_cache.py) all
speak of these, so they live below the three."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class GameNotFoundError(LookupError):
    """No game has this id."""


class StaleVersionError(Exception):
    """A write was based on a version of the game that is no longer current; nothing was written."""

    def __init__(self, game_id: int, expected: int) -> None:
        super().__init__(f"game {game_id} is no longer at version {expected}; reload it and try again")
        self.game_id = game_id
        self.expected = expected


@dataclass(frozen=True)
class Seat:
    seat: int
    user_id: int | None  # None for a computer player's seat
    computer: str | None = None  # the computer player's level, for its seat
    place: int | None = None


@dataclass(frozen=True)
class GameRecord:
    id: int
    kind: str
    guild_id: int | None
    channel_id: int
    message_id: int | None
    status: str
    options: dict[str, Any]
    initial_state: dict[str, Any]
    state: dict[str, Any]
    version: int
    move_count: int
    draw_offer: int | None
    turn_timeout: float
    deadline: float | None
    remind_at: float | None
    created_at: float
    updated_at: float
    finished_at: float | None
    seats: tuple[Seat, ...]
    thread_id: int | None = None
    draw_declined: int | None = None  # the seat whose draw offer the latest move declined (by playing on)

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)


@dataclass(frozen=True)
class MoveRow:
    ply: int
    seat: int
    user_id: int | None
    action: str
    created_at: float

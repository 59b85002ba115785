"""What the parts of `GameService` (games.py) share: built once by the service, or by a test from the pieces alone, and
handed to each part that uses most of it (setup, timers, computer moves), which keeps it under the same names; a part
that needs only a few of these (leases: the database, its store and this process's name) is given just those."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from bot.service.locks import KeyedLocks
from bot.service.publisher import Publisher
from bot.service.stored import StoredGames
from storage import GameStore
from storage.database import Database


@dataclass(frozen=True)
class Shared:
    """The database and its store, the games as stored, the per-game locks, who is told of results, the clock, the
    event that wakes the timer loop, and this process's name in leases."""

    db: Database
    store: GameStore
    games: StoredGames
    locks: KeyedLocks
    publisher: Publisher
    clock: Callable[[], float]
    timers_changed: asyncio.Event  # set whenever a write creates or moves a deadline (bot/service/wakeup.py)
    holder: str  # this process, in the leases it holds and the announcements it claims


class ServicePart:
    """A part of `GameService`, with what it shares with the others."""

    def __init__(self, shared: Shared) -> None:
        self._db = shared.db
        self._store = shared.store
        self._games = shared.games
        self._locks = shared.locks
        self._publisher = shared.publisher
        self._clock = shared.clock
        self._timers_changed = shared.timers_changed
        self._holder = shared.holder

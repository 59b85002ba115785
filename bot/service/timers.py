"""Fires challenge expiries, turn reminders and forfeits from the deadlines stored in the database.

Nothing is scheduled in memory alone: at start-up the loop simply reads the earliest deadline, so
timers survive restarts, and one that fell due while the bot was down fires at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot.service.games import GameService, TimerEvent
from bot.service.lobbies import LobbyService
from bot.service.results import Result
from storage.lobbies import LobbyRecord

log = logging.getLogger(__name__)

Announce = Callable[[TimerEvent, Result[Any, Any]], Awaitable[None]]
AnnounceLobby = Callable[[LobbyRecord], Awaitable[None]]
MAX_SLEEP = 300.0  # look again at least this often, in case the clock jumped
RETRY_DELAY = 5.0


class TimerLoop:
    def __init__(
        self, service: GameService, announce: Announce, lobbies: LobbyService, announce_lobby: AnnounceLobby
    ) -> None:
        self._service = service
        self._announce = announce
        self._lobbies = lobbies
        self._announce_lobby = announce_lobby
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="turn-timers")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        changed = self._service.timers_changed
        while True:
            try:
                failures = await self.fire_due()
                changed.clear()
                nxt = await self._service.next_timer()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("timer loop failed; retrying in a minute")
                failures, nxt = 1, self._service.clock() + 60
            delay = MAX_SLEEP if nxt is None else max(0.0, min(MAX_SLEEP, nxt - self._service.clock()))
            if failures:
                delay = max(delay, RETRY_DELAY)  # a timer that keeps failing must not spin the loop
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), timeout=delay)

    async def fire_due(self) -> int:
        """Fire every timer that is due; returns how many failed."""
        failures = 0
        for game_id in await self._service.due_timers():
            try:
                fired = await self._service.fire_timer(game_id)
                if fired is not None:
                    await self._announce(*fired)
            except asyncio.CancelledError:
                raise
            except Exception:
                failures += 1
                log.exception("timer for game %s failed", game_id)
        for lobby_id in await self._lobbies.due():
            try:
                lobby = await self._lobbies.expire(lobby_id)
                if lobby is not None:
                    await self._announce_lobby(lobby)
            except asyncio.CancelledError:
                raise
            except Exception:
                failures += 1
                log.exception("timer for lobby %s failed", lobby_id)
        return failures

"""Fires challenge expiries, turn reminders and forfeits from the deadlines stored in the database, and tournaments'
round deadlines and start times.

Nothing is scheduled in memory alone: at start-up the loop simply reads the earliest deadline, so
timers survive restarts, and one that fell due while the bot was down fires at once.

Several processes may share the database: each fires what is due, the version guard lets one of them
apply a timer, and the others find nothing to do and say nothing. An owed announcement is sent by the process that
claimed it (storage/leases.py); one whose process died (its heartbeat stopped, bot/service/heartbeat.py) is taken over
`TAKEOVER_EVERY` after that is seen.

Exactly once, whatever is paused: the process that fired a timer, or took its announcement over, holds the
announcement's lease with a token (storage/leases.py), and the presenter asks the fence it is given right before the
announcement's message. A process paused past its lease (another process took the announcement over and sent it)
finds the token gone, and sends nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from bot.service.games import GameService
from bot.service.lobbies import LobbyService
from bot.service.model import StaleStateError, TimerEvent
from bot.service.owed import OWED_LEASE, owed_result
from bot.service.results import Result
from bot.service.tasks import Background
from storage.leases import claim, owed_key, release
from storage.lobbies import LobbyRecord
from storage.owed import OwedAnnouncement, count_failure, owed, settle

log = logging.getLogger(__name__)

# Whether this process still holds the announcement being sent (one read of the database): asked right before its
# message; False means another process took it over, and the message must not be sent here.
Fence = Callable[[], Awaitable[bool]]
# Sends the announcement of a fired timer: redraws the game, then (if the fence still holds) one message.
Announce = Callable[[TimerEvent, Result[Any, Any], Fence], Awaitable[None]]
AnnounceLobby = Callable[[LobbyRecord], Awaitable[None]]
MAX_SLEEP = 300.0  # look again at least this often, in case the clock jumped
RETRY_DELAY = 5.0
MAX_ATTEMPTS = 3  # sends of one owed announcement before it is given up
TAKEOVER_EVERY = 5.0  # seconds between looks for owed announcements nobody (alive) is sending


class Undeliverable(Exception):
    """An announcement that can never be sent (its channel is gone or closed to the bot): it is given up."""


class TimerLoop:
    def __init__(
        self, service: GameService, announce: Announce, lobbies: LobbyService, announce_lobby: AnnounceLobby
    ) -> None:
        self._service = service
        self._announce = announce
        self._lobbies = lobbies
        self._announce_lobby = announce_lobby
        self._task = Background("turn-timers")
        self._next_look = float("-inf")  # when to look again for what is owed and unclaimed (at once: at start-up)
        self._retry: set[int] = set()  # games whose owed announcement failed here, to try again
        # True while the loop sleeps between passes: nothing it fired is still being announced (what a caller waiting
        # for the bot to be idle needs to know; a pass's announcements are awaited inside the pass).
        self.resting = False

    def start(self) -> None:
        self._task.start(self._run)

    async def stop(self) -> None:
        await self._task.stop()

    async def _run(self) -> None:
        changed = self._service.timers_changed
        look = True  # fire what is due and read the next deadline (else only a write's own deadline is new: `at`)
        failures, nxt = 0, None
        while True:
            if look:
                try:
                    failures = await self.fire_due()
                    changed.take()
                    nxt = await self._next_deadline()
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("timer loop failed; retrying in a minute")
                    failures, nxt = 1, self._service.clock() + 60
            delay = MAX_SLEEP if nxt is None else max(0.0, min(MAX_SLEEP, nxt - self._service.clock()))
            if failures:
                delay = max(delay, RETRY_DELAY)  # a timer that keeps failing must not spin the loop
            if self._retry:
                delay = min(delay, RETRY_DELAY)  # a failed announcement is tried again soon (a few times at most)
            delay = min(delay, max(0.0, self._next_look - self._service.clock()))
            # asyncio.timeout, not wait_for: Python 3.11's wait_for swallows a stop that arrives just as `changed` is
            # set (a move at the moment the bot stops), and the loop would sleep on while the stop waited forever.
            look = True
            self.resting = True
            try:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await changed.wait()
            finally:
                self.resting = False
                # Woken by a write: unless it asked for a new read, or set a deadline already due, the deadline it set
                # is the only news (bot/service/wakeup.py), and the loop sleeps on until the earlier of the two.
                full, earliest = changed.take()
                if not full and earliest is not None and earliest > self._service.clock():
                    look = False
                    nxt = earliest if nxt is None else min(nxt, earliest)

    async def fire_due(self) -> int:
        """Announce what is still owed, then fire every timer that is due; returns how many failed."""
        failures = 0
        for debt, token in await self._owed():
            owed_now = await owed_result(debt, self._service.load, self._service.load_at)
            if owed_now is None:  # a reminder whose decision moved on, a game gone: nothing left to say
                await self._settle(debt.game_id, debt.event, debt.ply, debt.created_at)
                continue
            failures += not await self._deliver(*owed_now, token, debt.ply, created_at=debt.created_at)
        for game_id in await self._service.due_timers():
            try:
                fired = await self._service.fire_timer(game_id)
            except asyncio.CancelledError:
                raise
            except StaleStateError:  # another process fired it first: it announces it, and nothing failed here
                log.debug("timer for game %s was fired by another process", game_id)
                continue
            except Exception:
                failures += 1
                log.exception("timer for game %s failed", game_id)
                continue
            if fired is not None:
                log.info("turn timer of game %s fired: %s", game_id, fired.event.value)
                failures += not await self._deliver(fired.event, fired.result, fired.token, fired.ply)
        tournaments = self._service.tournaments
        for tournament_id in await tournaments.due_round_deadlines():  # a round's unfinished games adjudicated
            try:
                await tournaments.adjudicate(tournament_id)
            except asyncio.CancelledError:
                raise
            except StaleStateError:  # a move in one of its games at that moment: adjudicated at the next look
                log.debug("round deadline of tournament %s met a move; again at once", tournament_id)
            except Exception:
                failures += 1
                log.exception("round deadline of tournament %s failed", tournament_id)
        for tournament_id in await tournaments.due_starts():  # a tournament's start time: it starts by itself
            try:
                await tournaments.start_due(tournament_id)
            except asyncio.CancelledError:
                raise
            except StaleStateError:
                log.debug("the start of tournament %s met another change; again at once", tournament_id)
            except Exception:
                failures += 1
                log.exception("the start of tournament %s failed", tournament_id)
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

    async def _next_deadline(self) -> float | None:
        """The earliest deadline or reminder of a game, deadline of a tournament's round, or tournament's start."""
        tournaments = self._service.tournaments
        found = [when for when in (await self._service.next_timer(), await tournaments.next_round_deadline(),
                                   await tournaments.next_start()) if when is not None]
        return min(found, default=None)

    async def _owed(self) -> list[tuple[OwedAnnouncement, int]]:
        """What is owed and now claimed by this process: what this loop failed to send, and, at start-up and every
        `TAKEOVER_EVERY`, whatever nobody alive is sending (a stopped process left it). One read when nothing is."""
        service, now = self._service, self._service.clock()  # when to look again is this process's own business
        look = now >= self._next_look
        if look:
            self._next_look = now + TAKEOVER_EVERY
            async with service.db.reading() as conn:
                look = bool(await owed(conn))
        if not look and not self._retry:
            return []
        retry, self._retry = self._retry, set()
        async with service.store.transaction() as tx:
            conn = await tx.writer(read_first=True)
            found = await owed(conn) if look else [o for game_id in sorted(retry) for o in await owed(conn, game_id)]
            claimed = [(o, token) for o in found
                       if (token := await claim(conn, owed_key(o.game_id, o.event, o.ply), service.holder, OWED_LEASE))
                       is not None]
            # Read again once claimed: on PostgreSQL the process that held it may have sent it (and let go of its
            # claim) between the first read and the claim.
            mine = []
            for debt, token in claimed:
                if debt in await owed(conn, debt.game_id):
                    mine.append((debt, token))
                else:
                    await release(conn, owed_key(debt.game_id, debt.event, debt.ply), service.holder)
        return mine

    async def _deliver(self, event: TimerEvent, result: Result[Any, Any], token: int, ply: int,
                       created_at: float | None = None) -> bool:
        """Announce a fired timer, while this process holds its lease with `token`, and settle what it owed; a failed
        send stays owed and is tried again, a few times at most (never forever: a message that cannot be sent is
        given up with a log line). An announcement another process took over meanwhile is left to it."""
        key = owed_key(result.id, event.value, ply)
        lost: list[bool] = []

        async def fence() -> bool:
            if await self._service.still_holds(key, token):
                return True
            log.info("the %s announcement of game %s was taken over by another process (this one was paused past "
                     "its lease?); not sending it here", event.value, result.id)
            lost.append(True)
            return False

        try:
            await self._announce(event, result, fence)
        except asyncio.CancelledError:
            raise
        except Undeliverable as exc:
            log.warning("gave up the %s announcement of game %s: %s", event.value, result.id, exc)
        except Exception:
            async with self._service.store.transaction() as tx:
                conn = await tx.writer()
                attempts = await count_failure(conn, result.id, event.value, ply, created_at)
                # Anyone may try it now (a process starting after a crash at once); this loop claims it again to retry.
                await release(conn, key, self._service.holder)
            if attempts < MAX_ATTEMPTS:
                # Not yet an error: it is owed, and sent again soon (or by the next start).
                log.warning("the %s announcement of game %s failed (attempt %d of %d); it stays owed",
                            event.value, result.id, attempts, MAX_ATTEMPTS, exc_info=True)
                if attempts:  # 0: another process sent it meanwhile (it is no longer owed)
                    self._retry.add(result.id)
                return False
            log.exception("the %s announcement of game %s failed %d times; gave it up", event.value, result.id,
                          attempts)
            await self._settle(result.id, event.value, ply, created_at)
            return False
        if lost:  # the process that holds it now settles it, once it has sent it
            return True
        await self._settle(result.id, event.value, ply, created_at)
        return True

    async def _settle(self, game_id: int, event: str, ply: int, created_at: float | None) -> None:
        async with self._service.store.transaction() as tx:
            conn = await tx.writer()
            await settle(conn, game_id, event, ply, created_at)
            await release(conn, owed_key(game_id, event, ply), self._service.holder)

"""The turn timers of `GameService`: when a decision's deadline and reminder fall, and what firing one does.

The deadlines live in the database with the game (nothing is scheduled in memory alone); bot/service/timers.py is the
loop that asks for the next one and fires what is due.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.service.model import Game, TimerEvent, present, turn_token
from bot.service.owed import Fired, owe
from bot.service.results import Result
from bot.service.service_parts import ServiceParts
from games import GameState
from games.base import TIMEOUT, EndReason
from storage import GameTransaction, Seat
from storage.notifications import take_held_ping

REMINDER_FRACTION = 0.75  # the one reminder comes when three quarters of the turn time has passed


class GameTimers(ServiceParts):
    """`GameService`'s timers, as a mixin (what it uses of the service: ServiceParts)."""

    # ----- timers -----------------------------------------------------------------------------------------
    def _next_timers(self, game: Game, state: GameState[Any, Any], now: float) -> tuple[float | None, float | None]:
        """The deadline moves only when the decision passes to someone else: free actions by others (transfers)
        and setup edits leave it where it is, and the secret setup has one deadline from start to play."""
        record = game.record
        same_decider = state.current_player() == game.state.current_player()
        still_setting_up = not state.began() and record.deadline is not None
        if still_setting_up or (same_decider and state.began() == game.state.began() and record.deadline is not None):
            return record.deadline, record.remind_at
        return self._turn_timers(state, record.seats, record.turn_timeout, now)

    @staticmethod
    def _turn_timers(
        state: GameState[Any, Any], seats: Sequence[Seat], timeout: float, now: float
    ) -> tuple[float | None, float | None]:
        seat = state.current_player()
        if seat is None or seats[seat].bot is not None:
            return None, None
        return now + timeout, now + timeout * REMINDER_FRACTION

    async def next_timer(self) -> float | None:
        return await self.store.next_timer()

    async def due_timers(self) -> list[int]:
        return await self.store.due_timers(self.clock())

    async def fire_timer(self, game_id: int) -> Fired | None:
        """Expire a challenge, remind the player to move, or forfeit them, whichever is due now; else send the turn
        notification held back while they were at the table, if it is due and still theirs."""
        async with self._locks.hold(game_id):
            async with self._editing(game_id, read_first=True) as (tx, game):
                due = await self._fire(tx, game)
                # owed until the timer loop has sent it: at least once, across a stop
                fired = None if due is None else await owe(tx, *due, now=self.clock(), holder=self.holder)
            if fired is not None:
                self.publish(fired.result)
            return fired

    async def _fire(self, tx: GameTransaction, game: Game) -> tuple[TimerEvent, Result[Any, Any]] | None:
        record, now = game.record, self.clock()
        # A turn notification held back while its person was at the table: due now, it is taken (whatever happens
        # next), and sent if nothing else is and the decision is still theirs at the same turn.
        held = await take_held_ping(await tx.writer(), record.id, now)
        fired = await self._fire_turn_timers(tx, game, now)
        if fired is not None or held is None or record.status != "active":
            return fired
        if game.state.current_player() == held.seat and turn_token(game) == held.turn:
            return TimerEvent.TURN_PING, present(game)
        return None

    async def _fire_turn_timers(self, tx: GameTransaction, game: Game,
                                now: float) -> tuple[TimerEvent, Result[Any, Any]] | None:
        record = game.record
        if record.status == "pending" and record.deadline is not None and record.deadline <= now:
            record = await self._update(tx, record, status="expired", deadline=None, remind_at=None)
            return TimerEvent.EXPIRED, present(Game(record, game.state))
        if record.status != "active":
            if record.deadline is not None or record.remind_at is not None:
                await self._update(tx, record, deadline=None, remind_at=None)
            return None
        seat = game.state.current_player()
        late = record.deadline is not None and record.deadline <= now
        if late and game.state.setting_up():
            late_seats = game.state.setting_up()
            if len(late_seats) == len(record.seats):  # nobody finished their setup: the game never began
                record = await self._update(tx, record, status="expired", deadline=None, remind_at=None)
                return TimerEvent.CALLED_OFF, present(Game(record, game.state))
            seat = late_seats[0]  # the one still setting up forfeits (unrated: play never began)
            forfeited = await self._commit(tx, game, seat, None, TIMEOUT, game.state.resign(seat, EndReason.TIMEOUT))
            return TimerEvent.FORFEIT, forfeited
        if late and seat is not None:
            default = game.state.timeout_action(seat)
            if default is not None:
                decided = await self._commit(tx, game, seat, None, default.text(), game.state.apply(seat, default))
                return TimerEvent.DEFAULTED, decided
            forfeited = await self._commit(tx, game, seat, None, TIMEOUT, game.state.resign(seat, EndReason.TIMEOUT))
            return TimerEvent.FORFEIT, forfeited
        if record.remind_at is not None and record.remind_at <= now:
            record = await self._update(tx, record, remind_at=None)
            return TimerEvent.REMINDER, present(Game(record, game.state))
        return None

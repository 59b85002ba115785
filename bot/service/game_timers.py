"""The turn timers, a part of `GameService` (games.py): what firing a due deadline or reminder does.

The deadlines live in the database with the game (nothing is scheduled in memory alone), set by deadlines.py as the
decision passes; bot/service/timers.py is the loop that asks for the next one and fires what is due.
"""

from __future__ import annotations

from typing import Any

from bot.service.model import Game, TimerEvent, present, turn_token
from bot.service.owed import Fired, owe
from bot.service.parts import ServicePart
from bot.service.results import Result
from games.base import TIMEOUT, EndReason
from storage import GameTransaction
from storage.notifications import take_held_ping


class GameTimers(ServicePart):
    """Firing due deadlines and reminders; the announcement of what fires is claimed by this process (`holder`)."""

    async def next_timer(self) -> float | None:
        """When the earliest deadline or reminder of any game falls, or None."""
        return await self._store.next_timer()

    async def due_timers(self) -> list[int]:
        """The games with a deadline or reminder due now."""
        return await self._store.due_timers(self._clock())

    async def fire_timer(self, game_id: int) -> Fired | None:
        """Expire a challenge, remind the player to move, or forfeit them, whichever is due now; else send the turn
        notification held back while they were at the table, if it is due and still theirs."""
        async with self._locks.hold(game_id):
            async with self._games.editing(game_id, read_first=True) as (tx, game):
                due = await self._fire(tx, game)
                # owed until the timer loop has sent it: at least once, across a stop
                fired = None if due is None else await owe(tx, *due, now=self._clock(), holder=self._holder)
            if fired is not None:
                self._publisher.publish(fired.result)
            return fired
    async def _fire(self, tx: GameTransaction, game: Game) -> tuple[TimerEvent, Result[Any, Any]] | None:
        record, now = game.record, self._clock()
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
            record = await self._games.update(tx, record, status="expired", deadline=None, remind_at=None)
            return TimerEvent.EXPIRED, present(Game(record, game.state))
        if record.status != "active":
            if record.deadline is not None or record.remind_at is not None:
                await self._games.update(tx, record, deadline=None, remind_at=None)
            return None
        seat = game.state.current_player()
        late = record.deadline is not None and record.deadline <= now
        if late and game.state.setting_up():
            late_seats = game.state.setting_up()
            if len(late_seats) == len(record.seats):  # nobody finished their setup: the game never began
                record = await self._games.update(tx, record, status="expired", deadline=None, remind_at=None)
                return TimerEvent.CALLED_OFF, present(Game(record, game.state))
            seat = late_seats[0]  # the one still setting up forfeits (unrated: play never began)
            forfeited = await self._games.commit(tx, game, seat, None, TIMEOUT,
                                                 game.state.resign(seat, EndReason.TIMEOUT))
            return TimerEvent.FORFEIT, forfeited
        if late and seat is not None:
            default = game.state.timeout_action(seat)
            if default is not None:
                decided = await self._games.commit(tx, game, seat, None, default.text(),
                                                   game.state.apply(seat, default))
                return TimerEvent.DEFAULTED, decided
            forfeited = await self._games.commit(tx, game, seat, None, TIMEOUT,
                                                 game.state.resign(seat, EndReason.TIMEOUT))
            return TimerEvent.FORFEIT, forfeited
        if record.remind_at is not None and record.remind_at <= now:
            record = await self._games.update(tx, record, remind_at=None)
            return TimerEvent.REMINDER, present(Game(record, game.state))
        return None

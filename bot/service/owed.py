"""A turn timer's announcement, owed until it was sent (see storage/owed.py).

`owe` runs inside the timer's own write transaction; `owed_result` rebuilds, after a restart, what is to be announced
from the game as it stood when the timer acted (replayed from its move log when play went on since) and the recorded
ending (its ratings as they were computed by the forfeit's write).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, NamedTuple

from bot.service.model import Game, ServiceError, TimerEvent, present
from bot.service.results import GameEnded, RatingChange, Result
from games.base import EndReason
from storage import GameTransaction
from storage.leases import owed_key, take
from storage.owed import OwedAnnouncement
from storage.owed import owe as owe_row

# How long a process may hold an owed announcement it is sending (storage/leases.py): a bound on one send, with
# Discord's rate limits and retries (a send that fails is tried again within seconds, bot/service/timers.py). A process
# that dies is found sooner, by its heartbeat (bot/service/heartbeat.py), and another then sends what it owed.
OWED_LEASE = 120.0


class Fired(NamedTuple):
    """A timer fired by this process: what to announce, and the token of this process's lease on announcing it (the
    fence asked right before its message, bot/service/timers.py)."""

    event: TimerEvent
    result: Result[Any, Any]
    token: int

    @property
    def ply(self) -> int:
        """The game's move count right after the timer acted: with the game and event, which announcement this is."""
        return self.result.game.move_count


async def owe(tx: GameTransaction, event: TimerEvent, result: Result[Any, Any], now: float, holder: str) -> Fired:
    """Record, in the timer's transaction, that `event` is to be announced, claimed by `holder` (the process that
    fired it sends it; another process starting now must not send it too); returns the fired timer, its ending (if
    the timer ended the game) marked as the timer loop's to announce."""
    ended = result.ended()
    if ended is not None:
        ended = replace(ended, by_timer=True)
        result = replace(result, events=tuple(ended if isinstance(e, GameEnded) else e for e in result.events))
    reminder = event in (TimerEvent.REMINDER, TimerEvent.TURN_PING)  # for one decision: the seat's, at this move
    ply = result.game.move_count
    await owe_row(await tx.writer(), result.id, event.value, ply=ply, ending=ending_json(ended) if ended else None,
                  seat=result.game.to_decide if reminder else None, now=now)
    token = await take(await tx.writer(), owed_key(result.id, event.value, ply), holder, OWED_LEASE)
    return Fired(event, result, token)


async def owed_result(
    owed: OwedAnnouncement, load: Callable[[int], Awaitable[Game]], load_at: Callable[[int, int], Awaitable[Game]]
) -> tuple[TimerEvent, Result[Any, Any]] | None:
    """What to announce for an announcement a stopped process left owed, or None when it no longer applies (a reminder
    once the decision moved on, a game that is gone or archived). `load` reads a game as stored now; `load_at` as it
    stood after that many logged actions: a forfeit or a default decision is told as it happened, even when play went
    on before it could be (another timer, a move), and each such action is told."""
    try:
        event = TimerEvent(owed.event)
        reminder = event in (TimerEvent.REMINDER, TimerEvent.TURN_PING)
        game = await (load(owed.game_id) if reminder else load_at(owed.game_id, owed.ply))  # one read either way
    except (ValueError, ServiceError):
        return None
    record = game.record
    if reminder and (record.status != "active" or record.move_count != owed.ply
                     or game.state.current_player() != owed.seat
                     or (event is TimerEvent.REMINDER and record.deadline is None)):
        return None
    events = (ending_from_json(owed.ending),) if owed.ending is not None else ()
    return event, present(game, events)


def ending_json(ended: GameEnded) -> str:
    return json.dumps({
        "places": list(ended.places), "reason": ended.reason.value,
        "rating_changes": [[c.user_id, c.scope, c.before, c.after, c.provisional] for c in ended.rating_changes],
    })


def ending_from_json(text: str) -> GameEnded:
    data = json.loads(text)
    changes = tuple(RatingChange(int(u), int(s), int(b), int(a), bool(p)) for u, s, b, a, p in data["rating_changes"])
    return GameEnded(tuple(int(p) for p in data["places"]), EndReason(data["reason"]), changes, by_timer=True)

"""Engine states of the games being played, rebuilt from their stored snapshot once per version, not per click.

The storage layer keeps each game being played as this process last wrote or read it (storage/game_cache.py) and
hands back that very record object until the game changes; a state is reused only for the record object it was
built from or written with, so it can never belong to another version (nor to a write that was rolled back: its
record object is never handed out again).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from games import GameState
from games.engines import game_class
from storage import GameRecord
from storage.game_cache import DEFAULT_LIMIT, KEPT_STATUSES


class EngineStates:
    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self._limit = limit
        self._states: OrderedDict[int, tuple[GameRecord, GameState[Any, Any]]] = OrderedDict()

    def state_of(self, record: GameRecord) -> GameState[Any, Any]:
        """The engine state of `record`: the one kept for this very record, else rebuilt from its snapshot."""
        known = self._states.get(record.id)
        if known is not None and known[0] is record:
            self._states.move_to_end(record.id)
            return known[1]
        state = game_class(record.kind).from_dict(record.state)
        self.keep(record, state)
        return state

    def keep(self, record: GameRecord, state: GameState[Any, Any]) -> None:
        """Remember `state` as the state of `record` (just written or read), while its game is being played."""
        if record.status not in KEPT_STATUSES:
            self._states.pop(record.id, None)
            return
        self._states[record.id] = (record, state)
        self._states.move_to_end(record.id)
        if len(self._states) > self._limit:
            self._states.popitem(last=False)

    def carry(self, before: GameRecord, after: GameRecord) -> None:
        """`after` is `before` with only columns around the state changed (a timer, a message id): same state."""
        known = self._states.get(before.id)
        if known is not None and known[0] is before and after.state is before.state:
            self.keep(after, known[1])

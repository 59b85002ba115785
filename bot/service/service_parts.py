"""What `GameService`'s mixins (game_setup.py, game_timers.py, game_turns.py) use of the service, declared once: the
service (bot/service/games.py) provides all of it. Declarations only, for mypy: at run time this class is empty."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from bot.service.locks import KeyedLocks
from bot.service.model import Game
from bot.service.results import Result
from games import GameState
from storage import GameRecord, GameStore, GameTransaction
from storage.database import Database


class ServiceParts:
    store: GameStore
    db: Database
    clock: Callable[[], float]
    computer_seed: str | None  # pins computer players' choices, for tests only (games.py)
    holder: str  # this process, in the leases it holds (storage/leases.py)
    _locks: KeyedLocks

    if TYPE_CHECKING:
        def publish(self, result: Result[Any, Any]) -> Result[Any, Any]: ...

        def _editing(
            self, game_id: int, *, read_first: bool = False
        ) -> AbstractAsyncContextManager[tuple[GameTransaction, Game]]: ...

        async def _update(self, tx: GameTransaction, record: GameRecord, **changes: Any) -> GameRecord: ...

        async def _commit(
            self, tx: GameTransaction | None, game: Game, seat: int, user_id: int | None, text: str,
            state: GameState[Any, Any],
        ) -> Result[Any, Any]: ...

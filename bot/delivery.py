"""The one way from a change of a game to what every audience sees: answer the person who acted, draw each board,
let the computer players move.

A component or command hands the service's `Result` to `Delivery.deliver`, with how to answer the interaction (an
edit of the clicked message, or an ephemeral answer). Under the game's one drawing lock, `deliver` answers from the
latest position and then has the game's presenter draw every board of it (`GamePresenter.draw`: the channel message,
and a hidden-information game's private boards), each edited only when its drawn key changed (bot/drawn.py): the
board just answered with is remembered first, so it is not edited again. The `Result` in hand is drawn when it is
the newest version this process has; when another action landed meanwhile, the latest is drawn instead, so no board
ever shows an older position. Notifications follow from the service's results on their own (bot/notifications.py).

What is drawn from the database instead (another process's change, a restart, a timer: `redraw`) runs the same
drawing, on a `Result` read from what is stored.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any, Protocol

from bot.drawn import DrawnBoards
from bot.service import GameInfo, GameService, Result
from bot.service.locks import KeyedLocks

log = logging.getLogger(__name__)
CATCH_UPS = 5  # drawings again of a game whose boards another process drew newer meanwhile (bot/drawn.py)
# Answers the interaction from the position drawn; returns the board message it drew from it (not drawn again), if any.
Answer = Callable[[Result[Any, Any]], Awaitable[int | None]]
# Tells the table of an action in a message of its own (So Long Sucker's resignation), after the boards are drawn.
Tell = Callable[[], Awaitable[None]]


class Drawing(Protocol):
    """How a game draws its boards: its presenter's `draw` (bot/presenter.py)."""

    async def draw(self, result: Result[Any, Any], *, answered: int | None = None) -> None: ...


class Delivery:
    """Draws games under one lock per game (in this process) and records what each board shows."""

    def __init__(self, service: GameService, drawn: DrawnBoards, presenters: Mapping[str, Drawing],
                 schedule: Callable[[GameInfo], None]) -> None:
        self.service = service
        self.drawn = drawn
        self.presenters = presenters  # by game kind: how each game draws its boards
        self.schedule = schedule  # lets the computer players move, if one of them is to decide
        self.locks = KeyedLocks()

    async def deliver(self, result: Result[Any, Any], answer: Answer | None = None, *,
                      tell: Tell | None = None) -> None:
        """After an action that gave `result`: `answer` the interaction from the latest position, draw every board
        of the game, `tell` the table what happened (once its boards show it), then let the computer players move
        (their moves come after it)."""
        async with self.drawing(result.id, result) as latest:
            answered = await answer(latest) if answer is not None else None
            await self._draw(latest, answered)
        if tell is not None:
            await tell()
        self.schedule(result.game)

    async def redraw(self, game_id: int) -> None:
        """Draw a game's boards from what is stored now (another process's change, a timer, a restart).

        Drawings of one game run one at a time and each takes the latest position, so when several actions finish
        together (transfers, computer players' moves) no board ends up showing an older position."""
        async with self.drawing(game_id) as result:
            await self._draw(result)

    @asynccontextmanager
    async def drawing(self, game_id: int, in_hand: Result[Any, Any] | None = None) -> AsyncIterator[Result[Any, Any]]:
        """The game's latest position (`in_hand`, when it is the newest version this process has: nothing is read or
        built again), while no other drawing of it in this process can happen. What the block drew is recorded as
        it ends, still under the lock, so records of one game are written in the order it was drawn. Another process
        draws the same boards under its own lock: if an edit of an older position may have landed after its newer
        one, the game is drawn again from what is stored (bot/drawn.py)."""
        behind: list[bool] = []
        async with self._drawing_once(game_id, in_hand, fresh=False, behind=behind) as result:
            yield result
        if behind[0]:
            await self._catch_up(game_id)

    @asynccontextmanager
    async def _drawing_once(self, game_id: int, in_hand: Result[Any, Any] | None, *, fresh: bool,
                            behind: list[bool]) -> AsyncIterator[Result[Any, Any]]:
        """One drawing under the game's lock; appends to `behind` whether what it recorded may be older than what
        another process drew (a newer version this process has, or is committing, is drawn by its own next
        drawing)."""
        async with self.locks.hold(game_id):
            try:
                await self.drawn.refresh(game_id)
                if in_hand is not None and in_hand.game.version == await self.service.newest_version(game_id):
                    yield in_hand
                else:
                    yield await self.service.view(game_id, fresh=fresh)
            finally:
                behind.append(await self.drawn.flush(game_id, await self.service.newest_version(game_id)))

    async def _catch_up(self, game_id: int) -> None:
        """Draw the game again from what is stored (read afresh: this process's copy may be older than another's
        write) until what this process last drew is recorded at the game's latest version."""
        for _ in range(CATCH_UPS):
            behind: list[bool] = []
            async with self._drawing_once(game_id, None, fresh=True, behind=behind) as result:
                await self._draw(result)
            if not behind[0]:
                return
        log.warning("game %s kept changing while its boards were drawn again; the next change redraws them", game_id)

    async def _draw(self, result: Result[Any, Any], answered: int | None = None) -> None:
        presenter = self.presenters.get(result.game.kind)
        if presenter is not None:
            await presenter.draw(result, answered=answered)

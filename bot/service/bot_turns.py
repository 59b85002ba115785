"""Runs the bot seats' turns in the background and redraws the game when they are done.

A click is answered as soon as the human's move is stored; bots then think off the event loop. Nothing
here is needed to recover from a restart: a game waiting for a bot is visible in the database, and
`resume_all` picks every such game up again at start-up.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.service.games import GameService
from bot.service.results import GameInfo
from bot.service.tasks import background

log = logging.getLogger(__name__)

Redraw = Callable[[int], Awaitable[None]]  # redraws a game (by id) from what is stored
REDRAW_RETRY_PAUSES = (2.0, 10.0, 60.0)  # seconds between attempts to show the bots' moves


class BotTurns:
    def __init__(self, service: GameService, redraw: Redraw) -> None:
        self._service = service
        self._redraw = redraw
        self._running: dict[int, asyncio.Task[None]] = {}

    def schedule(self, game: GameInfo) -> None:
        """Let the bots move in `game` if one of them is to move (at most one driver per game)."""
        if not game.bot_to_move or game.id in self._running:
            return
        self._running[game.id] = background(self._drive(game.id), name=f"bot-turns-{game.id}")

    async def resume_all(self) -> None:
        for game_id in await self._service.games_awaiting_bots():
            self.schedule(await self._service.info(game_id))

    async def idle(self) -> None:
        """Wait until no bot is thinking (tests and shutdown use this)."""
        while self._running:
            await asyncio.gather(*self._running.values(), return_exceptions=True)

    async def stop(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        await asyncio.gather(*self._running.values(), return_exceptions=True)

    async def _drive(self, game_id: int) -> None:
        moved = False
        try:
            while await self._service.play_bot_turn(game_id) is not None:
                moved = True
        except Exception:
            log.exception("bot turn in game %s failed", game_id)
        finally:
            # Leave the registry before redrawing, so a human's next move can start a new driver at once.
            self._running.pop(game_id, None)
        if moved:
            await self._redraw_after_bots(game_id)

    async def _redraw_after_bots(self, game_id: int) -> None:
        """Show the bots' moves. Nobody's click answers for them, so if Discord fails (overloaded, a lost
        connection) try again a little later instead of leaving a stale board whose buttons are all refused."""
        for attempt, pause in enumerate((*REDRAW_RETRY_PAUSES, None)):
            try:
                await self._redraw(game_id)
                return
            except Exception as exc:
                if pause is None:
                    log.exception("could not redraw game %s after the bots moved", game_id)
                    return
                log.warning("redrawing game %s after the bots moved failed (attempt %d): %r; trying again in %s s",
                            game_id, attempt + 1, exc, pause)
                await asyncio.sleep(pause)

"""Runs the computer seats' turns in the background and redraws the game when they are done.

A click is answered as soon as the human's move is stored; computer players then think off the event loop. Nothing
here is needed to recover from a restart: a game waiting for a computer player is visible in the database, and
`resume_all` picks every such game up again at start-up.

Several processes may share the database: a process drives a game's computer players only while it holds the game's
computer-turn lease (`GameService.play_computer_turn`), and `watch` looks every few seconds for games whose computer
player nobody alive drives (its process was killed mid-turn) and takes them over.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from bot.service.games import GameService
from bot.service.model import ServiceError, info
from bot.service.results import GameInfo
from bot.service.tasks import background, repeatedly

log = logging.getLogger(__name__)

Redraw = Callable[[int], Awaitable[None]]  # redraws a game (by id) from what is stored
REDRAW_RETRY_PAUSES = (2.0, 10.0, 60.0)  # seconds between attempts to show the computer players' moves
TAKEOVER_EVERY = 3.0  # seconds between looks for computer turns nobody drives (one indexed query when there are none)
# Seconds at least between two computer moves in a row of one game: a table of computer players is seen moving on
# its board (redrawn once per interval while they play), not thousands of moves a second. The first computer move
# after a person's is not held back, nor are a computer's secret setup steps (nobody sees them, and they run on the
# setup's clock).
COMPUTER_MOVE_INTERVAL = 1.0


class ComputerTurns:
    def __init__(self, service: GameService, redraw: Redraw) -> None:
        self._service = service
        self._redraw = redraw
        self._running: dict[int, asyncio.Task[None]] = {}
        self._watching: asyncio.Task[None] | None = None

    def schedule(self, game: GameInfo) -> None:
        """Let the computer players move in `game` if one of them is to move (at most one driver per game)."""
        if not game.computer_to_move or game.id in self._running:
            return
        self._running[game.id] = background(self._drive(game.id), name=f"bot-turns-{game.id}")

    async def resume_all(self) -> None:
        """At start-up: drive every game whose computer player is to move (those another live process drives are left to
        it: `play_computer_turn` finds their lease held)."""
        for game_id in await self._service.games_awaiting_computers():
            self.schedule(await self._service.info(game_id))

    async def take_over(self) -> None:
        """Drive every game whose computer player is to move and which no live process drives (its driver died). Each is
        read afresh: another process may have moved in it since this one last saw it."""
        for game_id in await self._service.computer_turns_to_take():
            if game_id in self._running:
                continue
            try:
                game = await self._service.load(game_id)
            except ServiceError:  # gone or archived meanwhile
                continue
            if info(game).computer_to_move:
                self.schedule(info(game))
            else:  # the driver died as it finished: its lease is all that is left
                await self._service.release_computer_turn(game_id, expired=True)

    def watch(self, every: float = TAKEOVER_EVERY) -> None:
        """Take over, every `every` seconds, the computer turns of processes that died while driving them."""
        if self._watching is None:
            self._watching = background(repeatedly(every, self.take_over, "looking for bot turns to take over failed"),
                                        name="bot-turn-takeover")

    async def idle(self) -> None:
        """Wait until no computer player is thinking (tests and shutdown use this)."""
        while self._running:
            await asyncio.gather(*self._running.values(), return_exceptions=True)

    async def stop(self) -> None:
        if self._watching is not None:
            self._watching.cancel()
            await asyncio.gather(self._watching, return_exceptions=True)
            self._watching = None
        for task in list(self._running.values()):
            task.cancel()
        await asyncio.gather(*self._running.values(), return_exceptions=True)

    async def _drive(self, game_id: int) -> None:
        moved = False
        try:
            while (result := await self._service.play_computer_turn(game_id)) is not None:
                moved = True
                if result.game.computer_to_move and result.game.began:  # another computer move follows: show it, wait
                    await asyncio.gather(self._show_progress(game_id), asyncio.sleep(COMPUTER_MOVE_INTERVAL))
        except Exception:
            log.exception("bot turn in game %s failed", game_id)
            await self._let_go(game_id)
        except asyncio.CancelledError:  # a stop: another process may take the game over at once
            await asyncio.shield(self._let_go(game_id))
            raise
        finally:
            # Leave the registry before redrawing, so a human's next move can start a new driver at once.
            self._running.pop(game_id, None)
        if moved:
            await self._redraw_after_bots(game_id)

    async def _let_go(self, game_id: int) -> None:
        try:
            await self._service.release_computer_turn(game_id)
        except Exception:  # it expires by itself
            log.warning("could not let go of the bot turn of game %s", game_id, exc_info=True)

    async def _show_progress(self, game_id: int) -> None:
        """Redraw the board between computer moves, once: a failure is made good by the next redraw."""
        try:
            await self._redraw(game_id)
        except Exception as exc:
            log.warning("redrawing game %s between the bots' moves failed: %r", game_id, exc)

    async def _redraw_after_bots(self, game_id: int) -> None:
        """Show the computer players' moves. Nobody's click answers for them, so if Discord fails (overloaded, a lost
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

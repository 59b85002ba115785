"""The computer players' turns of `GameService`, and the leases (storage/leases.py) that let one process at a time
drive a game's bots or do a piece of one-off work.

bot/service/bot_turns.py is the runner that asks for these turns in the background.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from bot import workers
from bot.service.model import Game, StaleStateError, info, must_stop
from bot.service.results import Result
from bot.service.service_parts import ServiceParts
from games.engines import computer_move, computer_targets
from storage.leases import (
    bot_turn_key,
    bot_turns_to_take,
    claim,
    holding,
    keeps,
    release,
    release_all,
    release_expired,
)

log = logging.getLogger(__name__)

# How long a process may hold a game's bot turn (storage/leases.py): a bound on one turn's thinking, never reached in
# practice (a computer player thinks for milliseconds to seconds). A process that dies is found sooner, by its
# heartbeat (bot/service/heartbeat.py), and another process takes the turn over then (plus bot/service/bot_turns.py's
# TAKEOVER_EVERY).
BOT_TURN_LEASE = 120.0
WORK_LEASE = 120.0  # the same bound for other one-off work (`hold`): a post, a DM


class GameTurns(ServiceParts):
    """`GameService`'s bot turns and leases, as a mixin (what it uses of the service: ServiceParts, and below)."""

    if TYPE_CHECKING:  # provided by GameService
        async def view(self, game_id: int, *, fresh: bool = False) -> Result[Any, Any]: ...

        async def _current(self, game_id: int) -> Game: ...

        async def stop(self, game_id: int) -> Result[Any, Any] | None: ...

    async def play_bot_turn(self, game_id: int) -> Result[Any, Any] | None:
        """Make one move for the bot seat to move, if any; returns the game after it, or None.

        The bot thinks in a worker process (bot/workers.py), without the game's lock, so the event loop and the
        other players stay responsive; its move is then committed under the version guard, and if anything
        happened meanwhile (a resignation, say) it is simply dropped and the caller asks again.

        Before it thinks, the process claims (or renews) the game's bot-turn lease: None, without thinking, while
        another live process drives the game. With no bot to move the lease is let go. A game that must not go on
        (no person left in it, or past its length limit: `must_stop`) is ended instead of played. The move is
        committed only while the lease still carries this claim's token, checked in the same transaction
        (storage/leases.py `keeps`): a process paused while its bot thought (past its lease) finds the turn taken
        over, and its move is dropped (None).
        """
        token = await self._lease_bot_turn(game_id)
        if token is None:
            return None
        game = await self._current(game_id)
        if not info(game).bot_to_move:
            await self.release_bot_turn(game_id)
            return None
        if must_stop(game.record, game.state) is not None:
            # Stored so (before the rule, or past an old game's new limit): ended, never driven on. Asked again, the
            # caller then finds no bot to move.
            return await self.stop(game_id) or await self.view(game_id)
        seat = game.state.current_player()
        assert seat is not None
        level = game.record.seats[seat].bot
        assert level is not None
        # The worker gets the game as stored and draws the operating system's randomness itself (computer_move):
        # nothing public can foresee a computer player's choices; the log stores the action, so replays stay exact.
        engine, computer = computer_targets(game.record.kind)
        # In the game's turn among the work waiting for a thinking worker (bot/workers.py): one game's bots never
        # hold up another's, nor does a person's burst of anything.
        seed = None if self.computer_seed is None else f"{self.computer_seed}:{game_id}:{game.record.version}"
        text = await workers.think(computer_move, engine, computer, game.state.to_dict(), seat, level, seed,
                                   owner=workers.game(game_id))
        new_state = game.state.apply_text(seat, text)
        try:
            async with self._locks.hold(game_id), self.store.transaction() as tx:
                conn = await tx.writer()
                if not await keeps(conn, bot_turn_key(game_id), self.holder, token):
                    log.info("the bot turn of game %s is no longer this process's (paused past its lease?); its move "
                             "here is dropped", game_id)
                    # A lease of this process's that merely lapsed is freed, for whoever looks next (bot_turns.py).
                    await release(conn, bot_turn_key(game_id), self.holder)
                    return None
                result = await self._commit(tx, game, seat, None, text, new_state)
        except StaleStateError:  # read again only once that transaction is closed
            return await self.view(game_id)
        return self.publish(result)

    async def games_awaiting_bots(self) -> list[int]:
        """Active games with a bot seat, for resuming bot turns after a restart."""
        return await self.store.active_games_with_bots()

    async def bot_turns_to_take(self) -> list[int]:
        """Games where a bot is to decide and no live process drives it (none began, or its driver died)."""
        return await self.db.query(bot_turns_to_take(self.db.dialect))

    async def _lease_bot_turn(self, game_id: int) -> int | None:
        return await self.hold(bot_turn_key(game_id), BOT_TURN_LEASE)

    async def release_bot_turn(self, game_id: int, *, expired: bool = False) -> None:
        """Let go of this process's bot-turn lease of the game (with `expired`: of a dead process's, run out)."""
        if not expired:
            await self.let_go_of(bot_turn_key(game_id))
            return
        async with self.store.transaction() as tx:
            await release_expired(await tx.writer(), bot_turn_key(game_id))

    async def let_go(self) -> None:
        """At a clean stop, once timers and bot turns have stopped: free every lease of this process (storage/leases.py
        release_all)."""
        async with self.store.transaction() as tx:
            await release_all(await tx.writer(), self.holder)

    async def hold(self, key: str, seconds: float = WORK_LEASE) -> int | None:
        """Claim a piece of work (storage/leases.py) for this process, for at most `seconds`: its token, or None while
        another live process holds it. Held until `let_go_of(key)`, or until this process dies; right before the work's
        side effect, ask `still_holds(key, token)`."""
        async with self.store.transaction() as tx:
            return await claim(await tx.writer(), key, self.holder, seconds)

    async def still_holds(self, key: str, token: int) -> bool:
        """The fence (storage/leases.py `holds`): whether this process still holds `key` with the token its claim
        gave, one read. False: another process took the work over (this one was paused, or its lease ran out), and
        the side effect must not happen here."""
        return await self.db.query(holding(self.db.dialect, key, self.holder, token))

    async def let_go_of(self, key: str) -> None:
        async with self.store.transaction() as tx:
            await release(await tx.writer(), key, self.holder)

"""The computer players' turns, a part of `GameService` (games.py): one move at a time for the computer seat to move,
driven by one process at a time (its computer-turn lease, storage/leases.py), and ending a game that must not go on.

bot/service/computer_turns.py is the runner that asks for these turns in the background.
"""

from __future__ import annotations

import logging
from typing import Any

from bot import workers
from bot.service.leases import Leases
from bot.service.model import StaleStateError, info, must_stop, present
from bot.service.parts import ServicePart, Shared
from bot.service.results import Result
from games.engines import computer_move, computer_targets
from storage.leases import computer_turn_key, computer_turns_to_take, keeps, release

log = logging.getLogger(__name__)

# How long a process may hold a game's computer turn (storage/leases.py): a bound on one turn's thinking, never reached
# in practice (a computer player thinks for milliseconds to seconds). A process that dies is found sooner, by its
# heartbeat (bot/service/heartbeat.py), and another process takes the turn over then (plus
# bot/service/computer_turns.py's TAKEOVER_EVERY).
COMPUTER_TURN_LEASE = 120.0


class ComputerMoves(ServicePart):
    def __init__(self, shared: Shared, leases: Leases) -> None:
        super().__init__(shared)  # its `holder`: this process, in the computer-turn leases it holds
        self._leases = leases
        # Where computer players draw their choices: None (always, in the bot) for the operating system's, which nobody
        # can foresee; a test sets a seed to replay the same game (tests/tools/transcript.py). Each move then draws
        # from this seed, the game and its version, so that games played side by side do not disturb each other.
        self.seed: str | None = None

    async def play_computer_turn(self, game_id: int) -> Result[Any, Any] | None:
        """Make one move for the computer seat to move, if any; returns the game after it, or None.

        The computer player thinks in a worker process (bot/workers.py), without the game's lock, so the event loop and
        the other players stay responsive; its move is then committed under the version guard, and if anything happened
        meanwhile (a resignation, say) it is simply dropped and the caller asks again.

        Before it thinks, the process claims (or renews) the game's computer-turn lease: None, without thinking, while
        another live process drives the game. With no computer player to move the lease is let go. A game that must not
        go on (no person left in it, or past its length limit: `must_stop`) is ended instead of played. The move is
        committed only while the lease still carries this claim's token, checked in the same transaction
        (storage/leases.py `keeps`): a process paused while its computer player thought (past its lease) finds the turn
        taken over, and its move is dropped (None).
        """
        token = await self._leases.hold(computer_turn_key(game_id), COMPUTER_TURN_LEASE)
        if token is None:
            return None
        game = await self._games.current(game_id)
        if not info(game).computer_to_move:
            await self.release_computer_turn(game_id)
            return None
        if must_stop(game.record, game.state) is not None:
            # Stored so (before the rule, or past an old game's new limit): ended, never driven on. Asked again, the
            # caller then finds no computer player to move.
            return await self.stop(game_id) or present(await self._games.current(game_id))
        seat = game.state.current_player()
        assert seat is not None
        level = game.record.seats[seat].computer
        assert level is not None
        # The worker gets the game as stored and draws the operating system's randomness itself (computer_move):
        # nothing public can foresee a computer player's choices; the log stores the action, so replays stay exact.
        engine, computer = computer_targets(game.record.kind)
        # In the game's turn among the work waiting for a thinking worker (bot/workers.py): one game's computer players
        # never hold up another's, nor does a person's burst of anything.
        seed = None if self.seed is None else f"{self.seed}:{game_id}:{game.record.version}"
        text = await workers.think(computer_move, engine, computer, game.state.to_dict(), seat, level, seed,
                                   owner=workers.game(game_id))
        new_state = game.state.apply_text(seat, text)
        try:
            async with self._locks.hold(game_id), self._store.transaction() as tx:
                conn = await tx.writer()
                if not await keeps(conn, computer_turn_key(game_id), self._holder, token):
                    log.info("the bot turn of game %s is no longer this process's (paused past its lease?); its move "
                             "here is dropped", game_id)
                    # A lease of this process's that merely lapsed is freed, for whoever looks next (computer_turns.py).
                    await release(conn, computer_turn_key(game_id), self._holder)
                    return None
                result = await self._games.commit(tx, game, seat, None, text, new_state)
        except StaleStateError:  # read again only once that transaction is closed
            return present(await self._games.current(game_id))
        return self._publisher.publish(result)

    async def stop(self, game_id: int) -> Result[Any, Any] | None:
        """End the game now if it must not go on (`must_stop`), by a logged stop; None if it may go on. Asked before
        each computer move: a game stored without a person left, or past a length limit its kind got later, is ended."""
        async with self._locks.hold(game_id), self._games.editing(game_id, read_first=True) as (tx, game):
            reason = must_stop(game.record, game.state) if game.record.status == "active" else None
            if reason is None:
                return None
            decider = game.state.current_player()
            step = (0 if decider is None else decider, None, reason.value, game.state.stop(reason))
            result = await self._games.write_steps(tx, game, [step], None)
        return self._publisher.publish(result)  # once committed

    async def games_awaiting_computers(self) -> list[int]:
        """Active games with a computer seat, for resuming computer turns after a restart."""
        return await self._store.active_games_with_computer_players()

    async def computer_turns_to_take(self) -> list[int]:
        """Games where a computer player is to decide and no live process drives it (none began, or its driver died)."""
        return await self._db.query(computer_turns_to_take(self._db.dialect))

    async def release_computer_turn(self, game_id: int, *, expired: bool = False) -> None:
        """Let go of this process's computer-turn lease of the game (with `expired`: of a dead process's, run out)."""
        if expired:
            await self._leases.let_go_of_expired(computer_turn_key(game_id))
        else:
            await self._leases.let_go_of(computer_turn_key(game_id))

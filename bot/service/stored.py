"""The games as stored, read and written for every use-case of the service: one place that turns a record into a
`Game` (with its engine state, rebuilt once per version), opens the transaction an action writes in, and commits an
action with what follows from it (its timers, its ending and ratings, its events).

A write is guarded by the version it was read at: a lost race (another process, a bug) is refused as stale, so a move
is never lost and never applied twice.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from bot.service.deadlines import next_timers
from bot.service.finishing import finishing_writer
from bot.service.game_states import EngineStates
from bot.service.model import (
    STALE_TEXT,
    Game,
    ServiceError,
    StaleStateError,
    decision_events,
    must_stop,
    present,
    refuse_archived,
)
from bot.service.ratings import result_writer
from bot.service.results import Event, GameEnded, PlayBegan, RatingChange, Result
from bot.service.wakeup import TimerWakeup
from games import GameState
from games.text import Text
from storage import GameNotFoundError, GameRecord, GameStore, GameTransaction, StaleVersionError
from storage.sql import Plan

# One logged step of a write: the seat it is for, the person who took it (None: a timer, a computer player, a stop),
# the action's text and the state after it.
Step = tuple[int, int | None, str, GameState[Any, Any]]


class StoredGames:
    def __init__(self, store: GameStore, clock: Callable[[], float], timers_changed: TimerWakeup) -> None:
        self._store = store
        self._clock = clock
        self._timers_changed = timers_changed  # set whenever a write creates or moves a deadline
        self._states = EngineStates()  # rebuilt from JSON once per version of a game being played, not per click

    async def load(self, game_id: int) -> Game:
        """The game as stored now (always read), with its omniscient state."""
        try:
            record = await self._store.get(game_id)
        except GameNotFoundError:
            raise ServiceError(Text("There is no game #{number}.", number=game_id)) from None
        return self.game(record)

    async def current(self, game_id: int) -> Game:
        """The game as this process last wrote or read it while it is being played (no read at all), else as stored:
        for checks before an action, whose write is guarded by the version (a stale copy is refused there)."""
        try:
            record = await self._store.current(game_id)
        except GameNotFoundError:
            raise ServiceError(Text("There is no game #{number}.", number=game_id)) from None
        return self.game(record)

    def game(self, record: GameRecord) -> Game:
        """`record` with its engine state; refused if its moves are in the archive file."""
        refuse_archived(record)
        return Game(record, self._states.state_of(record))

    def written(self, record: GameRecord, state: GameState[Any, Any]) -> Game:
        """The game after a write: its state is kept for the next action on this version."""
        self._states.keep(record, state)
        return Game(record, state)

    @asynccontextmanager
    async def editing(self, game_id: int, *, read_first: bool = False) -> AsyncIterator[tuple[GameTransaction, Game]]:
        """The game, read inside the transaction that will write its next state (nothing is written if the
        block raises). Callers hold the game's lock, so computer moves that follow cannot interleave.

        A player's write (a move, an accept) is checked against the version they read, and a lost race is refused
        as stale. The bot's own writes (which message shows the game, a timer) have nobody to tell: they ask for
        `read_first`, which reads the game with SQLite's write lock already held, so no other process can change
        it before they commit and they cannot lose a race at all."""
        async with self._store.transaction() as tx:
            if read_first:
                await tx.writer(read_first=True)
            try:
                record = await tx.load(game_id)
            except GameNotFoundError:
                raise ServiceError(Text("There is no game #{number}.", number=game_id)) from None
            yield tx, self.game(record)

    async def update(self, tx: GameTransaction, record: GameRecord, **changes: Any) -> GameRecord:
        """A write that is not a move (accept, a message id, a draw offer, a timer): a lost race on it is the same
        "look again" refusal as a lost race on a move. Alone, it is group-committed with the other writes of the
        moment; inside an open transaction, it commits with that."""
        write = tx.update if tx.is_open else self._store.update
        try:
            after = await write(record, now=self._clock(), **changes)
        except StaleVersionError:
            raise StaleStateError(STALE_TEXT) from None
        self._states.carry(record, after)
        return after

    async def commit(
        self, tx: GameTransaction | None, game: Game, seat: int, user_id: int | None, text: str,
        state: GameState[Any, Any],
    ) -> Result[Any, Any]:
        """Write an action (inside `tx` if it is open, else group-committed with the other writes of the moment) and
        return the game after it with its events.

        An action after which the game must not go on (`must_stop`: no person is left, or an old game passed the length
        limit) is followed, in the same transaction, by the logged stop that ends it: the game is never seen going on
        without a person, a replay of its log ends it the same way, and its ending is one event."""
        steps: list[Step] = [(seat, user_id, text, state)]
        stop = must_stop(game.record, state)
        if stop is not None:
            decider = state.current_player()
            steps.append((seat if decider is None else decider, None, stop.value, state.stop(stop)))
        if len(steps) == 1 or (tx is not None and tx.is_open):
            return await self.write_steps(tx, game, steps, user_id)
        async with self._store.transaction() as own:
            await own.writer()
            return await self.write_steps(own, game, steps, user_id)

    async def write_steps(self, tx: GameTransaction | None, game: Game, steps: list[Step],
                          actor: int | None) -> Result[Any, Any]:
        """Write each step in turn, then present the game after the last."""
        now = self._clock()
        record = game.record
        changes: list[RatingChange] = []
        earliest: float | None = None  # the earliest deadline or reminder the steps set
        for seat, user_id, text, state in steps:
            outcome = state.outcome()
            if outcome is None:
                status = "active"
                deadline, remind_at = next_timers(game, state, now)
            else:
                status, deadline, remind_at = "finished", None, None
            for when in (deadline, remind_at):
                if when is not None and (earliest is None or when < earliest):
                    earliest = when
            # The result changes the ladders in the move's own write, exactly once, and only for a game whose play
            # began with a move: a forfeit during the secret setup, or a resignation before the first move, is no
            # game played.
            ladders = result_writer(record, outcome, state.moves_of_play(), now, changes) if outcome else None
            # So does each person's record of finishing games (finishing.py), whether rated or not.
            then = _both(ladders, finishing_writer(record)) if outcome else None
            # Unless a transaction is already open, the move goes with the other writes of the moment: one
            # transaction and one trip to the database's thread for all of them (group commit), each still guarded by
            # its version.
            write = tx.record_move if tx is not None and tx.is_open else self._store.record_move
            try:
                record = await write(
                    record, seat=seat, user_id=user_id, action=text, state=state.to_dict(), now=now,
                    status=status, deadline=deadline, remind_at=remind_at,
                    places=outcome.places if outcome else None, then=then,
                )
            except StaleVersionError:
                raise StaleStateError(STALE_TEXT) from None
        self._timers_changed.at(earliest)  # only this game's timers moved: the loop needs no new read unless earlier
        after = self.written(record, state)
        events: list[Event] = []
        if outcome is not None:
            events.append(GameEnded(outcome.places, outcome.reason, tuple(changes)))
        else:
            if not game.state.began() and state.began():
                mover = state.current_player()
                if mover is not None:
                    events.append(PlayBegan(mover, after.user_at(mover)))
            if state.current_player() != game.state.current_player():
                events += decision_events(after, actor)
        return present(after, tuple(events))


def _both(first: Callable[[], Plan[None]] | None,
          second: Callable[[], Plan[None]] | None) -> Callable[[], Plan[None]] | None:
    """The statements of `first`, then those of `second` (either may be None), as one `then` of a move's write."""
    if first is None or second is None:
        return first or second

    def write() -> Plan[None]:
        yield from first()
        yield from second()

    return write

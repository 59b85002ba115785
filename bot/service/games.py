"""The use-cases of every game, with no Discord in sight.

Each call loads the game from the database, checks who is acting, asks the engine, and writes the result
in one version-guarded transaction before returning. A per-game lock serialises callers in this process;
the version guard catches anything that slips past it (another process, a bug), so a move is never lost
and never applied twice.

What leaves this module for the Discord layer is a `Result` (bot/service/results.py): the public view, each
seated person's own view and the events of the change, never the engine state. `Game` (a record with its
state) stays inside the service package.

`GameService` is in parts: the records and presentation it shares are in model.py, creating games and challenges
in game_setup.py, its turn timers in game_timers.py, its computer players' turns and leases in game_turns.py.
Everything is importable from here as before.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Coroutine
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, TypeVar
from uuid import uuid4

from bot.service.game_setup import GameSetup
from bot.service.game_states import EngineStates
from bot.service.game_timers import REMINDER_FRACTION as REMINDER_FRACTION
from bot.service.game_timers import GameTimers
from bot.service.game_turns import BOT_TURN_LEASE as BOT_TURN_LEASE
from bot.service.game_turns import WORK_LEASE as WORK_LEASE
from bot.service.game_turns import GameTurns
from bot.service.locks import KeyedLocks
from bot.service.model import REMATCH_OF as REMATCH_OF
from bot.service.model import STALE_MESSAGE as STALE_MESSAGE
from bot.service.model import TABLE_OPTIONS as TABLE_OPTIONS
from bot.service.model import Game as Game
from bot.service.model import Player as Player
from bot.service.model import ServiceError as ServiceError
from bot.service.model import StaleStateError as StaleStateError
from bot.service.model import TimerEvent as TimerEvent
from bot.service.model import _decision as _decision
from bot.service.model import _draws_allowed as _draws_allowed
from bot.service.model import _refuse_archived as _refuse_archived
from bot.service.model import _seats as _seats
from bot.service.model import info as info
from bot.service.model import must_stop
from bot.service.model import present as present
from bot.service.model import turn_token as turn_token
from bot.service.ratings import result_writer
from bot.service.results import (
    Event,
    GameEnded,
    GameInfo,
    PastGame,
    PlayBegan,
    RatingChange,
    ReplayFrame,
    Result,
)
from bot.service.starts import StartPace
from bot.service.tasks import background
from games import GameError, GameState
from games.base import DRAW_AGREED, RESIGN, EndReason
from games.engines import replay
from games.registry import describe
from games.text import Command, Text
from storage import GameNotFoundError, GameRecord, GameStore, GameTransaction, StaleVersionError
from storage.database import Database

T = TypeVar("T")

DEFAULT_TURN_TIMEOUT = 24 * 3600.0
DEFAULT_CHALLENGE_TIMEOUT = 15 * 60.0


class GameService(GameSetup, GameTimers, GameTurns):
    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], float] = time.time,
        turn_timeout: float = DEFAULT_TURN_TIMEOUT,
        challenge_timeout: float = DEFAULT_CHALLENGE_TIMEOUT,
        holder: str | None = None,
    ) -> None:
        self.store = GameStore(db)
        self.db = db
        # This process's name in leases (storage/leases.py): new at every start, so a restarted process does not take
        # its dead predecessor's leases for its own.
        self.holder = holder or uuid4().hex
        self.clock = clock
        self.turn_timeout = turn_timeout
        self.challenge_timeout = challenge_timeout
        # Where new games draw their public randomness (who moves first, ...); None: the operating system's.
        # Tests pin it to play the same game twice and compare everything the bot sent.
        self.rng: random.Random | None = None
        # Where computer players draw their choices: None (always, in the bot) for the operating system's, which nobody
        # can foresee; a test sets a seed to replay the same game (tests/tools/transcript.py). Each move then draws
        # from this seed, the game and its version, so that games played side by side do not disturb each other.
        self.computer_seed: str | None = None
        self._locks = KeyedLocks()
        self.pace = StartPace()  # how fast each person may start games and tables (starts.py)
        self._states = EngineStates()  # rebuilt from JSON once per version of a game being played, not per click
        # Set whenever a write creates or moves a deadline, so the timer loop can look again.
        self.timers_changed = asyncio.Event()
        # Told of every committed change that has events (whose decision it is, a game's end, ...), once the
        # change is committed: the bot notifies players from these. Each runs as its own task.
        self.listeners: list[Callable[[Result[Any, Any]], Coroutine[Any, Any, None]]] = []
        self._telling: set[asyncio.Task[None]] = set()

    def publish(self, result: Result[Any, Any]) -> Result[Any, Any]:
        """Tell the listeners about a committed change (with its events, if any: a change without one, such as a
        computer player's decision that leaves the decision with it, may still say something, like a defeat);
        returns `result`."""
        for listener in self.listeners:
            task = background(listener(result), name=f"events-{result.id}")
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)
        return result

    async def told(self) -> None:
        """Wait until every listener has heard every change so far (tests and shutdown)."""
        while self._telling:
            await asyncio.gather(*self._telling, return_exceptions=True)

    # ----- reading ----------------------------------------------------------------------------------------
    async def load(self, game_id: int) -> Game:
        """The game as stored now (always read), with its omniscient state: for the service package only (see
        `view`)."""
        try:
            record = await self.store.get(game_id)
        except GameNotFoundError:
            raise ServiceError(Text("There is no game #{number}.", number=game_id)) from None
        return self._game(record)

    async def _current(self, game_id: int) -> Game:
        """The game as this process last wrote or read it while it is being played (no read at all), else as stored:
        for checks before an action, whose write is guarded by the version (a stale copy is refused there)."""
        try:
            record = await self.store.current(game_id)
        except GameNotFoundError:
            raise ServiceError(Text("There is no game #{number}.", number=game_id)) from None
        return self._game(record)

    def _game(self, record: GameRecord) -> Game:
        _refuse_archived(record)
        return Game(record, self._states.state_of(record))

    def _written(self, record: GameRecord, state: GameState[Any, Any]) -> Game:
        """The game after a write: its state is kept for the next action on this version."""
        self._states.keep(record, state)
        return Game(record, state)

    async def view(self, game_id: int, *, fresh: bool = False) -> Result[Any, Any]:
        """Game `game_id` as every audience may see it now: as this process last wrote or read it while it is being
        played (no read: every change made here is in memory as it commits), else read. A change made by another
        process shows once this process reads the game again, which its next write to it (refused as stale) makes it
        do, or a view asked `fresh` (always read: a redraw that found another process's newer version)."""
        return present(await (self.load(game_id) if fresh else self._current(game_id)))

    async def newest_version(self, game_id: int) -> int:
        """The newest version of the game this process has, or is committing at this moment (read when neither)."""
        newest = self.store.newest_version(game_id)
        return newest if newest is not None else (await self.info(game_id)).version

    async def info(self, game_id: int) -> GameInfo:
        """The public facts of game `game_id` (no views built: for checks that need only who plays where, which never
        change; no read when its version is in memory)."""
        return info(await self._current(game_id))

    async def replay_frame(self, game_id: int, frame: int | None, *, move: int | None = None) -> ReplayFrame[Any]:
        """Frame `frame` of a stored game (None: the latest), as a replay may show it: hidden ranks only once the
        game is over. Frame 0 is the position where play began and each logged action after it one frame: a secret
        setup is one step, summarised (its actions are no moves, and what they placed is secret). With `move`, the
        frame right after that many moves of play (the count players see) instead."""
        game = await self.load(game_id)
        moves = [(m.seat, m.action) for m in await self.store.moves(game_id)]
        state = replay(game.record.kind, game.record.initial_state, ())
        setup = 0
        while setup < len(moves) and not state.began():
            state = state.apply_text(*moves[setup])
            setup += 1
        total = len(moves) - setup
        number = total if frame is None else max(0, min(frame, total))
        if move is not None:
            number = 0
            while number < total and state.moves_of_play() < move:
                state = state.apply_text(*moves[setup + number])
                number += 1
        else:
            for seat, text in moves[setup:setup + number]:
                state = state.apply_text(seat, text)
        # Shown as a finished picture: no clock and no pending offer belong to a past position.
        record = replace(game.record, deadline=None, draw_offer=None, draw_declined=None, status="replay")
        view = state.review_view(game_over=game.record.finished_at is not None)
        last = moves[setup + number - 1] if number else None
        return ReplayFrame(info(Game(record, state)), view, number, total, last=last, setup_steps=setup,
                           moves=game.state.moves_of_play())

    async def history(self, user_id: int, limit: int = 10, *, guild_id: int | None = None,
                      places: Collection[int] | None = None, viewer: int | None = None) -> list[PastGame]:
        """The user's latest games, newest first, with their places (no positions); with `guild_id`, only those
        played on that server; with `places`, only those played in these channels or that `viewer` played too
        (what `viewer`, asking there, may be shown)."""
        return [PastGame(record.id, record.kind, record.status, record.guild_id, record.channel_id,
                         record.message_id, record.created_at, seat.place, _seats(record), record.thread_id)
                for record, seat in await self.store.history(user_id, limit=limit, guild_id=guild_id, places=places,
                                                             viewer=viewer)]

    async def active_games_of(self, kind: str, user_id: int) -> list[int]:
        return await self.store.active_games_of(kind, user_id, None)

    async def place_still_used(self, place_id: int, but: int) -> bool:
        """Whether another game or an open lobby lives in channel or thread `place_id` (besides game `but`)."""
        return await self.store.others_in(place_id, but)

    @asynccontextmanager
    async def _editing(
        self, game_id: int, *, read_first: bool = False
    ) -> AsyncIterator[tuple[GameTransaction, Game]]:
        """The game, read inside the transaction that will write its next state (nothing is written if the
        block raises). Callers hold the game's lock, so bot moves that follow cannot interleave.

        A player's write (a move, an accept) is checked against the version they read, and a lost race is refused
        as stale. The bot's own writes (which message shows the game, a timer) have nobody to tell: they ask for
        `read_first`, which reads the game with SQLite's write lock already held, so no other process can change
        it before they commit and they cannot lose a race at all."""
        async with self.store.transaction() as tx:
            if read_first:
                await tx.writer(read_first=True)
            try:
                record = await tx.load(game_id)
            except GameNotFoundError:
                raise ServiceError(Text("There is no game #{number}.", number=game_id)) from None
            yield tx, self._game(record)

    @asynccontextmanager
    async def holding(self, game_id: int) -> AsyncIterator[tuple[GameTransaction, Game]]:
        """The game, read with the write transaction already open, for a write that belongs to the game without
        changing it (a deal's acceptance): the game cannot end, nor a player be defeated, before it commits."""
        async with self._editing(game_id, read_first=True) as pair:
            yield pair

    # ----- playing ----------------------------------------------------------------------------------------
    async def act(
        self, game_id: int, user_id: int, action_text: str, expected_ply: int | None = None
    ) -> Result[Any, Any]:
        """Play one action for `user_id`; `expected_ply` is the turn token the user was looking at. The game is the
        one in memory when its version is (no read), and the move is written with the other writes of the moment."""
        async def attempt(game: Game) -> Result[Any, Any]:
            # Whose turn it is is the engine's to judge: some games allow actions out of turn.
            seat = self._check_actor(game, user_id, expected_ply)
            try:
                # A request that needs chance (a random formation) draws it from the operating system.
                text = game.state.expand(seat, action_text, random.SystemRandom())
                action = game.state.parse_action(text)
                new_state = game.state.apply(seat, action)
            except GameError as exc:  # its reason as raised: a Text is translated where it is shown
                raise ServiceError(exc.args[0] if exc.args else str(exc)) from None
            return await self._commit(None, game, seat, user_id, action.text(), new_state)

        async with self._locks.hold(game_id):
            result = await self._on_newest(game_id, attempt)
        return self.publish(result)

    async def _on_newest(self, game_id: int, attempt: Callable[[Game], Awaitable[T]]) -> T:
        """`attempt` on the game as this process has it; if that is refused, once more on the game read afresh.

        Another process (a shard that drove a bot's move, a timer) may have changed the game since this process last
        saw it: the player who acted on the position the board shows now must not be refused because this process
        had not seen it yet (a stale version, or a rule judged on an older position: "not your turn", "set up your
        army first"). A refusal that holds on the stored game too is the one the player is told; it costs one read."""
        try:
            return await attempt(await self._current(game_id))
        except ServiceError:
            return await attempt(await self.load(game_id))

    async def resign(self, game_id: int, user_id: int) -> Result[Any, Any]:
        async def attempt(game: Game) -> Result[Any, Any]:
            self._require_active(game)
            seat = self._seat(game, user_id)
            return await self._commit(None, game, seat, user_id, RESIGN, game.state.resign(seat, EndReason.RESIGN))

        async with self._locks.hold(game_id):
            result = await self._on_newest(game_id, attempt)
        return self.publish(result)

    async def offer_draw(self, game_id: int, user_id: int) -> tuple[Result[Any, Any], bool]:
        """Offer a draw, or accept the opponent's offer. Returns the game and whether it is now drawn. An offer lasts
        until the opponent answers it: by accepting, or by playing on, which declines it (the offerer's own moves keep
        it, storage/game_writes.py)."""
        async with self._locks.hold(game_id), self._editing(game_id) as (tx, game):
            self._require_active(game)
            seat = self._seat(game, user_id)
            offer = game.record.draw_offer
            if offer == seat:
                raise ServiceError(Text("You have already offered a draw; your opponent can accept it or play on."))
            if offer is not None:
                drawn = await self._commit(tx, game, seat, user_id, DRAW_AGREED, game.state.agree_draw())
                return self.publish(drawn), True
            if any(s.bot for s in game.record.seats):
                raise ServiceError(Text("The bot declines the draw: it plays on. You can resign instead."))
            if not _draws_allowed(game):
                raise ServiceError(Text("Draws by agreement are for two-player games."))
            record = await self._update(tx, game.record, draw_offer=seat, draw_declined=None)
            return present(Game(record, game.state)), False

    async def require_turn(self, game_id: int, user_id: int, expected_ply: int | None = None) -> Result[Any, Any]:
        """The game, if it is `user_id`'s turn in the position they saw; otherwise the reason why not."""
        async def attempt(game: Game) -> Result[Any, Any]:
            seat = self._check_actor(game, user_id, expected_ply)
            if game.state.current_player() != seat:
                raise ServiceError(Text("It is not your turn; wait for the player to move."))
            return present(game)

        return await self._on_newest(game_id, attempt)

    def _check_actor(self, game: Game, user_id: int, expected_ply: int | None) -> int:
        self._require_active(game)
        seat = self._seat(game, user_id)
        if expected_ply is not None and expected_ply != turn_token(game):
            raise StaleStateError(STALE_MESSAGE)
        return seat

    async def find_game(
        self, kind: str, user_id: int, place_id: int | None, game_id: int | None = None
    ) -> Result[Any, Any]:
        """The active game of `kind` that `user_id` plays in this channel or thread (None: anywhere), or
        game `game_id`."""
        if game_id is not None:
            game = await self._current(game_id)
            if game.record.kind != kind:
                raise ServiceError(Text("Game #{number} is not a {game} game.", number=game_id,
                                        game=describe(kind).title))
            self._require_active(game)
            self._seat(game, user_id)
            return present(game)
        found = await self.store.active_games_of(kind, user_id, place_id)
        if not found:
            raise ServiceError(Text("You are not playing a game here. Use this command in your game's channel or "
                                    "thread."))
        if len(found) > 1:
            listed = ", ".join(f"#{g}" for g in found)
            raise ServiceError(Text("You are in several games here ({games}); say which with the `game` option.",
                                    games=listed))
        return await self.view(found[0])

    async def require_player(self, game_id: int, user_id: int) -> Result[Any, Any]:
        """The game, if it is being played and `user_id` sits in it; otherwise the reason why not."""
        game = await self._current(game_id)
        self._require_active(game)
        self._seat(game, user_id)
        return present(game)

    @staticmethod
    def _require_active(game: Game) -> None:
        status = game.record.status
        if status == "pending":
            raise ServiceError(Text("This game starts once the challenge is accepted."))
        if status != "active":
            raise ServiceError(Text("This game is over."))

    @staticmethod
    def _seat(game: Game, user_id: int) -> int:
        seat = game.seat_of(user_id)
        if seat is None:
            start = Command(describe(game.record.kind).start_command)
            raise ServiceError(Text("You are not playing in this game. Start your own with {command}.", command=start))
        return seat

    async def _update(self, tx: GameTransaction, record: GameRecord, **changes: Any) -> GameRecord:
        """A write that is not a move (accept, a message id, a draw offer, a timer): a lost race on it is the same
        "look again" refusal as a lost race on a move. Alone, it is group-committed with the other writes of the
        moment; inside an open transaction, it commits with that."""
        write = tx.update if tx.is_open else self.store.update
        try:
            after = await write(record, now=self.clock(), **changes)
        except StaleVersionError:
            raise StaleStateError(STALE_MESSAGE) from None
        self._states.carry(record, after)
        return after

    async def _commit(
        self, tx: GameTransaction | None, game: Game, seat: int, user_id: int | None, text: str,
        state: GameState[Any, Any],
    ) -> Result[Any, Any]:
        """Write a move (inside `tx` if it is open, else group-committed with the other writes of the moment) and
        return the game after it with its events.

        A move after which the game must not go on (`must_stop`: no person is left, or an old game passed the length
        limit) is followed, in the same transaction, by the logged stop that ends it: the game is never seen going on
        without a person, a replay of its log ends it the same way, and its ending is one event."""
        steps = [(seat, user_id, text, state)]
        stop = must_stop(game.record, state)
        if stop is not None:
            decider = state.current_player()
            steps.append((seat if decider is None else decider, None, stop.value, state.stop(stop)))
        if len(steps) == 1 or (tx is not None and tx.is_open):
            return await self._write_steps(tx, game, steps, user_id)
        async with self.store.transaction() as own:
            await own.writer()
            return await self._write_steps(own, game, steps, user_id)

    async def stop(self, game_id: int) -> Result[Any, Any] | None:
        """End the game now if it must not go on (`must_stop`), by a logged stop; None if it may go on. For a game
        stored before this rule (the computer players' driver asks before each of their moves)."""
        async with self._locks.hold(game_id), self._editing(game_id, read_first=True) as (tx, game):
            reason = must_stop(game.record, game.state) if game.record.status == "active" else None
            if reason is None:
                return None
            decider = game.state.current_player()
            step = (0 if decider is None else decider, None, reason.value, game.state.stop(reason))
            result = await self._write_steps(tx, game, [step], None)
        return self.publish(result)  # once committed

    async def _write_steps(
        self, tx: GameTransaction | None, game: Game, steps: list[tuple[int, int | None, str, GameState[Any, Any]]],
        actor: int | None,
    ) -> Result[Any, Any]:
        """Write each (seat, user, action text, state after it) in turn, then present the game after the last."""
        now = self.clock()
        record = game.record
        changes: list[RatingChange] = []
        for seat, user_id, text, state in steps:
            outcome = state.outcome()
            if outcome is None:
                status = "active"
                deadline, remind_at = self._next_timers(game, state, now)
            else:
                status, deadline, remind_at = "finished", None, None
            # The result changes the ladders in the move's own write, exactly once, and only for a game whose play
            # began with a move: a forfeit during the secret setup, or a resignation before the first move, is no
            # game played.
            ladders = result_writer(record, outcome, state.moves_of_play(), now, changes) if outcome else None
            # Unless a transaction is already open, the move goes with the other writes of the moment: one
            # transaction and one trip to the database's thread for all of them (group commit), each still guarded by
            # its version.
            write = tx.record_move if tx is not None and tx.is_open else self.store.record_move
            try:
                record = await write(
                    record, seat=seat, user_id=user_id, action=text, state=state.to_dict(), now=now,
                    status=status, deadline=deadline, remind_at=remind_at,
                    places=outcome.places if outcome else None, then=ladders,
                )
            except StaleVersionError:
                raise StaleStateError(STALE_MESSAGE) from None
        self.timers_changed.set()
        after = self._written(record, state)
        events: list[Event] = []
        if outcome is not None:
            events.append(GameEnded(outcome.places, outcome.reason, tuple(changes)))
        else:
            if not game.state.began() and state.began():
                mover = state.current_player()
                if mover is not None:
                    events.append(PlayBegan(mover, after.user_at(mover)))
            if state.current_player() != game.state.current_player():
                events += _decision(after, actor)
        return present(after, tuple(events))


"""The use-cases of every game, with no Discord in sight.

Each call loads the game from the database, checks who is acting, asks the engine, and writes the result
in one version-guarded transaction before returning. A per-game lock serialises callers in this process;
the version guard catches anything that slips past it (another process, a bug), so a move is never lost
and never applied twice.

What leaves this module for the Discord layer is a `Result` (bot/service/results.py): the public view, each
seated person's own view and the events of the change, never the engine state. `Game` (a record with its
state) stays inside the service package.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, TypeVar
from uuid import uuid4

from bot import workers
from bot.service.game_states import EngineStates
from bot.service.locks import KeyedLocks
from bot.service.owed import owe
from bot.service.ratings import result_writer
from bot.service.results import (
    DecisionPassed,
    Event,
    GameEnded,
    GameInfo,
    OwnView,
    PastGame,
    PlayBegan,
    RatingChange,
    ReplayFrame,
    Result,
    SeatInfo,
)
from bot.service.tasks import background
from games import GameError, GameState
from games.base import DRAW_AGREED, RESIGN, TIMEOUT, EndReason
from games.engines import computer_move, computer_targets, game_class, replay
from games.registry import describe
from games.text import Command, Text
from storage import GameNotFoundError, GameRecord, GameStore, GameTransaction, Seat, StaleVersionError
from storage.archive import archived_at
from storage.connection import AnyDatabase
from storage.leases import bot_turn_key, bot_turns_to_take, claim, release, release_all, release_expired

T = TypeVar("T")

DEFAULT_TURN_TIMEOUT = 24 * 3600.0
# Options about the table rather than the rules (hints shown, which bot "Add bot" seats, which seat sent a
# challenge when it is not the first); engines never see them.
TABLE_OPTIONS = frozenset({"hints", "bot_level", "challenger"})
DEFAULT_CHALLENGE_TIMEOUT = 15 * 60.0
REMINDER_FRACTION = 0.75  # the one reminder comes when three quarters of the turn time has passed
# How long a process may hold a game's bot turn (storage/leases.py): a bound on one turn's thinking, never reached in
# practice (a computer player thinks for milliseconds to seconds). A process that dies is found sooner, by its
# heartbeat (bot/service/heartbeat.py), and another process takes the turn over then (plus bot/service/bot_turns.py's
# TAKEOVER_EVERY).
BOT_TURN_LEASE = 120.0
WORK_LEASE = 120.0  # the same bound for other one-off work (`hold`): a post, a DM


class ServiceError(Exception):
    """A refusal to show the user, worded so they know what to do instead."""


class StaleStateError(ServiceError):
    """The game moved on after the user looked at it."""


# The one answer to a lost race, whatever the write (a move, an accept, a draw offer): look again, then decide.
STALE_MESSAGE = Text("The game changed while you were choosing: look at the board again.")


@dataclass(frozen=True)
class Player:
    """Who sits in a seat when a game is created: a user, or a bot of some level."""

    user_id: int | None = None
    bot: str | None = None


@dataclass(frozen=True)
class Game:
    """A game as stored, with its engine state rebuilt from the snapshot (omniscient: stays in the service)."""

    record: GameRecord
    state: GameState[Any, Any]

    @property
    def id(self) -> int:
        return self.record.id

    def user_at(self, seat: int) -> int | None:
        return self.record.seats[seat].user_id

    def is_bot(self, seat: int) -> bool:
        return self.record.seats[seat].bot is not None

    def seat_of(self, user_id: int) -> int | None:
        return self.record.seat_of(user_id)


class TimerEvent(Enum):
    REMINDER = "reminder"
    FORFEIT = "forfeit"
    DEFAULTED = "defaulted"  # time ran out and the game's default decision was taken (e.g. decline a rescue)
    EXPIRED = "expired"  # a challenge nobody accepted in time
    CALLED_OFF = "called-off"  # nobody finished their secret setup in time: the game never began


class GameService:
    def __init__(
        self,
        db: AnyDatabase,
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
        self._locks = KeyedLocks()
        self._states = EngineStates()  # rebuilt from JSON once per version of a game being played, not per click
        # Set whenever a write creates or moves a deadline, so the timer loop can look again.
        self.timers_changed = asyncio.Event()
        # Told of every committed change that has events (whose decision it is, a game's end, ...), once the
        # change is committed: the bot notifies players from these. Each runs as its own task.
        self.listeners: list[Callable[[Result[Any, Any]], Coroutine[Any, Any, None]]] = []
        self._telling: set[asyncio.Task[None]] = set()

    def publish(self, result: Result[Any, Any]) -> Result[Any, Any]:
        """Tell the listeners about a committed change that has events; returns `result`."""
        if result.events:
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

    async def replay_frame(self, game_id: int, frame: int | None) -> ReplayFrame[Any]:
        """Frame `frame` of a stored game (None: the latest), as a replay may show it: hidden ranks only once the
        game is over. Frame 0 is the position where play began and frame N the position after N moves of play:
        a secret setup is one step, summarised (its actions are no moves, and what they placed is secret)."""
        game = await self.load(game_id)
        moves = [(m.seat, m.action) for m in await self.store.moves(game_id)]
        state = replay(game.record.kind, game.record.initial_state, ())
        setup = 0
        while setup < len(moves) and not state.began():
            state = state.apply_text(*moves[setup])
            setup += 1
        total = len(moves) - setup
        number = total if frame is None else max(0, min(frame, total))
        for seat, text in moves[setup:setup + number]:
            state = state.apply_text(seat, text)
        # Shown as a finished picture: no clock and no pending offer belong to a past position.
        record = replace(game.record, deadline=None, draw_offer=None, status="replay")
        view = state.review_view(game_over=game.record.finished_at is not None)
        last = moves[setup + number - 1] if number else None
        return ReplayFrame(info(Game(record, state)), view, number, total, last=last, setup_steps=setup)

    async def history(self, user_id: int, limit: int = 10, *, guild_id: int | None = None) -> list[PastGame]:
        """The user's latest games, newest first, with their places (no positions); with `guild_id`, only those
        played on that server (what others there may be shown)."""
        return [PastGame(record.id, record.kind, record.status, record.guild_id, record.channel_id,
                         record.message_id, record.created_at, seat.place, _seats(record))
                for record, seat in await self.store.history(user_id, limit=limit, guild_id=guild_id)]

    async def active_games_of(self, kind: str, user_id: int) -> list[int]:
        return await self.store.active_games_of(kind, user_id, None)

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

    # ----- creating ---------------------------------------------------------------------------------------
    async def create(
        self,
        kind: str,
        *,
        guild_id: int | None,
        channel_id: int,
        players: Sequence[Player],
        options: dict[str, Any] | None = None,
        challenge: bool = False,
        turn_timeout: float | None = None,
        rng: random.Random | None = None,
        actor: int | None = None,
    ) -> Result[Any, Any]:
        """A new game. With `challenge`, it waits for the other players to accept; otherwise it starts.
        `actor` is the person who asked for it, by default the first seat's (no one is told of a decision they
        are looking at)."""
        if actor is None and players:
            actor = players[0].user_id
        async with self.store.transaction() as tx:
            result = await self.create_in(
                tx, kind, guild_id=guild_id, channel_id=channel_id, players=players, options=options,
                challenge=challenge, turn_timeout=turn_timeout, rng=rng, actor=actor,
            )
        self.timers_changed.set()
        return self.publish(result)

    async def create_in(
        self,
        tx: GameTransaction,
        kind: str,
        *,
        guild_id: int | None,
        channel_id: int,
        players: Sequence[Player],
        options: dict[str, Any] | None = None,
        challenge: bool = False,
        turn_timeout: float | None = None,
        rng: random.Random | None = None,
        message_id: int | None = None,
        actor: int | None = None,
    ) -> Result[Any, Any]:
        """`create` inside a caller's transaction (a lobby starting its game, shown on the lobby's message
        `message_id`); bots have not moved yet."""
        options = dict(options or {})
        state = self.new_state(kind, players, options, rng or self.rng)
        timeout = self.turn_timeout if turn_timeout is None else turn_timeout
        if timeout <= 0:
            raise ServiceError(Text("The turn timeout must be positive."))
        now = self.clock()
        seats = [Seat(i, p.user_id, p.bot) for i, p in enumerate(players)]
        deadline: float | None
        remind_at: float | None
        if challenge:
            status, deadline, remind_at = "pending", now + self.challenge_timeout, None
        else:
            status = "active"
            deadline, remind_at = self._turn_timers(state, seats, timeout, now)
        record = await tx.create(
            kind=kind, guild_id=guild_id, channel_id=channel_id, status=status, state=state.to_dict(),
            seats=seats, options=options, turn_timeout=timeout, deadline=deadline, remind_at=remind_at,
            now=now,
        )
        if message_id is not None:
            record = await tx.update(record, now=now, message_id=message_id)
        game = self._written(record, state)
        return present(game, () if challenge else _decision(game, actor))

    @staticmethod
    def new_state(
        kind: str, players: Sequence[Player], options: dict[str, Any], rng: random.Random | None = None
    ) -> GameState[Any, Any]:
        """The starting position, or the reason these players and options cannot make a game."""
        users = [p.user_id for p in players if p.user_id is not None]
        if len(set(users)) != len(users):
            raise ServiceError(Text("A player can take only one seat in a game."))
        description = describe(kind)
        for p in players:
            if p.bot is not None and p.bot not in description.bot_levels:
                raise ServiceError(Text("There is no {level} bot for {game}; choose from {levels}.",
                                        level=repr(p.bot), game=description.title,
                                        levels=", ".join(description.bot_levels)))
        rules = {k: v for k, v in options.items() if k not in TABLE_OPTIONS}
        try:
            return game_class(kind).new(len(players), rules, rng or random.SystemRandom())
        except GameError as exc:  # its reason as raised: a Text is translated where it is shown
            raise ServiceError(exc.args[0] if exc.args else str(exc)) from None

    async def set_message(self, game_id: int, message_id: int) -> Result[Any, Any]:
        """Remember which channel message shows the game (set once the bot has posted it)."""
        async with self._locks.hold(game_id), self._editing(game_id, read_first=True) as (tx, game):
            record = await self._update(tx, game.record, message_id=message_id)
            return present(Game(record, game.state))

    async def hold(self, key: str) -> bool:
        """Claim a one-off piece of work (storage/leases.py) for this process: False while another live process holds
        it. Held until `let_go_of(key)`, or until this process dies."""
        async with self.store.transaction() as tx:
            return await claim(await tx.writer(), key, self.holder, WORK_LEASE, self.clock())

    async def let_go_of(self, key: str) -> None:
        async with self.store.transaction() as tx:
            await release(await tx.writer(), key, self.holder)

    async def set_thread(self, game_id: int, thread_id: int) -> Result[Any, Any]:
        async with self._locks.hold(game_id), self._editing(game_id, read_first=True) as (tx, game):
            return present(Game(await self._update(tx, game.record, thread_id=thread_id), game.state))

    # ----- challenges -------------------------------------------------------------------------------------
    async def accept(self, game_id: int, user_id: int, message_id: int | None = None) -> Result[Any, Any]:
        """The challenged player accepts; `message_id` (the message Accept was on) becomes the game's message if
        it has none yet (the bot stopped right after posting the challenge, before it could store its id)."""
        async with self._locks.hold(game_id):
            async with self._editing(game_id) as (tx, game):
                self._check_can_accept(game, user_id)
                now = self.clock()
                deadline, remind_at = self._turn_timers(game.state, game.record.seats, game.record.turn_timeout, now)
                changes: dict[str, Any] = {"status": "active", "deadline": deadline, "remind_at": remind_at}
                if game.record.message_id is None and message_id is not None:
                    changes["message_id"] = message_id
                record = await self._update(tx, game.record, **changes)
            self.timers_changed.set()
            started = Game(record, game.state)
            return self.publish(present(started, _decision(started, user_id)))

    async def decline(self, game_id: int, user_id: int) -> Result[Any, Any]:
        """The challenged player declines, or the challenger withdraws."""
        async with self._locks.hold(game_id), self._editing(game_id) as (tx, game):
            self._require_pending(game)
            if game.seat_of(user_id) is None:
                raise ServiceError(Text("This challenge is not yours to decline."))
            record = await self._update(tx, game.record, status="declined", deadline=None, remind_at=None)
            return present(Game(record, game.state))

    def _check_can_accept(self, game: Game, user_id: int) -> None:
        self._require_pending(game)
        seat = game.seat_of(user_id)
        if seat == game.record.options.get("challenger", 0):
            raise ServiceError(Text("You sent this challenge; wait for your opponent to accept it."))
        if seat is None:
            start = Command(describe(game.record.kind).start_command)
            raise ServiceError(Text("This challenge is for someone else. Start your own with {command}.",
                                    command=start))

    @staticmethod
    def _require_pending(game: Game) -> None:
        status = game.record.status
        if status == "active":
            raise ServiceError(Text("This challenge was already accepted; the game is on."))
        if status == "expired":
            raise ServiceError(Text("This challenge is closed: it has expired."))
        if status != "pending":
            raise ServiceError(Text("This challenge is closed: it was declined or withdrawn."))

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
        """Offer a draw, or accept the opponent's offer. Returns the game and whether it is now drawn."""
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
            record = await self._update(tx, game.record, draw_offer=seat)
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
        return the game after it with its events."""
        now = self.clock()
        outcome = state.outcome()
        if outcome is None:
            status = "active"
            deadline, remind_at = self._next_timers(game, state, now)
        else:
            status, deadline, remind_at = "finished", None, None
        changes: list[RatingChange] = []
        # The result changes the ladders in the move's own write, exactly once, and only for a game whose play
        # began: a forfeit during the secret setup is no game played.
        ladders = result_writer(game.record, outcome, now, changes) if outcome and game.state.began() else None
        # Unless a transaction is already open, the move goes with the other writes of the moment: one transaction
        # and one trip to the database's thread for all of them (group commit), each still guarded by its version.
        write = tx.record_move if tx is not None and tx.is_open else self.store.record_move
        try:
            record = await write(
                game.record, seat=seat, user_id=user_id, action=text, state=state.to_dict(), now=now,
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
                events += _decision(after, user_id)
        return present(after, tuple(events))

    async def play_bot_turn(self, game_id: int) -> Result[Any, Any] | None:
        """Make one move for the bot seat to move, if any; returns the game after it, or None.

        The bot thinks in a worker process (bot/workers.py), without the game's lock, so the event loop and the
        other players stay responsive; its move is then committed under the version guard, and if anything
        happened meanwhile (a resignation, say) it is simply dropped and the caller asks again.

        Before it thinks, the process claims (or renews) the game's bot-turn lease: None, without thinking, while
        another live process drives the game. With no bot to move the lease is let go.
        """
        if not await self._lease_bot_turn(game_id):
            return None
        game = await self._current(game_id)
        if not info(game).bot_to_move:
            await self.release_bot_turn(game_id)
            return None
        seat = game.state.current_player()
        assert seat is not None
        level = game.record.seats[seat].bot
        assert level is not None
        # The worker gets the game as stored and draws the operating system's randomness itself (computer_move):
        # nothing public can foresee a computer player's choices; the log stores the action, so replays stay exact.
        engine, computer = computer_targets(game.record.kind)
        text = await workers.think(computer_move, engine, computer, game.state.to_dict(), seat, level)
        new_state = game.state.apply_text(seat, text)
        try:
            async with self._locks.hold(game_id), self.store.transaction() as tx:
                result = await self._commit(tx, game, seat, None, text, new_state)
        except StaleStateError:  # read again only once that transaction is closed
            return await self.view(game_id)
        return self.publish(result)

    async def games_awaiting_bots(self) -> list[int]:
        """Active games with a bot seat, for resuming bot turns after a restart."""
        return await self.store.active_games_with_bots()

    async def bot_turns_to_take(self) -> list[int]:
        """Games where a bot is to decide and no live process drives it (none began, or its driver died)."""
        return await self.db.query(bot_turns_to_take(self.clock()))

    async def _lease_bot_turn(self, game_id: int) -> bool:
        async with self.store.transaction() as tx:
            return await claim(await tx.writer(), bot_turn_key(game_id), self.holder, BOT_TURN_LEASE, self.clock())

    async def release_bot_turn(self, game_id: int, *, expired: bool = False) -> None:
        """Let go of this process's bot-turn lease of the game (with `expired`: of a dead process's, run out)."""
        async with self.store.transaction() as tx:
            conn = await tx.writer()
            if expired:
                await release_expired(conn, bot_turn_key(game_id), self.clock())
            else:
                await release(conn, bot_turn_key(game_id), self.holder)

    async def let_go(self) -> None:
        """At a clean stop, once timers and bot turns have stopped: free every lease of this process (storage/leases.py
        release_all)."""
        async with self.store.transaction() as tx:
            await release_all(await tx.writer(), self.holder)

    def _next_timers(self, game: Game, state: GameState[Any, Any], now: float) -> tuple[float | None, float | None]:
        """The deadline moves only when the decision passes to someone else: free actions by others (transfers)
        and setup edits leave it where it is, and the secret setup has one deadline from start to play."""
        record = game.record
        same_decider = state.current_player() == game.state.current_player()
        still_setting_up = not state.began() and record.deadline is not None
        if still_setting_up or (same_decider and state.began() == game.state.began() and record.deadline is not None):
            return record.deadline, record.remind_at
        return self._turn_timers(state, record.seats, record.turn_timeout, now)

    @staticmethod
    def _turn_timers(
        state: GameState[Any, Any], seats: Sequence[Seat], timeout: float, now: float
    ) -> tuple[float | None, float | None]:
        seat = state.current_player()
        if seat is None or seats[seat].bot is not None:
            return None, None
        return now + timeout, now + timeout * REMINDER_FRACTION

    # ----- timers -----------------------------------------------------------------------------------------
    async def next_timer(self) -> float | None:
        return await self.store.next_timer()

    async def due_timers(self) -> list[int]:
        return await self.store.due_timers(self.clock())

    async def fire_timer(self, game_id: int) -> tuple[TimerEvent, Result[Any, Any]] | None:
        """Expire a challenge, remind the player to move, or forfeit them, whichever is due now."""
        async with self._locks.hold(game_id):
            async with self._editing(game_id, read_first=True) as (tx, game):
                fired = await self._fire(tx, game)
                if fired is not None:  # owed until the timer loop has sent it: at least once, across a stop
                    fired = await owe(tx, *fired, now=self.clock(), holder=self.holder)
            if fired is not None:
                self.publish(fired[1])
            return fired

    async def _fire(self, tx: GameTransaction, game: Game) -> tuple[TimerEvent, Result[Any, Any]] | None:
        record, now = game.record, self.clock()
        if record.status == "pending" and record.deadline is not None and record.deadline <= now:
            record = await self._update(tx, record, status="expired", deadline=None, remind_at=None)
            return TimerEvent.EXPIRED, present(Game(record, game.state))
        if record.status != "active":
            if record.deadline is not None or record.remind_at is not None:
                await self._update(tx, record, deadline=None, remind_at=None)
            return None
        seat = game.state.current_player()
        late = record.deadline is not None and record.deadline <= now
        if late and game.state.setting_up():
            late_seats = game.state.setting_up()
            if len(late_seats) == len(record.seats):  # nobody finished their setup: the game never began
                record = await self._update(tx, record, status="expired", deadline=None, remind_at=None)
                return TimerEvent.CALLED_OFF, present(Game(record, game.state))
            seat = late_seats[0]  # the one still setting up forfeits (unrated: play never began)
            forfeited = await self._commit(tx, game, seat, None, TIMEOUT, game.state.resign(seat, EndReason.TIMEOUT))
            return TimerEvent.FORFEIT, forfeited
        if late and seat is not None:
            default = game.state.timeout_action(seat)
            if default is not None:
                decided = await self._commit(tx, game, seat, None, default.text(), game.state.apply(seat, default))
                return TimerEvent.DEFAULTED, decided
            forfeited = await self._commit(tx, game, seat, None, TIMEOUT, game.state.resign(seat, EndReason.TIMEOUT))
            return TimerEvent.FORFEIT, forfeited
        if record.remind_at is not None and record.remind_at <= now:
            record = await self._update(tx, record, remind_at=None)
            return TimerEvent.REMINDER, present(Game(record, game.state))
        return None


# ----- from a stored game to what each audience may see ----------------------------------------------------
def turn_token(game: Game) -> int:
    """What a drawn decision carries to be checked against: the game's own token, else the move count."""
    token = game.state.turn_token()
    return game.record.move_count if token is None else token


def _seats(record: GameRecord) -> tuple[SeatInfo, ...]:
    return tuple(SeatInfo(s.seat, s.user_id, s.bot, s.place) for s in record.seats)


def _draws_allowed(game: Game) -> bool:
    """Draws by agreement: two people, no computer player (bots never agree to one)."""
    return game.state.num_players == 2 and not any(s.bot for s in game.record.seats)


def info(game: Game) -> GameInfo:
    """The public facts of a stored game."""
    r = game.record
    return GameInfo(
        id=r.id, kind=r.kind, guild_id=r.guild_id, channel_id=r.channel_id, message_id=r.message_id,
        thread_id=r.thread_id, status=r.status, options=dict(r.options), seats=_seats(r), move_count=r.move_count,
        version=r.version, turn_token=turn_token(game), to_decide=game.state.current_player(), began=game.state.began(),
        draw_offer=r.draw_offer, draws_allowed=_draws_allowed(game), turn_timeout=r.turn_timeout,
        deadline=r.deadline, created_at=r.created_at, updated_at=r.updated_at, finished_at=r.finished_at,
    )


def present(game: Game, events: tuple[Event, ...] = ()) -> Result[Any, Any]:
    """What every audience may see of `game`: the public view, and each seated person's own view."""
    private = tuple(OwnView(seat.seat, seat.user_id, game.state.view_for(seat.seat))
                    for seat in game.record.seats if seat.user_id is not None)
    return Result(info(game), game.state.public_view(), private, events)


def _decision(game: Game, actor: int | None) -> tuple[Event, ...]:
    """The decision is now `seat`'s; nobody is told of a decision they just brought about themselves (the person
    who accepted a challenge and moves first is looking at the board already)."""
    seat = game.state.current_player()
    if game.record.status != "active" or seat is None:
        return ()
    user = game.user_at(seat)
    if user is not None and user == actor:
        return ()
    return (DecisionPassed(seat, user),)


def _refuse_archived(record: GameRecord) -> None:
    archived = archived_at(record.state)
    if archived is not None:  # its snapshots and moves are in the archive file now (python -m bot.archive)
        ended = record.finished_at or record.updated_at
        raise ServiceError(Text("Game #{number} ended <t:{ended}:d> and was archived <t:{archived}:d>: its moves are "
                                "no longer kept here, so it cannot be replayed or played. Its result still counts in "
                                "/stats and /history; a bot admin can bring it back from the archive.",
                                number=record.id, ended=int(ended), archived=int(archived)))

"""The use-cases of every game, with no Discord in sight.

Each call loads the game from the database, checks who is acting, asks the engine, and writes the result
in one version-guarded transaction before returning. A per-game lock serialises callers in this process;
the version guard catches anything that slips past it (another process, a bug), so a move is never lost
and never applied twice.

What leaves this module for the Discord layer is a `Result` (bot/service/results.py): the public view, each
seated person's own view and the events of the change, never the engine state. `Game` (a record with its
state) stays inside the service package.

`GameService` plays and reads games itself, and is composed of parts it owns, each given what it uses: the games as
stored (stored.py: reading, and committing an action), who is told of changes (publisher.py), creating games and
challenges (game_setup.py), the turn timers (game_timers.py), the computer players' turns (computer_moves.py), this
process's leases (leases.py) and tournaments (tournaments.py: `GameService.tournaments`, whose rounds' games are made
by the setup part and whose results come from the publisher). Its methods are the one door the rest of the bot uses;
those of a part delegate to it.
"""

from __future__ import annotations

import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, TypeVar
from uuid import uuid4

from bot.service.computer_moves import ComputerMoves
from bot.service.game_setup import GameSetup
from bot.service.game_timers import GameTimers
from bot.service.leases import WORK_LEASE, Leases
from bot.service.locks import KeyedLocks
from bot.service.model import (
    STALE_TEXT,
    Game,
    Player,
    ServiceError,
    StaleStateError,
    draws_allowed,
    info,
    present,
    seat_infos,
    turn_token,
)
from bot.service.owed import Fired
from bot.service.parts import Shared
from bot.service.publisher import Listener, Publisher
from bot.service.results import GameInfo, PastGame, ReplayFrame, Result
from bot.service.starts import StartPace
from bot.service.stored import StoredGames
from bot.service.tournaments import Tournaments
from bot.service.wakeup import TimerWakeup
from games import GameError, GameState
from games.base import DRAW_AGREED, RESIGN, Action, EndReason
from games.engines import replay
from games.registry import describe
from games.text import Command, Text
from storage import GameStore, GameTransaction
from storage.database import Database

T = TypeVar("T")

DEFAULT_TURN_TIMEOUT = 24 * 3600.0
DEFAULT_CHALLENGE_TIMEOUT = 15 * 60.0
# How long after a game's end its ending may still be on its way to its channel or thread (sent right after the
# move's commit, with Discord's rate limits and retries): a thread is not closed under it meanwhile.
ENDING_ON_ITS_WAY = 60.0


class GameService:
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
        self.locks = KeyedLocks()  # one per game: this process's actions on a game take their turns
        # Set whenever a write creates or moves a deadline, so the timer loop can look again (bot/service/wakeup.py).
        self.timers_changed = TimerWakeup()
        # The parts read the time through `_now`, so that a test may swap `clock` for a fake one at any moment.
        self._publisher = Publisher()
        self._games = StoredGames(self.store, self._now, self.timers_changed)
        shared = Shared(db, self.store, self._games, self.locks, self._publisher, self._now, self.timers_changed,
                        self.holder)
        self._setup = GameSetup(shared, turn_timeout=turn_timeout, challenge_timeout=challenge_timeout)
        self._timers = GameTimers(shared)
        self._leases = Leases(shared.db, shared.store, shared.holder)
        self._computer_moves = ComputerMoves(shared, self._leases)
        # Tournaments and their rounds, which listen to the publisher for their games' endings (tournaments.py).
        self.tournaments = Tournaments(db, self.store, self._games, self._setup, self._publisher, self._now,
                                       self.timers_changed)
        # A new game, started or as a challenge, alone or inside a caller's transaction: the setup part's own method,
        # with its signature and docstring, rather than a copy of the signature here.
        self.create = self._setup.create

    def _now(self) -> float:
        return self.clock()

    # ----- settings, kept by the parts that use them ------------------------------------------------------
    @property
    def turn_timeout(self) -> float:
        """A game's turn time when neither its creator nor its server chose one."""
        return self._setup.turn_timeout

    @property
    def challenge_timeout(self) -> float:
        """How long a challenge waits for its answer."""
        return self._setup.challenge_timeout

    @property
    def rng(self) -> random.Random | None:
        """Where new games draw their public randomness (who moves first, ...); None: the operating system's. Tests
        pin it to play the same game twice and compare everything the bot sent."""
        return self._setup.rng

    @rng.setter
    def rng(self, rng: random.Random | None) -> None:
        self._setup.rng = rng

    @property
    def pace(self) -> StartPace:
        """How fast each person may start games and tables (starts.py)."""
        return self._setup.pace

    @pace.setter
    def pace(self, pace: StartPace) -> None:
        self._setup.pace = pace

    @property
    def computer_seed(self) -> str | None:
        """Where computer players draw their choices: None (always, in the bot) for the operating system's; a test sets
        a seed to replay the same game (computer_moves.py)."""
        return self._computer_moves.seed

    @computer_seed.setter
    def computer_seed(self, seed: str | None) -> None:
        self._computer_moves.seed = seed

    # ----- who is told of changes -------------------------------------------------------------------------
    @property
    def listeners(self) -> list[Listener]:
        """Told of every committed change that has events (whose decision it is, a game's end, ...), once the change is
        committed: the bot notifies players from these. Each runs as its own task."""
        return self._publisher.listeners

    def publish(self, result: Result[Any, Any]) -> Result[Any, Any]:
        """Tell the listeners about a committed change; returns `result`."""
        return self._publisher.publish(result)

    async def told(self) -> None:
        """Wait until every listener has heard every change so far (tests and shutdown): a tournament's listeners
        first, which publish the games of a new round once they have heard of it."""
        await self.tournaments.told()
        await self._publisher.told()

    # ----- reading ----------------------------------------------------------------------------------------
    async def load(self, game_id: int) -> Game:
        """The game as stored now (always read), with its omniscient state: for the service package only (see
        `view`)."""
        return await self._games.load(game_id)

    async def view(self, game_id: int, *, fresh: bool = False) -> Result[Any, Any]:
        """Game `game_id` as every audience may see it now: as this process last wrote or read it while it is being
        played (no read: every change made here is in memory as it commits), else read. A change made by another
        process shows once this process reads the game again, which its next write to it (refused as stale) makes it
        do, or a view asked `fresh` (always read: a redraw that found another process's newer version)."""
        return present(await (self._games.load(game_id) if fresh else self._games.current(game_id)))

    async def newest_version(self, game_id: int) -> int:
        """The newest version of the game this process has, or is committing at this moment (read when neither)."""
        newest = self.store.newest_version(game_id)
        return newest if newest is not None else (await self.info(game_id)).version

    async def info(self, game_id: int) -> GameInfo:
        """The public facts of game `game_id` (no views built: for checks that need only who plays where, which never
        change; no read when its version is in memory)."""
        return info(await self._games.current(game_id))

    async def load_at(self, game_id: int, ply: int) -> Game:
        """The game as it stood right after its first `ply` logged actions, replayed from its move log (omniscient,
        like `load`): what a past timer action is told from when play went on before it could be announced. Only the
        position is of then; what names the game and its seats is as stored now, and no clock or offer is running."""
        game = await self._games.load(game_id)
        if game.record.move_count == ply:
            return game
        moves = [(m.seat, m.action) for m in await self.store.moves(game_id)][:ply]
        state = replay(game.record.kind, game.record.initial_state, moves)
        over = state.is_over
        record = replace(game.record, move_count=ply, status="finished" if over else "active",
                         finished_at=game.record.finished_at if over else None, deadline=None, remind_at=None,
                         draw_offer=None, draw_declined=None)
        return Game(record, state)

    async def replay_frame(self, game_id: int, frame: int | None, *, move: int | None = None) -> ReplayFrame[Any]:
        """Frame `frame` of a stored game (None: the latest), as a replay may show it: hidden ranks only once the
        game is over. Frame 0 is the position where play began and each logged action after it one frame: a secret
        setup is one step, summarised (its actions are no moves, and what they placed is secret). With `move`, the
        frame right after that many moves of play (the count players see) instead."""
        game = await self._games.load(game_id)
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
                         record.message_id, record.created_at, seat.place, seat_infos(record), record.thread_id)
                for record, seat in await self.store.history(user_id, limit=limit, guild_id=guild_id, places=places,
                                                             viewer=viewer)]

    async def active_games_of(self, kind: str, user_id: int) -> list[int]:
        """The games of `kind` being played that `user_id` sits in, wherever they are; newest first."""
        return await self.store.active_games_of(kind, user_id, None)

    async def place_still_used(self, place_id: int, but: int) -> bool:
        """Whether another game or an open lobby lives in channel or thread `place_id` (besides game `but`), a game
        that ended counting while its ending may still be on its way there: owed by a turn timer, or ended less than
        ENDING_ON_ITS_WAY seconds ago (its player's process posts it right after the move's commit)."""
        return await self.store.others_in(place_id, but, ended_since=self._now() - ENDING_ON_ITS_WAY)

    async def ended_table_thread(self, place_id: int, but: int) -> bool:
        """Whether channel or thread `place_id` is the thread of a table that is over (besides game `but`), kept open
        only while other games lived in it (`place_still_used`)."""
        return await self.store.ended_table_with_thread(place_id, but)

    @asynccontextmanager
    async def holding(self, game_id: int) -> AsyncIterator[tuple[GameTransaction, Game]]:
        """The game, read with the write transaction already open, for a write that belongs to the game without
        changing it (a deal's acceptance): the game cannot end, nor a player be defeated, before it commits."""
        async with self._games.editing(game_id, read_first=True) as pair:
            yield pair

    # ----- playing ----------------------------------------------------------------------------------------
    async def act(
        self, game_id: int, user_id: int, action_text: str, expected_ply: int | None = None,
        refuse: Callable[[Action], Text | None] | None = None,
    ) -> Result[Any, Any]:
        """Play one action for `user_id`; `expected_ply` is the turn token the user was looking at. The game is the
        one in memory when its version is (no read), and the move is written with the other writes of the moment.
        `refuse`: what the caller does not take from this way of acting (a command for moves only refusing a setup
        text), judged on the action the text names, so the text is read once, here; its reason is the refusal."""
        async def attempt(game: Game) -> Result[Any, Any]:
            # Whose turn it is is the engine's to judge: some games allow actions out of turn.
            seat = self._check_actor(game, user_id, expected_ply)
            try:
                # A request that needs chance (a random formation) draws it from the operating system.
                text = game.state.expand(seat, action_text, random.SystemRandom())
                action = game.state.parse_action(text)
                refusal = refuse(action) if refuse is not None else None
                if refusal is not None:
                    raise ServiceError(refusal)
                new_state = game.state.apply(seat, action)
            except GameError as exc:  # its reason as raised: a Text is translated where it is shown
                raise ServiceError(exc.args[0] if exc.args else str(exc)) from None
            return await self._games.commit(None, game, seat, user_id, action.text(), new_state)

        async with self.locks.hold(game_id):
            result = await self._on_newest(game_id, attempt)
        return self._publisher.publish(result)

    async def _on_newest(self, game_id: int, attempt: Callable[[Game], Awaitable[T]]) -> T:
        """`attempt` on the game as this process has it; if that is refused, once more on the game read afresh.

        Another process (a shard that drove a computer player's move, a timer) may have changed the game since this
        process last saw it: the player who acted on the position the board shows now must not be refused because this
        process had not seen it yet (a stale version, or a rule judged on an older position: "not your turn", "set up
        your army first"). A refusal that holds on the stored game too is the one the player is told; it costs one
        read."""
        try:
            return await attempt(await self._games.current(game_id))
        except ServiceError:
            return await attempt(await self._games.load(game_id))

    async def resign(self, game_id: int, user_id: int) -> Result[Any, Any]:
        async def attempt(game: Game) -> Result[Any, Any]:
            self._require_active(game)
            seat = self._seat(game, user_id)
            resigned = game.state.resign(seat, EndReason.RESIGN)
            return await self._games.commit(None, game, seat, user_id, RESIGN, resigned)

        async with self.locks.hold(game_id):
            result = await self._on_newest(game_id, attempt)
        return self._publisher.publish(result)

    async def offer_draw(self, game_id: int, user_id: int) -> tuple[Result[Any, Any], bool]:
        """Offer a draw, or accept the opponent's offer. Returns the game and whether it is now drawn. An offer lasts
        until the opponent answers it: by accepting, or by playing on, which declines it (the offerer's own moves keep
        it, storage/game_writes.py)."""
        async with self.locks.hold(game_id), self._games.editing(game_id) as (tx, game):
            self._require_active(game)
            seat = self._seat(game, user_id)
            offer = game.record.draw_offer
            if offer == seat:
                raise ServiceError(Text("You have already offered a draw; your opponent can accept it or play on."))
            if offer is not None:
                drawn = await self._games.commit(tx, game, seat, user_id, DRAW_AGREED, game.state.agree_draw())
                return self._publisher.publish(drawn), True
            if any(s.computer for s in game.record.seats):
                raise ServiceError(Text("The bot declines the draw: it plays on. You can resign instead."))
            if not draws_allowed(game):
                raise ServiceError(Text("Draws by agreement are for two-player games."))
            record = await self._games.update(tx, game.record, draw_offer=seat, draw_declined=None)
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
            raise StaleStateError(STALE_TEXT)
        return seat

    async def find_game(
        self, kind: str, user_id: int, place_id: int | None, game_id: int | None = None
    ) -> Result[Any, Any]:
        """The active game of `kind` that `user_id` plays in this channel or thread (None: anywhere), or
        game `game_id`."""
        if game_id is not None:
            game = await self._games.current(game_id)
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
        game = await self._games.current(game_id)
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

    # ----- setting up (game_setup.py) ---------------------------------------------------------------------
    @staticmethod
    def new_state(
        kind: str, players: Sequence[Player], options: dict[str, Any], rng: random.Random | None = None
    ) -> GameState[Any, Any]:
        """The starting position, or the reason these players and options cannot make a game."""
        return GameSetup.new_state(kind, players, options, rng)

    async def set_message(self, game_id: int, message_id: int) -> Result[Any, Any]:
        """Remember which channel message shows the game (set once the bot has posted it)."""
        return await self._setup.set_message(game_id, message_id)

    async def set_thread(self, game_id: int, thread_id: int, message_id: int | None = None) -> Result[Any, Any]:
        """Remember the game's thread, and with `message_id` the message in it that shows the game."""
        return await self._setup.set_thread(game_id, thread_id, message_id)

    async def accept(self, game_id: int, user_id: int, message_id: int | None = None) -> Result[Any, Any]:
        """The challenged player accepts: the game starts."""
        return await self._setup.accept(game_id, user_id, message_id)

    async def decline(self, game_id: int, user_id: int) -> Result[Any, Any]:
        """The challenged player declines, or the challenger withdraws."""
        return await self._setup.decline(game_id, user_id)

    # ----- turn timers (game_timers.py) -------------------------------------------------------------------
    async def next_timer(self) -> float | None:
        """When the earliest deadline or reminder of any game falls, or None."""
        return await self._timers.next_timer()

    async def due_timers(self) -> list[int]:
        """The games with a deadline or reminder due now."""
        return await self._timers.due_timers()

    async def fire_timer(self, game_id: int) -> Fired | None:
        """Fire what is due in game `game_id` (a challenge's expiry, a reminder, a forfeit, a held turn ping)."""
        return await self._timers.fire_timer(game_id)

    # ----- computer players (computer_moves.py) ---------------------------------------------------------------
    async def play_computer_turn(self, game_id: int) -> Result[Any, Any] | None:
        """One move for the computer seat to move, if this process drives the game; the game after it, or None."""
        return await self._computer_moves.play_computer_turn(game_id)

    async def games_awaiting_computers(self) -> list[int]:
        """Active games with a computer seat, for resuming computer turns after a restart."""
        return await self._computer_moves.games_awaiting_computers()

    async def computer_turns_to_take(self) -> list[int]:
        """Games where a computer player is to decide and no live process drives it (none began, or its driver died)."""
        return await self._computer_moves.computer_turns_to_take()

    async def release_computer_turn(self, game_id: int, *, expired: bool = False) -> None:
        """Let go of this process's computer-turn lease of the game (with `expired`: of a dead process's, run out)."""
        await self._computer_moves.release_computer_turn(game_id, expired=expired)

    # ----- this process's leases (leases.py) --------------------------------------------------------------
    async def hold(self, key: str, seconds: float = WORK_LEASE) -> int | None:
        """Claim a piece of work for this process: its token, or None while another live process holds it."""
        return await self._leases.hold(key, seconds)

    async def still_holds(self, key: str, token: int) -> bool:
        """Whether this process still holds `key` with `token` (the fence right before a side effect)."""
        return await self._leases.still_holds(key, token)

    async def let_go_of(self, key: str) -> None:
        """Free this process's lease of `key`."""
        await self._leases.let_go_of(key)

    async def let_go(self) -> None:
        """At a clean stop, once timers and computer turns have stopped: free every lease of this process."""
        await self._leases.let_go()

"""The use-cases of every game, with no Discord in sight.

Each call loads the game from the database, checks who is acting, asks the engine, and writes the result
in one version-guarded transaction before returning. A per-game lock serialises callers in this process;
the version guard catches anything that slips past it (another process, a bug), so a move is never lost
and never applied twice.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from enum import Enum
from typing import Any

from bot.locks import KeyedLocks
from bot.ratings import apply_result
from games import GameError, GameState, game_class
from games.base import DRAW_AGREED, RESIGN, TIMEOUT
from storage import Database, GameNotFoundError, GameRecord, GameStore, GameTransaction, Seat, StaleVersionError
from storage.archive import archived_at

DEFAULT_TURN_TIMEOUT = 24 * 3600.0
# Options about the table rather than the rules (hints shown, which bot "Add bot" seats); engines never see them.
TABLE_OPTIONS = frozenset({"hints", "bot_level"})
DEFAULT_CHALLENGE_TIMEOUT = 15 * 60.0
REMINDER_FRACTION = 0.75  # the one reminder comes when three quarters of the turn time has passed


class ServiceError(Exception):
    """A refusal to show the user, worded so they know what to do instead."""


class StaleStateError(ServiceError):
    """The game moved on after the user looked at it."""


@dataclass(frozen=True)
class Player:
    """Who sits in a seat when a game is created: a user, or a bot of some level."""

    user_id: int | None = None
    bot: str | None = None


@dataclass(frozen=True)
class Game:
    """A game as stored, with its engine state rebuilt from the snapshot."""

    record: GameRecord
    state: GameState

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
    EXPIRED = "expired"


class GameService:
    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], float] = time.time,
        turn_timeout: float = DEFAULT_TURN_TIMEOUT,
        challenge_timeout: float = DEFAULT_CHALLENGE_TIMEOUT,
    ) -> None:
        self.store = GameStore(db)
        self.clock = clock
        self.turn_timeout = turn_timeout
        self.challenge_timeout = challenge_timeout
        # Where new games draw their randomness (who moves first, ...); None: a fresh generator per game.
        # Tests pin it to play the same game twice and compare everything the bot sent.
        self.rng: random.Random | None = None
        self._locks = KeyedLocks()
        # Set whenever a write creates or moves a deadline, so the timer loop can look again.
        self.timers_changed = asyncio.Event()

    # ----- reading ----------------------------------------------------------------------------------------
    async def load(self, game_id: int) -> Game:
        try:
            record = await self.store.get(game_id)
        except GameNotFoundError:
            raise ServiceError(f"There is no game #{game_id}.") from None
        return _game(record)

    @asynccontextmanager
    async def _editing(self, game_id: int) -> AsyncIterator[tuple[GameTransaction, Game]]:
        """The game, read inside the transaction that will write its next state (nothing is written if the
        block raises). Callers hold the game's lock, so bot moves that follow cannot interleave."""
        async with self.store.transaction() as tx:
            try:
                record = await tx.load(game_id)
            except GameNotFoundError:
                raise ServiceError(f"There is no game #{game_id}.") from None
            yield tx, _game(record)

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
    ) -> Game:
        """A new game. With `challenge`, it waits for the other players to accept; otherwise it starts."""
        async with self.store.transaction() as tx:
            game = await self.create_in(
                tx, kind, guild_id=guild_id, channel_id=channel_id, players=players, options=options,
                challenge=challenge, turn_timeout=turn_timeout, rng=rng,
            )
        self.timers_changed.set()
        return game

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
    ) -> Game:
        """`create` inside a caller's transaction (a lobby starting its game); bots have not moved yet."""
        options = dict(options or {})
        state = self.new_state(kind, players, options, rng or self.rng)
        timeout = self.turn_timeout if turn_timeout is None else turn_timeout
        if timeout <= 0:
            raise ServiceError("The turn timeout must be positive.")
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
        return Game(record, state)

    @staticmethod
    def new_state(
        kind: str, players: Sequence[Player], options: dict[str, Any], rng: random.Random | None = None
    ) -> GameState:
        """The starting position, or the reason these players and options cannot make a game."""
        users = [p.user_id for p in players if p.user_id is not None]
        if len(set(users)) != len(users):
            raise ServiceError("A player can take only one seat in a game.")
        cls = game_class(kind)
        for p in players:
            if p.bot is not None and p.bot not in cls.BOT_LEVELS:
                raise ServiceError(f"There is no {p.bot!r} bot for {kind}; choose from {', '.join(cls.BOT_LEVELS)}.")
        rules = {k: v for k, v in options.items() if k not in TABLE_OPTIONS}
        try:
            return cls.new(len(players), rules, rng or random.Random())
        except GameError as exc:
            raise ServiceError(str(exc)) from None

    async def set_message(self, game_id: int, message_id: int) -> Game:
        """Remember which channel message shows the game (set once the bot has posted it)."""
        async with self._locks.hold(game_id), self._editing(game_id) as (tx, game):
            record = await tx.update(game.record, now=self.clock(), message_id=message_id)
            return Game(record, game.state)

    # ----- challenges -------------------------------------------------------------------------------------
    async def accept(self, game_id: int, user_id: int, message_id: int | None = None) -> Game:
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
                record = await tx.update(game.record, now=now, **changes)
            self.timers_changed.set()
            return Game(record, game.state)

    async def decline(self, game_id: int, user_id: int) -> Game:
        """The challenged player declines, or the challenger withdraws."""
        async with self._locks.hold(game_id), self._editing(game_id) as (tx, game):
            self._require_pending(game)
            if game.seat_of(user_id) is None:
                raise ServiceError("This challenge is not yours to decline.")
            record = await tx.update(game.record, now=self.clock(), status="declined", deadline=None, remind_at=None)
            return Game(record, game.state)

    def _check_can_accept(self, game: Game, user_id: int) -> None:
        self._require_pending(game)
        seat = game.seat_of(user_id)
        if seat == 0:
            raise ServiceError("You sent this challenge; wait for your opponent to accept it.")
        if seat is None:
            raise ServiceError("This challenge is for someone else. Start your own with /chopsticks challenge.")

    @staticmethod
    def _require_pending(game: Game) -> None:
        status = game.record.status
        if status == "active":
            raise ServiceError("This challenge was already accepted; the game is on.")
        if status != "pending":
            raise ServiceError(f"This challenge is closed (it was {status}).")

    # ----- playing ----------------------------------------------------------------------------------------
    async def act(self, game_id: int, user_id: int, action_text: str, expected_ply: int | None = None) -> Game:
        """Play one move for `user_id`; `expected_ply` is the move count the user was looking at."""
        async with self._locks.hold(game_id), self._editing(game_id) as (tx, game):
            # Whose turn it is is the engine's to judge: some games allow actions out of turn.
            seat = self._check_actor(game, user_id, expected_ply)
            try:
                action = game.state.parse_action(action_text)
                new_state = game.state.apply(seat, action)
            except GameError as exc:
                raise ServiceError(str(exc)) from None
            return await self._commit(tx, game, seat, user_id, action.text(), new_state)

    async def resign(self, game_id: int, user_id: int) -> Game:
        async with self._locks.hold(game_id), self._editing(game_id) as (tx, game):
            self._require_active(game)
            seat = self._seat(game, user_id)
            return await self._commit(tx, game, seat, user_id, RESIGN, game.state.resign(seat, RESIGN))

    async def offer_draw(self, game_id: int, user_id: int) -> tuple[Game, bool]:
        """Offer a draw, or accept the opponent's offer. Returns the game and whether it is now drawn."""
        async with self._locks.hold(game_id), self._editing(game_id) as (tx, game):
            self._require_active(game)
            seat = self._seat(game, user_id)
            offer = game.record.draw_offer
            if offer == seat:
                raise ServiceError("You have already offered a draw; your opponent can accept it or play on.")
            if offer is not None:
                return await self._commit(tx, game, seat, user_id, DRAW_AGREED, game.state.agree_draw()), True
            if any(s.bot for s in game.record.seats):
                raise ServiceError("The bot declines the draw: it plays on. You can resign instead.")
            if game.state.num_players != 2:
                raise ServiceError("Draws by agreement are for two-player games.")
            record = await tx.update(game.record, now=self.clock(), draw_offer=seat)
            return Game(record, game.state), False

    async def require_turn(self, game_id: int, user_id: int, expected_ply: int | None = None) -> Game:
        """The game, if it is `user_id`'s turn in the position they saw; otherwise the reason why not."""
        game = await self.load(game_id)
        self._check_turn(game, user_id, expected_ply)
        return game

    def _check_turn(self, game: Game, user_id: int, expected_ply: int | None) -> int:
        seat = self._check_actor(game, user_id, expected_ply)
        if game.state.current_player() != seat:
            raise ServiceError("It is not your turn; wait for the player to move.")
        return seat

    def _check_actor(self, game: Game, user_id: int, expected_ply: int | None) -> int:
        self._require_active(game)
        seat = self._seat(game, user_id)
        if expected_ply is not None and expected_ply != self.turn_token(game):
            raise StaleStateError("The game changed while you were choosing: look at the board again.")
        return seat

    @staticmethod
    def turn_token(game: Game) -> int:
        """What a drawn decision carries to be checked against: the game's own token, else the move count."""
        token = game.state.turn_token()
        return game.record.move_count if token is None else token

    async def find_game(self, kind: str, user_id: int, place_id: int | None, game_id: int | None = None) -> Game:
        """The active game of `kind` that `user_id` plays in this channel or thread (None: anywhere), or
        game `game_id`."""
        if game_id is not None:
            game = await self.load(game_id)
            if game.record.kind != kind:
                raise ServiceError(f"Game #{game_id} is not a {kind} game.")
            self._require_active(game)
            self._seat(game, user_id)
            return game
        found = await self.store.active_games_of(kind, user_id, place_id)
        if not found:
            raise ServiceError("You are not playing a game here. Use this command in your game's channel or thread.")
        if len(found) > 1:
            listed = ", ".join(f"#{g}" for g in found)
            raise ServiceError(f"You are in several games here ({listed}); say which with the `game` option.")
        return await self.load(found[0])

    async def set_thread(self, game_id: int, thread_id: int) -> Game:
        async with self._locks.hold(game_id), self._editing(game_id) as (tx, game):
            return Game(await tx.update(game.record, now=self.clock(), thread_id=thread_id), game.state)

    async def require_player(self, game_id: int, user_id: int) -> Game:
        """The game, if it is being played and `user_id` sits in it; otherwise the reason why not."""
        game = await self.load(game_id)
        self._require_active(game)
        self._seat(game, user_id)
        return game

    @staticmethod
    def _require_active(game: Game) -> None:
        status = game.record.status
        if status == "pending":
            raise ServiceError("This game starts once the challenge is accepted.")
        if status != "active":
            raise ServiceError("This game is over.")

    @staticmethod
    def _seat(game: Game, user_id: int) -> int:
        seat = game.seat_of(user_id)
        if seat is None:
            raise ServiceError(f"You are not playing in this game. Start your own with /{game.record.kind} new.")
        return seat

    async def _commit(
        self, tx: GameTransaction, game: Game, seat: int, user_id: int | None, text: str, state: GameState
    ) -> Game:
        now = self.clock()
        outcome = state.outcome()
        if outcome is None:
            status = "active"
            deadline, remind_at = self._turn_timers(state, game.record.seats, game.record.turn_timeout, now)
        else:
            status, deadline, remind_at = "finished", None, None
        try:
            if outcome is not None:  # the result changes the ladders in this same transaction: exactly once
                await apply_result(tx, game.record, outcome, now)
            record = await tx.record_move(
                game.record, seat=seat, user_id=user_id, action=text, state=state.to_dict(), now=now,
                status=status, deadline=deadline, remind_at=remind_at,
                places=outcome.places if outcome else None,
            )
        except StaleVersionError:
            raise StaleStateError("The game changed while you were choosing: look at the board again.") from None
        self.timers_changed.set()
        return Game(record, state)

    @staticmethod
    def bot_to_move(game: Game) -> bool:
        seat = game.state.current_player()
        return game.record.status == "active" and seat is not None and game.is_bot(seat)

    async def play_bot_turn(self, game_id: int) -> Game | None:
        """Make one move for the bot seat to move, if any; returns the game after it, or None.

        The bot thinks in a worker thread, without the game's lock, so the event loop and the other
        players stay responsive; its move is then committed under the version guard, and if anything
        happened meanwhile (a resignation, say) it is simply dropped and the caller asks again.
        """
        game = await self.load(game_id)
        if not self.bot_to_move(game):
            return None
        seat = game.state.current_player()
        assert seat is not None
        level = game.record.seats[seat].bot
        assert level is not None
        # Seeded by game and ply so that a bot's choice can be reproduced when investigating a game.
        rng = random.Random(f"{game.id}:{game.record.move_count}")
        action = await asyncio.to_thread(game.state.bot_action, seat, level, rng)
        new_state = game.state.apply(seat, action)
        try:
            async with self._locks.hold(game_id), self.store.transaction() as tx:
                return await self._commit(tx, game, seat, None, action.text(), new_state)
        except StaleStateError:  # read again only once that transaction is closed
            return await self.load(game_id)

    async def games_awaiting_bots(self) -> list[int]:
        """Active games with a bot seat, for resuming bot turns after a restart."""
        return await self.store.active_games_with_bots()

    @staticmethod
    def _turn_timers(
        state: GameState, seats: Sequence[Seat], timeout: float, now: float
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

    async def fire_timer(self, game_id: int) -> tuple[TimerEvent, Game] | None:
        """Expire a challenge, remind the player to move, or forfeit them, whichever is due now."""
        async with self._locks.hold(game_id):
            async with self._editing(game_id) as (tx, game):
                event, game = await self._fire(tx, game)
            return None if event is None else (event, game)

    async def _fire(self, tx: GameTransaction, game: Game) -> tuple[TimerEvent | None, Game]:
        record, now = game.record, self.clock()
        if record.status == "pending" and record.deadline is not None and record.deadline <= now:
            record = await tx.update(record, now=now, status="expired", deadline=None, remind_at=None)
            return TimerEvent.EXPIRED, Game(record, game.state)
        if record.status != "active":
            if record.deadline is not None or record.remind_at is not None:
                record = await tx.update(record, now=now, deadline=None, remind_at=None)
            return None, Game(record, game.state)
        seat = game.state.current_player()
        if record.deadline is not None and record.deadline <= now and seat is not None:
            default = game.state.timeout_action(seat)
            if default is not None:
                decided = await self._commit(tx, game, seat, None, default.text(), game.state.apply(seat, default))
                return TimerEvent.DEFAULTED, decided
            forfeited = await self._commit(tx, game, seat, None, TIMEOUT, game.state.resign(seat, TIMEOUT))
            return TimerEvent.FORFEIT, forfeited
        if record.remind_at is not None and record.remind_at <= now:
            record = await tx.update(record, now=now, remind_at=None)
            return TimerEvent.REMINDER, Game(record, game.state)
        return None, game


def _game(record: GameRecord) -> Game:
    archived = archived_at(record.state)
    if archived is not None:  # its snapshots and moves are in the archive file now (python -m bot.archive)
        ended = record.finished_at or record.updated_at
        raise ServiceError(f"Game #{record.id} ended <t:{int(ended)}:d> and was archived <t:{int(archived)}:d>: "
                           "its moves are no longer kept here, so it cannot be replayed or played. Its result still "
                           "counts in /stats and /history; a bot admin can bring it back from the archive.")
    return Game(record, game_class(record.kind).from_dict(record.state))

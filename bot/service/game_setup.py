"""Setting up games, a part of `GameService` (games.py): creating a game (started, or as a challenge), the messages
that show it, and accepting or declining a challenge."""

from __future__ import annotations

import random
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

from bot.service.deadlines import turn_timers
from bot.service.model import TABLE_OPTIONS, Game, Player, ServiceError, decision_events, present
from bot.service.parts import ServicePart, Shared
from bot.service.results import Result
from bot.service.starts import StartPace, check_server_settings, refuse_second_challenge
from games import GameError, GameState
from games.engines import game_class
from games.registry import describe
from games.text import Command, Text
from storage import GameTransaction, Seat


class GameSetup(ServicePart):
    """Creating games and challenges, and answering a challenge."""

    def __init__(self, shared: Shared, *, turn_timeout: float, challenge_timeout: float) -> None:
        super().__init__(shared)
        self.turn_timeout = turn_timeout  # a game's turn time when neither its creator nor its server chose one
        self.challenge_timeout = challenge_timeout  # how long a challenge waits for its answer
        # Where new games draw their public randomness (who moves first, ...); None: the operating system's.
        # Tests pin it to play the same game twice and compare everything the bot sent.
        self.rng: random.Random | None = None
        self.pace = StartPace()  # how fast each person may start games and tables (starts.py)

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
        message_id: int | None = None,
        actor: int | None = None,
        asked_by: int | None = None,
        tx: GameTransaction | None = None,
    ) -> Result[Any, Any]:
        """A new game. With `challenge`, it waits for the other players to accept; otherwise it starts.
        `actor` is the person who asked for it, by default the first seat's (no one is told of a decision they
        are looking at). `asked_by` is the person whose command or click this is: held to how fast one person may
        start games (starts.py); None for games nobody asked for that way (a benchmark's, a tournament's pairing).
        `turn_timeout` None: the server's turn time (/settings), else the bot's. Every new game passes the server's
        settings here, whoever makes it.
        Inside a caller's transaction `tx` when given (a lobby starting its game, shown on the lobby's message
        `message_id`; a rematch): its computer players have not moved yet, `actor` has no default, and the caller
        tells the timers and publishes the result once it commits."""
        if tx is None and actor is None and players:
            actor = players[0].user_id
        async with nullcontext(tx) if tx is not None else self._store.transaction() as writing:
            options = dict(options or {})
            state = self.new_state(kind, players, options, rng or self.rng)
            # A challenge looks for another between the same people: its transaction begins before that read.
            conn = await writing.writer(read_first=challenge)
            settings = await check_server_settings(conn, kind, guild_id, channel_id)
            if turn_timeout is None:
                turn_timeout = settings.turn_timeout
            timeout = self.turn_timeout if turn_timeout is None else turn_timeout
            if timeout <= 0:
                raise ServiceError(Text("The turn timeout must be positive."))
            now = self._clock()
            if challenge:
                await refuse_second_challenge(writing, kind, players, int(options.get("challenger", 0)), now)
            if asked_by is not None:  # last: only a request that would otherwise be made uses up the allowance
                self.pace.take(asked_by, now)
            seats = [Seat(i, p.user_id, p.computer) for i, p in enumerate(players)]
            deadline: float | None
            remind_at: float | None
            if challenge:
                status, deadline, remind_at = "pending", now + self.challenge_timeout, None
            else:
                status = "active"
                deadline, remind_at = turn_timers(state, seats, timeout, now)
            record = await writing.create(
                kind=kind, guild_id=guild_id, channel_id=channel_id, status=status, state=state.to_dict(),
                seats=seats, options=options, turn_timeout=timeout, deadline=deadline, remind_at=remind_at,
                now=now,
            )
            if message_id is not None:
                record = await writing.update(record, now=now, message_id=message_id)
            game = self._games.written(record, state)
            result = present(game, () if challenge else decision_events(game, actor))
        if tx is not None:
            return result
        self._timers_changed.set()
        return self._publisher.publish(result)

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
            if p.computer is not None and p.computer not in description.bot_levels:
                raise ServiceError(Text("There is no {level} bot for {game}; choose from {levels}.",
                                        level=repr(p.computer), game=description.title,
                                        levels=", ".join(description.bot_levels)))
        rules = {k: v for k, v in options.items() if k not in TABLE_OPTIONS}
        try:
            return game_class(kind).new(len(players), rules, rng or random.SystemRandom())
        except GameError as exc:  # its reason as raised: a Text is translated where it is shown
            raise ServiceError(exc.args[0] if exc.args else str(exc)) from None

    async def set_message(self, game_id: int, message_id: int) -> Result[Any, Any]:
        """Remember which channel message shows the game (set once the bot has posted it)."""
        async with self._locks.hold(game_id), self._games.editing(game_id, read_first=True) as (tx, game):
            record = await self._games.update(tx, game.record, message_id=message_id)
            return present(Game(record, game.state))

    async def set_thread(self, game_id: int, thread_id: int, message_id: int | None = None) -> Result[Any, Any]:
        """Remember the game's thread; with `message_id`, that the game is shown by that message, posted in the thread
        (both at once: the message is looked for where the game says it is)."""
        changes: dict[str, Any] = {"thread_id": thread_id}
        if message_id is not None:
            changes["message_id"] = message_id
        async with self._locks.hold(game_id), self._games.editing(game_id, read_first=True) as (tx, game):
            return present(Game(await self._games.update(tx, game.record, **changes), game.state))

    # ----- challenges -------------------------------------------------------------------------------------
    async def accept(self, game_id: int, user_id: int, message_id: int | None = None) -> Result[Any, Any]:
        """The challenged player accepts; `message_id` (the message Accept was on) becomes the game's message if
        it has none yet (the bot stopped right after posting the challenge, before it could store its id)."""
        async with self._locks.hold(game_id):
            async with self._games.editing(game_id) as (tx, game):
                self._check_can_accept(game, user_id)
                # Accepting starts the game: the server's settings as they are now (not as when it was sent).
                record = game.record
                await check_server_settings(await tx.writer(), record.kind, record.guild_id, record.channel_id)
                now = self._clock()
                deadline, remind_at = turn_timers(game.state, game.record.seats, game.record.turn_timeout, now)
                changes: dict[str, Any] = {"status": "active", "deadline": deadline, "remind_at": remind_at}
                if game.record.message_id is None and message_id is not None:
                    changes["message_id"] = message_id
                record = await self._games.update(tx, game.record, **changes)
            self._timers_changed.set()
            started = Game(record, game.state)
            return self._publisher.publish(present(started, decision_events(started, user_id)))

    async def decline(self, game_id: int, user_id: int) -> Result[Any, Any]:
        """The challenged player declines, or the challenger withdraws."""
        async with self._locks.hold(game_id), self._games.editing(game_id) as (tx, game):
            self._require_pending(game)
            if game.seat_of(user_id) is None:
                raise ServiceError(Text("This challenge is not yours to decline."))
            record = await self._games.update(tx, game.record, status="declined", deadline=None, remind_at=None)
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

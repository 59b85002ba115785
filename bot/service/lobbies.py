"""Lobbies for games of 3 or more seats: the host opens one, players join or leave, bots fill seats, the
host starts it. Like games, lobbies live in the database and survive restarts."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, nullcontext
from dataclasses import replace
from typing import Any

from bot.service.finishing import may_join
from bot.service.games import GameService
from bot.service.model import Player, ServiceError
from bot.service.results import GameStarted, Result
from bot.service.starts import check_server_settings
from games.registry import describe
from games.text import Text, TextIn
from storage import GameTransaction, StaleVersionError
from storage.finishing import read_finishing
from storage.lobbies import (
    LobbyNotFoundError,
    LobbyRecord,
    Member,
    create_lobby,
    load_lobby,
    message_of_game,
    set_members,
    update_lobby,
)
from storage.ratings import GLOBAL

LOBBY_TIMEOUT = 60 * 60.0  # an open lobby closes itself after an hour


class LobbyService:
    def __init__(self, games: GameService, lobby_timeout: float = LOBBY_TIMEOUT) -> None:
        self.games = games
        self.lobby_timeout = lobby_timeout

    async def open(
        self,
        kind: str,
        *,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        max_players: int,
        options: dict[str, Any],
        turn_timeout: float | None = None,
        bots: Sequence[str] = (),
        min_finished: int | None = None,
        tx: GameTransaction | None = None,
    ) -> LobbyRecord:
        """A new open lobby with its host seated, and computer players of the levels `bots` after them (a rematch
        keeps its computer seats), all in one write: nobody can join in between and find the seats changed. The host
        asked for it: it passes the server's settings and counts towards how fast one person may start games
        (starts.py). `turn_timeout` None: the server's turn time (/settings), else the bot's. `min_finished`: the share
        of their games (percent) a person must have finished to join (`may_join`), None: anyone may. Inside a caller's
        transaction `tx` when given (a rematch records the lobby it opened in the same write): the caller then tells
        the timers once it commits."""
        async with nullcontext(tx) if tx is not None else self.games.store.transaction() as writing:
            game = describe(kind)
            if not game.min_players <= max_players <= game.max_players:
                raise ServiceError(Text("{game} is for {low} to {high} players.", game=game.title, low=game.min_players,
                                        high=game.max_players))
            if 1 + len(bots) > max_players:
                raise ServiceError(Text("{bots} computer players and the host do not fit in {seats} seats.",
                                        bots=len(bots), seats=max_players))
            # Refuse impossible rules now, not when everyone has joined.
            GameService.new_state(kind, [Player(computer=game.bot_levels[0])] * max_players, options)
            conn = await writing.writer()
            settings = await check_server_settings(conn, kind, guild_id, channel_id)
            if turn_timeout is None:
                turn_timeout = settings.turn_timeout
            timeout = self.games.turn_timeout if turn_timeout is None else turn_timeout
            now = self.games.clock()
            self.games.pace.take(host_id, now)  # last: only a lobby that would otherwise open uses up the allowance
            lobby = await create_lobby(
                conn, kind=kind, guild_id=guild_id, channel_id=channel_id, host_id=host_id,
                max_players=max_players, options=options, turn_timeout=timeout, deadline=now + self.lobby_timeout,
                now=now, min_finished=min_finished,
            )
            if bots:
                lobby = await set_members(conn, lobby, [*lobby.members, *(Member(None, b) for b in bots)])
        if tx is None:
            self.games.timers_changed.set()
        return lobby

    async def load(self, lobby_id: int) -> LobbyRecord:
        async with self._editing(lobby_id) as (_tx, lobby):
            return lobby

    async def join(self, lobby_id: int, user_id: int) -> LobbyRecord:
        async with self._editing(lobby_id) as (tx, lobby):
            _require_open(lobby)
            if lobby.has_user(user_id):
                raise ServiceError(Text("You are already in this lobby."))
            if len(lobby.members) >= lobby.max_players:
                raise ServiceError(Text("This lobby is full."))
            conn = await tx.writer()
            if lobby.min_finished is not None:
                # The person's record across every server: a table asks how they keep to games, wherever played.
                refusal = may_join(await conn.run(read_finishing(GLOBAL, user_id)), lobby.min_finished)
                if refusal is not None:
                    raise ServiceError(refusal)
            return await set_members(conn, lobby, [*lobby.members, Member(user_id)])

    async def leave(self, lobby_id: int, user_id: int) -> LobbyRecord:
        """A player leaves; when the host leaves, the lobby closes."""
        async with self._editing(lobby_id) as (tx, lobby):
            _require_open(lobby)
            if not lobby.has_user(user_id):
                raise ServiceError(Text("You are not in this lobby."))
            if user_id == lobby.host_id:
                return await update_lobby(await tx.writer(), lobby, status="cancelled", deadline=None)
            return await set_members(await tx.writer(), lobby, [m for m in lobby.members if m.user_id != user_id])

    async def add_computer_player(self, lobby_id: int, user_id: int, level: str) -> LobbyRecord:
        async with self._editing(lobby_id) as (tx, lobby):
            _require_open(lobby)
            _require_host(lobby, user_id, Text("add bots"))
            if level not in describe(lobby.kind).bot_levels:
                raise ServiceError(Text("There is no {level} bot.", level=repr(level)))
            if len(lobby.members) >= lobby.max_players:
                raise ServiceError(Text("This lobby is full."))
            return await set_members(await tx.writer(), lobby, [*lobby.members, Member(None, level)])

    async def remove_computer_player(self, lobby_id: int, user_id: int) -> LobbyRecord:
        """Take the most recently added bot out again."""
        async with self._editing(lobby_id) as (tx, lobby):
            _require_open(lobby)
            _require_host(lobby, user_id, Text("remove bots"))
            bots = [i for i, m in enumerate(lobby.members) if m.bot is not None]
            if not bots:
                raise ServiceError(Text("There is no bot in this lobby."))
            members = [m for i, m in enumerate(lobby.members) if i != bots[-1]]
            return await set_members(await tx.writer(), lobby, members)

    async def start(
        self, lobby_id: int, user_id: int, rng: random.Random | None = None, message_id: int | None = None
    ) -> tuple[LobbyRecord, Result[Any, Any]]:
        """The host starts the game with everyone seated, in join order. `message_id` is the message the Start
        button was on: the game's message if the lobby never got to store its own (a crash right after posting)."""
        async with self._editing(lobby_id) as (tx, lobby):
            _require_open(lobby)
            _require_host(lobby, user_id, Text("start the game"))
            minimum = describe(lobby.kind).min_players
            if len(lobby.members) < minimum:
                raise ServiceError(Text("At least {minimum} players are needed: wait for someone to join, or add a "
                                        "bot.", minimum=minimum))
            players = [Player(m.user_id, m.bot) for m in lobby.members]
            shown_on = lobby.message_id if lobby.message_id is not None else message_id
            game = await self.games.create(
                lobby.kind, guild_id=lobby.guild_id, channel_id=lobby.channel_id, players=players,
                options=lobby.options, turn_timeout=lobby.turn_timeout, rng=rng, message_id=shown_on, tx=tx,
            )
            lobby = await update_lobby(await tx.writer(), lobby, status="started", game_id=game.id, deadline=None)
        self.games.timers_changed.set()
        # Everyone seated is told the game has begun (the first decider by the same message).
        started = GameStarted(tuple(m.user_id for m in lobby.members if m.user_id is not None))
        return lobby, self.games.publish(replace(game, events=(started, *game.events)))

    async def set_message(self, lobby_id: int, message_id: int) -> LobbyRecord:
        async with self._editing(lobby_id) as (tx, lobby):
            return await update_lobby(await tx.writer(), lobby, message_id=message_id)

    async def message_of_game(self, game_id: int) -> int | None:
        """The message of the lobby that started game `game_id`, if one did (that game's summary in the channel)."""
        return await self.games.db.query(message_of_game(game_id))

    async def expire(self, lobby_id: int) -> LobbyRecord | None:
        """Close an open lobby whose time is up; None if it is not (any longer) due."""
        async with self._editing(lobby_id) as (tx, lobby):
            if lobby.deadline is None or lobby.deadline > self.games.clock():
                return None
            status = "expired" if lobby.status == "open" else lobby.status
            return await update_lobby(await tx.writer(), lobby, status=status, deadline=None)

    async def due(self) -> list[int]:
        return await self.games.store.due_lobbies(self.games.clock())

    @asynccontextmanager
    async def _editing(self, lobby_id: int) -> AsyncIterator[tuple[GameTransaction, LobbyRecord]]:
        async with self.games.store.transaction() as tx:
            try:
                # Lobby changes are rare: read and write them inside one write transaction that begins before the
                # read, so a join from another process waits for this one instead of being refused as stale.
                lobby = await load_lobby(await tx.writer(read_first=True), lobby_id)
            except LobbyNotFoundError:
                raise ServiceError(Text("There is no table #{number}.", number=lobby_id)) from None
            try:
                yield tx, lobby
            except StaleVersionError:
                raise ServiceError(Text("The lobby changed at the same moment; try again.")) from None


def _require_open(lobby: LobbyRecord) -> None:
    if lobby.status == "started":
        raise ServiceError(Text("This lobby's game has already started."))
    if lobby.status != "open":
        raise ServiceError(Text("This lobby is closed (it was {status}).", status={
            "expired": TextIn("lobby status", "expired"),
            "cancelled": TextIn("lobby status", "cancelled")}.get(lobby.status, lobby.status)))


def _require_host(lobby: LobbyRecord, user_id: int, what: Text) -> None:
    """`what` reads "Only the host (<@…>) can {what}." in every language."""
    if user_id != lobby.host_id:
        raise ServiceError(Text("Only the host (<@{host}>) can {what}.", host=lobby.host_id, what=what))

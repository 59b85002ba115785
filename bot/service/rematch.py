"""Rematches: the same rules and the same people, the first player rotated, and everyone agreeing to play again.

Against computer players only, the game starts at once. Two people: a challenge the other accepts, sent by whoever
asked. A table of three or more people: a lobby with the same rules, its computer seats already taken, that the others
join. One rematch per finished game at a time: while the one it made waits for an answer or is played, a later click
(by anyone) is pointed to it. Like any new game, a rematch passes the
server's settings as they are now and counts towards how fast its asker may start games (starts.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.service.games import GameService
from bot.service.lobbies import LobbyService
from bot.service.model import REMATCH_OF, TOURNAMENT, Player, ServiceError
from bot.service.results import Result
from bot.service.starts import message_link
from games.text import Text
from storage import GameNotFoundError, GameTransaction
from storage.database import Connection
from storage.lobbies import LobbyRecord, load_lobby, min_finished_of_game
from storage.rematches import MadeRematch, record_rematch, rematch_of


@dataclass(frozen=True)
class Offered:
    """What a rematch became: a new game (started, or a challenge) or a lobby; `invited` are asked to accept."""

    game: Result[Any, Any] | None
    lobby: LobbyRecord | None
    invited: tuple[int, ...]


class Rematch:
    def __init__(self, games: GameService, lobbies: LobbyService) -> None:
        self.games = games
        self.lobbies = lobbies

    async def offer(self, game_id: int, user_id: int) -> Offered:
        """The rematch of finished game `game_id` that `user_id` asks for: at most one waits for an answer or is played
        at a time, whoever asks (a later Rematch is refused with a link to it, in the same write that would make
        another: two clicks at once, by one process or two, cannot both make one)."""
        old = (await self.games.view(game_id)).game
        if old.seat_of(user_id) is None:
            raise ServiceError(Text("Only the players of this game can ask for a rematch."))
        if old.status != "finished":
            raise ServiceError(Text("A rematch is for games that are over."))
        if old.options.get(TOURNAMENT) is not None:  # a rematch would carry it, and count as the tournament's game
            raise ServiceError(Text("Tournament #{number} decides who plays whom, so its games have no rematch; "
                                    "challenge them again outside it.", number=old.options[TOURNAMENT]))
        # The first player rotates: everyone moves one seat up, the first goes last.
        seats = [*old.seats[1:], old.seats[0]]
        people = [s.user_id for s in seats if s.user_id is not None]
        others = tuple(u for u in people if u != user_id)
        options = {k: v for k, v in old.options.items() if k not in ("challenger", REMATCH_OF)}
        options[REMATCH_OF] = old.id  # a table option: the challenge is worded as a rematch
        async with self.games.store.transaction() as tx:
            conn = await tx.writer(read_first=True)
            await _refuse_another(tx, conn, old.id, user_id)
            now = self.games.clock()
            if len(seats) > 2 and others:
                # Its computer seats are taken as it opens, in the same write (a later write could lose a race with a
                # join from another process).
                # It asks of who joins what the table it replays asked (its players met that; a newcomer must too).
                lobby = await self.lobbies.open(
                    old.kind, guild_id=old.guild_id, channel_id=old.channel_id, host_id=user_id,
                    max_players=len(seats), options=options, turn_timeout=old.turn_timeout,
                    bots=[s.computer for s in old.seats if s.computer is not None],
                    min_finished=await conn.run(min_finished_of_game(old.id)), tx=tx)
                await record_rematch(conn, old.id, MadeRematch(None, lobby.id), now)
                made: Offered = Offered(None, lobby, others)
            else:
                players = [Player(s.user_id, s.computer) for s in seats]
                if others:  # two people: the one who asked challenges the other
                    options["challenger"] = next(i for i, s in enumerate(seats) if s.user_id == user_id)
                game = await self.games.create(
                    old.kind, guild_id=old.guild_id, channel_id=old.channel_id, players=players, options=options,
                    challenge=bool(others), turn_timeout=old.turn_timeout, actor=user_id, asked_by=user_id, tx=tx)
                await record_rematch(conn, old.id, MadeRematch(game.id, None), now)
                made = Offered(game, None, others)
        self.games.timers_changed.set()
        if made.game is not None:
            self.games.publish(made.game)
        return made


async def _refuse_another(tx: GameTransaction, conn: Connection, game_id: int, user_id: int) -> None:
    """Refuse a second rematch of game `game_id` while the one it made waits for an answer or is played, with a link
    to it, worded for `user_id` who asked again: the one it asks is told to answer it."""
    found = await rematch_of(conn, game_id)
    if found is None:
        return
    if found.lobby_id is not None:
        lobby = await load_lobby(conn, found.lobby_id)
        if lobby.status == "open":
            where = _where(lobby.guild_id, lobby.channel_id, lobby.message_id)
            raise ServiceError(Text("This game's rematch already has a table waiting for its players: {where}. Join "
                                    "it there.", where=where))
        if lobby.status != "started" or lobby.game_id is None:
            return
        game_id = lobby.game_id
    elif found.game_id is not None:
        game_id = found.game_id
    else:
        return
    try:
        game = await tx.load(game_id)
    except GameNotFoundError:
        return
    where = _where(game.guild_id, game.channel_id, game.message_id)
    if game.status == "pending":
        asker = game.seats[int(game.options.get("challenger", 0))].user_id
        if asker is not None and asker != user_id and game.seat_of(user_id) is not None:
            raise ServiceError(Text("{asker} already asks you for a rematch: {where}. Accept or decline it there.",
                                    asker=f"<@{asker}>", where=where))
        raise ServiceError(Text("This game's rematch already waits for an answer: {where}.", where=where))
    if game.status == "active":
        raise ServiceError(Text("This game's rematch is being played: {where}.", where=where))


def _where(guild_id: int | None, channel_id: int, message_id: int | None) -> str:
    return message_link(guild_id, channel_id, message_id) if message_id is not None else f"<#{channel_id}>"

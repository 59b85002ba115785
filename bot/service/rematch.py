"""Rematches: the same rules and the same people, the first player rotated, and everyone agreeing to play again.

Against computer players only, the game starts at once. Two people: a challenge the other accepts (or, while a
challenge between them for this game waits for an answer, a pointer to it). A table of three or more people: a lobby
with the same rules, its computer seats already taken, that the others join. Like any new game, a rematch passes the
server's settings as they are now and counts towards how fast its asker may start games (starts.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.service.games import GameService, Player, ServiceError
from bot.service.lobbies import LobbyService
from bot.service.results import Result
from games.text import Text
from storage.lobbies import LobbyRecord


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
        old = (await self.games.view(game_id)).game
        if old.seat_of(user_id) is None:
            raise ServiceError(Text("Only the players of this game can ask for a rematch."))
        if old.status != "finished":
            raise ServiceError(Text("A rematch is for games that are over."))
        # The first player rotates: everyone moves one seat up, the first goes last.
        seats = [*old.seats[1:], old.seats[0]]
        people = [s.user_id for s in seats if s.user_id is not None]
        others = tuple(u for u in people if u != user_id)
        options = {k: v for k, v in old.options.items() if k != "challenger"}
        if len(seats) > 2 and others:
            # Its computer seats are taken as it opens, in the same write (a later write could lose a race with a
            # join from another process).
            lobby = await self.lobbies.open(
                old.kind, guild_id=old.guild_id, channel_id=old.channel_id, host_id=user_id,
                max_players=len(seats), options=options, turn_timeout=old.turn_timeout,
                bots=[s.bot for s in old.seats if s.bot is not None])
            return Offered(None, lobby, others)
        players = [Player(s.user_id, s.bot) for s in seats]
        if others:  # two people: the one who asked challenges the other
            options["challenger"] = next(i for i, s in enumerate(seats) if s.user_id == user_id)
        game = await self.games.create(
            old.kind, guild_id=old.guild_id, channel_id=old.channel_id, players=players, options=options,
            challenge=bool(others), turn_timeout=old.turn_timeout, actor=user_id, asked_by=user_id)
        return Offered(game, None, others)

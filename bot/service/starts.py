"""What a new game or table must pass before it is made, whichever way it comes (a command, a Rematch, a lobby's
Start, a challenge accepted, a tournament's pairing later): one place for each rule, called by the service's
creating code (game_setup.py, lobbies.py), never by the Discord layer.

- `check_server_settings`: the server's admins may have switched the game off or chosen one channel for games
  (/settings). Every start passes it, including a lobby opened or a challenge sent before the admins changed them.
- `refuse_second_challenge`: one challenge between the same two people per game kind waits for an answer at a time;
  another is refused and told where the first one is.
- `StartPace`: how fast one person may start games and tables (commands, rematches, lobbies), so that nobody can
  make the bot ping others, or fill the database, without limit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from bot.service.model import Player, ServiceError
from games.registry import describe
from games.text import Command, Text
from storage.challenges import pending_between
from storage.database import Connection
from storage.games import GameTransaction
from storage.server_settings import ServerSettings, settings_in

# One person may start this many games or tables at once, then one more every START_EVERY seconds (their allowance
# refills at that pace up to the burst again): 5 at once, then 5 a minute. Far above what anyone plays, far below a
# flood of pings.
START_BURST = 5
START_EVERY = 12.0
# People whose pace is remembered before the memory is swept of those whose allowance is full again (which is the
# same as not being remembered at all): the memory stays bounded by the people starting games in the last minute.
PACE_SWEEP = 10_000


async def check_server_settings(conn: Connection, kind: str, guild_id: int | None,
                                channel_id: int) -> ServerSettings:
    """The server's settings, if they let a game of `kind` start in `channel_id` now (refused otherwise, in the same
    words whichever way the game was to start). Read in the transaction that makes the game."""
    if guild_id is None:  # a direct message: no server, no admins' settings
        return ServerSettings(0)
    settings = await settings_in(conn, guild_id)
    if kind in settings.disabled_games:
        raise ServiceError(Text("{game} is switched off on this server: an admin can switch it back on with {command}.",
                                game=describe(kind).title, command=Command("settings game")))
    if settings.channel_id is not None and channel_id != settings.channel_id:
        raise ServiceError(Text("New games start in <#{channel}> on this server.", channel=settings.channel_id))
    return settings


async def refuse_second_challenge(tx: GameTransaction, kind: str, players: Sequence[Player], challenger: int,
                                  now: float) -> None:
    """Refuse a challenge between two people while another of the same kind between them waits for an answer
    (whoever sent it), saying where that one is. `challenger` is the seat that sends the new one. The caller's
    transaction must have begun before this read (`read_first`)."""
    people = [p.user_id for p in players if p.user_id is not None]
    if len(people) != 2 or players[challenger].user_id is None:
        return
    sender = players[challenger].user_id
    assert sender is not None
    other = next(u for u in people if u != sender)
    found = await pending_between(await tx.writer(read_first=True), kind, sender, other, now)
    if found is None:
        return
    pending = await tx.load(found)
    game = describe(kind).title
    where = (message_link(pending.guild_id, pending.channel_id, pending.message_id)
             if pending.message_id is not None else f"<#{pending.channel_id}>")
    if pending.seats[int(pending.options.get("challenger", 0))].user_id == sender:
        raise ServiceError(Text("You have already challenged <@{opponent}> to {game}, and it waits for an answer: "
                                "{where}. Wait for it, or withdraw it there with Decline before sending another.",
                                opponent=other, game=game, where=where))
    raise ServiceError(Text("<@{challenger}> has already challenged you to {game}: {where}. Accept or decline it "
                            "there.", challenger=other, game=game, where=where))


def message_link(guild_id: int | None, channel_id: int, message_id: int) -> str:
    """A link that opens a message in Discord (a challenge's, for the refusal that points to it)."""
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


class StartPace:
    """How fast each person may start games and tables in this process: `burst` at once, then one every `every`
    seconds (a token bucket, kept as the moment each person's allowance is full again: GCRA).

    Per process, in memory: a person's commands and clicks on one server always reach the process of that server's
    shard, so with several processes only someone playing on servers of different shards gets more (README). A
    restart forgets it, which gives nobody more than one extra burst."""

    def __init__(self, burst: int = START_BURST, every: float = START_EVERY) -> None:
        self.burst = burst
        self.every = every
        self._full_at: dict[int, float] = {}  # person -> when their allowance is whole again
        self._sweep_at = PACE_SWEEP

    def __len__(self) -> int:
        """How many people it remembers."""
        return len(self._full_at)

    def take(self, user_id: int, now: float) -> None:
        """Use one start of `user_id`'s allowance, or refuse, saying when the next one is allowed."""
        full_at = max(self._full_at.get(user_id, now), now)
        tolerance = (self.burst - 1) * self.every  # how far ahead of now the allowance may be used up
        if full_at - now > tolerance:
            retry = full_at - tolerance
            raise ServiceError(Text("You are starting games too fast: you can start another one <t:{when}:R>.",
                                    when=math.ceil(retry)))
        self._full_at[user_id] = full_at + self.every
        if len(self._full_at) > self._sweep_at:
            self._full_at = {user: at for user, at in self._full_at.items() if at > now}
            self._sweep_at = max(PACE_SWEEP, 2 * len(self._full_at))

"""The end of a game: one public message, replying to the board, that mentions its players and says how it went.

The result in words and how it ended (the presenter's `ending_line`), each person's rating before → after, the
game's length (and, for a game of a tournament, which one), and Rematch / Replay buttons (a tournament's game has no
Rematch: the tournament decides who plays whom). An edit of the board notifies nobody; this message does.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import discord

from bot.components import Button, CustomId, persistent_controls
from bot.i18n import Say
from bot.presenter import GamePresenter
from bot.service import TOURNAMENT, TOURNAMENT_ROUND, GameEnded, RatingChange, Result, ServiceError
from bot.service.rematch import Rematch
from bot.service.timers import Fence
from bot.words import duration
from games.text import Plural, Text, TextIn
from storage.ratings import GLOBAL

log = logging.getLogger(__name__)
COLOUR = discord.Colour.from_rgb(241, 196, 15)


async def announce_ending(presenter: GamePresenter, result: Result[Any, Any], ended: GameEnded, *,
                          fence: Fence | None = None) -> None:
    """Send the ending message; with `fence` (an ending the timer loop announces), only if it still holds right before
    the message leaves (bot/service/timers.py)."""
    game = result.game
    people = [s.user_id for s in game.seats if s.user_id is not None]
    say = await presenter.public_say(result)
    lines = [presenter.ending_line(result), "", *_ratings(presenter, result, ended), _length(result),
             *_tournament(game.options)]
    embed = discord.Embed(title=say(Text("{game} #{number} is over", game=presenter.title, number=game.id)),
                          description="\n".join(say(line) for line in lines)[:4096], colour=COLOUR)
    extra = await presenter.ending_board(result)
    files: list[discord.File] = []
    embeds = [embed]
    if extra is not None:
        embeds.append(extra.embed)
        files = extra.attachments()
    channel = presenter.channel(result)  # where the board is (So Long Sucker: its table's thread)
    # A reply to the board, if it was ever posted (a tournament's round is made without one: its games may end
    # first). No reply is None, send's own default (its typing leaves None out); MISSING it refuses.
    reference = (discord.MessageReference(message_id=game.message_id, channel_id=channel.id,
                                          fail_if_not_exists=False) if game.message_id is not None else None)
    if fence is not None and not await fence():
        return
    await channel.send(
        " ".join(f"<@{u}>" for u in people) or None, embeds=embeds, files=files,
        view=ending_controls(game.id, say, game.options), reference=reference,  # type: ignore[arg-type]
        allowed_mentions=discord.AllowedMentions(users=[discord.Object(u) for u in people], replied_user=False))
    await presenter.ending_sent(result)


def ending_controls(game_id: int, say: Say, options: Mapping[str, Any]) -> discord.ui.View:
    """Rematch and Replay under a finished game (`options`: the game's); Replay only for a game of a tournament."""
    replay = ReplayFromStartButton.of(game=game_id, label=say(TextIn("button", "Replay")),
                                      style=discord.ButtonStyle.secondary)
    if options.get(TOURNAMENT) is not None:
        return persistent_controls(replay)
    return persistent_controls(
        RematchButton.of(game=game_id, label=say(TextIn("button", "Rematch")), style=discord.ButtonStyle.primary),
        replay)


def _tournament(options: Mapping[str, Any]) -> list[Text]:
    tournament, round_number = options.get(TOURNAMENT), options.get(TOURNAMENT_ROUND)
    if tournament is None:
        return []
    if round_number is None:  # a game made before games knew their round
        return [Text("A game of tournament #{number}.", number=tournament)]
    return [Text("A game of round {round} of tournament #{number}.", round=round_number, number=tournament)]


def _ratings(presenter: GamePresenter, result: Result[Any, Any], ended: GameEnded) -> list[Text | str]:
    """Each person's rating before → after on this server's ladder (the global one in a DM)."""
    scope = result.game.guild_id or GLOBAL
    shown = [c for c in ended.rating_changes if c.scope == scope]
    if not shown:
        if any(s.computer for s in result.game.seats):
            return [Text("Not rated: games against me are not rated.")]
        return [Text("Not rated: it ended before it really began.")]
    return [Text("**Ratings**"), *(_rating_line(c) for c in shown)]


def _rating_line(change: RatingChange) -> Text | str:
    delta = change.after - change.before
    sign = "+" if delta >= 0 else "-"
    line = f"<@{change.user_id}>: {change.before} → {change.after} ({sign}{abs(delta)})"
    return Text("{line} (provisional)", line=line) if change.provisional else line


def _length(result: Result[Any, Any]) -> Text:
    game = result.game
    seconds = max(0.0, (game.finished_at or game.updated_at) - game.created_at)
    return Plural("{count} move in {time}.", "{count} moves in {time}.", game.moves_of_play,
                  time=duration(_rounded(seconds)))


def _rounded(seconds: float) -> float:
    """A game's length to the second under a minute, to the minute under an hour."""
    if seconds < 60:
        return int(seconds)
    return seconds - seconds % 60 if seconds < 3600 else seconds


class RematchButton(Button, custom_id=CustomId("rm:{game}")):
    """Same rules and players, the first player rotated; the others accept (a single click against the bot)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        client: Any = interaction.client
        info = await client.service.info(self.game_id)
        presenter: GamePresenter = client.presenter(info.kind)
        if info.guild_id != interaction.guild_id:
            raise ServiceError(Text("This game was played on another server; start a rematch there."))
        if info.channel_id != interaction.channel_id:
            # The rematch is posted where it is asked for but belongs to the old game's channel, where every later
            # redraw of it would look for its message (and not find it).
            raise ServiceError(Text("Ask for the rematch in <#{channel}>, where the game was played.",
                                    channel=info.channel_id))
        rematch: Rematch = client.rematch
        offered = await rematch.offer(self.game_id, interaction.user.id)
        if offered.lobby is not None:
            from bot.lobby import post_lobby  # the lobby module's embed and buttons

            await post_lobby(interaction, offered.lobby, presenter, mention=offered.invited)
            return
        assert offered.game is not None
        await presenter.post_game(interaction, offered.game, mention=offered.invited)


class ReplayFromStartButton(Button, custom_id=CustomId("rps:{game}")):
    """Step through the finished game from its first move, privately."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog("Replay")
        if cog is None:
            raise ServiceError(Text("Replays are not available on this bot right now."))
        await cog.send_frame(interaction, self.game_id, 0)

"""The end of a game: one public message, replying to the board, that mentions its players and says how it went.

The result in words and how it ended (the presenter's `ending_line`), each person's rating before → after, the
game's length, and Rematch / Replay buttons. An edit of the board notifies nobody; this message does.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.components import Button, CustomId
from bot.presenter import GamePresenter
from bot.service import GameEnded, RatingChange, Result, ServiceError
from bot.service.rematch import Rematch
from storage.ratings import GLOBAL

log = logging.getLogger(__name__)
COLOUR = discord.Colour.from_rgb(241, 196, 15)


async def announce_ending(presenter: GamePresenter, result: Result[Any, Any], ended: GameEnded) -> None:
    game = result.game
    people = [s.user_id for s in game.seats if s.user_id is not None]
    lines = [presenter.ending_line(result), "", *_ratings(presenter, result, ended), _length(result)]
    embed = discord.Embed(title=f"{presenter.title} #{game.id} is over", description="\n".join(lines)[:4096],
                          colour=COLOUR)
    extra = await presenter.ending_board(result)
    files: list[discord.File] = []
    embeds = [embed]
    if extra is not None:
        embeds.append(extra.embed)
        files = extra.attachments()
    reference = (discord.MessageReference(message_id=game.message_id, channel_id=game.channel_id,
                                          fail_if_not_exists=False) if game.message_id is not None else None)
    await presenter.channel(result).send(
        " ".join(f"<@{u}>" for u in people) or None, embeds=embeds, files=files, view=ending_view(game.id),
        reference=reference or discord.utils.MISSING,
        allowed_mentions=discord.AllowedMentions(users=[discord.Object(u) for u in people], replied_user=False))


def ending_view(game_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(RematchButton.of(game=game_id, label="Rematch", style=discord.ButtonStyle.primary))
    view.add_item(ReplayFromStartButton.of(game=game_id, label="Replay", style=discord.ButtonStyle.secondary))
    return view


def _ratings(presenter: GamePresenter, result: Result[Any, Any], ended: GameEnded) -> list[str]:
    """Each person's rating before → after on this server's ladder (the global one in a DM)."""
    scope = result.game.guild_id or GLOBAL
    shown = [c for c in ended.rating_changes if c.scope == scope]
    if not shown:
        why = ("games against me are not rated" if any(s.bot for s in result.game.seats)
               else "it ended before it really began")
        return [f"Not rated: {why}."]
    return ["**Ratings**", *(_rating_line(c) for c in shown)]


def _rating_line(change: RatingChange) -> str:
    delta = change.after - change.before
    sign = "+" if delta >= 0 else "-"
    provisional = " (provisional)" if change.provisional else ""
    return f"<@{change.user_id}>: {change.before} → {change.after} ({sign}{abs(delta)}){provisional}"


def _length(result: Result[Any, Any]) -> str:
    game = result.game
    moves = game.move_count
    seconds = max(0.0, (game.finished_at or game.updated_at) - game.created_at)
    return f"{moves} move{'' if moves == 1 else 's'} in {_duration(seconds)}."


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{int(seconds)} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min"
    if seconds < 86400:
        return f"{seconds / 3600:.1f} h".replace(".0 h", " h")
    return f"{seconds / 86400:.1f} days".replace(".0 days", " days")


class RematchButton(Button, custom_id=CustomId("rm:{game}")):
    """Same rules and players, the first player rotated; the others accept (a single click against the bot)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        client: Any = interaction.client
        info = await client.service.info(self.game_id)
        presenter: GamePresenter = client.presenter(info.kind)
        if info.guild_id != interaction.guild_id:
            raise ServiceError("This game was played on another server; start a rematch there.")
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
            raise ServiceError("Replays are not available on this bot right now.")
        await cog.send_frame(interaction, self.game_id, 0)

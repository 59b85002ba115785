"""/replay: step through a stored game, position by position, rebuilt from its move log by the service.

What a frame may show is the service's decision (a hidden-information game shows ranks only once it is over; a
secret setup is one step, frame 0, before the moves of play); how it looks is the game's presenter's (`replay_board`;
by default its `replay_embed`). A replay is private; a player of a finished
game may post it to the channel, where its step buttons work for anyone.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.components import Button, CustomId
from bot.presenter import Board, GamePresenter
from bot.service import ReplayFrame, Result, ServiceError
from games.base import DRAW_AGREED, RESIGN, TIMEOUT

# What a logged meta action (not a move of the game's own) reads as after the player's name.
_META_WORDS = {RESIGN: "resigned", TIMEOUT: "ran out of time", DRAW_AGREED: "agreed to a draw"}


def _cog(interaction: discord.Interaction[Any]) -> ReplayCog:
    cog = interaction.client.get_cog(ReplayCog.__cog_name__)
    if not isinstance(cog, ReplayCog):
        raise ServiceError("Replays are not available on this bot right now.")
    return cog


# The last part tells the four buttons apart: custom ids in one message must differ even when two buttons
# lead to the same move (first and previous, at move 1).
class ReplayButton(Button, custom_id=CustomId("rp:{game}:{ply}:{which}", game=r"[0-9]{1,18}", which=r"[fpnl]")):
    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        # A posted replay is a channel message: it steps for anyone, and offers no second posting.
        public = interaction.message is not None and not interaction.message.flags.ephemeral
        board = await _cog(interaction).frame(self.game_id, self.ply, public=public)
        await interaction.response.edit_message(content=board.content, embed=board.embed, view=board.view,
                                                attachments=board.attachments(),
                                                allowed_mentions=discord.AllowedMentions.none())


class PostReplayButton(Button, custom_id=CustomId("rpp:{game}:{ply}", game=r"[0-9]{1,18}")):
    """Post this frame of a finished game's replay to the channel, for a player of that game."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        cog = _cog(interaction)
        game = await cog.bot.service.info(self.game_id)
        if game.finished_at is None:
            raise ServiceError(f"Game #{self.game_id} is not over yet: its replay can be posted once it has ended.")
        if game.seat_of(interaction.user.id) is None:
            raise ServiceError(f"Only the players of game #{self.game_id} can post its replay; you can still "
                               "step through it here.")
        board = await cog.frame(self.game_id, self.ply, public=True)
        await interaction.response.send_message(content=board.content, embed=board.embed,
                                                view=board.view or discord.utils.MISSING, files=board.attachments(),
                                                allowed_mentions=discord.AllowedMentions.none())


class ReplayCog(commands.Cog, name="Replay"):
    def __init__(self, bot: Any) -> None:
        self.bot = bot

    @app_commands.command(name="replay", description="Step through a game move by move")
    @app_commands.describe(game="The game's number (see /history)", move="Start at this move (default: the end)")
    async def replay(self, interaction: discord.Interaction[Any], game: int,
                     move: app_commands.Range[int, 0, 100000] | None = None) -> None:
        await self.send_frame(interaction, game, move)

    async def send_frame(self, interaction: discord.Interaction[Any], game_id: int, ply: int | None) -> None:
        """Answer `interaction` with a private replay of game `game_id` at move `ply` (None: the end)."""
        board = await self.frame(game_id, ply)
        await interaction.response.send_message(content=board.content, embed=board.embed,
                                                view=board.view or discord.utils.MISSING, files=board.attachments(),
                                                ephemeral=True, allowed_mentions=discord.AllowedMentions.none())

    async def frame(self, game_id: int, ply: int | None, *, public: bool = False) -> Board:
        """The position after `ply` moves of play (None: the latest), drawn by the game's presenter, with the step
        buttons (and, privately for a finished game, Post publicly)."""
        if not 0 < game_id < 2**63:
            raise ServiceError(f"There is no game #{game_id}.")
        frame: ReplayFrame[Any] = await self.bot.service.replay_frame(game_id, ply)
        presenter: GamePresenter = self.bot.presenter(frame.game.kind)
        drawn = await presenter.replay_board(frame)
        embed = drawn.embed
        embed.title = f"Replay · {embed.title} · move {frame.ply} of {frame.total}"
        view = discord.ui.View(timeout=None)
        for which, label, target in (("f", "⏮", 0), ("p", "◀", max(frame.ply - 1, 0)),
                                     ("n", "▶", min(frame.ply + 1, frame.total)), ("l", "⏭", frame.total)):
            view.add_item(ReplayButton.of(game=game_id, ply=target, which=which, label=label,
                                          disabled=target == frame.ply))
        if not public and frame.game.finished_at is not None:
            view.add_item(PostReplayButton.of(game=game_id, ply=frame.ply, label="Post publicly",
                                              style=discord.ButtonStyle.primary))
        return Board(_step_line(presenter, frame), embed, view, drawn.image)


def _step_line(presenter: GamePresenter, frame: ReplayFrame[Any]) -> str:
    """What this frame shows, in words: Move 5 of 23: <@alice> played `AC`."""
    head = f"Move {frame.ply} of {frame.total}"
    if frame.last is None:
        if not frame.game.began:
            return "Play never began: the game ended during the setup." if frame.game.finished_at is not None \
                else "Play has not begun yet: the players are still setting up."
        if frame.setup_steps:
            return f"{head}: the setup is done and play begins."
        return f"{head}: the starting position."
    seat, action = frame.last
    name = presenter.seat_name(Result(frame.game, frame.view), seat)
    return f"{head}: {name} {_META_WORDS.get(action) or f'played `{action}`'}"


async def setup(bot: Any) -> None:
    await bot.add_cog(ReplayCog(bot))
    bot.add_dynamic_items(ReplayButton, PostReplayButton)

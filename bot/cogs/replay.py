"""/replay: step through a stored game, position by position, rebuilt from its move log by the service.

What a frame may show is the service's decision (a hidden-information game shows ranks only once it is over);
how it looks is the game's presenter's.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.components import Button, CustomId
from bot.service import ServiceError


# The last part tells the four buttons apart: custom ids in one message must differ even when two buttons
# lead to the same move (first and previous, at move 1).
class ReplayButton(Button, custom_id=CustomId("rp:{game}:{ply}:{which}", game=r"[0-9]{1,18}", which=r"[fpnl]")):
    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.get_cog(ReplayCog.__cog_name__)
        if not isinstance(cog, ReplayCog):
            raise ServiceError("Replays are not available on this bot right now.")
        embed, view = await cog.frame(self.game_id, self.ply)
        await interaction.response.edit_message(embed=embed, view=view, allowed_mentions=discord.AllowedMentions.none())


class ReplayCog(commands.Cog, name="Replay"):
    def __init__(self, bot: Any) -> None:
        self.bot = bot

    @app_commands.command(name="replay", description="Step through a game move by move")
    @app_commands.describe(game="The game's number (see /history)", move="Start at this move (default: the end)")
    async def replay(self, interaction: discord.Interaction[Any], game: int,
                     move: app_commands.Range[int, 0, 100000] | None = None) -> None:
        embed, view = await self.frame(game, move)
        await interaction.response.send_message(embed=embed, view=view, ephemeral=True,
                                                allowed_mentions=discord.AllowedMentions.none())

    async def frame(self, game_id: int, ply: int | None) -> tuple[discord.Embed, discord.ui.View]:
        """The position after `ply` moves (None: the latest), drawn by the game's presenter."""
        if not 0 < game_id < 2**63:
            raise ServiceError(f"There is no game #{game_id}.")
        frame = await self.bot.service.replay_frame(game_id, ply)
        embed = self.bot.presenter(frame.game.kind).replay_embed(frame)
        embed.title = f"Replay · {embed.title} · move {frame.ply} of {frame.total}"
        view = discord.ui.View(timeout=None)
        for which, label, target in (("f", "⏮", 0), ("p", "◀", max(frame.ply - 1, 0)),
                                     ("n", "▶", min(frame.ply + 1, frame.total)), ("l", "⏭", frame.total)):
            view.add_item(ReplayButton.of(game=game_id, ply=target, which=which, label=label,
                                          disabled=target == frame.ply))
        return embed, view


async def setup(bot: Any) -> None:
    await bot.add_cog(ReplayCog(bot))
    bot.add_dynamic_items(ReplayButton)

"""/help: what the bot does and each game in a few lines, all from the game registry."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from games.registry import descriptions

COLOUR = discord.Colour.from_rgb(88, 101, 242)


def help_embed() -> discord.Embed:
    lines = ["I host and referee games right here: pick one below and start it with its command. Every game is "
             "kept safe across restarts, has a turn timer, and feeds the ladders (`/leaderboard`, `/stats`).", ""]
    for game in descriptions():
        bots = f"; against me: {', '.join(game.bot_levels)}" if game.bot_levels else ""
        lines += [f"**{game.title}** ({game.player_range()}{bots})", game.summary, f"Start: `{game.start_command}`", ""]
    lines.append("Step through any game with `/replay`, see your record with `/history`.")
    return discord.Embed(title="Games on this server", description="\n".join(lines)[:4096], colour=COLOUR)


class HelpCog(commands.Cog, name="Help"):
    def __init__(self, bot: Any) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="What I can do: every game, and how to start one")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.send_message(embed=help_embed(), ephemeral=True)


async def setup(bot: Any) -> None:
    await bot.add_cog(HelpCog(bot))

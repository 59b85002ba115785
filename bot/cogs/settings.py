"""/settings: what a server's admins choose for the games played there (Manage Server only)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.kinds import offer_games
from bot.config import parse_duration
from bot.lobby import format_duration
from storage.server_settings import ServerSettings, ServerSettingsStore

COLOUR = discord.Colour.from_rgb(149, 165, 166)


def settings_embed(settings: ServerSettings) -> discord.Embed:
    timeout = format_duration(settings.turn_timeout) if settings.turn_timeout else "the bot's default"
    disabled = ", ".join(sorted(settings.disabled_games)) or "none"
    channel = f"<#{settings.channel_id}> only" if settings.channel_id else "any channel"
    lines = [f"Turn time for new games: **{timeout}**", f"Board pictures: **{'on' if settings.images else 'off'}**",
             f"A thread per game (So Long Sucker): **{'on' if settings.threads else 'off'}**",
             f"Games switched off: **{disabled}**", f"New games start in: **{channel}**"]
    return discord.Embed(title="Game settings for this server", description="\n".join(lines), colour=COLOUR)


@app_commands.guild_only()
@app_commands.default_permissions(manage_guild=True)
class SettingsCog(commands.GroupCog, name="Settings", group_name="settings",
                  group_description="Game settings for this server"):
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        offer_games(self.game)

    @property
    def store(self) -> ServerSettingsStore:
        store: ServerSettingsStore = self.bot.server_settings
        return store

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        # Discord hides the commands from others by default, but a server can change that: check again here.
        if not interaction.permissions.manage_guild:
            raise app_commands.CheckFailure("Only members with the Manage Server permission can change game settings.")
        return True

    @app_commands.command(name="show", description="Show this server's game settings")
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.guild_id is not None
        await interaction.response.send_message(embed=settings_embed(await self.store.get(interaction.guild_id)),
                                                ephemeral=True)

    @app_commands.command(name="set", description="Change this server's game settings")
    @app_commands.describe(turn_time="Time per move for new games, like 30m, 24h or 2d ('default' to reset)",
                           images="Board pictures on or off", threads="A thread per So Long Sucker game",
                           channel="Only start new games in this channel",
                           any_channel="Let new games start in any channel again")
    async def set_(self, interaction: discord.Interaction[Any], turn_time: app_commands.Range[str, 1, 20] | None = None,
                   images: bool | None = None, threads: bool | None = None,
                   channel: discord.TextChannel | None = None, any_channel: bool = False) -> None:
        assert interaction.guild_id is not None
        changes: dict[str, Any] = {}
        if turn_time is not None:
            if turn_time.strip().lower() == "default":
                changes["turn_timeout"] = None
            else:
                try:
                    changes["turn_timeout"] = parse_duration(turn_time)
                except ValueError:
                    raise app_commands.CheckFailure(
                        f"{turn_time!r} is not a duration: write it like 30m, 24h or 2d.") from None
        if images is not None:
            changes["images"] = images
        if threads is not None:
            changes["threads"] = threads
        if channel is not None:
            changes["channel_id"] = channel.id
        if any_channel:
            changes["channel_id"] = None
        settings = await self.store.update(interaction.guild_id, **changes)
        await interaction.response.send_message("Saved.", embed=settings_embed(settings), ephemeral=True)

    @app_commands.command(name="game", description="Switch a game on or off on this server")
    @app_commands.describe(game="Which game", enabled="On or off (games already started finish either way)")
    async def game(self, interaction: discord.Interaction[Any], game: str, enabled: bool) -> None:
        assert interaction.guild_id is not None
        current = await self.store.get(interaction.guild_id)
        disabled = current.disabled_games - {game} if enabled else current.disabled_games | {game}
        settings = await self.store.update(interaction.guild_id, disabled_games=frozenset(disabled))
        await interaction.response.send_message("Saved.", embed=settings_embed(settings), ephemeral=True)


async def setup(bot: Any) -> None:
    await bot.add_cog(SettingsCog(bot))

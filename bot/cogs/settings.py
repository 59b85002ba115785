"""/settings: what a server's admins choose for the games played there (Manage Server only)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.kinds import offer_games, title_of
from bot.config import parse_duration
from bot.i18n import LANGUAGES, Say
from bot.service.seasons import MONTHLY, QUARTERLY, Period, Seasons, season_name
from bot.validation import given
from bot.words import duration
from games.text import Text, TextIn
from storage.seasons import Season, SeasonSetting
from storage.server_settings import ServerSettings, ServerSettingsStore

COLOUR = discord.Colour.from_rgb(149, 165, 166)
SeasonNow = tuple[SeasonSetting, Period, Season | None]  # bot/service/seasons.py Seasons.current


def settings_embed(settings: ServerSettings, say: Say, server_language: str, default_turn: float,
                   season: SeasonNow | None = None) -> discord.Embed:
    """The settings as the admin reads them (in their language; `server_language` is what the server's public
    messages use now; `season`: the server's seasons and the current one, if it runs them)."""
    on, off = say(TextIn("setting", "on")), say(TextIn("setting", "off"))
    # The bot's own default is named with its length: "the default" alone leaves the admin guessing.
    timeout = say(duration(settings.turn_timeout) if settings.turn_timeout else
                  Text("{time} (the bot's default)", time=duration(default_turn)))
    # Each game by its name in the reader's language, as every list of games shows it (never its internal kind).
    disabled = ", ".join(sorted(say(title_of(kind)) for kind in settings.disabled_games)) or say(
        TextIn("setting", "none"))
    channel = (say(Text("<#{channel}> only", channel=settings.channel_id)) if settings.channel_id
               else say(Text("any channel")))
    language = LANGUAGES[server_language]
    if settings.language is None:
        language = say(Text("{language} (the server's preferred language)", language=language))
    lines = [say(Text("Turn time for new games: **{time}**", time=timeout)),
             say(Text("Board pictures: **{state}**", state=on if settings.images else off)),
             say(Text("A thread per game (So Long Sucker): **{state}**", state=on if settings.threads else off)),
             say(Text("Tables' threads (So Long Sucker): **{which}**",
                      which=Text("private to the players") if settings.private_tables
                      else Text("public: everyone reads, anyone may talk"))),
             say(Text("Games switched off: **{games}**", games=disabled)),
             say(Text("New games start in: **{channel}**", channel=channel)),
             say(Text("Language of boards and announcements: **{language}**", language=language)),
             say(Text("Tournament organisers: **Manage Server** and <@&{role}>", role=settings.organiser_role)
                 if settings.organiser_role else Text("Tournament organisers: **Manage Server**")),
             say(_seasons_line(season))]
    return discord.Embed(title=say(Text("Game settings for this server")), description="\n".join(lines),
                         colour=COLOUR)


def _seasons_line(season: SeasonNow | None) -> Text:
    if season is None:
        return Text("Seasons of the ladders: **{state}**", state=TextIn("setting", "off"))
    setting, period, _ = season
    length = TextIn("season", "monthly") if setting.length == MONTHLY else TextIn("season", "quarterly")
    return Text("Seasons of the ladders: **{length}**; this one, {season}, ends <t:{end}:f>", length=length,
                season=season_name(period), end=int(period.ends_at))


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

    @property
    def seasons(self) -> Seasons:
        seasons: Seasons = self.bot.seasons
        return seasons

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        # Discord hides the commands from others by default, but a server can change that: check again here.
        if not interaction.permissions.manage_guild:
            raise app_commands.CheckFailure(
                Text("Only members with the Manage Server permission can change game settings."))
        return True

    @app_commands.command(name="show", description="Show this server's game settings")
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        assert interaction.guild_id is not None
        await self._answer(interaction, await self.store.get(interaction.guild_id), saved=False)

    async def _answer(self, interaction: discord.Interaction[Any], settings: ServerSettings, *, saved: bool) -> None:
        assert interaction.guild_id is not None
        say = Say.to(interaction)
        embed = settings_embed(settings, say, await self.bot.languages.public(interaction.guild_id),
                               self.bot.service.turn_timeout, await self.seasons.current(interaction.guild_id))
        await interaction.response.send_message(say(Text("Saved.")) if saved else None, embed=embed,
                                                ephemeral=True)

    @app_commands.command(name="set", description="Change this server's game settings")
    @app_commands.describe(turn_time="Time per move for new games, like 30m, 24h or 2d ('default' to reset)",
                           images="Board pictures on or off", threads="A thread per So Long Sucker game",
                           private_tables="So Long Sucker: each table's thread private to its players (its host "
                                          "may choose)",
                           channel="Only start new games in this channel",
                           any_channel="Let new games start in any channel again",
                           language="The language of boards and announcements (players' own answers follow "
                                    "their Discord language)",
                           organiser_role="Members of this role may run tournaments too (besides Manage Server)",
                           no_organiser_role="Only Manage Server runs tournaments again")
    @app_commands.choices(language=[app_commands.Choice(name=name, value=code) for code, name in LANGUAGES.items()]
                          + [app_commands.Choice(name="The server's preferred language", value="server")])
    async def set_(self, interaction: discord.Interaction[Any], turn_time: app_commands.Range[str, 1, 20] | None = None,
                   images: bool | None = None, threads: bool | None = None, private_tables: bool | None = None,
                   channel: discord.TextChannel | None = None, any_channel: bool = False,
                   language: str | None = None, organiser_role: discord.Role | None = None,
                   no_organiser_role: bool = False) -> None:
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
                        Text("{text} is not a duration: write it like 30m, 24h or 2d.", text=repr(turn_time))) from None
        changes.update(given(images=images, threads=threads, private_tables=private_tables))
        if channel is not None:
            changes["channel_id"] = channel.id
        if any_channel:
            changes["channel_id"] = None
        if organiser_role is not None:
            changes["organiser_role"] = organiser_role.id
        if no_organiser_role:
            changes["organiser_role"] = None
        if language is not None:
            if language != "server" and language not in LANGUAGES:
                raise app_commands.CheckFailure(Text("Choose a language from the list."))
            changes["language"] = None if language == "server" else language
        settings = await self.store.update(interaction.guild_id, **changes)
        self.bot.languages.server_chose(interaction.guild_id, settings.language)
        await self._answer(interaction, settings, saved=True)

    @app_commands.command(name="game", description="Switch a game on or off on this server")
    @app_commands.describe(game="Which game", enabled="On or off (games already started finish either way)")
    async def game(self, interaction: discord.Interaction[Any], game: str, enabled: bool) -> None:
        assert interaction.guild_id is not None
        # One atomic change of the stored list (not a list read here and written back, which would drop a game
        # another admin switched at the same moment).
        settings = await self.store.switch_game(interaction.guild_id, game, enabled)
        await self._answer(interaction, settings, saved=True)

    @app_commands.command(name="season", description="Run this server's ladders by season, beside the all-time ones")
    @app_commands.describe(length="Monthly or quarterly seasons (calendar months or quarters, UTC), or none")
    @app_commands.choices(length=[app_commands.Choice(name="monthly", value=MONTHLY),
                                  app_commands.Choice(name="quarterly", value=QUARTERLY),
                                  app_commands.Choice(name="none", value="none")])
    async def season(self, interaction: discord.Interaction[Any], length: str) -> None:
        # Turning seasons on (or to the other length) starts the current season now; turning them off keeps every
        # past season's ladder readable with /leaderboard season:.
        assert interaction.guild_id is not None
        if length not in (MONTHLY, QUARTERLY, "none"):
            raise app_commands.CheckFailure(Text("Choose a season length from the list."))
        await self.seasons.choose(interaction.guild_id, None if length == "none" else length)
        await self._answer(interaction, await self.store.get(interaction.guild_id), saved=True)


async def setup(bot: Any) -> None:
    await bot.add_cog(SettingsCog(bot))

"""/leaderboard and /stats: the ladders every rated game feeds."""

from __future__ import annotations

from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs.kinds import offer_games, title_of
from bot.cogs.past_games import history_line, visible_places
from bot.components import Button, CustomId
from bot.i18n import Say
from bot.service import ServiceError
from bot.service.ratings import PROVISIONAL_GAMES, display_rating, is_provisional
from bot.service.seasons import Seasons, season_name
from games.registry import descriptions
from games.text import Command, Joined, OptionName, Plural, Text, TextIn, Typed
from storage.finishing import FinishingRecord, finishing_of
from storage.ratings import GLOBAL, RatingRow, RatingStore, favourite_opponent

PAGE = 10
Scope = Literal["server", "global"]
CURRENT = "current"  # /leaderboard season: the server's current season (else a past season's number)
COLOUR = discord.Colour.from_rgb(241, 196, 15)
# What the number on a ladder means, in words (it is 1000 + 40 (mu - 3 sigma) of the player's openskill rating).
RATING_MEANING = Plural("rating: a cautious estimate of skill; it settles after {count} game (provisional until then)",
                        "rating: a cautious estimate of skill; it settles after {count} games (provisional until "
                        "then)", PROVISIONAL_GAMES)


def _streak(streak: int) -> Text:
    """A signed streak in words: wins when positive, losses when negative."""
    if streak > 0:
        return Plural("{count} win in a row", "{count} wins in a row", streak)
    if streak < 0:
        return Plural("{count} loss in a row", "{count} losses in a row", -streak)
    return Text("no streak")


def _rating(row: RatingRow) -> Text | str:
    rating = str(display_rating(row))
    return Text("{rating} (provisional)", rating=rating) if is_provisional(row) else rating


def _record(row: RatingRow) -> Text:
    """Wins, draws and losses, as a ladder abbreviates them: "3W 1D 2L"."""
    return Text("{wins}W {draws}D {losses}L", wins=row.wins, draws=row.draws, losses=row.losses)


def _finishing_lines(server: FinishingRecord | None, overall: FinishingRecord | None, on_server: bool) -> list[Text]:
    """A player's record of finishing games (bot/service/finishing.py): "This server: finished 47 of 50 games (94%) · 3
    abandoned". On a server, its own games counted, and beside them only the global share (as the global rating, never
    how many games were played elsewhere); in DMs, the counts from everywhere. Nothing for a player with no game counted
    anywhere: the stats then say only that there are no games yet."""
    if overall is None or overall.games == 0:
        return []
    lines = [Text("**Games finished**")]
    if on_server:
        lines.append(_counts(Text("This server"), server))
        lines.append(Text("Global: {percent}% finished", percent=overall.percent))
    else:
        lines.append(_counts(Text("Global"), overall))
    return lines


def _counts(where: Text, record: FinishingRecord | None) -> Text:
    if record is None or record.games == 0:
        return Text("{where}: no games yet", where=where)
    return Plural("{where}: finished {finished} of {count} game ({percent}%) · {abandoned} abandoned",
                  "{where}: finished {finished} of {count} games ({percent}%) · {abandoned} abandoned",
                  record.games, where=where, finished=record.finished, percent=record.percent,
                  abandoned=record.abandoned)


def _line(place: int, row: RatingRow, caller: int) -> Text:
    line = Text("**{place}.** {player} · {rating} · {record}", place=place, player=f"<@{row.user_id}>",
                rating=_rating(row), record=_record(row))
    return Text("{line} ← you", line=line) if row.user_id == caller else line


class PageButton(Button, custom_id=CustomId("lb:{kind}:{scope}:{page}", kind=r"[a-z]{1,20}", scope=r"-?[0-9]{1,20}",
                                            page=r"[0-9]{1,6}")):
    """Previous / next page of a ladder; the custom id says which ladder and page, so it survives restarts. A season's
    ladder is the negative scope of its ratings (storage/seasons.py)."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        kind, scope, page = self.fields["kind"], int(self.fields["scope"]), int(self.fields["page"])
        if kind not in {d.kind for d in descriptions()}:
            raise ServiceError(Text("There is no such ladder; use {command}.", command=Command("leaderboard")))
        cog = interaction.client.get_cog(LadderCog.__cog_name__)
        if not isinstance(cog, LadderCog):
            raise ServiceError(Text("Ladders are not available on this bot right now."))
        server = scope
        if scope < 0:
            season = await cog.seasons.store.get(-scope)
            server = season.guild_id if season is not None else -1
        if server not in (GLOBAL, interaction.guild_id):
            raise ServiceError(Text("This is another server's ladder; use {command} here.",
                                    command=Command("leaderboard")))
        # The ladder is a message others read too: in the language of the place it is in (as when it was posted).
        say = Say(await cog.bot.languages.public(interaction.guild_id, interaction.user.id))
        embed, controls = await cog.page(kind, scope, page, interaction.user.id, say)
        await interaction.response.edit_message(embed=embed, view=controls,
                                                allowed_mentions=discord.AllowedMentions.none())


class LadderCog(commands.Cog, name="Ladder"):
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        offer_games(self.leaderboard)

    @property
    def ratings(self) -> RatingStore:
        store: RatingStore = self.bot.ratings
        return store

    @property
    def seasons(self) -> Seasons:
        seasons: Seasons = self.bot.seasons
        return seasons

    @app_commands.command(name="leaderboard", description="The rating ladder of a game, here or across every server")
    @app_commands.describe(game="Which game", scope="This server's ladder, or the global one",
                           season="A season of this server's ladder, the current one or a past one (default: all "
                                  "time)")
    async def leaderboard(self, interaction: discord.Interaction[Any], game: str,
                          scope: Scope = "server", season: app_commands.Range[str, 1, 20] | None = None) -> None:
        # In DMs there is no server: the ladder of every server is the one to show.
        guild = interaction.guild_id if scope == "server" and interaction.guild_id else GLOBAL
        if season is not None:
            guild = await self._season_ladder(interaction, scope, season)
        say = Say(await self.bot.languages.public(interaction.guild_id, interaction.user.id))
        embed, controls = await self.page(game, guild, 0, interaction.user.id, say)
        await interaction.response.send_message(embed=embed, view=controls,
                                                allowed_mentions=discord.AllowedMentions.none())

    async def _season_ladder(self, interaction: discord.Interaction[Any], scope: Scope, season: str) -> int:
        """The scope of the ladder of a season asked for by its option ("current", or a past season's number)."""
        if interaction.guild_id is None or scope == "global":
            raise ServiceError(Text("Seasons are a server's own: the global ladder has none. Use {option} on a "
                                    "server, with this server's ladder.", option=OptionName("season", quoted=True)))
        if season == CURRENT:
            started = await self.seasons.started(interaction.guild_id)
            if started is None:
                raise ServiceError(Text("This server runs no seasons; its admins can start them with {command}.",
                                        command=Command("settings season")))
            return started.scope
        found = await self.seasons.store.get(int(season)) if season.isascii() and season.isdigit() else None
        if found is None or found.guild_id != interaction.guild_id:
            raise ServiceError(Text("There is no such season here; choose one from the list of {option}.",
                                    option=OptionName("season", quoted=True)))
        return found.scope

    @leaderboard.autocomplete("season")
    async def season_choices(self, interaction: discord.Interaction[Any],
                             current: str) -> list[app_commands.Choice[str]]:
        """The current season, then the past ones, latest first (a server's seasons only)."""
        if interaction.guild_id is None:
            return []
        say = Say.to(interaction)
        choices = []
        now = await self.seasons.current(interaction.guild_id)
        if now is not None:
            choices.append(app_commands.Choice(name=say(Text("Current season ({season})",
                                                             season=season_name(now[1]))), value=CURRENT))
        choices += [app_commands.Choice(name=say(season_name(past)), value=str(past.id))
                    for past in await self.seasons.past(interaction.guild_id)]
        typed = current.strip().lower()
        return [choice for choice in choices if typed in choice.name.lower()][:25]

    async def page(self, kind: str, guild: int, page: int, caller: int,
                   say: Say) -> tuple[discord.Embed, discord.ui.View]:
        # One snapshot: the page, the number of pages and the caller's place agree, whatever games end meanwhile.
        ladder = await self.ratings.page(kind, guild, page, PAGE, caller=caller)
        page, pages, total, rows = ladder.page, ladder.pages, ladder.total, ladder.rows
        lines = [say(_line(page * PAGE + i + 1, row, caller)) for i, row in enumerate(rows)]
        if ladder.mine is not None and all(row.user_id != caller for row in rows):
            lines += ["…", say(_line(*ladder.mine, caller))]
        title = (Text("{game} ladder (global)", game=title_of(kind)) if guild == GLOBAL
                 else Text("{game} ladder (this server)", game=title_of(kind)) if guild > 0
                 else await self._season_title(kind, -guild))
        embed = discord.Embed(title=say(title), description="\n".join(lines) or say(Text("No rated games yet.")),
                              colour=COLOUR)
        embed.set_footer(text=say(Text("Page {page} of {pages} · {players} · {meaning}", page=page + 1, pages=pages,
                                       players=Plural("{count} rated player", "{count} rated players", total),
                                       meaning=RATING_MEANING)))
        controls = discord.ui.View(timeout=None)
        controls.add_item(PageButton.of(kind=kind, scope=guild, page=max(page - 1, 0),
                                    label=say(TextIn("button", "◀ Previous")), disabled=page == 0))
        controls.add_item(PageButton.of(kind=kind, scope=guild, page=page + 1, label=say(TextIn("button", "Next ▶")),
                                    disabled=page + 1 >= pages))
        return embed, controls

    async def _season_title(self, kind: str, season_id: int) -> Text:
        season = await self.seasons.store.get(season_id)
        name: Text | str = season_name(season) if season is not None else "?"
        return Text("{game} ladder (season {season})", game=title_of(kind), season=name)

    @app_commands.command(name="history", description="Recent games, shown only to you: yours from everywhere, or a "
                                                      "player's on this server")
    @app_commands.describe(user="Whose games on this server (default: yours, from everywhere, shown only to you)")
    async def history(self, interaction: discord.Interaction[Any], user: discord.User | None = None) -> None:
        # Someone else's games: only those of the server asked in that the asker could see there, in a channel they
        # may view, or played with them. Your own: every one, wherever it was played, never naming another server.
        # Either is shown only to the asker, in their language: what one member may see, the channel may not.
        who = user or interaction.user
        own = who.id == interaction.user.id
        if not own and interaction.guild_id is None:
            raise ServiceError(Text("In DMs, /history shows only your own games. Ask about another player in a "
                                    "server you both use."))
        if own:
            records = await self.bot.service.history(who.id, limit=10)
        else:
            records = await self.bot.service.history(who.id, limit=10, guild_id=interaction.guild_id,
                                                     places=visible_places(interaction), viewer=interaction.user.id)
        say = Say.to(interaction)
        lines = [history_line(record, interaction, say) for record in records]
        title = (Text("Your recent games") if own
                 else Text("Recent games of {name} on this server", name=who.display_name))
        embed = discord.Embed(title=say(title), colour=COLOUR,
                              description="\n".join(lines) or say(Text("No games yet.")))
        await interaction.response.send_message(embed=embed, ephemeral=True,
                                                allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name="stats", description="A player's ratings and record in every game")
    @app_commands.describe(user="Whose stats (default: yours)",
                           public="Show them to the channel (default: only you see them)")
    async def stats(self, interaction: discord.Interaction[Any], user: discord.User | None = None,
                    public: bool = False) -> None:
        # On a server, everything counted and everyone named comes from that server's games (its ladder and the rated
        # games played there), as /history: whom someone plays with elsewhere is not this server's business. Only the
        # global rating, which the global ladder shows anyone, stands beside it. In DMs: your own, from everywhere.
        # Shown only to the asker unless they ask to post it (then in the channel's language, as every public message).
        who = user or interaction.user
        guild = interaction.guild_id
        if guild is None and who.id != interaction.user.id:
            raise ServiceError(Text("In DMs, /stats shows only your own stats. Ask about another player in a server "
                                    "you both use."))
        lines: list[Text | str] = []
        current = await self.seasons.current(guild) if guild else None
        season = current[2] if current is not None else None  # the server's season now, once a game counted in it
        for description in descriptions():
            kind, title = description.kind, description.title
            overall = await self.ratings.get(kind, GLOBAL, who.id)
            record = await self.ratings.get(kind, guild, who.id) if guild else overall
            this_season = await self.ratings.get(kind, season.scope, who.id) if season is not None else None
            if overall is None and record is None:
                continue
            lines.append(Text("**{game}**", game=title))
            if record is not None:
                rival = await favourite_opponent(self.bot.db, kind, who.id, guild)
                games = Plural("{count} game", "{count} games", record.games)
                lines.append(Text("This server: {rating} · {games}: {record}", rating=_rating(record), games=games,
                                  record=_record(record)) if guild
                             else Text("Global: {rating} · {games}: {record}", rating=_rating(record), games=games,
                                       record=_record(record)))
                if season is not None and this_season is not None:
                    lines.append(Text("This season ({season}): {rating} · {games}: {record}",
                                      season=season_name(season), rating=_rating(this_season),
                                      games=Plural("{count} game", "{count} games", this_season.games),
                                      record=_record(this_season)))
                lines.append(Text("Streak: {streak} (best: {best})", streak=_streak(record.streak),
                                  best=_streak(record.best_streak)) if record.best_streak > 0
                             else Text("Streak: {streak}", streak=_streak(record.streak)))
                if rival is not None:
                    lines.append(Text("Favourite opponent: {player} ({games})", player=f"<@{rival.user_id}>",
                                      games=Plural("{count} game", "{count} games", rival.games)))
            if guild and overall is not None:
                lines.append(Text("Global rating: {rating}", rating=_rating(overall)))
            lines.append("")
        finishing = _finishing_lines(await finishing_of(self.bot.db, who.id, guild) if guild else None,
                                     await finishing_of(self.bot.db, who.id), bool(guild))
        if not lines and public and not finishing:
            # Nothing to post: said privately, so an empty record never lands in the channel.
            raise ServiceError(Text("{name} has no rated games yet, so there is nothing to show the channel.",
                                    name=Typed(who.display_name)))
        lines = [*(lines or [Text("No rated games yet."), ""]), *finishing]
        say = Say(await self.bot.languages.public(guild, interaction.user.id)) if public else Say.to(interaction)
        embed = discord.Embed(title=say(Text("Stats of {name}", name=Typed(who.display_name))), colour=COLOUR,
                              description=say(Joined(lines)).strip())
        await interaction.response.send_message(embed=embed, ephemeral=not public,
                                                allowed_mentions=discord.AllowedMentions.none())


async def setup(bot: Any) -> None:
    await bot.add_cog(LadderCog(bot))
    bot.add_dynamic_items(PageButton)

"""A season's end, posted once: its top three on each game's ladder (bot/service/seasons.py keeps the seasons).

Every process looks every `LOOK_EVERY` seconds for seasons that are over and not yet announced (one short read of the
partial index seasons_unannounced when there are none). One claims each (the lease `season-end:<id>`,
storage/leases.py); right before posting it asks whether it still holds the lease and nobody announced the season
(the fence); once posted it marks the season announced, so another process or a restart never posts it again. A
process that dies between its post and that mark leaves the lease to run out, and the next one posts it again (at
least once, as the owed announcements of turn timers: never lost).

Where: the server's games channel (/settings set channel:) if it has one, else the channel of the season's latest
rated game (the place its players last played; a server without a games channel has no other channel the bot knows
is theirs). In the server's language, as every public message.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.cogs.kinds import title_of
from bot.i18n import Say
from bot.service.ratings import display_rating
from bot.service.seasons import Seasons, season_name
from bot.service.tasks import Background, repeatedly
from games.registry import descriptions
from games.text import Joined, Plural, Text
from storage.ratings import RatingStore
from storage.seasons import Season

log = logging.getLogger(__name__)

LOOK_EVERY = 60.0  # seconds between looks for a season that is over: its top three are posted within a minute
COLOUR = discord.Colour.from_rgb(241, 196, 15)
MEDALS = ("🥇", "🥈", "🥉")


class SeasonEnds:
    def __init__(self, bot: Any) -> None:
        self._bot = bot
        self._task = Background("season-ends")

    @property
    def _seasons(self) -> Seasons:
        seasons: Seasons = self._bot.seasons
        return seasons

    def start(self) -> None:
        self._task.start(lambda: repeatedly(LOOK_EVERY, self.announce_due,
                                            "the end of a season could not be announced"))

    async def stop(self) -> None:
        await self._task.stop()

    async def announce_due(self) -> int:
        """Post the end of every season that is over and that no process announced or is announcing; returns how many
        this process posted."""
        posted = 0
        for season in await self._seasons.ended():
            token = await self._seasons.claim_end(season.id)
            if token is None:  # another live process is posting it
                continue
            try:
                posted += await self._announce(season, token)
            except (discord.NotFound, discord.Forbidden) as exc:
                # The channel is gone or closed to the bot: nowhere to post it, now or later.
                log.warning("gave up announcing the end of season %s: %s", season.id, exc)
                await self._seasons.announced(season.id)
            except Exception:
                await self._seasons.let_go(season.id)  # tried again at the next look, here or elsewhere
                raise
        return posted

    async def _announce(self, season: Season, token: int) -> bool:
        ratings: RatingStore = self._bot.ratings
        kinds = await self._seasons.store.kinds_rated(season, [d.kind for d in descriptions()])
        settings = await self._bot.server_settings.get(season.guild_id)
        channel_id = settings.channel_id or season.channel_id
        if not kinds or channel_id is None:  # no rated game in it: nothing to tell
            await self._seasons.announced(season.id)
            return False
        parts: list[Text | str] = []
        for kind in kinds:
            top = await ratings.ladder(kind, season.scope, 0, len(MEDALS))
            parts.append(Text("**{game}**", game=title_of(kind)))
            parts += [Text("{medal} {player} · {rating} · {games}", medal=medal, player=f"<@{row.user_id}>",
                           rating=str(display_rating(row)),
                           games=Plural("{count} game", "{count} games", row.games))
                      for medal, row in zip(MEDALS, top, strict=False)]
            parts.append("")
        say = Say(await self._bot.languages.public(season.guild_id))
        embed = discord.Embed(title=say(Text("Season {season} is over", season=season_name(season))),
                              description=say(Joined(parts)).strip(), colour=COLOUR)
        embed.set_footer(text=say(Text("Each season's ladder starts from every player's all-time rating.")))
        if not await self._seasons.still_announcing(season.id, token):
            log.info("the end of season %s was taken over by another process; not posting it here", season.id)
            return False
        channel = self._bot.get_partial_messageable(channel_id, guild_id=season.guild_id)
        await channel.send(embed=embed, allowed_mentions=discord.AllowedMentions.none())
        await self._seasons.announced(season.id)
        return True

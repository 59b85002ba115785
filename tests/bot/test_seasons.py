"""Seasons through the real bot and the offline Discord (issue 25, point 4): /settings season, /leaderboard season:
current and past, and a season's end posted once by two processes when the bot's clock crosses a month's end."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from bot.client import TabletopBot
from bot.service import Player
from tests.support.clock import Clock
from tests.support.fakediscord import FakeUser
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.world import TabletopRunner, World

NOV_20 = datetime(2026, 11, 20, 12, tzinfo=UTC).timestamp()
DEC_1 = datetime(2026, 12, 1, tzinfo=UTC).timestamp()


async def _won(bot: TabletopBot, world: World, winner: FakeUser, loser: FakeUser) -> None:
    """A rated Chopsticks game here that `winner` wins (the loser resigns after the first move)."""
    game = await bot.service.create("chopsticks", guild_id=world.guild.id, channel_id=world.channel.id,
                                    players=[Player(winner.id), Player(loser.id)], options={"first": 0})
    await bot.service.act(game.id, winner.id, "AC")
    await bot.service.resign(game.id, loser.id)


async def test_a_month_of_seasons_through_discord(world: World, bots: TabletopRunner) -> None:
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    bot = await bots.start()
    clock = Clock(NOV_20)
    bot.service.clock = clock
    others = TabletopRunner(fake, bots.database, url=bots.url)
    try:
        # No seasons yet: /leaderboard season: says how to start them; the all-time ladder is as it was.
        refused = await fake.slash(carol, world.channel, "leaderboard", options={"game": "chopsticks",
                                                                                  "season": "current"})
        assert refused.ephemeral and refused.message is not None
        assert "runs no seasons" in refused.message.text() and "/settings season" in refused.message.text()
        assert await fake.autocomplete(carol, world.channel, "leaderboard", options={"game": "chopsticks",
                                                                                     "season": ""},
                                       focused="season") == []
        await _won(bot, world, bob, alice)  # before seasons: counts in none

        saved = await fake.slash(alice, world.channel, "settings", "season", options={"length": "monthly"},
                                 permissions=PERM_MANAGE_GUILD)
        assert saved.ephemeral and saved.message is not None, saved.errors
        assert (f"Seasons of the ladders: **monthly**; this one, November 2026, ends <t:{int(DEC_1)}:f>"
                in saved.message.text())
        shown = await fake.slash(alice, world.channel, "settings", "show", permissions=PERM_MANAGE_GUILD)
        assert shown.message is not None and "November 2026" in shown.message.text()

        clock.now += 3600
        await _won(bot, world, alice, bob)
        await _won(bot, world, alice, carol)
        ladder = await fake.slash(carol, world.channel, "leaderboard", options={"game": "chopsticks",
                                                                                 "season": "current"})
        assert ladder.message is not None, ladder.errors
        text = ladder.message.text()
        assert "Chopsticks ladder (season November 2026)" in text and "3 rated players" in text, text
        assert f"**1.** <@{alice.id}>" in text and "2W 0D 0L" in text
        alltime = await fake.slash(carol, world.channel, "leaderboard", options={"game": "chopsticks"})
        assert alltime.message is not None and "(this server)" in alltime.message.text()
        assert "1W 0D 1L" in alltime.message.text()  # bob's win before the seasons counts on the all-time ladder only
        # /stats shows the season's rating and record beside the server's all-time one.
        stats = await fake.slash(bob, world.channel, "stats")
        assert stats.message is not None, stats.errors
        text = stats.message.text()
        assert "This server: " in text and "2 games: 1W 0D 1L" in text, text
        assert "This season (November 2026): " in text and "1 game: 0W 0D 1L" in text, text

        # Two processes see November end: its top three are posted once, in the channel of its games.
        second = await others.start()
        second.service.clock = clock
        clock.now = DEC_1 + 60
        before = len(fake.channel_messages(world.channel))
        season_ends = [b.season_ends for b in (bot, second)]
        assert all(ends is not None for ends in season_ends)
        posted = await asyncio.gather(*(ends.announce_due() for ends in season_ends if ends is not None))
        assert sorted(posted) == [0, 1]  # at the same moment: one claims it, the other leaves it
        assert [await ends.announce_due() for ends in season_ends if ends is not None] == [0, 0]
        [news] = fake.channel_messages(world.channel)[before:]
        text = news.text()
        assert "Season November 2026 is over" in text and "**Chopsticks**" in text, text
        assert f"🥇 <@{alice.id}>" in text and "🥈" in text and "🥉" in text

        # December: a new season; November is a past one, offered by name and shown by its number.
        choices = await fake.autocomplete(carol, world.channel, "leaderboard",
                                          options={"game": "chopsticks", "season": ""}, focused="season")
        assert [c["name"] for c in choices] == ["Current season (December 2026)", "November 2026"]
        past = await fake.slash(carol, world.channel, "leaderboard", options={"game": "chopsticks",
                                                                               "season": choices[1]["value"]})
        assert past.message is not None and "(season November 2026)" in past.message.text()
        current = await fake.slash(carol, world.channel, "leaderboard", options={"game": "chopsticks",
                                                                                  "season": "current"})
        assert current.message is not None and "(season December 2026)" in current.message.text()
        assert "No rated games yet." in current.message.text()
        december = await fake.slash(bob, world.channel, "stats")  # no game in December yet: no season line
        assert december.message is not None and "This season" not in december.message.text()

        # Turned off: no current season, November still readable.
        await fake.slash(alice, world.channel, "settings", "season", options={"length": "none"},
                         permissions=PERM_MANAGE_GUILD)
        again = await fake.slash(carol, world.channel, "leaderboard", options={"game": "chopsticks",
                                                                                "season": choices[1]["value"]})
        assert again.message is not None and f"**1.** <@{alice.id}>" in again.message.text()
    finally:
        await others.stop_all()


async def test_season_ladders_page_and_are_in_russian(world: World, bots: TabletopRunner) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    bot = await bots.start()
    clock = Clock(NOV_20)
    bot.service.clock = clock
    await fake.slash(alice, world.channel, "settings", "season", options={"length": "quarterly"},
                     permissions=PERM_MANAGE_GUILD, locale="ru")
    players = [fake.add_user(f"p{i}") for i in range(11)]
    for player in players:
        await _won(bot, world, player, bob)
    ladder = await fake.slash(alice, world.channel, "leaderboard", options={"game": "chopsticks", "season": "current"})
    board = ladder.message
    assert board is not None and "Page 1 of 2" in board.text() and "(season 2026 Q4)" in board.text()
    await fake.click(alice, board, board.buttons()[1]["custom_id"])
    assert "Page 2 of 2" in board.text() and "(season 2026 Q4)" in board.text()
    choices = await fake.autocomplete(alice, world.channel, "leaderboard",
                                      options={"game": "chopsticks", "season": ""}, focused="season", locale="ru")
    assert [c["name"] for c in choices] == ["Текущий сезон (4-й квартал 2026)"]
    shown = await fake.slash(alice, world.channel, "settings", "show", permissions=PERM_MANAGE_GUILD, locale="ru")
    assert shown.message is not None and "Сезоны рейтингов: **по кварталам**; текущий сезон «4-й квартал 2026»" in (
        shown.message.text())
    # The quarter's end, in the server's language, in its games channel (not where the games were played).
    games = fake.add_channel(world.guild, "games")
    await fake.slash(alice, world.channel, "settings", "set", options={"language": "ru", "channel": games},
                     permissions=PERM_MANAGE_GUILD)
    clock.now = datetime(2027, 1, 1, 0, 1, tzinfo=UTC).timestamp()
    assert bot.season_ends is not None and await bot.season_ends.announce_due() == 1
    [news] = fake.channel_messages(games)
    assert "Сезон «4-й квартал 2026» завершён" in news.text() and "🥉" in news.text(), news.text()
    assert "1 партия" in news.text()


async def test_a_season_that_is_not_this_servers_is_refused(world: World, bots: TabletopRunner) -> None:
    """Another server's season, asked for by its number, and numbers no season has, are refused privately."""
    fake, alice = world.fake, world.alice
    other = fake.add_guild("Other Place")
    there = fake.add_channel(other, "play")
    bot = await bots.start()
    bot.service.clock = Clock(NOV_20)
    await fake.slash(alice, there, "settings", "season", options={"length": "monthly"}, permissions=PERM_MANAGE_GUILD)
    theirs = await fake.slash(alice, there, "leaderboard", options={"game": "chopsticks", "season": "current"})
    assert theirs.message is not None and "(season November 2026)" in theirs.message.text()
    season_id = -int(str(theirs.message.buttons()[0]["custom_id"]).split(":")[2])
    for asked in (str(season_id), "99999999999999999999", "²", "0"):
        refused = await fake.slash(alice, world.channel, "leaderboard", options={"game": "chopsticks",
                                                                                  "season": asked})
        assert refused.ephemeral and refused.message is not None, asked
        assert "There is no such season here" in refused.message.text()
    globally = await fake.slash(alice, world.channel, "leaderboard", options={"game": "chopsticks", "scope": "global",
                                                                               "season": "current"})
    assert globally.ephemeral and globally.message is not None and "the global ladder has none" in (
        globally.message.text())

"""Who reads which language, through the real bot and the offline Discord: a private answer in the asker's Discord
language, a public message in the server's (its preferred locale, or what /settings chose), a direct message in
the language the person's client last showed (remembered across restarts)."""

from __future__ import annotations

import asyncio

import pytest

import bot.i18n
from bot.client import TabletopBot
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.world import TabletopRunner, World


async def test_private_answers_follow_the_users_language(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    world.bob.locale = "ru"
    russian = await world.fake.slash(world.bob, world.channel, "help")
    english = await world.fake.slash(world.alice, world.channel, "help")
    assert russian.ephemeral and russian.message is not None and english.message is not None
    assert "Игры на этом сервере" in russian.message.text() and "Games on this server" in english.message.text()
    # The buttons too, and what they answer.
    assert any("правила" in str(b.get("label")) for b in russian.message.buttons())
    rules = await world.fake.click(world.bob, russian.message, "help:rules:chopsticks")
    assert rules.message is not None and "как играть" in rules.message.text()
    # A refusal as well (bot/errors.py renders it in the asker's language).
    bad = await world.fake.slash(world.bob, world.channel, "settings", "set", permissions=PERM_MANAGE_GUILD,
                                 options={"turn_time": "soon"})
    assert bad.ephemeral and bad.message is not None
    assert "'soon' — не длительность: пишите, например, 30m, 24h или 2d." in bad.message.text()


async def test_the_servers_language_is_its_preferred_locale_unless_settings_choose(world: World,
                                                                                  bots: TabletopRunner) -> None:
    world.guild.locale = "ru"  # the server's preferred locale, as its GUILD_CREATE says
    bot = await bots.start()
    assert await bot.languages.public(world.guild.id) == "ru"
    # An English-speaking admin sees the settings in English, saying the public language is Russian.
    shown = await world.fake.slash(world.alice, world.channel, "settings", "show", permissions=PERM_MANAGE_GUILD)
    assert shown.message is not None
    assert "Language of boards and announcements: **Русский (the server's preferred language)**" in shown.message.text()
    chose = await world.fake.slash(world.alice, world.channel, "settings", "set", permissions=PERM_MANAGE_GUILD,
                                   options={"language": "en"})
    assert chose.message is not None and "**English**" in chose.message.text()
    assert await bot.languages.public(world.guild.id) == "en"
    back = await world.fake.slash(world.alice, world.channel, "settings", "set", permissions=PERM_MANAGE_GUILD,
                                  options={"language": "server"})
    assert back.message is not None and "preferred language" in back.message.text()
    assert await bot.languages.public(world.guild.id) == "ru"
    # A Russian admin reads the same settings in Russian.
    world.bob.locale = "ru"
    russian = await world.fake.slash(world.bob, world.channel, "settings", "show", permissions=PERM_MANAGE_GUILD)
    assert russian.message is not None and "Язык досок и объявлений: **Русский (основной язык сервера)**" \
        in russian.message.text()
    # "Новые игры начинаются: любой канал" was no Russian
    assert "Новые игры начинаются: **в любом канале**" in russian.message.text()


def _remembered(bot: TabletopBot, user_id: int) -> str | None:
    """The language the bot has in memory for a person (None: none yet)."""
    known = bot.languages._people.get(user_id)
    return None if known is None else known[0]


async def test_a_server_language_chosen_in_another_process_is_used_here_soon_after(
    world: World, bots: TabletopRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes on one database (issue 17): the one that did not handle /settings follows the stored choice once
    what it remembers is older than LANGUAGE_MEMORY (short here), instead of speaking the old language for ever."""
    monkeypatch.setattr(bot.i18n, "LANGUAGE_MEMORY", 0.3)
    here = await bots.start()
    assert await here.languages.public(world.guild.id) == "en"
    other = TabletopRunner(world.fake, bots.database, url=bots.url)
    try:
        there = await other.start()  # gets the events now
        res = await world.fake.slash(world.alice, world.channel, "settings", "set", options={"language": "ru"},
                                     permissions=PERM_MANAGE_GUILD)
        assert res.message is not None, res.errors
        assert await there.languages.public(world.guild.id) == "ru"  # the process that stored it: at once
        await asyncio.sleep(0.4)
        assert await here.languages.public(world.guild.id) == "ru"
    finally:
        await other.stop_all()


async def test_a_persons_language_is_remembered_for_direct_messages(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    assert await bot.languages.of_user(world.bob.id) == "en"  # nothing seen yet: the source language
    world.bob.locale = "ru"
    await world.fake.slash(world.bob, world.channel, "help")
    await world.fake.wait_until(lambda: _remembered(bot, world.bob.id) == "ru")
    await bots.stop(bot)
    bot = await bots.start()
    assert await bot.languages.of_user(world.bob.id) == "ru"  # stored, not only remembered in memory
    world.bob.locale = "en-GB"
    await world.fake.slash(world.bob, world.channel, "help")
    await world.fake.wait_until(lambda: _remembered(bot, world.bob.id) == "en")


async def test_commands_are_registered_with_russian_names(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    commands = {c["name"]: c for c in world.fake.registered_commands(None) or
                world.fake.registered_commands(world.guild.id)}
    assert commands["help"]["name_localizations"]["ru"] == "помощь"
    assert commands["leaderboard"]["description_localizations"]["ru"].startswith("Рейтинговая таблица")
    settings_set = next(o for o in commands["settings"]["options"] if o["name"] == "set")
    language = next(o for o in settings_set["options"] if o["name"] == "language")
    assert {c["name"]: c.get("name_localizations", {}).get("ru") for c in language["choices"]}["English"] == "English"
    assert world.fake.violations == []  # every localised name follows Discord's rules (the fake checks)

"""/help and each game's rules command, through the real bot and the offline Discord: every game of the registry
(the test game Nim too) is listed with buttons to its rules and to how to start it, and every rules text shown is
its description's."""

from __future__ import annotations

import re

import pytest

from games.registry import GameDescription, describe, descriptions
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.world import TabletopRunner, World


def _command_ids(world: World) -> dict[str, str]:
    return {c["name"]: c["id"] for c in world.fake.registered_commands()}


async def _help(world: World) -> FakeMessage:
    res = await world.fake.slash(world.alice, world.channel, "help")
    assert res.ephemeral and res.message is not None
    return res.message


async def test_help_lists_every_game_and_its_buttons_show_rules_and_how_to_start(
    world: World, bots: TabletopRunner, nim: None
) -> None:
    await bots.start()
    message = await _help(world)
    text = message.text()
    games = descriptions()
    assert {g.kind for g in games} == {"chopsticks", "generals", "sucker", "nim"}
    for game in games:
        assert f"**{game.title}** ({game.player_range()}" in text and str(game.summary) in text
        name = game.start_command.removeprefix("/")  # a clickable mention once Discord gave the command its id
        assert re.search(rf"Start: (</{name}:\d+>|`/{name}`)", text), text
    # The commands that belong to no game are listed from the bot's command tree, as clickable mentions (which
    # Discord shows in the reader's language).
    ids = _command_ids(world)
    for name in ("leaderboard", "stats", "history", "replay", "settings"):
        assert f"</{name}:{ids[name]}>: " in text, text
    assert "/help" not in text
    assert message.custom_ids() == [f"help:{what}:{g.kind}" for g in games for what in ("rules", "start")]
    labels = [b["label"] for b in message.buttons()]
    assert "Chopsticks: rules" in labels and "Play Chopsticks" in labels and "Nim: rules" in labels

    for game in games:
        rules = await world.fake.click(world.bob, message, f"help:rules:{game.kind}")
        assert rules.ephemeral and rules.message is not None, rules.errors
        assert str(game.rules or game.summary) in rules.message.text()  # Nim has no rules text: its summary
        assert rules.message.custom_ids() == [f"help:start:{game.kind}"]

        start = await world.fake.click(world.bob, message, f"help:start:{game.kind}")
        assert start.ephemeral and start.message is not None, start.errors
        group = game.start_command.removeprefix("/").split()[0]
        assert f"start with </{game.start_command.removeprefix('/')}:{ids[group]}>." in start.message.content
        assert "switched off" not in start.message.content

    start = await world.fake.click(world.bob, message, "help:start:chopsticks")
    assert start.message is not None
    for sub in ("challenge", "new", "rules", "analyze"):  # every command of the game, clickable
        assert f"</chopsticks {sub}:{ids['chopsticks']}>: " in start.message.content
    rules = await world.fake.click(world.bob, message, "help:rules:generals")
    assert rules.message is not None
    start = await world.fake.click(world.bob, rules.message, "help:start:generals")  # from the rules answer
    assert start.message is not None and f"</generals challenge:{ids['generals']}>" in start.message.content


async def test_how_to_start_says_when_a_game_is_switched_off_and_survives_a_restart(
    world: World, bots: TabletopRunner
) -> None:
    bot = await bots.start()
    ids = _command_ids(world)
    off = await world.fake.slash(world.alice, world.channel, "settings", "game", permissions=PERM_MANAGE_GUILD,
                                 options={"game": "sucker", "enabled": False})
    assert off.message is not None
    message = await _help(world)
    start = await world.fake.click(world.bob, message, "help:start:sucker")
    assert start.message is not None and "switched off on this server" in start.message.content

    # A restart with the same commands does not sync again, and still knows their ids (kept with the sync).
    await bots.stop(bot)
    await bots.start()
    assert len(world.fake.calls("PUT", "/applications/{application_id}/commands")) == 1
    start = await world.fake.click(world.bob, message, "help:start:chopsticks")
    assert start.message is not None and f"</chopsticks challenge:{ids['chopsticks']}>" in start.message.content


async def test_a_forged_game_kind_is_refused_privately(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    message = await _help(world)
    message.components[0]["components"][0]["custom_id"] = "help:rules:chess"  # a kind this bot does not have
    res = await world.fake.click(world.bob, message, "help:rules:chess")
    assert res.ephemeral and res.message is not None and "/help" in res.message.content


@pytest.mark.parametrize("kind", ["chopsticks", "generals", "sucker"])
async def test_each_games_rules_command_shows_its_description(world: World, bots: TabletopRunner, kind: str) -> None:
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, kind, "rules")
    assert res.ephemeral and res.message is not None
    game: GameDescription = describe(kind)
    assert game.rules and str(game.rules) in res.message.text()


async def test_chopsticks_rules_with_options_state_that_rule_set(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "rules",
                                 options={"preset": "three-hands"})
    assert res.message is not None
    text = res.message.text()
    assert "2 players, 3 hands each" in text and "exactly 7 fingers dies" in text
    assert "`/chopsticks rules` without options" in text and "**Notation**" not in text
    bad = await world.fake.slash(world.alice, world.channel, "chopsticks", "rules", options={"variants": "wet"})
    assert bad.ephemeral and bad.message is not None and "Unknown variant" in bad.message.content


def _choices(world: World, command: str, language: str) -> list[str]:
    """The `level` choices of `/<command> challenge` (or `new`) as the reader's Discord menu names them."""
    definition = next(c for c in world.fake.registered_commands() if c["name"] == command)
    for sub in definition["options"]:
        for option in sub.get("options") or []:
            if option["name"] == "level" and option.get("choices"):
                return [(c.get("name_localizations") or {}).get(language, c["name"]) for c in option["choices"]]
    return []


async def test_help_in_russian_names_levels_and_commands_as_the_readers_menu_does(
        world: World, bots: TabletopRunner) -> None:
    """Issue 23, defect 13: levels as the commands' own choices name them ("лёгкий, средний, безупречный", not
    "easy, medium, perfect"), and no command named in English beside commands named in Russian."""
    await bots.start()
    world.bob.locale = "ru"
    res = await world.fake.slash(world.bob, world.channel, "help")
    assert res.ephemeral and res.message is not None
    text = res.message.text()
    chopsticks = _choices(world, "chopsticks", "ru")
    assert chopsticks == ["лёгкий", "средний", "безупречный"]
    assert f"против меня, уровни: {', '.join(chopsticks)})" in text, text
    assert f"против меня, уровни: {', '.join(_choices(world, 'generals', 'ru'))})" in text, text
    assert "против меня, уровень: базовый)" in text, text  # So Long Sucker's one level, which no command offers
    assert not re.search(r"\b(easy|medium|perfect|random|greedy|strong|basic)\b", text), text
    # Every command is a mention (Discord shows it in Russian) or its Russian name: no English `/history`.
    assert not re.search(r"(?<![<\w])/[a-z]", text), text

    start = await world.fake.click(world.bob, res.message, "help:start:chopsticks", locale="ru")
    assert start.message is not None and not re.search(r"(?<![<\w])/[a-z]", start.message.content)


async def test_a_computer_seat_in_a_lobby_is_said_in_words(world: World, bots: TabletopRunner) -> None:
    """Not "@Tabletop (bot, basic)": "(computer, level: basic)", the level as the reader's language names it."""
    world.guild.locale = "ru"
    bot = await bots.start()
    lobby = (await world.fake.slash(world.alice, world.channel, "sucker", "new")).message
    assert lobby is not None
    added = await world.fake.click(world.alice, lobby, next(b["custom_id"] for b in lobby.buttons()
                                                              if str(b["custom_id"]).endswith(":bot")))
    assert added.callback_type == Callback.UPDATE_MESSAGE, added.errors
    assert bot.user is not None and f"<@{bot.user.id}> (компьютер, уровень: базовый)" in lobby.text(), lobby.text()
    assert "(bot, basic)" not in lobby.text()

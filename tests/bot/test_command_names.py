"""Commands named inside texts read as the reader's Discord client shows them: a Russian user is told to start a
game with "/генералы вызов", the command their menu lists, never the English "/generals challenge"."""

from __future__ import annotations

from bot.i18n import render
from games.registry import describe
from games.text import Command, Text
from tests.support.boards import move_buttons
from tests.support.codes import Callback, CommandType, InteractionType, OptionType
from tests.support.fakediscord import InteractionResult
from tests.support.interactions import raw_interaction
from tests.support.world import TabletopRunner, World


def _refusal(res: InteractionResult) -> str:
    assert res.ephemeral and res.message is not None, res.errors
    return res.message.text()


def test_a_command_is_each_word_in_the_readers_language_and_english_as_a_string() -> None:
    start = Command(describe("generals").start_command)
    assert str(start) == "/generals challenge" and render(start, "en") == "/generals challenge"
    assert render(start, "ru") == "/генералы вызов"
    assert render(Command("sucker new"), "ru") == "/простофиля новая"
    # A word the catalogue lacks shows its English, as Discord's menu shows an untranslated name.
    assert render(Command("generals no-such-word"), "ru") == "/генералы no-such-word"
    refusal = Text("You are not playing in this game. Start your own with {command}.", command=start)
    assert render(refusal, "ru").endswith("/генералы вызов.") and "generals" not in render(refusal, "ru")


async def test_a_russian_outsider_is_told_the_generals_command_in_russian(world: World,
                                                                        bots: TabletopRunner) -> None:
    world.carol.locale = "ru"
    await bots.start()
    fake = world.fake
    challenge = await fake.slash(world.alice, world.channel, "generals", "challenge", options={"opponent": world.bob})
    assert challenge.message is not None, challenge.errors
    board = challenge.message
    not_hers = _refusal(await fake.click(world.carol, board, "gg:1:accept"))  # bot/service/games.py
    assert "/генералы вызов" in not_hers and "/generals" not in not_hers, not_hers
    assert (await fake.click(world.bob, board, "gg:1:accept")).callback_type == Callback.UPDATE_MESSAGE
    not_playing = _refusal(await fake.click(world.carol, board, "gg:1:board"))  # the Generals presenter
    assert "/генералы вызов" in not_playing and "/generals" not in not_playing, not_playing


async def test_a_russian_outsider_is_told_the_chopsticks_command_in_russian_and_an_english_one_in_english(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    challenge = await fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                                 options={"opponent": world.bob})
    assert challenge.message is not None, challenge.errors
    board = challenge.message
    assert (await fake.click(world.bob, board, "cs:1:accept")).callback_type == Callback.UPDATE_MESSAGE
    move = move_buttons(board)[0]["custom_id"]
    english = _refusal(await fake.click(world.carol, board, move))  # bot/service/games.py, a move of someone else
    assert "Start your own with /chopsticks challenge." in english, english
    world.carol.locale = "ru"
    russian = _refusal(await fake.click(world.carol, board, move))
    assert "/палочки вызов" in russian and "/chopsticks" not in russian, russian


async def test_the_rules_footer_names_the_start_command_in_the_readers_language(world: World,
                                                                              bots: TabletopRunner) -> None:
    world.bob.locale = "ru"
    await bots.start()
    help_message = (await world.fake.slash(world.bob, world.channel, "help")).message
    assert help_message is not None
    res = await world.fake.click(world.bob, help_message, "help:rules:sucker")
    assert res.ephemeral and res.message is not None, res.errors
    footer = res.message.embeds[0]["footer"]["text"]
    assert footer.endswith("/простофиля новая") and "/sucker" not in footer, footer


async def test_an_option_the_command_lacks_is_refused_naming_the_command_in_the_readers_language(
        world: World, bots: TabletopRunner) -> None:
    """An out-of-date or forged client sends `/generals move` an option it does not have (bot/validation.py)."""
    await bots.start()
    command = next(c for c in world.fake.registered_commands() if c["name"] == "generals")
    data = {"id": command["id"], "name": "generals", "type": CommandType.CHAT_INPUT,
            "options": [{"name": "move", "type": OptionType.SUB_COMMAND,
                         "options": [{"name": "colour", "type": OptionType.STRING, "value": "x"}]}]}
    english = _refusal(await raw_interaction(world.fake, InteractionType.APPLICATION_COMMAND, world.alice,
                                             world.channel, data))
    assert "`/generals move` has no option `colour`" in english, english
    russian = _refusal(await raw_interaction(world.fake, InteractionType.APPLICATION_COMMAND, world.bob, world.channel,
                                             data, locale="ru"))
    assert "`/генералы ход`" in russian and "/generals" not in russian, russian


async def test_an_option_out_of_bounds_is_refused_naming_the_option_in_the_readers_language(
        world: World, bots: TabletopRunner) -> None:
    """A forged client sends `/chopsticks new players:` past its bounds: the option is named as the reader's menu
    names it."""
    await bots.start()
    command = next(c for c in world.fake.registered_commands() if c["name"] == "chopsticks")
    data = {"id": command["id"], "name": "chopsticks", "type": CommandType.CHAT_INPUT,
            "options": [{"name": "new", "type": OptionType.SUB_COMMAND,
                         "options": [{"name": "players", "type": OptionType.INTEGER, "value": 99}]}]}
    english = _refusal(await raw_interaction(world.fake, InteractionType.APPLICATION_COMMAND, world.alice,
                                             world.channel, data))
    assert english.startswith("`players` "), english  # "`players` must be a whole number from 2 to 6."
    russian = _refusal(await raw_interaction(world.fake, InteractionType.APPLICATION_COMMAND, world.bob, world.channel,
                                             data, locale="ru"))
    assert russian.startswith("`игроки`") and "players" not in russian, russian

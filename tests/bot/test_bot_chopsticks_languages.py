"""Chopsticks in two languages through the real bot and the offline Discord (issue 16): whole games between a
Russian-speaking and an English-speaking player, once on an English server and once on a Russian one. What the
channel shows (challenge, board, buttons, turn pings, the ending) is in the server's language; what one player is
told privately (rules, analysis, hints, refusals, the resign confirmation) is in that player's own."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from games.chopsticks.rules import PRESETS, VARIANTS
from tests.support.boards import move_buttons, player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser, InteractionResult
from tests.support.interactions import bot_idle, check_shown_and_pinged
from tests.support.world import TabletopRunner, World

CYRILLIC = re.compile(r"[\u0400-\u04ff]")
# What stays as it is in every language: code spans (`1312`, `AC`), mentions and timestamps (<@1>, <t:1:R>), links,
# the notation's letters (hands A-D, moves like AC), the names players type (variants, presets, the `odd` option) and
# "(bot)" after the bot's mention (bot/presenter.py: as Discord marks a bot). Any other English word in a Russian text
# is untranslated.
NAMES = sorted({*VARIANTS, *PRESETS, "odd"}, key=len, reverse=True)
NOT_WORDS = re.compile(r"`[^`]*`|<[^>]*>|https?://\S+|\(bot\b|\b(?:" + "|".join(map(re.escape, NAMES)) + r")\b")
ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")
Check = Callable[[FakeMessage | None], None]


def _words(message: FakeMessage) -> str:
    """Everything a person reads in the message: its text, embeds, button labels and menu texts."""
    parts = [message.text()]
    for component in message.walk_components():
        parts += [str(component.get(key) or "") for key in ("label", "placeholder")]
        parts += [str(option.get("label") or "") for option in component.get("options") or []]
    return "\n".join(parts)


def assert_russian(message: FakeMessage | None) -> None:
    assert message is not None
    text = _words(message)
    assert CYRILLIC.search(text), f"not Russian: {text!r}"
    leftovers = ENGLISH_WORD.findall(NOT_WORDS.sub(" ", text))
    assert not leftovers, f"English words {leftovers} in a Russian message: {text!r}"


def assert_english(message: FakeMessage | None) -> None:
    assert message is not None
    text = _words(message)
    assert not CYRILLIC.search(text), f"not English: {text!r}"
    assert ENGLISH_WORD.search(NOT_WORDS.sub(" ", text)), f"no words at all: {text!r}"


async def _private(res: InteractionResult) -> FakeMessage:
    """The ephemeral answer to an interaction, once it is complete (a deferred answer is filled in later)."""
    await res.wait_for_original()
    message = res.followups[0] if res.followups else res.message
    assert message is not None and message.ephemeral, res.errors
    return message


async def _play_a_whole_game(world: World, board: FakeMessage, check_public: Check,
                             speakers: dict[int, tuple[FakeUser, Check]]) -> None:
    """Both players click their way through a whole game (the hints on); at each turn the waiting player is refused
    privately first, and the player to move asks for a hint, each answer in that player's language."""
    rng = random.Random(16)
    moves = 0
    while move_buttons(board):
        mover_id = player_to_move(board)
        assert mover_id is not None
        mover, mover_check = speakers[mover_id]
        waiting, waiting_check = next(v for k, v in speakers.items() if k != mover_id)
        button = rng.choice(move_buttons(board))["custom_id"]
        if moves < 4:
            refused = await world.fake.click(waiting, board, button)
            waiting_check(await _private(refused))
            hint = await world.fake.click(mover, board, next(b["custom_id"] for b in board.buttons()
                                                             if ":hint:" in b["custom_id"]))
            mover_check(await _private(hint))
        res = await world.fake.click(mover, board, button)
        assert res.callback_type == Callback.UPDATE_MESSAGE, res.errors
        check_public(board)
        moves += 1
        assert moves < 300
    assert board.components == [] and moves >= 4, moves


async def _check_channel(world: World, check: Check, people: tuple[FakeUser, ...]) -> None:
    """Every message the channel shows, and every ping the players had, is in the server's language."""
    assert await bot_idle(world.fake)  # the ending is posted by a background task after the last answer
    shown = [m for m in world.fake.channel_messages(world.channel) if not m.ephemeral]
    assert len(shown) >= 2  # the game's message and at least its ending
    check_shown_and_pinged(world.fake, check, shown, people)


async def test_a_russian_player_on_an_english_server(world: World, bots: TabletopRunner) -> None:
    world.alice.locale = "ru"  # Alice's Discord is in Russian; Bob's and the server's in English
    await bots.start()
    alice, bob = world.alice, world.bob

    rules = await world.fake.slash(alice, world.channel, "chopsticks", "rules")
    assert_russian(await _private(rules))
    assert "`/палочки анализ код:1312`" in (await _private(rules)).text()
    table_rules = await world.fake.slash(alice, world.channel, "chopsticks", "rules", options={"preset": "three-hands"})
    assert_russian(await _private(table_rules))
    analysis = await world.fake.slash(alice, world.channel, "chopsticks", "analyze", options={"code": "1312"})
    assert_russian(await _private(analysis))
    bad_code = await world.fake.slash(alice, world.channel, "chopsticks", "analyze", options={"code": "1321"})
    assert_russian(await _private(bad_code))
    assert "по возрастанию" in (await _private(bad_code)).content
    english_analysis = await world.fake.slash(bob, world.channel, "chopsticks", "analyze", options={"code": "1312"})
    assert_english(await _private(english_analysis))
    no_table = await world.fake.slash(alice, world.channel, "chopsticks", "new", options={"variants": "zombie"})
    assert_russian(await _private(no_table))  # the engine's reason: zombies need three players
    assert "zombie" in (await _private(no_table)).content

    challenge = await world.fake.slash(alice, world.channel, "chopsticks", "new",
                                       options={"opponent": bob, "hints": True})
    board = challenge.message
    assert board is not None and not board.ephemeral
    assert_english(board)  # a channel message: the server's language, whoever started it
    assert "challenges" in board.text() and [b["label"] for b in board.buttons()] == ["Accept", "Decline"]
    await world.fake.click(bob, board, board.button("Accept")["custom_id"])
    assert_english(board)
    assert "Position `1111`" in board.text() and "Resign" in [b["label"] for b in board.buttons()]

    await _play_a_whole_game(world, board, assert_english, {alice.id: (alice, assert_russian),
                                                            bob.id: (bob, assert_english)})
    assert "wins" in board.text() or "Drawn" in board.text()
    await _check_channel(world, assert_english, (alice, bob))
    # A replay is private: each sees it in their own language.
    assert_russian(await _private(await world.fake.slash(alice, world.channel, "replay", options={"game": 1})))
    assert_english(await _private(await world.fake.slash(bob, world.channel, "replay", options={"game": 1})))


async def test_an_english_player_on_a_russian_server(world: World, bots: TabletopRunner) -> None:
    world.guild.locale = "ru"  # the server's preferred language: its boards and announcements are in Russian
    await bots.start()
    alice, bob = world.alice, world.bob  # both with English Discord clients

    rules = await world.fake.slash(bob, world.channel, "chopsticks", "rules")
    assert_english(await _private(rules))
    refused = await world.fake.slash(bob, world.channel, "chopsticks", "new", options={"players": 3, "opponent": alice})
    assert_english(await _private(refused))

    challenge = await world.fake.slash(alice, world.channel, "chopsticks", "new",
                                       options={"opponent": bob, "hints": True})
    board = challenge.message
    assert board is not None and not board.ephemeral
    assert_russian(board)
    assert "вызывает" in board.text() and [b["label"] for b in board.buttons()] == ["Принять", "Отклонить"]
    await world.fake.click(bob, board, board.button("Принять")["custom_id"])
    assert_russian(board)
    assert "Позиция `1111`" in board.text() and "Ходит" in board.text()

    # Resigning asks first, privately and in Bob's language; the board stays in the server's.
    confirm = await world.fake.click(bob, board, board.button("Сдаться")["custom_id"])
    assert_english(await _private(confirm))
    assert "You will be out" in (await _private(confirm)).content

    await _play_a_whole_game(world, board, assert_russian, {alice.id: (alice, assert_english),
                                                            bob.id: (bob, assert_english)})
    assert "Побеждает" in board.text() or "Ничья" in board.text()
    await _check_channel(world, assert_russian, (alice, bob))


async def test_resigning_in_russian_on_a_russian_server(world: World, bots: TabletopRunner) -> None:
    world.guild.locale = "ru"
    world.alice.locale = "ru"
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge")  # against me
    board = res.message
    assert board is not None
    assert_russian(board)
    confirm = await world.fake.click(world.alice, board, board.button("Сдаться")["custom_id"])
    assert_russian(await _private(confirm))
    yes = (await _private(confirm)).button("Да, сдаться")["custom_id"]
    done = await world.fake.click(world.alice, await _private(confirm), yes)
    assert done.message is not None and done.message.content == "Вы сдались."
    await world.fake.wait_until(lambda: "сдаётся" in board.text())
    assert_russian(board)
    assert board.components == []


async def test_turn_timers_speak_the_servers_language(world: World, bots: TabletopRunner) -> None:
    world.guild.locale = "ru"
    await bots.start_with(turn_timeout=1.2)
    challenge = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                                       options={"opponent": world.bob})
    board = challenge.message
    assert board is not None
    await world.fake.click(world.bob, board, board.button("Принять")["custom_id"])

    def reminders() -> list[FakeMessage]:
        return [m for m in world.fake.channel_messages(world.channel) if "Если не походите" in m.content]

    await world.fake.wait_until(lambda: bool(reminders()), timeout=5)
    assert_russian(reminders()[0])
    assert "«Палочки» #1" in reminders()[0].content
    await world.fake.wait_until(lambda: "вышло время" in board.text(), timeout=5)
    assert_russian(board)
    assert board.components == []
    await _check_channel(world, assert_russian, (world.alice, world.bob))

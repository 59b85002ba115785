"""Game of the Generals in two languages through the offline Discord: whole games between a Russian-speaking and an
English-speaking player, in an English server and in a Russian one. Every message each person sees is checked for
its language: the channel's (boards, the challenge, announcements, the ending) in the server's, each player's DM
board, ephemeral My board, forms, autocomplete and refusals in that player's own. The notation (squares, rank
abbreviations, mentions, timestamps) is the same in every language and is left out of the check."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from tests.support.codes import Callback
from tests.support.fakediscord import FakeDiscord, FakeMessage, FakeUser, InteractionResult
from tests.support.generals import A_GRID, B_GRID, import_grid, move, swap
from tests.support.world import TabletopRunner, World

CYRILLIC = re.compile("[\u0430-\u044f\u0451]", re.IGNORECASE)
# What stays as it is in every language: mentions, timestamps, code, links, squares, moves and files, game numbers.
NOTATION = re.compile(r"```.*?```|`[^`]*`|<[@#][!&]?\d+>|<t:\d+(?::[tTdDfFR])?>|https?://\S+|\b[a-i][1-8]\b|"
                      r"\ba-i\b|#\d+", re.DOTALL)
# Rank abbreviations (5G, PVT, ...) and the few names that are the same everywhere.
SAME_EVERYWHERE = {"FLG", "SPY", "PVT", "SGT", "2LT", "1LT", "CPT", "MAJ", "LTC", "COL", "TURN_TIMEOUT", "Discord"}
MOVE = re.compile(r"\((?:move|ход) (\d+)\)")
TO_MOVE = re.compile(r"▶ (?:<@(\d+)> to move|Ходит <@(\d+)>)")


def shown(message: FakeMessage) -> str:
    """Everything a person reads on a message: its text, and the words on its buttons and menus."""
    words = [message.text()]
    for component in message.walk_components():
        words += [str(component.get(key) or "") for key in ("label", "placeholder")]
        for option in component.get("options") or []:
            words += [str(option.get("label") or ""), str(option.get("description") or "")]
    return "\n".join(words)


def english_words(text: str) -> list[str]:
    """The English words left in `text` once the notation is taken out (a Russian text has none)."""
    plain = NOTATION.sub(" ", text)
    return [w for w in re.findall(r"[0-9A-Za-z][0-9A-Za-z'_-]*", plain)
            if len(re.findall("[A-Za-z]", w)) > 1 and w.upper() not in SAME_EVERYWHERE and w not in SAME_EVERYWHERE]


def assert_language(texts: Iterable[str], language: str, whose: str) -> None:
    texts = [t for t in texts if t.strip()]
    assert texts, f"nothing seen by {whose}"
    for text in texts:
        if language == "ru":
            assert CYRILLIC.search(text) and not english_words(text), (whose, english_words(text), text)
        else:
            assert not CYRILLIC.search(text), (whose, text)


def answers_to(fake: FakeDiscord, user: FakeUser) -> list[str]:
    """What `user` alone saw in answer to their own interactions: ephemeral replies and followups, forms, menus of
    suggestions (their DM board is checked with their DMs, the channel's messages with the channel)."""
    out = []
    for res in fake.interactions.values():
        if res.user.id != user.id:
            continue
        out += [shown(m) for m in (res.message, *res.followups) if m is not None and m.ephemeral]
        if res.modal is not None:
            out.append("\n".join(form_words(res.modal)))
        out += [str(choice["name"]) for choice in res.choices or []]
    return out


def form_words(form: Any) -> list[str]:
    """The words of a form: its title, and its fields' labels, texts and placeholders."""
    if isinstance(form, list):
        return [word for item in form for word in form_words(item)]
    if not isinstance(form, dict):
        return []
    words = [str(form[key]) for key in ("title", "label", "content", "placeholder", "description") if form.get(key)]
    return words + [word for value in form.values() if isinstance(value, dict | list) for word in form_words(value)]


def seen_in_dms(fake: FakeDiscord, user: FakeUser) -> list[str]:
    return [shown(m) for m in fake.dm_messages(user)]


def seen_in_channel(fake: FakeDiscord, world: World) -> list[str]:
    return [shown(m) for m in fake.channel_messages(world.channel)]


def move_number(board: FakeMessage) -> int:
    found = MOVE.search(board.text())
    return int(found.group(1)) if found else 0


def to_move(board: FakeMessage) -> int | None:
    found = TO_MOVE.search(board.text())
    return int(found.group(1) or found.group(2)) if found else None


def over(board: FakeMessage) -> bool:
    return "revealed" in board.text() or "раскрыт" in board.text()


async def settled(fake: FakeDiscord, *boards: FakeMessage, at_least: int) -> None:
    """Every board shows the same move, at least `at_least`, or the end of the game."""
    def same() -> bool:
        if any(over(board) for board in boards):
            return all(over(board) for board in boards)
        numbers = {move_number(board) for board in boards}
        return len(numbers) == 1 and numbers.pop() >= at_least

    await fake.wait_until(same, timeout=20)


def dm_board(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    boards = [m for m in fake.dm_messages(user) if m.embeds]
    assert len(boards) == 1, [m.text() for m in fake.dm_messages(user)]
    return boards[0]


async def set_up(world: World, user: FakeUser, board: FakeMessage, grid: str, *, swaps: bool) -> None:
    """Deploy on `board` as a player does: import a grid (a form), maybe swap two squares of the back rank, export,
    Ready."""
    fake = world.fake
    res = await import_grid(fake, user, board, grid)
    assert res.callback_type == Callback.UPDATE_MESSAGE and not res.errors, res.errors
    if swaps:
        back = "1" if user is world.alice else "8"  # Alice is side A (ranks 1-3), Bob side B (6-8)
        assert (await swap(fake, user, board, f"a{back}", f"b{back}")).callback_type == Callback.UPDATE_MESSAGE
        refused = await fake.slash(user, world.channel, "generals", "move", options={"move": "e3-e4"})
        assert refused.ephemeral  # play has not begun: refused, with the reason
    assert (await fake.click(user, board, "gg:1:export")).ephemeral
    assert (await fake.click(user, board, "gg:1:ready")).callback_type == Callback.UPDATE_MESSAGE


async def play_to_the_end(world: World, channel_board: FakeMessage, boards: dict[int, FakeMessage]) -> None:
    """Side B's 5★ General walks up and takes side A's Flag on e3, while side A's Private steps to and fro; each
    player asks for their moves once (autocomplete) and makes one refused move."""
    fake = world.fake
    users = {world.alice.id: world.alice, world.bob.id: world.bob}
    plans = {world.alice.id: ["a3-a4", "a4-a3", "a3-a4"], world.bob.id: ["e6-e5", "e5-e4", "e4-e3"]}
    asked: set[int] = set()
    while not over(channel_board):
        mover = to_move(channel_board)
        assert mover is not None, channel_board.text()
        user = users[mover]
        if mover not in asked:
            asked.add(mover)
            assert await fake.autocomplete(user, world.channel, "generals", "move", {"move": ""}, focused="move")
            refused = await fake.slash(user, world.channel, "generals", "move", options={"move": "e3-e9"})
            assert refused.ephemeral, refused.errors
        before = move_number(channel_board)
        await move(fake, user, boards[mover], plans[mover].pop(0))
        await settled(fake, channel_board, *boards.values(), at_least=before + 1)


async def a_whole_game(world: World, bots: TabletopRunner, *, bob_uses_dms: bool = True) -> FakeMessage:
    """Alice challenges Bob; both deploy (Bob by DM, or on My board when his DMs are closed), each opens My board
    once, and they play until Bob's General takes Alice's Flag. Returns the channel's board."""
    fake = world.fake
    if not bob_uses_dms:
        fake.fail_dm_for(world.bob)
    await bots.start()
    challenge = await fake.slash(world.alice, world.channel, "generals", "challenge", options={"opponent": world.bob})
    assert challenge.message is not None and not challenge.ephemeral, challenge.errors
    channel_board = challenge.message
    assert (await fake.click(world.bob, channel_board, "gg:1:accept")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1)
    alice = dm_board(fake, world.alice)
    if bob_uses_dms:
        await fake.wait_until(lambda: len(fake.dm_messages(world.bob)) == 1)
        bob = dm_board(fake, world.bob)
    else:
        await fake.wait_until(lambda: any("<@" in m.text() and m is not channel_board
                                          for m in fake.channel_messages(world.channel)))
        mine = await fake.click(world.bob, channel_board, "gg:1:board")
        assert mine.ephemeral and mine.message is not None, mine.errors
        bob = mine.message
    await set_up(world, world.alice, alice, A_GRID, swaps=True)
    await set_up(world, world.bob, bob, B_GRID, swaps=bob_uses_dms)
    await fake.wait_until(lambda: to_move(channel_board) is not None)
    for user in (world.alice, world.bob):  # each player's ephemeral board, as My board shows it
        if user is world.alice or bob_uses_dms:
            assert (await fake.click(user, channel_board, "gg:1:board")).ephemeral
    await play_to_the_end(world, channel_board, {world.alice.id: alice, world.bob.id: bob})
    await fake.wait_until(lambda: any("🏆" in m.text() for m in fake.channel_messages(world.channel)
                                      if m is not channel_board))
    return channel_board


async def test_a_russian_player_against_an_english_one_in_an_english_server(world: World,
                                                                             bots: TabletopRunner) -> None:
    world.alice.locale = "ru"
    channel_board = await a_whole_game(world, bots)
    fake = world.fake
    assert_language(seen_in_channel(fake, world), "en", "the channel")
    assert "Game of the Generals #1" in channel_board.text() and "wins" in channel_board.text()
    assert_language(seen_in_dms(fake, world.alice), "ru", "Alice's DMs")
    assert_language(answers_to(fake, world.alice), "ru", "Alice's answers")
    assert_language(seen_in_dms(fake, world.bob), "en", "Bob's DMs")
    assert_language(answers_to(fake, world.bob), "en", "Bob's answers")
    alice = dm_board(fake, world.alice).text()
    assert "Ваша армия · Игра генералов #1" in alice and "армии раскрыты." in alice, alice
    assert "Your army · Game of the Generals #1" in dm_board(fake, world.bob).text()


async def test_an_english_player_against_a_russian_one_on_my_board_in_a_russian_server(
        world: World, bots: TabletopRunner) -> None:
    world.guild.locale = "ru"  # the server's preferred language, as Discord tells the bot when it starts
    world.bob.locale = "ru"
    channel_board = await a_whole_game(world, bots, bob_uses_dms=False)
    fake = world.fake
    assert_language(seen_in_channel(fake, world), "ru", "the channel")
    text = channel_board.text()
    assert "Игра генералов #1" in text and f"Победа: <@{world.bob.id}>" in text and "армии раскрыты." in text
    # The notice of his closed DMs was in Russian, and is gone once he had his board (My board).
    notices = [m for m in fake.messages.values() if m.channel_id == world.channel.id
               and "мне не удалось отправить вам личное сообщение" in m.text()]
    assert notices and all(m.deleted for m in notices)
    assert_language(seen_in_dms(fake, world.alice), "en", "Alice's DMs")
    assert_language(answers_to(fake, world.alice), "en", "Alice's answers")
    assert not fake.dm_messages(world.bob)
    assert_language(answers_to(fake, world.bob), "ru", "Bob's answers (his My board included)")
    boards = [res.message for res in fake.interactions.values() if res.user.id == world.bob.id
              and res.message is not None and res.message.ephemeral and res.message.embeds]
    assert any("армии раскрыты." in board.text() for board in boards)  # kept current to the end, in Russian


async def test_a_player_who_switches_language_gets_their_board_redrawn_in_it(world: World,
                                                                          bots: TabletopRunner) -> None:
    """The key a DM board is drawn from includes its language: a player whose Discord speaks Russian now sees
    their board redrawn in Russian at the next redraw, though nothing on it changed."""
    fake = world.fake
    await bots.start()
    challenge = await fake.slash(world.alice, world.channel, "generals", "challenge", options={"opponent": world.bob})
    assert challenge.message is not None
    assert (await fake.click(world.bob, challenge.message, "gg:1:accept")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1 and len(fake.dm_messages(world.bob)) == 1)
    alice, bob = dm_board(fake, world.alice), dm_board(fake, world.bob)
    assert "Your army" in alice.text()
    world.alice.locale = "ru"
    assert (await fake.click(world.alice, challenge.message, "gg:1:board")).ephemeral  # her client speaks Russian now
    assert "Your army" in alice.text()  # her DM board is not redrawn by a click elsewhere
    await import_grid(fake, world.bob, bob, B_GRID)  # changes nothing Alice may see, but redraws every board
    await fake.wait_until(lambda: "Ваша армия" in alice.text())
    assert_language([shown(alice)], "ru", "Alice's DM board")


def refusal(res: InteractionResult) -> str:
    assert res.ephemeral and res.message is not None, res.errors
    return res.message.text()


async def test_forms_refusals_and_rules_speak_the_users_language(world: World, bots: TabletopRunner) -> None:
    fake = world.fake
    world.bob.locale = "ru"
    await bots.start()
    challenge = await fake.slash(world.alice, world.channel, "generals", "challenge", options={"opponent": world.bob})
    assert challenge.message is not None
    assert (await fake.click(world.bob, challenge.message, "gg:1:accept")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: len(fake.dm_messages(world.bob)) == 1)
    bob = dm_board(fake, world.bob)
    form = await fake.click(world.bob, bob, "gg:1:import")
    assert form.modal is not None and form.modal["title"] == "Импорт сетки расстановки", form.errors
    too_short = await fake.submit_modal(world.bob, form, {"grid": "PVT,PVT/5G"})
    assert "Расстановка: нужно строк — 3, по 9 клеток в каждой; здесь строк: 2." in refusal(too_short)
    assert "Сначала расставьте армию" in refusal(await fake.click(world.bob, bob, "gg:1:save"))
    assert "Экспортировать пока нечего" in refusal(await fake.click(world.bob, bob, "gg:1:export"))
    rules = await fake.slash(world.bob, world.channel, "generals", "rules")
    assert rules.message is not None and "`PVT` Рядовой \N{MULTIPLICATION SIGN}6" in rules.message.text()
    english = await fake.slash(world.alice, world.channel, "generals", "rules")
    assert "`PVT` Private \N{MULTIPLICATION SIGN}6" in refusal(english)
    assert_language(answers_to(fake, world.bob), "ru", "Bob's answers")
    assert_language(answers_to(fake, world.alice), "en", "Alice's answers")

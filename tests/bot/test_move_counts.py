"""One count of moves everywhere (issue 23): the moves of play, the setup being step 0 and a resignation no move.
Whatever counts moves says the same number: the ending ("N moves in T"), the boards ("Game over after N moves",
"Move N"), the replay ("Move K of N") and its `move` option; for every game kind."""

from __future__ import annotations

import re

from tests.bot.test_bot_generals import play_plans
from tests.bot.test_replays import images, replay
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage
from tests.support.generals import set_up
from tests.support.sucker import open_table, stored
from tests.support.world import TabletopRunner, World


def ending(world: World) -> FakeMessage:
    return next(m for m in world.fake.channel_messages(world.channel) if m.embeds and "is over" in m.text())


def _endings_anywhere(world: World) -> list[FakeMessage]:
    """Ending messages with their figures, in any channel or thread."""
    return [m for m in world.fake.messages.values() if m.embeds and re.search(r"[0-9]+ moves? in ", m.text())]


def counted(pattern: str, text: str) -> int:
    found = re.search(pattern, text)
    assert found is not None, (pattern, text)
    return int(found.group(1))


async def test_a_generals_game_counts_its_moves_of_play_alike_everywhere(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake, alice, bob = world.fake, world.alice, world.bob
    await images(world, False)  # the boards' counts as text, to read
    boards = await set_up(world)  # two imported setups and two readies: four actions, no move
    a = boards[1]
    plans = {alice.id: ["a3-a4", "a4-a3"], bob.id: ["a6-a5", "a5-a6"]}
    await play_plans(world, boards, plans, lambda board: not plans[alice.id] and not plans[bob.id])
    resigned = await fake.click(alice, a, "gg:1:resign")
    assert resigned.message is not None
    assert (await fake.click(alice, resigned.message, "gg:1:resign-yes")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: any(m.embeds and "is over" in m.text() for m in fake.channel_messages(world.channel)))
    await fake.wait_until(lambda: all("Game over after" in board.text() for board in boards))

    played = 4
    assert counted(r"(\d+) moves in ", ending(world).text()) == played
    for board in boards:
        assert counted(r"Game over after (\d+) moves", board.text()) == played, board.text()
    last = await replay(world, world.carol)
    assert last.content.startswith(f"Move {played} of {played}: <@{alice.id}> resigned"), last.content
    assert f"move {played} of {played}" in last.text()
    first = await replay(world, world.carol, 0)
    assert first.content == f"Move 0 of {played}: the setup is done and play begins."
    # The `move` option counts the same moves: move 2 is the position after the second move of play.
    second = await replay(world, world.carol, 2)
    assert re.match(rf"Move 2 of {played}: <@\d+> played `a[3-6]-a[3-6]`", second.content), second.content
    steps = [first.content]
    while (button := next(b for b in first.buttons() if b["label"] == "▶")) and not button.get("disabled"):
        assert (await fake.click(world.carol, first, str(button["custom_id"]))).callback_type == Callback.UPDATE_MESSAGE
        steps.append(first.content)
    assert [counted(r"^Move (\d+) of", s) for s in steps] == [0, 1, 2, 3, 4, 4], steps  # the resignation: no move
    assert all(f" of {played}" in s for s in steps)


async def test_a_chopsticks_game_counts_its_moves_of_play_alike_everywhere(world: World,
                                                                          bots: TabletopRunner) -> None:
    await bots.start()
    fake, alice, bob = world.fake, world.alice, world.bob
    res = await fake.slash(alice, world.channel, "chopsticks", "challenge", options={"opponent": bob})
    board = res.message
    assert board is not None
    await fake.click(bob, board, next(b["custom_id"] for b in board.buttons() if b["label"] == "Accept"))
    users = {alice.id: alice, bob.id: bob}
    for _ in range(3):
        mover = users[int(board.text().split("▶ <@")[1].split(">")[0])]
        await fake.click(mover, board, next(b["custom_id"] for b in board.buttons() if ":mv:" in b["custom_id"]))
    mover = users[int(board.text().split("▶ <@")[1].split(">")[0])]
    asked = await fake.click(mover, board, "cs:1:resign")
    assert asked.message is not None, asked.errors
    assert (await fake.click(mover, asked.message, "cs:1:resign-yes")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: any(m.embeds and "is over" in m.text() for m in fake.channel_messages(world.channel)))

    assert counted(r"(\d+) moves in ", ending(world).text()) == 3
    assert counted(r"Move (\d+) ·", board.text()) == 3, board.text()
    last = await replay(world, world.carol)
    assert last.content.startswith("Move 3 of 3: ") and "resigned" in last.content, last.content


async def test_a_sucker_game_counts_its_moves_of_play_alike_everywhere(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    people = [world.alice, world.bob, world.carol]
    await open_table(world, people)
    for _ in range(2):  # two decisions (the table's own tests play them by its menus)
        _status, state, _log = await stored(bots.target)
        seat = state.current_player()
        assert seat is not None
        await bot.service.act(1, people[seat].id, state.legal_actions(seat)[0].text())
    await bot.service.resign(1, world.bob.id)  # the table plays on without him
    await bot.service.resign(1, world.carol.id)  # and then it is over
    await bot.service.told()
    # The ending is said in the table's thread (the channel's summary says who won, without the figures).
    await world.fake.wait_until(lambda: bool(_endings_anywhere(world)))
    assert counted(r"(\d+) moves? in ", _endings_anywhere(world)[0].text()) == 2
    last = await replay(world, world.carol)
    assert last.content.startswith("Move 2 of 2: ") and "resigned" in last.content, last.content

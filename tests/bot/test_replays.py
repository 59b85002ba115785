"""Replays through the offline Discord: a Generals game's replay numbers the moves of play (the secret setup is one
step), draws each position as a picture that hides ranks until the game is over, and can be posted by a player;
Chopsticks and So Long Sucker replays step through their moves with the board and the move made."""

from __future__ import annotations

import re

from tests.bot.test_bot_generals import db_row, play_plans
from tests.support.chopsticks import accepted_game
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.generals import set_up
from tests.support.sucker import open_table, stored
from tests.support.world import TabletopRunner, World

SETUP_ACTIONS = 4  # two imported setups and two readies, summarised as move 0


def picture(world: World, message: FakeMessage) -> bytes:
    assert len(message.attachments) == 1, message.text()
    return world.fake.attachment_bytes(message.attachments[0])


def step(message: FakeMessage, label: str) -> str:
    return str(message.button(label)["custom_id"])


async def replay(world: World, user: FakeUser, move: int | None = None) -> FakeMessage:
    options: dict[str, object] = {"game": 1} if move is None else {"game": 1, "move": move}
    res = await world.fake.slash(user, world.channel, "replay", options=options)
    assert res.ephemeral and res.message is not None, res.errors
    return res.message


async def images(world: World, on: bool) -> None:
    res = await world.fake.slash(world.alice, world.channel, "settings", "set", permissions=PERM_MANAGE_GUILD,
                                 options={"images": on})
    assert res.message is not None and not res.errors, res.errors


async def test_a_generals_replay_numbers_moves_of_play_draws_pictures_and_can_be_posted(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    boards = await set_up(world)
    channel_board = boards[0]
    plans = {alice.id: ["a3-a4", "a4-a3", "a3-a4"], bob.id: ["e6-e5", "e5-e4", "e4-e3"]}
    await play_plans(world, boards, plans, lambda board: len(plans[alice.id]) + len(plans[bob.id]) <= 4)

    # While the game runs, a replay's latest frame is the channel's own picture, byte for byte: no rank more.
    running = await replay(world, carol)
    assert "Replay · Game of the Generals #1 · move 2 of 2" in running.text(), running.text()
    assert picture(world, running) == picture(world, channel_board)
    assert "Post publicly" not in str(running.buttons())
    first_running = await replay(world, carol, 0)
    assert first_running.content == "Move 0 of 2: the setup is done and play begins."
    hidden = picture(world, first_running)
    await images(world, False)
    text = (await replay(world, carol, 0)).text()
    assert "A?" in text and not re.search(r"\b(5G|FL|SP|PV)\b", text.split("```")[1], re.I)
    await images(world, True)

    await play_plans(world, boards, plans, lambda board: "wins" in board.text())
    total = int((await db_row(bots, "SELECT move_count FROM games WHERE id = 1"))[0]) - SETUP_ACTIONS
    frame = await replay(world, carol, 0)
    assert frame.content == f"Move 0 of {total}: the setup is done and play begins."
    assert f"move 0 of {total}" in frame.text() and "Ranks are shown" not in frame.text()
    assert picture(world, frame) != hidden  # the same position, every rank shown now that the game is over
    seen = [picture(world, frame)]
    for number in range(1, total + 1):
        res = await fake.click(carol, frame, step(frame, "▶"))
        assert res.callback_type == Callback.UPDATE_MESSAGE and not res.errors, res.errors
        assert re.match(rf"Move {number} of {total}: <@\d+> played `[a-i][1-8]-[a-i][1-8]`", frame.content)
        seen.append(picture(world, frame))  # the picture is replaced at each step
    assert len(set(seen)) == total + 1
    assert frame.content == f"Move {total} of {total}: <@{bob.id}> played `e4-e3`"

    # Posting: not offered to someone who did not play (tests/bot/test_texts.py: a forged click is refused); a player
    # posts it where everyone can step through it.
    assert "Post publicly" not in str(frame.buttons())
    mine = await replay(world, bob, 1)
    posted = await fake.click(bob, mine, step(mine, "Post publicly"))
    public = posted.message
    assert (posted.callback_type == Callback.CHANNEL_MESSAGE
            and not posted.ephemeral and public is not None), posted.errors
    assert public in fake.channel_messages(world.channel)
    assert public.content.startswith(f"Move 1 of {total}: ") and picture(world, public) == seen[1]
    assert "Post publicly" not in str(public.buttons())
    back = await fake.click(carol, public, step(public, "◀"))
    assert back.callback_type == Callback.UPDATE_MESSAGE and public.content.startswith(f"Move 0 of {total}: ")
    assert picture(world, public) == seen[0]

    # Pictures off on the server: the text board, every rank revealed.
    await images(world, False)
    text = (await replay(world, carol, 0)).text()
    grid = text.split("```")[1]
    assert re.search(r"\bFL\b", grid) and re.search(r"\bfl\b", grid)


async def test_a_chopsticks_replay_names_each_move_with_its_board(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await accepted_game(world)
    users = {world.alice.id: world.alice, world.bob.id: world.bob}
    movers = []
    for _ in range(3):
        mover = users[int(board.text().split("▶ <@")[1].split(">")[0])]
        movers.append(mover)
        await world.fake.click(mover, board, next(b["custom_id"] for b in board.buttons() if ":mv:" in b["custom_id"]))
    frame = await replay(world, world.carol, 0)
    assert frame.content == "Move 0 of 3: the starting position." and "Position `1111`" in frame.text()
    for number, mover in enumerate(movers, start=1):
        await world.fake.click(world.carol, frame, step(frame, "▶"))
        assert re.fullmatch(rf"Move {number} of 3: <@{mover.id}> played `[A-Z0-9-]+`", frame.content), frame.content
        assert "Position `" in frame.text() and not frame.attachments
    assert "Post publicly" not in str(frame.buttons())  # the game is not over


async def test_a_sucker_replay_steps_through_its_moves_with_the_table(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    people = [world.alice, world.bob, world.carol]
    await open_table(world, people)
    for _ in range(3):  # the moves are made by the service (how a chip is played is the table's own tests' topic)
        _status, state, _log = await stored(bots.target)
        seat = state.current_player()
        assert seat is not None
        await bot.service.act(1, people[seat].id, state.legal_actions(seat)[0].text())
    *_, log = await stored(bots.target)
    assert len(log) == 3
    frame = await replay(world, world.carol)
    # Each step in the table's words (a person with their colour), never its action text (`play:red:new`).
    assert re.fullmatch(r"Move 3 of 3: <@\d+> \((red|blue|green)\) .+\.", frame.content), frame.content
    assert log[-1][2] not in frame.content and "played `" not in frame.content
    await world.fake.click(world.carol, frame, step(frame, "⏮"))
    assert frame.content == "Move 0 of 3: the starting position." and "move 0 of 3" in frame.text()
    await world.fake.click(world.carol, frame, step(frame, "▶"))
    assert frame.content.startswith("Move 1 of 3: <@") and "played `" not in frame.content
    assert "(blue)" in frame.text() and "(green)" in frame.text()  # the table's seats, as the status message shows

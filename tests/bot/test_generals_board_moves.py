"""Game of the Generals moves made on the private board itself: a piece, then a direction, on the same message."""

from __future__ import annotations

from typing import Any

from tests.support.codes import Callback
from tests.support.fakediscord import FakeDiscord, FakeMessage, FakeUser, InteractionResult
from tests.support.generals import (
    A_GRID,
    B_GRID,
    accepted_with_dm_boards,
    import_grid,
    set_up,
    settled,
    swap,
    to_move,
)
from tests.support.interactions import bot_idle
from tests.support.world import TabletopRunner, World


def _piece_menu(board: FakeMessage) -> dict[str, Any]:
    return next(s for s in board.selects() if str(s["custom_id"]).startswith("ggs:1:piece:"))


def _directions(board: FakeMessage) -> list[str]:
    return [str(b["custom_id"]) for b in board.buttons() if str(b["custom_id"]).startswith("ggm:1:")]


Mover = tuple[FakeUser, FakeMessage, str, str]  # the player, their board, their front Private's square, ahead of it


async def _deployed(world: World) -> tuple[FakeMessage, FakeMessage, FakeMessage, dict[int, Mover], tuple[int, int]]:
    """Both armies deployed (A_GRID, B_GRID): the channel's board, Alice's and Bob's boards, each player's `Mover` by
    id, and who moves first and second."""
    channel_board, a, b = await set_up(world, (A_GRID, B_GRID))
    players = {world.alice.id: (world.alice, a, "a3", "a4"), world.bob.id: (world.bob, b, "a6", "a5")}
    first = to_move(channel_board)
    assert first is not None
    second = world.bob.id if first == world.alice.id else world.alice.id
    return channel_board, a, b, players, (first, second)


async def _pick(fake: FakeDiscord, user: FakeUser, board: FakeMessage, square: str) -> InteractionResult:
    picked = await fake.select(user, board, str(_piece_menu(board)["custom_id"]), [square])
    assert picked.callback_type == Callback.UPDATE_MESSAGE and picked.message is board, picked.errors
    return picked


async def test_a_move_is_two_clicks_on_the_board_even_for_a_piece_with_one_move(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    channel_board, a, b, players, (first, second) = await _deployed(world)
    messages = len(fake.messages)  # dicts keep their order: the new ones come last

    # Every piece's first step is its only one (the armies fill their ranks): the pick only shows it (a mis-tap in
    # the menu costs nothing), its one direction button moves it.
    for mover, at_least in ((first, 2), (second, 3)):
        user, board, square, ahead = players[mover]
        shown = channel_board.edits
        await _pick(fake, user, board, square)
        assert _directions(board) == [f"ggm:1:{at_least - 2}:{square}-{ahead}"], board.text()
        assert f"your Private on {square} is chosen" in board.text() and "Last: You moved" not in board.text()
        assert await bot_idle(fake) and channel_board.edits == shown and to_move(channel_board) == mover
        done = await fake.click(user, board, _directions(board)[0])
        assert done.callback_type == Callback.UPDATE_MESSAGE and done.message is board, done.errors
        assert _directions(board) == [] and f"Last: You moved your Private {square}-{ahead}." in board.text()
        await settled(fake, channel_board, a, b, at_least=at_least)

    # Now the Private ahead can step forward, back or sideways: the pick shows its directions on the board.
    user, board, square, ahead = players[first]
    unpicked = [dict(a) for a in board.attachments]
    await _pick(fake, user, board, ahead)
    assert board.attachments and board.attachments != unpicked  # a new picture (test_render_generals: the mark)
    chosen = [o["value"] for o in _piece_menu(board)["options"] if o.get("default")]
    assert chosen == [ahead] and f"your Private on {ahead} is chosen" in board.text()
    directions = _directions(board)
    assert len(directions) >= 2 and all(f":{ahead}-" in d for d in directions), directions
    back = next(d for d in directions if d.endswith(f"-{square}"))
    done = await fake.click(user, board, back)
    assert done.callback_type == Callback.UPDATE_MESSAGE and done.message is board, done.errors
    assert _directions(board) == [] and f"Last: You moved your Private {ahead}-{square}." in board.text()
    await settled(fake, channel_board, a, b, at_least=4)
    # Every move edited the boards: nothing new in the DMs, no private answer (the channel's turn pings aside).
    new = list(fake.messages.values())[messages:]
    assert not [m for m in new if m.ephemeral or m.channel_id != world.channel.id], new
    assert len(fake.dm_messages(world.alice)) == len(fake.dm_messages(world.bob)) == 1


async def test_a_move_by_command_clears_the_chosen_piece(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    channel_board, a, b, players, (first, second) = await _deployed(world)
    for mover, at_least in ((first, 2), (second, 3)):
        user, board, square, _ahead = players[mover]
        await _pick(fake, user, board, square)
        assert (await fake.click(user, board, _directions(board)[0])).callback_type == Callback.UPDATE_MESSAGE
        await settled(fake, channel_board, a, b, at_least=at_least)

    user, board, square, ahead = players[first]
    await _pick(fake, user, board, ahead)
    assert _directions(board)
    res = await fake.slash(user, world.channel, "generals", "move", options={"move": f"{ahead}-{square}"})
    assert res.ephemeral and not res.errors, res.errors
    await settled(fake, channel_board, a, b, at_least=4)
    # The board that showed the chosen piece is redrawn without it: no stale directions, no stale menu.
    await fake.wait_until(lambda: _directions(board) == [] and "is chosen" not in board.text())
    assert f"Last: You moved your Private {ahead}-{square}." in board.text()


async def test_a_setup_swap_is_two_choices_on_the_board_and_nobody_else_sees_an_edit(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    channel_board, a, b = await accepted_with_dm_boards(world)
    assert (await import_grid(fake, world.alice, a, A_GRID)).callback_type == Callback.UPDATE_MESSAGE
    assert (await import_grid(fake, world.bob, b, B_GRID)).callback_type == Callback.UPDATE_MESSAGE
    assert await bot_idle(fake)
    quiet = (b.edits, channel_board.edits)

    # Pick: the board shows the pick (text, picture, menus that now swap with it), nothing is played yet.
    picture = [dict(x) for x in a.attachments]
    menu = next(m for m in a.selects() if "pick:e3" in [o["value"] for o in m["options"]])
    picked = await fake.select(world.alice, a, str(menu["custom_id"]), ["pick:e3"])
    assert picked.callback_type == Callback.UPDATE_MESSAGE and picked.message is a, picked.errors
    assert "your Flag on e3 is picked" in a.text() and a.attachments != picture
    offers = [o["value"] for m in a.selects() for o in m["options"] if str(o["value"]).startswith("swap:")]
    assert "swap:e3-a1" in offers and len(offers) == 26  # every other home square

    # Swap: the second choice makes it, on the same message; the grid shows it.
    done = await fake.select(world.alice, a, _menu_with(a, "swap:e3-a1"), ["swap:e3-a1"])
    assert (done.callback_type == Callback.UPDATE_MESSAGE
            and done.message is a and "is picked" not in a.text()), done.errors
    exported = await fake.click(world.alice, a, "gg:1:export")
    assert exported.message is not None
    rows = {line.split("|")[0].strip(): line.split("|")[1].split() for line in exported.message.text().split("\n")
            if "|" in line}
    assert rows["1"][0] == "FLG" and rows["3"][4] == "1LT", exported.message.text()  # A_GRID had 1LT on a1

    # Picking again then letting go changes nothing; more swaps neither.
    await fake.select(world.alice, a, _menu_with(a, "pick:b2"), ["pick:b2"])
    await fake.select(world.alice, a, _menu_with(a, "drop:b2"), ["drop:b2"])
    assert "is picked" not in a.text()
    await swap(fake, world.alice, a, "b2", "c2")
    await swap(fake, world.alice, a, "c3", "d1")
    # Bob's board and the channel board were not edited by any of it: what they show did not change.
    assert await bot_idle(fake)
    assert (b.edits, channel_board.edits) == quiet


def _menu_with(board: FakeMessage, value: str) -> str:
    return next(str(m["custom_id"]) for m in board.selects() if value in [o["value"] for o in m["options"]])

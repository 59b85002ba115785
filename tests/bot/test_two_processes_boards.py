"""Two bot processes on one database and one Discord (issue 17, point 4): every board ends on the latest stored
position whatever order their edits land in, and a player's private board is DMed once.

The second process is a second `TabletopRunner` on the same database (file or URL) and the same fake Discord; the
fake dispatches events to the newest session, so the first process is driven through its own service and drawing,
as it would be by its own shard's clicks."""

from __future__ import annotations

import asyncio
from typing import Any

from bot.client import TabletopBot
from bot.service.model import StaleStateError
from tests.support.boards import player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.generals import BOARD_TITLE
from tests.support.world import TabletopRunner, World

EDIT = "/channels/{channel_id}/messages/{message_id}"


async def _act(bot: TabletopBot, game_id: int, user_id: int, action: str) -> Any:
    """`action` through `bot`'s service, from the game as stored (its copy may be older than the other process's
    write, which a player's click would find out by a refusal)."""
    await bot.service.view(game_id, fresh=True)
    return await bot.service.act(game_id, user_id, action)


async def _generals_challenge(world: World) -> tuple[FakeMessage, int]:
    """Alice challenges Bob to Game of the Generals: the channel message and the game's id."""
    res = await world.fake.slash(world.alice, world.channel, "generals", "challenge", options={"opponent": world.bob})
    board = res.message
    assert board is not None, res.errors
    return board, int(str(board.custom_ids()[0]).split(":")[1])


async def _chopsticks_game(world: World) -> tuple[FakeMessage, int]:
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"opponent": world.bob})
    board = res.message
    assert board is not None, res.errors
    game_id = int(str(board.custom_ids()[0]).split(":")[1])
    accepted = await world.fake.click(world.bob, board, board.button("Accept")["custom_id"])
    assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
    return board, game_id


async def test_an_older_edit_landing_last_is_drawn_over_with_the_latest_position(
    world: World, bots: TabletopRunner,
) -> None:
    first = await bots.start()
    others = TabletopRunner(world.fake, bots.database, url=bots.url)
    second = await others.start()  # the newest session: it gets the clicks
    try:
        board, game_id = await _chopsticks_game(world)
        mover = player_to_move(board)
        assert mover in (world.alice.id, world.bob.id)
        other = world.bob.id if mover == world.alice.id else world.alice.id

        # The first process stores a move and redraws; its edit reaches Discord a second late.
        late = world.fake.inject_rest_fault("PATCH", EDIT, status=None, delay=1.0)
        older = await _act(first, game_id, mover, "AC")
        drawing = asyncio.create_task(first.redraw(game_id))
        await world.fake.wait_until(lambda: len(late.hits) == 1, timeout=10)
        # Meanwhile the second process stores the next move and draws it: its edit lands first.
        newer = await _act(second, game_id, other, "AC")
        assert newer.game.version > older.game.version
        await second.redraw(game_id)
        latest = board.text()  # the board as the second process drew it
        await drawing  # the older edit lands last ...
        await world.fake.wait_until(lambda: board.text() == latest, timeout=10)  # ... and is drawn over
        assert board.text() == latest
        stored = await second.drawn.store.of_game(game_id)
        assert [b.version for b in stored if b.message_id == board.id] == [newer.game.version]
    finally:
        await others.stop_all()


def _own_boards(world: World, user: FakeUser, game_id: int) -> list[FakeMessage]:
    return [m for m in world.fake.dm_messages(user) if BOARD_TITLE in m.text() and f"#{game_id}" in m.text()]


async def test_a_private_board_is_dmed_once_when_two_processes_deliver_it(world: World, bots: TabletopRunner) -> None:
    first = await bots.start()
    others = TabletopRunner(world.fake, bots.database, url=bots.url)
    await others.start()  # the newest session: it gets the clicks
    try:
        board, game_id = await _generals_challenge(world)
        # The DMs of the second process (which handles the accept) reach Discord late, while the first process
        # delivers the same game's boards (a restart's restore, a redraw of its own).
        late = world.fake.inject_rest_fault("POST", "/channels/{channel_id}/messages", status=None, delay=0.5,
                                            times=2)
        accepted = await world.fake.click(world.bob, board, f"gg:{game_id}:accept")
        assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
        await world.fake.wait_until(lambda: len(late.hits) >= 1, timeout=10)
        generals: Any = first.presenters["generals"]  # its extension's own class: one module per load
        await generals.private_boards.open(game_id)
        await world.fake.wait_until(
            lambda: len(_own_boards(world, world.alice, game_id)) >= 1 and len(_own_boards(world, world.bob,
                                                                                          game_id)) >= 1, timeout=20)
        await asyncio.sleep(1.5)  # any second DM would have landed by now
        assert len(_own_boards(world, world.alice, game_id)) == 1
        assert len(_own_boards(world, world.bob, game_id)) == 1
    finally:
        await others.stop_all()


async def _ready(bot: TabletopBot, game_id: int, user_id: int) -> None:
    """Ready through `bot`; losing the race with the other process's Ready is refused as stale: look again."""
    try:
        await _act(bot, game_id, user_id, "ready")
    except StaleStateError:
        await _act(bot, game_id, user_id, "ready")


async def test_play_began_is_announced_once_when_both_ready_on_two_processes(
    world: World, bots: TabletopRunner,
) -> None:
    """Already safe before issue 17 (kept as a guard): the announcement comes from the event of the one write that
    began play, and only the process that made that write publishes it."""
    first = await bots.start()
    others = TabletopRunner(world.fake, bots.database, url=bots.url)
    second = await others.start()
    try:
        board, game_id = await _generals_challenge(world)
        accepted = await world.fake.click(world.bob, board, f"gg:{game_id}:accept")
        assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
        await _act(first, game_id, world.alice.id, "formation:balanced")
        await _act(second, game_id, world.bob.id, "formation:blitz")
        await asyncio.gather(_ready(first, game_id, world.alice.id), _ready(second, game_id, world.bob.id))
        await first.service.told()
        await second.service.told()
        began = [m for m in world.fake.channel_messages(world.channel) if "both armies are deployed" in m.content]
        assert len(began) == 1
    finally:
        await others.stop_all()


async def test_a_pick_shown_by_one_process_is_not_wiped_by_the_others_redraw(
    world: World, bots: TabletopRunner,
) -> None:
    """A player's pick (a square to swap, a piece to move) is marked on their board by the process that took the click;
    a redraw of the same position by another process would only wipe it, so it makes none. (Before, the other process
    read the pick's record, a key of its own, and drew the plain board over it; now the key of a board with a pick
    ends in `PICKED`, and every process reads that from the record.)"""
    first = await bots.start()
    others = TabletopRunner(world.fake, bots.database, url=bots.url)
    second = await others.start()  # the newest session: it gets the clicks
    try:
        board, game_id = await _generals_challenge(world)
        accepted = await world.fake.click(world.bob, board, f"gg:{game_id}:accept")
        assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
        await world.fake.wait_until(lambda: len(_own_boards(world, world.alice, game_id)) == 1, timeout=20)
        [own] = _own_boards(world, world.alice, game_id)
        deployed = await world.fake.select(world.alice, own, f"ggs:{game_id}:formation", ["f:balanced"])
        assert deployed.callback_type == Callback.UPDATE_MESSAGE, deployed.errors
        menu = next(s for s in own.selects() if any(o["value"].startswith("pick:") for o in s["options"]))
        square = next(o["value"] for o in menu["options"] if o["value"].startswith("pick:"))
        picked = await world.fake.select(world.alice, own, str(menu["custom_id"]), [square])
        assert picked.callback_type == Callback.UPDATE_MESSAGE and "is picked" in own.text(), picked.errors
        # The process that drew the pick records it once its drawing ends (after answering the click).
        for _ in range(250):
            if await _recorded_key(first, game_id, own.id) == second.drawn.get(own.id):
                break
            await asyncio.sleep(0.02)
        assert await _recorded_key(first, game_id, own.id) == second.drawn.get(own.id)
        edits = own.edits

        await first.redraw(game_id)  # the same position, drawn by the process that did not see the pick

        assert own.edits == edits and "is picked" in own.text()
    finally:
        await others.stop_all()


async def _recorded_key(bot: TabletopBot, game_id: int, message_id: int) -> str | None:
    return next((b.key for b in await bot.drawn.store.of_game(game_id) if b.message_id == message_id), None)

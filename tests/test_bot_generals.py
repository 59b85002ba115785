"""Game of the Generals through the offline Discord: challenges, hidden setup by DM (or the ephemeral
fallback), play by piece menu + direction buttons or by command, the public board, the end and restarts."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from tests.conftest import TabletopRunner, World
from tests.fakediscord import FakeDiscord, FakeMessage, FakeUser, InteractionResult

# Side A: the Flag in the middle of the front row (e3), so side B's 5★ General can walk up and take it.
A_GRID = "PVT,PVT,PVT,PVT,FLG,PVT,PVT,SPY,SPY/5G,4G,3G,2G,1G,COL,LTC,MAJ,CPT/1LT,2LT,SGT,.,.,.,.,.,."
# Side B (rows 8, 7, 6): its 5★ General on e6, facing A's Flag.
B_GRID = "1LT,2LT,SGT,.,.,.,.,.,./FLG,4G,3G,2G,1G,COL,LTC,MAJ,CPT/PVT,PVT,PVT,PVT,5G,PVT,PVT,SPY,SPY"
BOARD_TITLE = "Your army · Game of the Generals"


async def challenge(world: World, challenger: FakeUser, opponent: FakeUser | None = None,
                    **options: Any) -> FakeMessage:
    if opponent is not None:
        options["opponent"] = opponent
    res = await world.fake.slash(challenger, world.channel, "generals", "challenge", options=options)
    assert res.callback_type == 4 and not res.ephemeral and res.message is not None, res.errors
    return res.message


async def accepted(world: World) -> FakeMessage:
    board = await challenge(world, world.alice, world.bob)
    res = await world.fake.click(world.bob, board, "gg:1:accept")
    assert res.callback_type == 7 and res.message is board, res.errors
    return board


def dm_board(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    boards = [m for m in fake.dm_messages(user) if BOARD_TITLE in m.text()]
    assert len(boards) == 1, [m.text() for m in fake.dm_messages(user)]
    return boards[0]


async def import_grid(fake: FakeDiscord, user: FakeUser, board: FakeMessage, grid: str) -> InteractionResult:
    shown = await fake.click(user, board, "gg:1:import")
    assert shown.callback_type == 9 and shown.modal is not None, shown.errors
    return await fake.submit_modal(user, shown, {"grid": grid})


async def move(fake: FakeDiscord, user: FakeUser, board: FakeMessage, text: str) -> InteractionResult:
    """Play `text` the way a player does: pick the piece in the menu, then press the direction button."""
    src = text.split("-")[0]
    menus = [s for s in board.selects() if str(s["custom_id"]).startswith("ggs:1:piece:")]
    assert menus, board.text()
    menu = menus[0]
    assert src in [o["value"] for o in menu["options"]], board.text()
    picked = await fake.select(user, board, menu["custom_id"], [src])
    assert picked.callback_type == 4 and picked.ephemeral and picked.message is not None, picked.errors
    button = next(b for b in picked.message.buttons() if str(b["custom_id"]).endswith(f":{text}"))
    done = await fake.click(user, picked.message, button["custom_id"])
    assert done.callback_type == 7, done.errors
    return done


def db_row(bots: TabletopRunner, sql: str) -> tuple[Any, ...]:
    conn = sqlite3.connect(bots.database)
    try:
        row = conn.execute(sql).fetchone()
    finally:
        conn.close()
    return tuple(row)


def move_number(board: FakeMessage) -> int | None:
    found = re.search(r"\(move (\d+)\)", board.text())
    return int(found.group(1)) if found else None


async def settled(fake: FakeDiscord, *boards: FakeMessage, at_least: int = 1) -> None:
    """Wait until every board shows the same move, `at_least` that one (the redraws after a move landed)."""
    def same() -> bool:
        if any("revealed" in board.text() for board in boards):
            return True
        numbers = {move_number(board) for board in boards}
        return len(numbers) == 1 and (numbers.pop() or 0) >= at_least

    await fake.wait_until(same)


def to_move(board: FakeMessage) -> int | None:
    found = re.search(r"▶ <@(\d+)> to move", board.text())
    return int(found.group(1)) if found else None


async def set_up_both(world: World) -> tuple[FakeMessage, FakeMessage, FakeMessage]:
    channel_board = await accepted(world)
    fake = world.fake
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1 and len(fake.dm_messages(world.bob)) == 1)
    a, b = dm_board(fake, world.alice), dm_board(fake, world.bob)
    for user, board, grid in ((world.alice, a, A_GRID), (world.bob, b, B_GRID)):
        res = await import_grid(fake, user, board, grid)
        assert res.callback_type == 7 and not res.errors, res.errors
        ready = await fake.click(user, board, "gg:1:ready")
        assert ready.callback_type == 7, ready.errors
    await fake.wait_until(lambda: to_move(channel_board) is not None)
    await settled(fake, channel_board, a, b)
    return channel_board, a, b


async def test_two_players_set_up_by_dm_and_play_to_a_flag_capture(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    channel_board, a, b = await set_up_both(world)
    assert channel_board.attachments and a.attachments and b.attachments  # pictures everywhere
    assert "Setup" not in channel_board.text()
    users = {world.alice.id: (world.alice, a), world.bob.id: (world.bob, b)}
    plans = {world.alice.id: ["a3-a4", "a4-a3", "a3-a4"], world.bob.id: ["e6-e5", "e5-e4", "e4-e3"]}
    while plans[world.bob.id]:
        mover = to_move(channel_board)
        assert mover is not None, channel_board.text()
        user, board = users[mover]
        before = move_number(channel_board) or 0
        await move(fake, user, board, plans[mover].pop(0))
        await settled(fake, channel_board, a, b, at_least=before + 1)
    await fake.wait_until(lambda: "wins" in channel_board.text())
    text = channel_board.text()
    assert f"<@{world.bob.id}> wins" in text and "Flag was captured" in text and "revealed" in text
    assert not channel_board.components
    await fake.wait_until(lambda: "Every piece is revealed" in a.text() and "Every piece is revealed" in b.text())
    assert db_row(bots, "SELECT status FROM games WHERE id = 1") == ("finished",)

"""Game of the Generals through the offline Discord: two setups, and playing and watching a game as players do."""

from __future__ import annotations

import re
from typing import Any

from tests.support.codes import Callback
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, InteractionResult
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.world import World

# Side A: the Flag in the middle of the front row (e3), so side B's 5★ General can walk up and take it.
A_GRID = "PVT,PVT,PVT,PVT,FLG,PVT,PVT,SPY,SPY/5G,4G,3G,2G,1G,COL,LTC,MAJ,CPT/1LT,2LT,SGT,.,.,.,.,.,."
# Side B (rows 8, 7, 6): its 5★ General on e6, facing A's Flag.
B_GRID = "1LT,2LT,SGT,.,.,.,.,.,./FLG,4G,3G,2G,1G,COL,LTC,MAJ,CPT/PVT,PVT,PVT,PVT,5G,PVT,PVT,SPY,SPY"


# The title of a player's own board (their DMs, or My board in the channel).
BOARD_TITLE = "Your army · Game of the Generals"

async def pictures_off(world: World) -> None:
    """Alice, managing the server, turns the board pictures off (/settings set images): boards are text, readable."""
    saved = await world.fake.slash(world.alice, world.channel, "settings", "set", permissions=PERM_MANAGE_GUILD,
                                   options={"images": False})
    assert saved.ephemeral, saved.errors


async def challenge(world: World, challenger: FakeUser, opponent: FakeUser | None = None, *,
                    channel: FakeChannel | None = None, **options: Any) -> FakeMessage:
    """The public board of a challenge `challenger` types in `channel` (the world's by default)."""
    if opponent is not None:
        options["opponent"] = opponent
    res = await world.fake.slash(challenger, channel or world.channel, "generals", "challenge", options=options)
    assert res.callback_type == Callback.CHANNEL_MESSAGE and not res.ephemeral and res.message is not None, res.errors
    return res.message


async def accepted(world: World, channel: FakeChannel | None = None) -> FakeMessage:
    """The board of game 1, Alice's challenge in `channel` (the world's by default) that Bob accepted."""
    board = await challenge(world, world.alice, world.bob, channel=channel)
    res = await world.fake.click(world.bob, board, "gg:1:accept")
    assert res.callback_type == Callback.UPDATE_MESSAGE and res.message is board, res.errors
    return board


def dm_board(fake: FakeDiscord, user: FakeUser) -> FakeMessage:
    """`user`'s own board in their DMs (there must be exactly one)."""
    boards = [m for m in fake.dm_messages(user) if BOARD_TITLE in m.text()]
    assert len(boards) == 1, [m.text() for m in fake.dm_messages(user)]
    return boards[0]


async def accepted_with_dm_boards(world: World,
                                  channel: FakeChannel | None = None) -> tuple[FakeMessage, FakeMessage, FakeMessage]:
    """Game 1 accepted in `channel` (the world's by default), once Alice and Bob have their setup board by DM, their
    only DM: the channel board, Alice's and Bob's boards."""
    channel_board = await accepted(world, channel)
    fake = world.fake
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1 and len(fake.dm_messages(world.bob)) == 1,
                          timeout=20)
    return channel_board, dm_board(fake, world.alice), dm_board(fake, world.bob)


async def set_up(world: World, grids: tuple[str, str] = (A_GRID, B_GRID), *,
                 channel: FakeChannel | None = None) -> tuple[FakeMessage, FakeMessage, FakeMessage]:
    """Game 1 accepted in `channel` (the world's by default), Alice's and Bob's armies imported from `grids` on their
    DM boards and ready: the channel board, Alice's and Bob's boards, once all show the first move awaited."""
    channel_board, a, b = await accepted_with_dm_boards(world, channel)
    fake = world.fake
    for user, board, grid in ((world.alice, a, grids[0]), (world.bob, b, grids[1])):
        res = await import_grid(fake, user, board, grid)
        assert res.callback_type == Callback.UPDATE_MESSAGE and res.message is board and not res.errors, res.errors
        ready = await fake.click(user, board, "gg:1:ready")
        assert ready.callback_type == Callback.UPDATE_MESSAGE, ready.errors
    await fake.wait_until(lambda: to_move(channel_board) is not None, timeout=20)
    await settled(fake, channel_board, a, b)
    return channel_board, a, b


async def import_grid(fake: FakeDiscord, user: FakeUser, board: FakeMessage, grid: str) -> InteractionResult:
    """Import a setup on game 1's private `board` with the Import grid form."""
    shown = await fake.click(user, board, "gg:1:import")
    assert shown.callback_type == Callback.MODAL and shown.modal is not None, shown.errors
    return await fake.submit_modal(user, shown, {"grid": grid})


async def swap(fake: FakeDiscord, user: FakeUser, board: FakeMessage, a: str, b: str) -> InteractionResult:
    """Swap squares `a` and `b` of a setup as a player does, on their board: pick `a` in its rank's menu, then `b`
    in the menu that now offers to swap with it (both on the same message)."""
    picked = await fake.select(user, board, _menu_offering(board, f"pick:{a}"), [f"pick:{a}"])
    assert picked.callback_type == Callback.UPDATE_MESSAGE and picked.message is board, picked.errors
    return await fake.select(user, board, _menu_offering(board, f"swap:{a}-{b}"), [f"swap:{a}-{b}"])


def _menu_offering(board: FakeMessage, value: str) -> str:
    for menu in board.selects():
        if str(menu["custom_id"]).startswith("ggs:") and value in [o["value"] for o in menu["options"]]:
            return str(menu["custom_id"])
    raise AssertionError(f"no menu offers {value!r}: {board.text()}")


async def move(fake: FakeDiscord, user: FakeUser, board: FakeMessage, text: str) -> InteractionResult:
    """Play `text` the way a player does, on their board: pick the piece in the menu, then press the direction
    button that choosing it added to the same message (the pick alone never moves a piece)."""
    src = text.split("-")[0]
    menus = [s for s in board.selects() if str(s["custom_id"]).startswith("ggs:1:piece:")]
    assert menus, board.text()
    menu = menus[0]
    assert src in [o["value"] for o in menu["options"]], board.text()
    picked = await fake.select(user, board, menu["custom_id"], [src])
    assert picked.callback_type == Callback.UPDATE_MESSAGE and picked.message is board, picked.errors
    buttons = [b for b in board.buttons() if str(b["custom_id"]).startswith("ggm:1:")]
    button = next(b for b in buttons if str(b["custom_id"]).endswith(f":{text}"))
    done = await fake.click(user, board, button["custom_id"])
    assert done.callback_type == Callback.UPDATE_MESSAGE and done.message is board, done.errors
    return done


def move_number(board: FakeMessage) -> int | None:
    """The move a board shows (None before the first)."""
    found = re.search(r"\(move (\d+)\)", board.text())
    return int(found.group(1)) if found else None


async def settled(fake: FakeDiscord, *boards: FakeMessage, at_least: int = 1) -> None:
    """Wait until every board shows the same move, `at_least` that one (the redraws after a move landed)."""
    def same() -> bool:
        revealed = ["revealed" in board.text() for board in boards]
        if any(revealed):  # the game is over: wait for every board to show it (the mover's is drawn first)
            return all(revealed)
        numbers = {move_number(board) for board in boards}
        return len(numbers) == 1 and (numbers.pop() or 0) >= at_least

    await fake.wait_until(same, timeout=20)


def to_move(board: FakeMessage) -> int | None:
    """The user id the board says is to move (None in setup or once the game is over)."""
    found = re.search(r"▶ <@(\d+)> to move", board.text())
    return int(found.group(1)) if found else None


# A quiet position: side A in capitals, side B in lower case, rank 8 on top.
QUIET = """
8 | .   .   .   .   .   .   .   .   flg
7 | .   .   .   .   .   .   .   .   .
6 | .   .   .   .   .   .   .   .   .
5 | pvt .   .   .   .   .   .   .   .
4 | .   .   .   .   MAJ pvt .   .   .
3 | .   .   .   .   SGT .   .   .   .
2 | .   .   .   .   .   .   .   .   .
1 | FLG .   .   .   .   .   .   .   .
"""

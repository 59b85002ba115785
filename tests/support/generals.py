"""Game of the Generals through the offline Discord: two setups, and playing and watching a game as players do."""

from __future__ import annotations

import re

from tests.support.fakediscord import FakeDiscord, FakeMessage, FakeUser, InteractionResult

# Side A: the Flag in the middle of the front row (e3), so side B's 5★ General can walk up and take it.
A_GRID = "PVT,PVT,PVT,PVT,FLG,PVT,PVT,SPY,SPY/5G,4G,3G,2G,1G,COL,LTC,MAJ,CPT/1LT,2LT,SGT,.,.,.,.,.,."
# Side B (rows 8, 7, 6): its 5★ General on e6, facing A's Flag.
B_GRID = "1LT,2LT,SGT,.,.,.,.,.,./FLG,4G,3G,2G,1G,COL,LTC,MAJ,CPT/PVT,PVT,PVT,PVT,5G,PVT,PVT,SPY,SPY"


# The title of a player's own board (their DMs, or My board in the channel).
BOARD_TITLE = "Your army · Game of the Generals"

async def import_grid(fake: FakeDiscord, user: FakeUser, board: FakeMessage, grid: str) -> InteractionResult:
    """Import a setup on game 1's private `board` with the Import grid form."""
    shown = await fake.click(user, board, "gg:1:import")
    assert shown.callback_type == 9 and shown.modal is not None, shown.errors
    return await fake.submit_modal(user, shown, {"grid": grid})


async def swap(fake: FakeDiscord, user: FakeUser, board: FakeMessage, a: str, b: str) -> InteractionResult:
    """Swap squares `a` and `b` of a setup as a player does, on their board: pick `a` in its rank's menu, then `b`
    in the menu that now offers to swap with it (both on the same message)."""
    picked = await fake.select(user, board, _menu_offering(board, f"pick:{a}"), [f"pick:{a}"])
    assert picked.callback_type == 7 and picked.message is board, picked.errors
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
    assert picked.callback_type == 7 and picked.message is board, picked.errors
    buttons = [b for b in board.buttons() if str(b["custom_id"]).startswith("ggm:1:")]
    button = next(b for b in buttons if str(b["custom_id"]).endswith(f":{text}"))
    done = await fake.click(user, board, button["custom_id"])
    assert done.callback_type == 7 and done.message is board, done.errors
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

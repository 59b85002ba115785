"""Reading a game message the way a player does: whose turn it is and which move buttons it offers."""

from __future__ import annotations

import re
from typing import Any

from tests.support.fakediscord import FakeDiscord, FakeMessage

_TO_MOVE = re.compile(r"▶ <@(\d+)>")


def player_to_move(message: FakeMessage) -> int | None:
    """The user id the board says is to move (None for the bot or a finished game)."""
    match = _TO_MOVE.search(message.text())
    return int(match.group(1)) if match else None


def move_buttons(message: FakeMessage) -> list[dict[str, Any]]:
    """The board's move buttons (custom ids with `:mv:`), in the order they are shown."""
    return [b for b in message.buttons() if ":mv:" in str(b.get("custom_id", ""))]


async def human_to_move(fake: FakeDiscord, board: FakeMessage, humans: set[int], timeout: float = 10) -> int | None:
    """Wait while bots think; the human to move then, or None when the game is over."""
    def settled() -> bool:
        return not board.components or player_to_move(board) in humans

    await fake.wait_until(settled, timeout=timeout)
    return player_to_move(board) if board.components else None

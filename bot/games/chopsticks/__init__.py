"""Chopsticks on Discord: the `/chopsticks` commands, the board and its buttons (an extension the bot loads
because games/chopsticks/description.py names it)."""

from __future__ import annotations

from typing import Any

from bot.games.chopsticks.presenter import ChopsticksPresenter

__all__ = ["ChopsticksPresenter", "setup"]


async def setup(bot: Any) -> None:
    await bot.add_presenter(ChopsticksPresenter(bot))

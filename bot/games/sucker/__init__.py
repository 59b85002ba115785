"""So Long Sucker's Discord side: the /sucker commands, the status message and its components."""

from __future__ import annotations

from typing import Any

from bot.games.sucker.presenter import SuckerPresenter

__all__ = ["SuckerPresenter", "setup"]


async def setup(bot: Any) -> None:
    """The extension's entry point (the bot loads it as the presenter `games/sucker/description.py` names)."""
    await bot.add_presenter(SuckerPresenter(bot))

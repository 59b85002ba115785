"""Game of the Generals on Discord, split by concern: the presenter (commands, channel board), setup, play,
delivery of private boards, pictures, embeds and components."""

from __future__ import annotations

from typing import Any

from bot.games.generals.presenter import GeneralsPresenter

__all__ = ["GeneralsPresenter", "setup"]


async def setup(bot: Any) -> None:
    """The extension's entry point (bot/client.py loads it as this game's presenter)."""
    await bot.add_presenter(GeneralsPresenter(bot))

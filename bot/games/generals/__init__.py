"""Game of the Generals on Discord, split by concern: the presenter (commands, channel board), setup, play,
the players' own boards (drawn here, delivered by bot/private_boards.py), pictures, embeds and components."""

from __future__ import annotations

from typing import Any

__all__ = ["setup"]


async def setup(bot: Any) -> None:
    """The extension's entry point (bot/client.py loads it as this game's presenter)."""
    # Imported here, not above: the bot's drawing workers import the renderer (pictures.py) through this package,
    # and need none of the presenter's Discord glue, service or storage.
    from bot.games.generals.presenter import GeneralsPresenter

    await bot.add_presenter(GeneralsPresenter(bot))

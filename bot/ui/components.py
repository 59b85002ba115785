"""What every game's components share: the factory shapes the UI modules build with, and the one way a
component's click reaches its cog and has its refusals answered."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import discord
from discord.ext import commands

from bot.errors import reply_with_error
from bot.service import ServiceError


class ButtonFactory(Protocol):
    """Makes one of a cog's persistent buttons (the cog owns the DynamicItem classes)."""

    def __call__(
        self, custom_id: str, *, label: str, style: discord.ButtonStyle, row: int | None = None
    ) -> discord.ui.Item[Any]: ...


class SelectFactory(Protocol):
    """Makes one of a cog's persistent selects."""

    def __call__(
        self, custom_id: str, *, options: list[discord.SelectOption], placeholder: str, row: int | None = None
    ) -> discord.ui.Item[Any]: ...


CogT = TypeVar("CogT", bound=commands.Cog)


async def dispatch(
    interaction: discord.Interaction[Any], cog_type: type[CogT], handler: Callable[[CogT], Awaitable[None]]
) -> None:
    """Run a component's handler on its cog; any refusal or fault becomes the one ephemeral error reply.

    discord.py only logs exceptions raised in a DynamicItem's callback, so the callback must answer them."""
    cog = interaction.client.get_cog(cog_type.__cog_name__)
    try:
        if not isinstance(cog, cog_type):
            raise ServiceError("This game is not available on this bot right now.")
        await handler(cog)
    except Exception as exc:
        await reply_with_error(interaction, exc)

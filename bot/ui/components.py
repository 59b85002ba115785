"""What every game's components share: the factory shapes the UI modules build with, and the one way a
component's click reaches its cog and has its refusals answered."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar, cast

import discord
from discord.ext import commands

from bot.bot_turns import BotTurns
from bot.errors import DISCORD_FAILED_MESSAGE, discord_failed, reply_with_error, tell
from bot.service import GameService, ServiceError

log = logging.getLogger(__name__)

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
    interaction: discord.Interaction[Any],
    cog_type: type[CogT],
    handler: Callable[[CogT], Awaitable[None]],
    *,
    game_id: int | None = None,
) -> None:
    """Run a component's handler on its cog; any refusal or fault becomes the one ephemeral error reply.

    discord.py only logs exceptions raised in a DynamicItem's callback, so the callback must answer them.
    The game a component names (`game_id`) must be one of the cog's own, played where the click comes from.
    When Discord itself fails (see `discord_failed`) the action may well be saved while the answer that
    showed it is lost: the player is told, and the board of `game_id` is redrawn from what is stored."""
    async with cast(_GameHost, interaction.client).click_slots:
        await _dispatch(interaction, cog_type, handler, game_id)


# Clicks are handled at most this many at a time, in the order they arrived. Without a bound, a burst of
# clicks all progress together and all finish late (past Discord's 3 s to answer); with one, the first in
# are answered first and in time, and the total work is the same.
MAX_CONCURRENT_CLICKS = 64


async def _dispatch(
    interaction: discord.Interaction[Any],
    cog_type: type[CogT],
    handler: Callable[[CogT], Awaitable[None]],
    game_id: int | None,
) -> None:
    cog = interaction.client.get_cog(cog_type.__cog_name__)
    try:
        if not isinstance(cog, cog_type):
            raise ServiceError("This game is not available on this bot right now.")
        check = getattr(cog, "check_component", None)
        if game_id is not None and check is not None:
            await check(interaction, game_id)  # a game of this cog's kind, on this server (see GameCogBase)
        await handler(cog)
    except Exception as exc:
        if not discord_failed(exc):
            await reply_with_error(interaction, exc)
            return
        log.warning("Discord failed while answering interaction %s from user %s: %r",
                    interaction.id, interaction.user.id, exc)
        await tell(interaction, DISCORD_FAILED_MESSAGE)
        if game_id is not None:
            await _recover(interaction.client, game_id)


class _GameHost(Protocol):
    """What dispatching needs of the bot (TabletopBot, which cannot be imported here: it imports the cogs)."""

    click_slots: asyncio.Semaphore  # see MAX_CONCURRENT_CLICKS

    @property
    def service(self) -> GameService: ...

    @property
    def bot_turns(self) -> BotTurns: ...

    async def redraw(self, game_id: int) -> None: ...


async def _recover(client: discord.Client, game_id: int) -> None:
    """Do what the lost answer's handler may not have got to: let the bots move if it is their turn (scheduling
    is idempotent), and redraw the game's board from what is stored."""
    host = cast(_GameHost, client)
    try:
        host.bot_turns.schedule(await host.service.load(game_id))
    except Exception as exc:
        log.warning("could not hand game %s to its bots after Discord failed: %r", game_id, exc)
    try:
        await host.redraw(game_id)
    except Exception as exc:
        log.warning("could not redraw game %s after Discord failed: %r", game_id, exc)

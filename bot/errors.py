"""The one place that turns a failure during an interaction into a reply."""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
import discord
from discord import app_commands

from bot.service import ServiceError
from games import GameError

log = logging.getLogger(__name__)

MAX_CONTENT = 2000  # Discord's limit on a message's text
# Discord's error codes for an interaction it no longer knows or has already answered.
UNKNOWN_INTERACTION = 10062
UNKNOWN_WEBHOOK = 10015
ALREADY_ACKNOWLEDGED = 40060
DISCORD_FAILED_MESSAGE = (
    "Discord did not pass on my answer, so what you see may be out of date. "
    "I am redrawing the board from what was saved; look at it before trying again."
)
COMMAND_ANSWER_LOST_MESSAGE = (
    "Discord did not pass on my answer to this command. If it started or changed a game, that did happen: "
    "look at the channel before trying again."
)
OUTDATED_MESSAGE = (
    "Discord sent a version of this command that I do not know (it may still show an old one). "
    "Try again in a minute, or type the command afresh."
)
FAULT_MESSAGE = (
    "Something went wrong on my side and it has been logged. "
    "Anything already shown on the board did happen; look at it before trying again."
)


def user_message(exc: BaseException) -> str | None:
    """The explanation for a refusal the user caused, or None for a real fault."""
    if isinstance(exc, app_commands.CommandInvokeError):
        exc = exc.original
    if isinstance(exc, ServiceError | GameError):
        return str(exc)
    if isinstance(exc, app_commands.NoPrivateMessage):
        return "This command works in a server channel, not in DMs."
    if isinstance(exc, app_commands.MissingPermissions):
        return f"You need the {', '.join(exc.missing_permissions)} permission for this."
    if isinstance(exc, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {exc.retry_after:.0f} s."
    if isinstance(exc, app_commands.TransformerError | app_commands.CheckFailure):
        return str(exc)
    if isinstance(exc, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return OUTDATED_MESSAGE
    return None


def discord_failed(exc: BaseException) -> bool:
    """Whether Discord, or the way to it, failed: overloaded, too slow, the connection lost, the interaction
    forgotten or answered after all. Not a refusal, and not a bug of ours (a request Discord rejects is)."""
    if isinstance(exc, app_commands.CommandInvokeError):
        exc = exc.original
    if isinstance(exc, aiohttp.ClientError | TimeoutError | discord.DiscordServerError | discord.RateLimited):
        return True
    return isinstance(exc, discord.HTTPException) and exc.code in (
        UNKNOWN_INTERACTION, UNKNOWN_WEBHOOK, ALREADY_ACKNOWLEDGED)


async def tell(interaction: discord.Interaction[Any], message: str) -> None:
    """An ephemeral word to the user, by whichever way the interaction still allows."""
    try:
        if not interaction.response.is_done():
            try:
                await interaction.response.send_message(message, ephemeral=True)
                return
            except discord.HTTPException as exc:
                if exc.code != ALREADY_ACKNOWLEDGED:
                    raise
                # Discord did take the earlier answer whose reply was lost: a followup still reaches the user.
        await interaction.followup.send(message, ephemeral=True)
    except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as exc:
        # Past Discord's 3 s the interaction is gone: the user was told by Discord that it failed.
        log.warning("could not tell user %s about interaction %s either: %r", interaction.user.id, interaction.id, exc)


async def reply_with_error(interaction: discord.Interaction[Any], exc: BaseException) -> None:
    """Answer ephemerally: the refusal's reason, or a short apology after logging a real fault."""
    if discord_failed(exc) and interaction.type is discord.InteractionType.application_command:
        # Not a fault of ours: Discord lost or refused the command's answer (what it did is stored).
        log.warning("Discord failed while answering a command from user %s: %r", interaction.user.id, exc)
        await tell(interaction, COMMAND_ANSWER_LOST_MESSAGE)
        return
    message = user_message(exc)
    if message is None:
        command = interaction.command.qualified_name if interaction.command else interaction.data
        log.error("fault while handling %s from user %s", command, interaction.user.id, exc_info=exc)
        message = FAULT_MESSAGE
    elif len(message) > MAX_CONTENT:  # a reason quoting something huge the user sent
        message = message[: MAX_CONTENT - 1] + "…"
    try:
        if interaction.type is discord.InteractionType.autocomplete:
            if not interaction.response.is_done():
                await interaction.response.autocomplete([])  # suggestions cannot carry a reason
        elif interaction.response.is_done():
            await interaction.followup.send(message, ephemeral=True)
        else:
            await interaction.response.send_message(message, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not deliver an error reply for interaction %s", interaction.id, exc_info=True)

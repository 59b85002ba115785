"""The one place that turns a failure during an interaction into a reply."""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
import discord
from discord import app_commands

from bot.i18n import for_interaction, render
from bot.service import ServiceError
from bot.workers import Busy
from games import GameError
from games.text import Text
from storage.health import UnusableDatabaseError

log = logging.getLogger(__name__)

MAX_CONTENT = 2000  # Discord's limit on a message's text
# Discord's error codes for an interaction it no longer knows or has already answered.
UNKNOWN_INTERACTION = 10062
UNKNOWN_WEBHOOK = 10015
ALREADY_ACKNOWLEDGED = 40060
DISCORD_FAILED_TEXT = Text(
    "Discord did not pass on my answer, so what you see may be out of date. "
    "I am redrawing the board from what was saved; look at it before trying again."
)
COMMAND_ANSWER_LOST_TEXT = Text(
    "Discord did not pass on my answer to this command. If it started or changed a game, that did happen: "
    "look at the channel before trying again."
)
UNKNOWN_COMMAND_TEXT = Text(
    "Discord sent a version of this command that I do not know (it may still show an old one). "
    "Try again in a minute, or type the command afresh."
)
DAMAGED_DATABASE_TEXT = Text(
    "I cannot answer this now: the bot's database is damaged. Its admin has been told in the bot's log "
    "(please tell them too); until it is repaired, games may not load or save."
)
FAULT_TEXT = Text(
    "Something went wrong on my side and it has been logged. "
    "Anything already shown on the board did happen; look at it before trying again."
)


def refusal_text(exc: BaseException) -> Text | str | None:
    """The explanation for a refusal the user caused (a Text when we wrote it), or None for a real fault."""
    if isinstance(exc, app_commands.CommandInvokeError):
        exc = exc.original
    if isinstance(exc, ServiceError | GameError | Busy):  # Busy: a worker pool's bound (bot/workers.py)
        return reason(exc)
    if isinstance(exc, app_commands.NoPrivateMessage):
        return Text("This command works in a server channel, not in DMs.")
    if isinstance(exc, app_commands.MissingPermissions):
        return Text("You need the {permissions} permission for this.",
                    permissions=", ".join(exc.missing_permissions))
    if isinstance(exc, app_commands.CommandOnCooldown):
        return Text("Slow down: try again in {seconds} s.", seconds=f"{exc.retry_after:.0f}")
    if isinstance(exc, app_commands.TransformerError | app_commands.CheckFailure):
        return reason(exc)
    if isinstance(exc, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return UNKNOWN_COMMAND_TEXT
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


def reason(exc: BaseException) -> Text | str:
    """A refusal's reason as it was raised: a Text (translated where shown), or a string (shown as it is)."""
    said = exc.args[0] if exc.args else ""
    return said if isinstance(said, Text) else str(exc)


async def tell(interaction: discord.Interaction[Any], said: Text | str) -> None:
    """An ephemeral word to the user, in their language, by whichever way the interaction still allows."""
    content = render(said, for_interaction(interaction))
    try:
        if not interaction.response.is_done():
            try:
                await interaction.response.send_message(content, ephemeral=True)
                return
            except discord.HTTPException as exc:
                if exc.code != ALREADY_ACKNOWLEDGED:
                    raise
                # Discord did take the earlier answer whose reply was lost: a followup still reaches the user.
        await interaction.followup.send(content, ephemeral=True)
    except (discord.HTTPException, aiohttp.ClientError, TimeoutError) as exc:
        # Past Discord's 3 s the interaction is gone: the user was told by Discord that it failed.
        log.warning("could not tell user %s about interaction %s either: %r", interaction.user.id, interaction.id, exc)


async def reply_with_error(interaction: discord.Interaction[Any], exc: BaseException) -> None:
    """Answer ephemerally: the refusal's reason, or a short apology after logging a real fault."""
    if discord_failed(exc) and interaction.type is discord.InteractionType.application_command:
        # Not a fault of ours: Discord lost or refused the command's answer (what it did is stored).
        log.warning("Discord failed while answering a command from user %s: %r", interaction.user.id, exc)
        await tell(interaction, COMMAND_ANSWER_LOST_TEXT)
        return
    said = refusal_text(exc)
    cause = exc.original if isinstance(exc, app_commands.CommandInvokeError) else exc
    if isinstance(cause, UnusableDatabaseError):  # not a bug: its message names the damage and what to do
        log.error("could not handle %s from user %s: %s", _what(interaction), interaction.user.id, cause,
                  exc_info=cause)
        said = DAMAGED_DATABASE_TEXT
    elif said is None:
        log.error("fault while handling %s from user %s", _what(interaction), interaction.user.id, exc_info=exc)
        said = FAULT_TEXT
    content = render(said, for_interaction(interaction))
    if len(content) > MAX_CONTENT:  # a reason quoting something huge the user sent
        content = content[: MAX_CONTENT - 1] + "…"
    try:
        if interaction.type is discord.InteractionType.autocomplete:
            if not interaction.response.is_done():
                await interaction.response.autocomplete([])  # suggestions cannot carry a reason
        elif interaction.response.is_done():
            await interaction.followup.send(content, ephemeral=True)
        else:
            await interaction.response.send_message(content, ephemeral=True)
    except discord.HTTPException:
        log.warning("could not deliver an error reply for interaction %s", interaction.id, exc_info=True)


def _what(interaction: discord.Interaction[Any]) -> object:
    """The command's name for the log, else the raw data (read only for a fault: a refused, garbled interaction's
    data may not even parse as a command)."""
    return interaction.command.qualified_name if interaction.command else interaction.data

"""A player's past games in words, for /history and the suggestions of /replay's `game` option, and who may see them.

A game is linked only where the question is asked (this server, or these DMs); a game from anywhere else is said to
be elsewhere without naming the place: no server, channel or message of another server ever shows.

Within a server, a member is shown a game only when they played in it or may view the channel it was played in (a
thread counts as its parent channel). The bot has no privileged intent, yet it knows enough to decide that as Discord
does: the server's roles and each channel's permission overwrites come with the gateway's GUILD_CREATE (and its
updates), the asking member's roles with their interaction; discord.py's `permissions_for` combines them. A channel
the bot knows nothing of (deleted, or an archived thread) counts as not viewable.
"""

from __future__ import annotations

import time
from typing import Any

import discord
from discord import app_commands

from bot.cogs.kinds import title_of
from bot.i18n import Say
from bot.service import PastGame
from games.text import Text

MAX_CHOICES = 25  # Discord shows at most this many suggestions
MAX_CHOICE_NAME = 100


def outcome_word(record: PastGame) -> Text:
    """How the game went for the player: in progress, won, lost, draw, or their place."""
    if record.status == "active":
        return Text("in progress")
    if record.place == 1 and all(s.place == 1 for s in record.seats):
        return Text("draw")
    if record.place == 1:
        return Text("won")
    return Text("place {place}", place=record.place) if len(record.seats) > 2 else Text("lost")


def played_here(record: PastGame, interaction: discord.Interaction[Any]) -> bool:
    """Whether the game was played where `interaction` comes from: this server, or (asked in DMs) these DMs."""
    if record.guild_id != interaction.guild_id:
        return False
    return record.guild_id is not None or record.channel_id == interaction.channel_id


def sees_place(interaction: discord.Interaction[Any], channel_id: int) -> bool:
    """Whether the member asking may view channel (or thread) `channel_id` of the server they ask in."""
    if channel_id in _asked_from(interaction):
        return True
    guild, member = interaction.guild, interaction.user
    if guild is None or not isinstance(member, discord.Member):
        return False
    place = guild.get_channel_or_thread(channel_id)
    return place is not None and place.permissions_for(member).view_channel


def visible_places(interaction: discord.Interaction[Any]) -> set[int]:
    """Every channel and thread of the server asked in that the member asking may view (where they ask from too)."""
    seen = _asked_from(interaction)
    guild, member = interaction.guild, interaction.user
    if guild is None or not isinstance(member, discord.Member):
        return seen
    seen |= {channel.id for channel in guild.channels if channel.permissions_for(member).view_channel}
    seen |= {thread.id for thread in guild.threads if thread.parent_id in seen}
    return seen


def _asked_from(interaction: discord.Interaction[Any]) -> set[int]:
    """The channel an interaction comes from and, for a thread, its parent: whoever uses it sees both."""
    here = {interaction.channel_id, getattr(interaction.channel, "parent_id", None)}
    return {place for place in here if place is not None}


def elsewhere(record: PastGame) -> Text:
    """Where a game not played here was played, without naming it."""
    return Text("in DMs") if record.guild_id is None else Text("on another server")


def history_line(record: PastGame, interaction: discord.Interaction[Any], say: Say) -> str:
    """One game of /history: a link to its board when it was played here, else only that it was elsewhere."""
    if not played_here(record, interaction):
        where = f" · {say(elsewhere(record))}"
    elif record.message_id:
        # A board posted in its game's thread (So Long Sucker) is linked there; one that opened its thread is the
        # thread's first message, with the thread's id, in the channel.
        board_in = (record.thread_id if record.thread_id and record.message_id != record.thread_id
                    else record.channel_id)
        link = f"https://discord.com/channels/{record.guild_id or '@me'}/{board_in}/{record.message_id}"
        where = say(Text(" · [board]({link})", link=link))
    else:
        where = ""
    return say(Text("{game} #{number} · {outcome} · <t:{day}:d>{where} · replay: `/replay game:{number}`",
                    game=title_of(record.kind), number=record.id, outcome=outcome_word(record),
                    day=int(record.created_at), where=where))


def game_choices(records: list[PastGame], interaction: discord.Interaction[Any], typed: str,
                 say: Say) -> list[app_commands.Choice[int]]:
    """The caller's own games as suggestions for a game number, narrowed by the digits typed so far."""
    digits = typed.strip().lstrip("#")
    choices = []
    for record in records:
        if not str(record.id).startswith(digits):
            continue
        day = time.strftime("%Y-%m-%d", time.gmtime(record.created_at))
        where = "" if played_here(record, interaction) else f" · {say(elsewhere(record))}"
        name = f"{say(title_of(record.kind))} #{record.id} · {say(outcome_word(record))} · {day}{where}"
        choices.append(app_commands.Choice(name=name[:MAX_CHOICE_NAME], value=record.id))
    return choices[:MAX_CHOICES]

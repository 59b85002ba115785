"""The lobby message every game kind shares: who has joined, and Join / Leave / Add bot / Remove bot / Start.

What differs per game (how its rules read, which bot joins, what the started game looks like) comes from
the game's presenter, looked up by the lobby's kind.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Protocol

import discord

from bot.errors import reply_with_error
from bot.lobbies import LobbyService
from bot.service import Game, ServiceError
from storage.lobbies import LobbyRecord

LOBBY_ID_TEMPLATE = r"cl:(?P<lobby>[0-9]{1,18}):(?P<verb>join|leave|bot|unbot|start)"
COLOUR = discord.Colour.from_rgb(88, 101, 242)


class LobbyPresenter(Protocol):
    """What a game's cog tells the shared lobby."""

    title: str

    def lobby_lines(self, lobby: LobbyRecord) -> list[str]: ...

    def bot_level(self, lobby: LobbyRecord) -> str: ...

    async def show_started(self, interaction: discord.Interaction[Any], lobby: LobbyRecord, game: Game) -> None: ...


def lobby_custom_id(lobby: int, verb: str) -> str:
    return f"cl:{lobby}:{verb}"


def lobby_embed(lobby: LobbyRecord, bot_user_id: int | None, title: str, rules: Sequence[str]) -> discord.Embed:
    members = []
    for i, m in enumerate(lobby.members, start=1):
        who = f"<@{m.user_id}>" if m.user_id is not None else f"<@{bot_user_id}> (bot, {m.bot})"
        members.append(f"{i}. {who}" + (" — host" if m.user_id == lobby.host_id else ""))
    lines = [*rules, f"{format_duration(lobby.turn_timeout)} per move.", "",
             f"**Players ({len(lobby.members)}/{lobby.max_players})**", *members, ""]
    if lobby.status == "open":
        assert lobby.deadline is not None
        lines.append(f"Click **Join** to play. The host starts the game (open until <t:{int(lobby.deadline)}:R>).")
    elif lobby.status == "cancelled":
        lines.append("The host closed this lobby.")
    elif lobby.status == "expired":
        lines.append("This lobby expired before the game started.")
    return discord.Embed(title=f"{title} lobby #{lobby.id}", description="\n".join(lines), colour=COLOUR)


def lobby_view(lobby: LobbyRecord) -> discord.ui.View | None:
    if lobby.status != "open":
        return None
    view = discord.ui.View(timeout=None)
    for verb, label, style in (
        ("join", "Join", discord.ButtonStyle.success),
        ("leave", "Leave", discord.ButtonStyle.secondary),
        ("bot", "Add bot", discord.ButtonStyle.secondary),
        ("unbot", "Remove bot", discord.ButtonStyle.secondary),
        ("start", "Start", discord.ButtonStyle.primary),
    ):
        view.add_item(LobbyButton(lobby_custom_id(lobby.id, verb), label=label, style=style))
    return view


def format_duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:g} h"
    if seconds >= 60:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=LOBBY_ID_TEMPLATE):
    """Every lobby button, for every game kind; the custom id names the lobby and the verb."""

    def __init__(
        self, custom_id: str, *, label: str = "·", style: discord.ButtonStyle = discord.ButtonStyle.secondary
    ) -> None:
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))
        match = re.fullmatch(LOBBY_ID_TEMPLATE, custom_id)
        assert match is not None, custom_id
        self.lobby_id = int(match["lobby"])
        self.verb: str = match["verb"]

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> LobbyButton:
        assert isinstance(item, discord.ui.Button) and item.custom_id is not None
        return cls(item.custom_id, label=item.label or "·", style=item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            await _handle(interaction, self.lobby_id, self.verb)
        except Exception as exc:
            await reply_with_error(interaction, exc)


async def _handle(interaction: discord.Interaction[Any], lobby_id: int, verb: str) -> None:
    client: Any = interaction.client
    lobbies: LobbyService = client.lobbies
    user = interaction.user.id
    current = await lobbies.load(lobby_id)
    presenter: LobbyPresenter | None = client.presenters.get(current.kind)
    if presenter is None:
        raise ServiceError("This game is not available on this bot right now.")
    if current.guild_id != interaction.guild_id:
        raise ServiceError(f"Lobby #{lobby_id} is on another server; you can only join or run it there.")
    if verb == "start":
        message_id = interaction.message.id if interaction.message is not None else None
        lobby, game = await lobbies.start(lobby_id, user, message_id=message_id)
        await presenter.show_started(interaction, lobby, game)
        return
    if verb == "join":
        lobby = await lobbies.join(lobby_id, user)
    elif verb == "leave":
        lobby = await lobbies.leave(lobby_id, user)
    elif verb == "bot":
        lobby = await lobbies.add_bot(lobby_id, user, presenter.bot_level(current))
    else:
        lobby = await lobbies.remove_bot(lobby_id, user)
    bot_id = client.user.id if client.user else None
    await interaction.response.edit_message(
        embed=lobby_embed(lobby, bot_id, presenter.title, presenter.lobby_lines(lobby)), view=lobby_view(lobby),
        allowed_mentions=discord.AllowedMentions.none(),
    )


async def post_lobby(interaction: discord.Interaction[Any], lobby: LobbyRecord, presenter: LobbyPresenter) -> None:
    """Answer the command that opened `lobby` with its message, and remember that message."""
    client: Any = interaction.client
    bot_id = client.user.id if client.user else None
    response = await interaction.response.send_message(
        embed=lobby_embed(lobby, bot_id, presenter.title, presenter.lobby_lines(lobby)),
        view=lobby_view(lobby) or discord.utils.MISSING, allowed_mentions=discord.AllowedMentions.none(),
    )
    if response.message_id is not None:
        await client.lobbies.set_message(lobby.id, response.message_id)


async def show_expired(client: Any, lobby: LobbyRecord, presenter: LobbyPresenter) -> None:
    if lobby.message_id is None:
        return
    bot_id = client.user.id if client.user else None
    channel = client.get_partial_messageable(lobby.channel_id, guild_id=lobby.guild_id)
    await channel.get_partial_message(lobby.message_id).edit(
        embed=lobby_embed(lobby, bot_id, presenter.title, presenter.lobby_lines(lobby)), view=None
    )

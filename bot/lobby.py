"""The lobby message every game kind shares: who has joined, and Join / Leave / Add bot / Remove bot / Start.

What differs per game (how its rules read, what the started game looks like) comes from the game's
presenter, and which bot joins from its description, both looked up by the lobby's kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.components import Button, CustomId
from bot.service import ServiceError
from bot.service.lobbies import LobbyService
from games.registry import describe
from storage.lobbies import LobbyRecord

if TYPE_CHECKING:
    from bot.presenter import GamePresenter

COLOUR = discord.Colour.from_rgb(88, 101, 242)


def lobby_embed(lobby: LobbyRecord, bot_user_id: int | None, title: str, rules: Sequence[str]) -> discord.Embed:
    members = []
    for i, m in enumerate(lobby.members, start=1):
        who = f"<@{m.user_id}>" if m.user_id is not None else f"<@{bot_user_id}> (bot, {m.bot})"
        members.append(f"{i}. {who}" + (" — host" if m.user_id == lobby.host_id else ""))
    lines = [*rules, f"{per_turn(lobby.kind, lobby.turn_timeout)}.", "",
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
        view.add_item(LobbyButton.of(lobby=lobby.id, verb=verb, label=label, style=style))
    return view


def per_turn(kind: str, seconds: float) -> str:
    """A turn time in the game's own word for what it counts: "24 h per move", "1 h per decision"."""
    return f"{format_duration(seconds)} per {describe(kind).turn_word}"


def format_duration(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:g} h"
    if seconds >= 60:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


class LobbyButton(Button, custom_id=CustomId("cl:{lobby}:{verb}", lobby=r"[0-9]{1,18}",
                                             verb=r"join|leave|bot|unbot|start")):
    """Every lobby button, for every game kind; the custom id names the lobby and the verb."""

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        client: Any = interaction.client
        lobbies: LobbyService = client.lobbies
        lobby_id, verb, user = int(self.fields["lobby"]), self.fields["verb"], interaction.user.id
        current = await lobbies.load(lobby_id)
        presenter: GamePresenter = client.presenter(current.kind)
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
            lobby = await lobbies.add_bot(lobby_id, user, bot_level(current))
        else:
            lobby = await lobbies.remove_bot(lobby_id, user)
        await interaction.response.edit_message(embed=_embed(presenter, lobby), view=lobby_view(lobby),
                                                allowed_mentions=discord.AllowedMentions.none())


def bot_level(lobby: LobbyRecord) -> str:
    """The level of the bots "Add bot" seats: the table's choice, else the game's default."""
    description = describe(lobby.kind)
    level = lobby.options.get("bot_level") or description.default_bot_level
    if level is None:
        raise ServiceError(f"{description.title} has no computer player.")
    return str(level)


def _embed(presenter: GamePresenter, lobby: LobbyRecord) -> discord.Embed:
    return lobby_embed(lobby, presenter.bot_user_id, presenter.title,
                       presenter.rules_lines(lobby.options, lobby.max_players))


async def post_lobby(interaction: discord.Interaction[Any], lobby: LobbyRecord, presenter: GamePresenter, *,
                    mention: Sequence[int] = ()) -> None:
    """Answer the command that opened `lobby` with its message, and remember that message; `mention` are invited
    to join (a rematch)."""
    content = " ".join(f"<@{u}>" for u in mention)
    response = await interaction.response.send_message(
        content=f"{content}: a rematch! Join to play again." if content else None,
        embed=_embed(presenter, lobby), view=lobby_view(lobby) or discord.utils.MISSING,
        allowed_mentions=discord.AllowedMentions(users=[discord.Object(u) for u in mention]),
    )
    if response.message_id is not None:
        await presenter.lobbies.set_message(lobby.id, response.message_id)


async def show_closed(client: Any, lobby: LobbyRecord, presenter: GamePresenter) -> None:
    """Show an expired (or closed) lobby as such, without its buttons."""
    if lobby.message_id is None:
        return
    channel = client.get_partial_messageable(lobby.channel_id, guild_id=lobby.guild_id)
    await channel.get_partial_message(lobby.message_id).edit(embed=_embed(presenter, lobby), view=None)

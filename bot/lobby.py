"""The lobby message every game kind shares: who has joined, and Join / Leave / Add bot / Remove bot / Start.

What differs per game (how its rules read, what the started game looks like) comes from the game's
presenter, and which bot joins from its description, both looked up by the lobby's kind.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import discord

from bot.components import Button, CustomId
from bot.i18n import Say, command_words
from bot.service import ServiceError
from bot.service.finishing import NEW_PLAYER_GAMES
from bot.service.lobbies import LobbyService
from bot.words import duration
from games.registry import describe
from games.text import Plural, Text, TextIn
from storage.lobbies import LobbyRecord

if TYPE_CHECKING:
    from bot.presenter import GamePresenter

log = logging.getLogger(__name__)
COLOUR = discord.Colour.from_rgb(88, 101, 242)


def lobby_embed(lobby: LobbyRecord, bot_user_id: int | None, title: Text | str, rules: Sequence[Text | str],
                say: Say) -> discord.Embed:
    """The lobby as the table sees it (in the server's language: `say`)."""
    members = []
    for i, m in enumerate(lobby.members, start=1):
        # A computer seat in words, its level as the commands' `level` choices name it in the reader's language.
        who = (f"<@{m.user_id}>" if m.user_id is not None
               else say(Text("{bot} (computer, level: {level})", bot=f"<@{bot_user_id}>",
                             level=command_words(str(m.bot), say.language))))
        members.append(say(Text("{i}. {who} — host", i=i, who=who)) if m.user_id == lobby.host_id else f"{i}. {who}")
    lines = [*(say(rule) for rule in rules), say(Text("{time}.", time=per_turn(lobby.kind, lobby.turn_timeout))),
             *([] if lobby.min_finished is None else [say(finishing_required(lobby.min_finished))]), "",
             say(Text("**Players ({count}/{most})**", count=len(lobby.members), most=lobby.max_players)), *members,
             ""]
    if lobby.status == "open":
        assert lobby.deadline is not None
        lines.append(say(Text("Click **Join** to play. The host starts the game (open until <t:{deadline}:R>).",
                              deadline=int(lobby.deadline))))
    elif lobby.status == "cancelled":
        lines.append(say(Text("The host closed this lobby.")))
    elif lobby.status == "expired":
        lines.append(say(Text("This lobby expired before the game started.")))
    # "table #1", apart from the number of the game it becomes ("So Long Sucker #2"): two numbers, two nouns.
    return discord.Embed(title=say(Text("{game} table #{number}", game=title, number=lobby.id)),
                         description="\n".join(lines), colour=COLOUR)


def lobby_controls(lobby: LobbyRecord, say: Say) -> discord.ui.View | None:
    if lobby.status != "open":
        return None
    controls = discord.ui.View(timeout=None)
    full, has_bots = len(lobby.members) >= lobby.max_players, any(m.bot is not None for m in lobby.members)
    buttons: tuple[tuple[type[LobbyButton], Text, discord.ButtonStyle, bool], ...] = (
        (JoinButton, TextIn("button", "Join"), discord.ButtonStyle.success, True),
        (LeaveButton, TextIn("button", "Leave"), discord.ButtonStyle.secondary, True),
        # Offered only when it can do something: a seat to fill, a computer seat to free.
        (AddBotButton, TextIn("button", "Add bot"), discord.ButtonStyle.secondary, not full),
        (RemoveBotButton, TextIn("button", "Remove bot"), discord.ButtonStyle.secondary, has_bots),
        (StartGameButton, TextIn("button", "Start"), discord.ButtonStyle.primary, True),
    )
    for button, label, style, shown in buttons:
        if shown:
            controls.add_item(button.of(lobby=lobby.id, label=say(label), style=style))
    return controls


def finishing_required(minimum: int) -> Text:
    """What an open table asks of who joins (bot/service/finishing.py `may_join`), newcomers' exemption included."""
    return Plural("For players who finished at least {minimum}% of their games (or played fewer than {count} game).",
                  "For players who finished at least {minimum}% of their games (or played fewer than {count} games).",
                  NEW_PLAYER_GAMES, minimum=minimum)


def per_turn(kind: str, seconds: float) -> Text:
    """A turn time in the game's own word for what it counts: "24 h per move", "1 h per decision"."""
    return Text("{time} per {what}", time=duration(seconds), what=describe(kind).turn_word)


def format_duration(seconds: float) -> Text:
    return duration(seconds)


LOBBY = r"[0-9]{1,18}"


class LobbyButton(Button):
    """What every lobby button shares, for every game kind: its custom id names the table, which is only run on its
    own server; each subclass's template names what it does (`cl:<lobby>:join`, ...)."""

    @property
    def lobby_id(self) -> int:
        return int(self.fields["lobby"])

    async def on_use(self, interaction: discord.Interaction[Any]) -> None:
        client: Any = interaction.client
        lobbies: LobbyService = client.lobbies
        current = await lobbies.load(self.lobby_id)
        presenter: GamePresenter = client.presenter(current.kind)
        if current.guild_id != interaction.guild_id:
            raise ServiceError(Text("Table #{number} is on another server; you can only join or run it there.",
                                    number=self.lobby_id))
        await self.use(interaction, lobbies, current, presenter)

    async def use(self, interaction: discord.Interaction[Any], lobbies: LobbyService, current: LobbyRecord,
                  presenter: GamePresenter) -> None:
        raise NotImplementedError  # every lobby button defines what it does to the table


class SeatButton(LobbyButton):
    """A lobby button that changes who sits at the table; its answer redraws the table's message with the new seats
    (in the server's language)."""

    async def use(self, interaction: discord.Interaction[Any], lobbies: LobbyService, current: LobbyRecord,
                  presenter: GamePresenter) -> None:
        lobby = await self.seat(lobbies, current, interaction.user.id)
        client: Any = interaction.client
        say = Say(await client.languages.public(lobby.guild_id))
        await interaction.response.edit_message(embed=_embed(presenter, lobby, say), view=lobby_controls(lobby, say),
                                                allowed_mentions=discord.AllowedMentions.none())

    async def seat(self, lobbies: LobbyService, current: LobbyRecord, user_id: int) -> LobbyRecord:
        raise NotImplementedError  # every seat button defines its change of the table's seats


class JoinButton(SeatButton, custom_id=CustomId("cl:{lobby}:join", lobby=LOBBY)):
    """Take a seat at the table."""

    async def seat(self, lobbies: LobbyService, current: LobbyRecord, user_id: int) -> LobbyRecord:
        return await lobbies.join(self.lobby_id, user_id)


class LeaveButton(SeatButton, custom_id=CustomId("cl:{lobby}:leave", lobby=LOBBY)):
    """Give up one's seat (the host leaving closes the table)."""

    async def seat(self, lobbies: LobbyService, current: LobbyRecord, user_id: int) -> LobbyRecord:
        return await lobbies.leave(self.lobby_id, user_id)


class AddBotButton(SeatButton, custom_id=CustomId("cl:{lobby}:bot", lobby=LOBBY)):
    """The host seats a computer player, at the table's level."""

    async def seat(self, lobbies: LobbyService, current: LobbyRecord, user_id: int) -> LobbyRecord:
        return await lobbies.add_computer_player(self.lobby_id, user_id, bot_level(current))


class RemoveBotButton(SeatButton, custom_id=CustomId("cl:{lobby}:unbot", lobby=LOBBY)):
    """The host frees a computer player's seat."""

    async def seat(self, lobbies: LobbyService, current: LobbyRecord, user_id: int) -> LobbyRecord:
        return await lobbies.remove_computer_player(self.lobby_id, user_id)


class StartGameButton(LobbyButton, custom_id=CustomId("cl:{lobby}:start", lobby=LOBBY)):
    """The host starts the game with the seated players; the lobby message shows the game from then on."""

    async def use(self, interaction: discord.Interaction[Any], lobbies: LobbyService, current: LobbyRecord,
                  presenter: GamePresenter) -> None:
        message_id = interaction.message.id if interaction.message is not None else None
        lobby, game = await lobbies.start(self.lobby_id, interaction.user.id, message_id=message_id)
        await presenter.show_started(interaction, lobby, game)


LOBBY_BUTTONS = (JoinButton, LeaveButton, AddBotButton, RemoveBotButton, StartGameButton)


def bot_level(lobby: LobbyRecord) -> str:
    """The level of the bots "Add bot" seats: the table's choice, else the game's default."""
    description = describe(lobby.kind)
    level = lobby.options.get("bot_level") or description.default_bot_level
    if level is None:
        raise ServiceError(Text("{game} has no computer player.", game=description.title))
    return str(level)


def _embed(presenter: GamePresenter, lobby: LobbyRecord, say: Say) -> discord.Embed:
    return lobby_embed(lobby, presenter.bot_user_id, presenter.title,
                       presenter.rules_lines(lobby.options, lobby.max_players), say)


async def post_lobby(interaction: discord.Interaction[Any], lobby: LobbyRecord, presenter: GamePresenter, *,
                    mention: Sequence[int] = ()) -> None:
    """Answer the command that opened `lobby` with its message, and remember that message; `mention` are invited
    to join (a rematch)."""
    content = " ".join(f"<@{u}>" for u in mention)
    say = Say(await presenter.bot.languages.public(lobby.guild_id))
    response = await interaction.response.send_message(
        content=say(Text("{people}: a rematch! Join to play again.", people=content)) if content else None,
        embed=_embed(presenter, lobby, say), view=lobby_controls(lobby, say) or discord.utils.MISSING,
        allowed_mentions=await presenter.pings(mention),
    )
    if response.message_id is not None:
        await presenter.lobbies.set_message(lobby.id, response.message_id)


async def show_closed(client: Any, lobby: LobbyRecord, presenter: GamePresenter) -> None:
    """Show an expired (or closed) lobby as such, without its buttons."""
    if lobby.message_id is None:
        return
    channel = client.get_partial_messageable(lobby.channel_id, guild_id=lobby.guild_id)
    try:
        say = Say(await client.languages.public(lobby.guild_id))
        await channel.get_partial_message(lobby.message_id).edit(embed=_embed(presenter, lobby, say), view=None)
    except (discord.NotFound, discord.Forbidden) as exc:
        # A moderator deleted the message (or the channel, or my access to it): nothing is left to show closed,
        # and the lobby is closed all the same.
        log.warning("could not show lobby %s closed: %s", lobby.id, exc)

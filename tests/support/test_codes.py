"""The names of tests/support/codes.py stand for the numbers discord.py sends and reads."""

from __future__ import annotations

from enum import Enum
from typing import Any

import discord
import pytest
from discord.gateway import DiscordWebSocket

from tests.support.codes import (
    ButtonStyle,
    Callback,
    ChannelType,
    CommandType,
    Component,
    InteractionContext,
    InteractionType,
    MessageFlag,
    MessageType,
    Opcode,
    OptionType,
    TextInputStyle,
)

# Our name of each code, and discord.py's enum member (or number) for it where discord.py names it differently.
SAME_AS: dict[Enum, Any] = {
    InteractionType.PING: discord.InteractionType.ping,
    InteractionType.APPLICATION_COMMAND: discord.InteractionType.application_command,
    InteractionType.MESSAGE_COMPONENT: discord.InteractionType.component,
    InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE: discord.InteractionType.autocomplete,
    InteractionType.MODAL_SUBMIT: discord.InteractionType.modal_submit,
    Callback.PONG: discord.InteractionResponseType.pong,
    Callback.CHANNEL_MESSAGE: discord.InteractionResponseType.channel_message,
    Callback.DEFERRED_CHANNEL_MESSAGE: discord.InteractionResponseType.deferred_channel_message,
    Callback.DEFERRED_UPDATE_MESSAGE: discord.InteractionResponseType.deferred_message_update,
    Callback.UPDATE_MESSAGE: discord.InteractionResponseType.message_update,
    Callback.AUTOCOMPLETE_RESULT: discord.InteractionResponseType.autocomplete_result,
    Callback.MODAL: discord.InteractionResponseType.modal,
    Component.STRING_SELECT: discord.ComponentType.select,
    Opcode.DISPATCH: DiscordWebSocket.DISPATCH,
    Opcode.HEARTBEAT: DiscordWebSocket.HEARTBEAT,
    Opcode.IDENTIFY: DiscordWebSocket.IDENTIFY,
    Opcode.PRESENCE_UPDATE: DiscordWebSocket.PRESENCE,
    Opcode.VOICE_STATE_UPDATE: DiscordWebSocket.VOICE_STATE,
    Opcode.RESUME: DiscordWebSocket.RESUME,
    Opcode.RECONNECT: DiscordWebSocket.RECONNECT,
    Opcode.REQUEST_GUILD_MEMBERS: DiscordWebSocket.REQUEST_MEMBERS,
    Opcode.INVALID_SESSION: DiscordWebSocket.INVALIDATE_SESSION,
    Opcode.HELLO: DiscordWebSocket.HELLO,
    Opcode.HEARTBEAT_ACK: DiscordWebSocket.HEARTBEAT_ACK,
    InteractionContext.GUILD: discord.app_commands.AppCommandContext.GUILD,
    InteractionContext.BOT_DM: discord.app_commands.AppCommandContext.DM_CHANNEL,
    InteractionContext.PRIVATE_CHANNEL: discord.app_commands.AppCommandContext.PRIVATE_CHANNEL,
    TextInputStyle.PARAGRAPH: discord.TextStyle.paragraph,
    OptionType.SUB_COMMAND: discord.AppCommandOptionType.subcommand,
    OptionType.SUB_COMMAND_GROUP: discord.AppCommandOptionType.subcommand_group,
    CommandType.CHAT_INPUT: discord.AppCommandType.chat_input,
    ChannelType.GUILD_TEXT: discord.ChannelType.text,
    ChannelType.DM: discord.ChannelType.private,
}
# The others have the same name in discord.py, in lower case.
DISCORD_PY: dict[type[Enum], Any] = {
    Component: discord.ComponentType,
    ButtonStyle: discord.ButtonStyle,
    TextInputStyle: discord.TextStyle,
    OptionType: discord.AppCommandOptionType,
    CommandType: discord.AppCommandType,
    ChannelType: discord.ChannelType,
    MessageType: discord.MessageType,
}
ALL = [Opcode, InteractionType, InteractionContext, Callback, Component, ButtonStyle, TextInputStyle, OptionType,
       CommandType, ChannelType, MessageType]


@pytest.mark.parametrize("codes", ALL, ids=lambda codes: codes.__name__)
def test_each_code_is_discord_pys_number_for_it(codes: type[Enum]) -> None:
    for code in codes:
        theirs = SAME_AS[code] if code in SAME_AS else getattr(DISCORD_PY[codes], code.name.lower())
        number = theirs if isinstance(theirs, int) else theirs.value  # plain numbers in AppCommandContext, the gateway
        assert code.value == number, f"{code!r} is {theirs!r} in discord.py"


def test_each_message_flag_is_discord_pys_bit_for_it() -> None:
    for flag in MessageFlag:
        name = {MessageFlag.IS_COMPONENTS_V2: "components_v2"}.get(flag, str(flag.name).lower())
        assert flag.value == getattr(discord.MessageFlags, name).flag, f"{flag!r}"

"""Discord's numeric codes by name, so that tests and the fake Discord read as words.

Each class names the values of one field of Discord's HTTP and gateway API, as Discord's developer documentation
(https://discord.com/developers/docs) names them; the link above each class is the table it copies. They are
``IntEnum``s: a member equals its number (``res.callback_type == Callback.UPDATE_MESSAGE``) and goes into a JSON
payload as that number. tests/support/test_codes.py checks every value against discord.py's own enums.
"""

from __future__ import annotations

from enum import IntEnum, IntFlag


class Opcode(IntEnum):
    """``op`` of a gateway payload.

    https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway-gateway-opcodes
    """

    DISPATCH = 0  # an event
    HEARTBEAT = 1
    IDENTIFY = 2
    PRESENCE_UPDATE = 3
    VOICE_STATE_UPDATE = 4
    RESUME = 6
    RECONNECT = 7
    REQUEST_GUILD_MEMBERS = 8
    INVALID_SESSION = 9
    HELLO = 10
    HEARTBEAT_ACK = 11


class InteractionType(IntEnum):
    """What the user did: ``type`` of an interaction.

    https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-type
    """

    PING = 1
    APPLICATION_COMMAND = 2  # a slash command
    MESSAGE_COMPONENT = 3  # a click on a button or a choice in a select menu
    APPLICATION_COMMAND_AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class Callback(IntEnum):
    """How the bot answered an interaction: ``type`` of its interaction response (the fake's ``callback_type``).

    https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-interaction-callback-type
    """

    PONG = 1
    CHANNEL_MESSAGE = 4  # CHANNEL_MESSAGE_WITH_SOURCE: a new message (a board, a lobby, or a private refusal)
    DEFERRED_CHANNEL_MESSAGE = 5  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: "thinking…", the message follows
    DEFERRED_UPDATE_MESSAGE = 6  # the click is acknowledged; the clicked message may be edited later
    UPDATE_MESSAGE = 7  # the clicked message is edited in the answer itself (a move redraws its board)
    AUTOCOMPLETE_RESULT = 8  # APPLICATION_COMMAND_AUTOCOMPLETE_RESULT
    MODAL = 9  # a form pops up


class Component(IntEnum):
    """``type`` of a message component.

    https://discord.com/developers/docs/components/reference#component-object-component-types
    """

    ACTION_ROW = 1
    BUTTON = 2
    STRING_SELECT = 3
    TEXT_INPUT = 4
    USER_SELECT = 5
    ROLE_SELECT = 6
    MENTIONABLE_SELECT = 7
    CHANNEL_SELECT = 8
    SECTION = 9
    TEXT_DISPLAY = 10
    THUMBNAIL = 11
    MEDIA_GALLERY = 12
    FILE = 13
    SEPARATOR = 14
    CONTAINER = 17
    LABEL = 18


SELECT_MENUS = (Component.STRING_SELECT, Component.USER_SELECT, Component.ROLE_SELECT, Component.MENTIONABLE_SELECT,
                Component.CHANNEL_SELECT)


class InteractionContext(IntEnum):
    """Where an interaction happened (``context``), and where a command may be used (its ``contexts``).

    https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-context-types
    """

    GUILD = 0
    BOT_DM = 1
    PRIVATE_CHANNEL = 2


class ButtonStyle(IntEnum):
    """``style`` of a button.

    https://discord.com/developers/docs/components/reference#button-button-styles
    """

    PRIMARY = 1
    SECONDARY = 2
    SUCCESS = 3
    DANGER = 4
    LINK = 5
    PREMIUM = 6


class TextInputStyle(IntEnum):
    """``style`` of a text input in a modal.

    https://discord.com/developers/docs/components/reference#text-input-text-input-styles
    """

    SHORT = 1
    PARAGRAPH = 2


class OptionType(IntEnum):
    """``type`` of a slash command's option (and of the option's value in the interaction's data).

    https://discord.com/developers/docs/interactions/application-commands#application-command-object-application-command-option-type
    """

    SUB_COMMAND = 1
    SUB_COMMAND_GROUP = 2
    STRING = 3
    INTEGER = 4
    BOOLEAN = 5
    USER = 6
    CHANNEL = 7
    ROLE = 8
    MENTIONABLE = 9
    NUMBER = 10
    ATTACHMENT = 11


SUBCOMMANDS = (OptionType.SUB_COMMAND, OptionType.SUB_COMMAND_GROUP)


class CommandType(IntEnum):
    """``type`` of an application command.

    https://discord.com/developers/docs/interactions/application-commands#application-command-object-application-command-types
    """

    CHAT_INPUT = 1  # a slash command
    USER = 2
    MESSAGE = 3


class ChannelType(IntEnum):
    """``type`` of a channel.

    https://discord.com/developers/docs/resources/channel#channel-object-channel-types
    """

    GUILD_TEXT = 0
    DM = 1
    PUBLIC_THREAD = 11
    PRIVATE_THREAD = 12


class MessageType(IntEnum):
    """``type`` of a message.

    https://discord.com/developers/docs/resources/message#message-object-message-types
    """

    DEFAULT = 0
    REPLY = 19
    CHAT_INPUT_COMMAND = 20  # the answer to a slash command


class MessageFlag(IntFlag):
    """Bits of a message's ``flags``.

    https://discord.com/developers/docs/resources/message#message-object-message-flags
    """

    EPHEMERAL = 1 << 6  # only the user who interacted sees it
    LOADING = 1 << 7  # a deferred answer still "thinking"
    IS_COMPONENTS_V2 = 1 << 15

"""What arrives from Discord is checked before any command or component handles it.

Discord checks option types, bounds and choices before it sends a command, but discord.py trusts what
arrives: a value of the wrong type or out of range (from an out-of-date or hostile client) would reach the
commands unchecked, and a subcommand's `guild_only` is only a registration hint that Discord ignores for
subcommands (so `/chopsticks challenge` could be run in a DM). The tree refuses such interactions first,
with a reason. A click that no component handles is answered too, instead of being dropped without a word.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import discord
from discord import app_commands
from discord.enums import AppCommandOptionType as OptionType

from bot import workers
from bot.errors import reply_with_error
from bot.service import ServiceError
from games.text import Command, Joined, OptionName, Text

# Discord's integers are at most 2**53 in size; storage and the engines never see bigger ones.
MAX_INTEGER = 2**53
_SUBCOMMAND_TYPES = (OptionType.subcommand.value, OptionType.subcommand_group.value)
_RESOLVED_KEY = {
    OptionType.user.value: ("users",),
    OptionType.channel.value: ("channels",),
    OptionType.role.value: ("roles",),
    OptionType.mentionable.value: ("users", "roles"),
    OptionType.attachment.value: ("attachments",),
}


class BadOption(app_commands.CheckFailure):
    """An option value Discord itself would have refused; the message says which and why."""


class TabletopTree(app_commands.CommandTree[Any]):
    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        data: Any = interaction.data
        if not isinstance(data, Mapping) or data.get("type", 1) != 1:
            return True  # context menus: discord.py refuses unknown ones itself
        if interaction.type is discord.InteractionType.autocomplete:
            if _can_complete(interaction, data):
                return True
            await interaction.response.autocomplete([])  # nothing sensible to suggest
            return False
        try:
            options = leaf_options(data)
            command = interaction.command
            if not isinstance(command, app_commands.Command):
                return True  # unknown or out of date: discord.py raises CommandNotFound, answered as a refusal
            if interaction.guild_id is None and is_guild_only(command):
                raise app_commands.NoPrivateMessage()
            check_options(command, options, data.get("resolved"), guild_id=interaction.guild_id)
        except app_commands.AppCommandError as exc:
            # Answered here: discord.py's own error path would parse the garbled data again and crash.
            await reply_with_error(interaction, exc)
            return False
        # The command runs in this same task: the slow work it asks for (pictures) is done in this person's turn.
        workers.working_for.set(workers.user(interaction.user.id))
        return True


async def answer_unhandled_component(interaction: discord.Interaction[Any]) -> None:
    """Answer a component interaction that no item will handle (a forged id, one from an older version of the
    bot, or one that is not on its message), instead of leaving Discord to say that the interaction failed.

    discord.py hands a click to a dynamic item only when its template matches and the message carries that
    component; otherwise, unless controls it keeps in memory (a `discord.ui.View` added to it) wait for that click, it
    drops the click without a word."""
    data: Any = interaction.data
    if interaction.type is discord.InteractionType.modal_submit and isinstance(data, Mapping):
        await _answer_unknown_form(interaction, str(data.get("custom_id", "")))
        return
    if interaction.type is not discord.InteractionType.component or not isinstance(data, Mapping):
        return
    custom_id, kind = str(data.get("custom_id", "")), data.get("component_type")
    store = interaction.client._connection._view_store
    matched = any(pattern.fullmatch(custom_id) for pattern in store._dynamic_items)
    message = interaction.message
    on_message = message is not None and any(
        getattr(c, "custom_id", None) == custom_id and c.type.value == kind for c in _walk(message.components))
    waiting = any((kind, custom_id) in store._views.get(entity, {})
                  for entity in (message.id if message else None, None))
    if (matched and on_message) or waiting:
        return
    await reply_with_error(interaction, ServiceError(Text(
        "This button or menu is not one I know (it may be from an older version of me). "
        "Use the game's latest message or its slash commands.")))


async def _answer_unknown_form(interaction: discord.Interaction[Any], custom_id: str) -> None:
    """A submitted form whose id no presenter answers (they list theirs in `form_templates`) and that discord.py is
    not waiting for: refuse it rather than leave it unanswered."""
    presenters = getattr(interaction.client, "presenters", {}).values()
    known = any(re.fullmatch(template, custom_id) for p in presenters for template in p.form_templates)
    if known or custom_id in interaction.client._connection._view_store._modals:
        return
    await reply_with_error(interaction, ServiceError(Text(
        "This form is not one I know (it may be from an older version of me). Open it again from the game.")))


def _walk(components: Sequence[Any]) -> Iterator[Any]:
    """Every component of a message, nested ones included."""
    for component in components:
        yield component
        yield from _walk(getattr(component, "children", []))
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            yield accessory


def leaf_options(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The options of the (sub)command invoked, walked the way discord.py walks them; refuses broken shapes."""
    options = data.get("options", [])
    while True:
        if not isinstance(options, list) or not all(
            isinstance(o, Mapping) and isinstance(o.get("name"), str) and type(o.get("type")) is int for o in options
        ):
            raise BadOption(Text("This command arrived garbled; please run it again."))
        if options and options[0]["type"] in _SUBCOMMAND_TYPES:
            options = options[0].get("options", [])
            continue
        return options


def is_guild_only(command: app_commands.Command[Any, ..., Any]) -> bool:
    """Whether the command or a group above it may only run in a server."""
    node: app_commands.Command[Any, ..., Any] | app_commands.Group | None = command
    while node is not None:
        contexts = node.allowed_contexts
        if node.guild_only or (contexts is not None and not (contexts.dm_channel or contexts.private_channel)):
            return True
        node = node.parent
    return False


def check_options(
    command: app_commands.Command[Any, ..., Any],
    options: list[Mapping[str, Any]],
    resolved: Any,
    *,
    guild_id: int | None = None,
    complete: bool = True,
) -> None:
    """Raise BadOption unless every option is one the command has, given once, of its type and within bounds
    (and, when `complete`, every required option is there)."""
    params = {p.display_name: p for p in command.parameters}
    seen: set[str] = set()
    for option in options:
        name = option["name"]
        param = params.get(name)
        if param is None or name in seen:
            raise BadOption(Text("`{command}` has no option `{option}` (or got it twice); Discord may be showing an "
                                 "old version of the command: try again in a minute.",
                                 command=Command(command.qualified_name), option=_known(command, name)))
        seen.add(name)
        if option["type"] != param.type.value or "value" not in option:
            raise BadOption(Text("The option `{option}` arrived garbled; please run the command again.",
                                 option=OptionName(name)))
        problem = _value_problem(param, option["value"], resolved if isinstance(resolved, Mapping) else {}, guild_id)
        if problem is not None:
            raise BadOption(Text("`{option}` {problem}.", option=OptionName(name), problem=problem))
    missing = [p.display_name for p in command.parameters if p.required and p.display_name not in seen]
    if missing and complete:
        raise BadOption(Text("`{command}` needs {options}.", command=Command(command.qualified_name),
                             options=Joined([OptionName(m, quoted=True) for m in missing], ", ")))


def _value_problem(
    param: app_commands.Parameter, value: Any, resolved: Mapping[str, Any], guild_id: int | None
) -> Text | None:
    """What is wrong with one option's value, or None."""
    kind, low, high = param.type, param.min_value, param.max_value
    if kind is OptionType.string:
        if not isinstance(value, str) or not storable(value):
            return Text("must be text")
        if (low is not None and len(value) < low) or (high is not None and len(value) > high):
            return Text("must be {bounds} characters long", bounds=_bounds(low, high))
    elif kind is OptionType.integer:
        if type(value) is not int or abs(value) > MAX_INTEGER:
            return Text("must be a whole number")
        if (low is not None and value < low) or (high is not None and value > high):
            return Text("must be a whole number {bounds}", bounds=_bounds(low, high))
    elif kind is OptionType.number:
        if type(value) not in (int, float) or not math.isfinite(value):
            return Text("must be a number")
        if (low is not None and value < low) or (high is not None and value > high):
            return Text("must be a number {bounds}", bounds=_bounds(low, high))
    elif kind is OptionType.boolean:
        if type(value) is not bool:
            return Text("must be True or False")
    elif kind.value in _RESOLVED_KEY:
        if not isinstance(value, str | int) or not str(value).isdecimal():
            return Text("must name someone or something Discord knows")
        found = [
            resolved[key][str(value)]
            for key in _RESOLVED_KEY[kind.value]
            if isinstance(resolved.get(key), Mapping) and isinstance(resolved[key].get(str(value)), Mapping)
        ]
        if not found:
            return Text("must name someone or something Discord knows")
        allowed = {t.value for t in param.channel_types}
        if kind is OptionType.channel and allowed and found[0].get("type") not in allowed:
            return Text("must be a channel of another kind")
        home = found[0].get("guild_id")
        if kind is OptionType.channel and home is not None and str(home) != str(guild_id):
            return Text("must be a channel of this server")
    if param.choices and value not in [c.value for c in param.choices]:
        return Text("must be one of {choices}", choices=", ".join(f"`{c.value}`" for c in param.choices[:25]))
    return None


def given(**options: Any) -> dict[str, Any]:
    """The options a command was given, in order: those that are not None (an option left out arrives as None)."""
    return {name: value for name, value in options.items() if value is not None}


def storable(text: str) -> bool:
    """False for text no Discord client sends and a database would refuse: half of a UTF-16 surrogate pair (not
    UTF-8), or the NUL character (PostgreSQL's text cannot hold it; SQLite's can, and the two must agree)."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _bounds(low: float | None, high: float | None) -> Text:
    if low is not None and high is not None:
        return Text("from {low} to {high}", low=f"{low:g}", high=f"{high:g}")
    if low is not None:
        return Text("of at least {low}", low=f"{low:g}")
    return Text("of at most {high}", high=f"{high:g}")


def _known(command: app_commands.Command[Any, ..., Any], name: str) -> OptionName | str:
    """An option name as sent: one of the command's (Discord sends their English names) in the reader's language,
    anything else shown as it came, shortened."""
    if any(p.display_name == name for p in command.parameters):
        return OptionName(name)
    return _short(name)


def _short(text: str) -> str:
    text = text.replace("`", "'")
    return text if len(text) <= 32 else text[:31] + "…"


def _can_complete(interaction: discord.Interaction[Any], data: Mapping[str, Any]) -> bool:
    """Whether an autocomplete request is well formed: one focused option of the command, with autocomplete,
    holding the text typed so far (Discord always sends text), and the other options valid as far as given."""
    try:
        options = leaf_options(data)
    except BadOption:
        return False
    command = interaction.command
    focused = [o for o in options if o.get("focused")]
    if not isinstance(command, app_commands.Command) or len(focused) != 1:
        return False
    param = next((p for p in command.parameters if p.display_name == focused[0]["name"]), None)
    typed = focused[0].get("value")
    if param is None or not param.autocomplete or not isinstance(typed, str) or not storable(typed):
        return False
    try:
        check_options(command, [o for o in options if not o.get("focused")], data.get("resolved"),
                      guild_id=interaction.guild_id, complete=False)
    except BadOption:
        return False
    return True

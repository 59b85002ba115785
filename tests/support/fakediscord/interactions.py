"""What a user's click or slash command turns into, and what the bot answered.

Builds INTERACTION_CREATE payloads the way Discord does (command options typed from the registered
definition, ``resolved`` users and members, component data with the full message) and keeps one
:class:`InteractionResult` per interaction, which the REST side fills in as the bot answers.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.support.codes import SUBCOMMANDS, Callback, Component, InteractionContext, InteractionType, OptionType

from .models import FakeChannel, FakeMessage, FakeRole, FakeUser
from .payloads import EVERYONE_PERMISSIONS, JsonDict, channel_payload, member_payload, role_payload, user_payload

# Callback types allowed for each interaction type.
ALLOWED_CALLBACKS: dict[int, tuple[int, ...]] = {
    InteractionType.APPLICATION_COMMAND: (Callback.CHANNEL_MESSAGE, Callback.DEFERRED_CHANNEL_MESSAGE, Callback.MODAL),
    InteractionType.MESSAGE_COMPONENT: (Callback.CHANNEL_MESSAGE, Callback.DEFERRED_CHANNEL_MESSAGE,
                                        Callback.DEFERRED_UPDATE_MESSAGE, Callback.UPDATE_MESSAGE, Callback.MODAL),
    InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE: (Callback.AUTOCOMPLETE_RESULT,),
    InteractionType.MODAL_SUBMIT: (Callback.CHANNEL_MESSAGE, Callback.DEFERRED_CHANNEL_MESSAGE,
                                   Callback.DEFERRED_UPDATE_MESSAGE, Callback.UPDATE_MESSAGE),
}

ADMINISTRATOR = 1 << 3
ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024


class InteractionTimeout(TimeoutError):
    """The bot did not answer an interaction in time (Discord shows "The application did not respond")."""


@dataclass(eq=False)
class InteractionResult:
    """One interaction and everything the bot did in answer to it.

    ``message`` is the original response: the message created by a CHANNEL_MESSAGE or DEFERRED_CHANNEL_MESSAGE
    callback (later PATCHes of ``@original`` update it in place) or, for DEFERRED_UPDATE_MESSAGE and UPDATE_MESSAGE,
    the message the component sits on.
    """

    id: int
    token: str
    type: int
    user: FakeUser
    channel: FakeChannel
    label: str
    source_message: FakeMessage | None = None
    trigger: InteractionResult | None = None
    callback_type: int | None = None
    callback_data: JsonDict | None = None
    message: FakeMessage | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    choices: list[JsonDict] | None = None
    modal: JsonDict | None = None
    errors: list[str] = field(default_factory=list)
    edits_at_callback: int = 0
    # When the interaction was sent to the bot (time.monotonic), for ``FakeDiscord.interaction_deadline``.
    created: float = field(default_factory=time.monotonic)
    # True when the bot's callback came too late and Discord refused it (the user saw "interaction failed").
    expired: bool = False
    # True once the interaction's webhook token lapsed (Discord honours it for 15 minutes; tests call
    # ``FakeDiscord.expire_tokens`` rather than wait): its response and followups can no longer be edited.
    token_expired: bool = False
    token_born: float = field(default_factory=time.monotonic)  # when the token's 15 minutes began (monotonic)
    shard: tuple[int, int] | None = None  # the (shard_id, num_shards) of the session it was dispatched to
    _settled: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    _diagnose: Callable[[], str] = field(default=lambda: "", repr=False)

    @property
    def ephemeral(self) -> bool:
        """True when the original response is visible only to the user (its flags have EPHEMERAL)."""
        return self.message is not None and self.message.ephemeral

    @property
    def answered(self) -> bool:
        """True once a callback was accepted."""
        return self.callback_type is not None

    def settle(self) -> None:
        """Wake whoever waits on this interaction (callback accepted or rejected)."""
        self._settled.set()

    async def wait(self, timeout: float = 5.0) -> InteractionResult:
        """Wait until the bot's callback was accepted or rejected; raise InteractionTimeout otherwise."""
        try:
            async with asyncio.timeout(timeout):  # not wait_for, which can swallow a cancellation (Python 3.11)
                await self._settled.wait()
        except TimeoutError:
            raise InteractionTimeout(
                f"the bot did not answer {self.label} within {timeout} s{self._diagnose()}"
            ) from None
        return self

    async def wait_for_original(self, timeout: float = 5.0) -> FakeMessage:
        """For deferred answers: wait until ``@original`` was filled in (DEFERRED_CHANNEL_MESSAGE) or the
        message edited (DEFERRED_UPDATE_MESSAGE)."""
        await self.wait(timeout)
        deadline = time.monotonic() + timeout
        while not self._original_ready():
            if time.monotonic() > deadline:
                raise InteractionTimeout(
                    f"the bot never completed its deferred answer to {self.label}{self._diagnose()}"
                )
            await asyncio.sleep(0.01)
        assert self.message is not None
        return self.message

    def _original_ready(self) -> bool:
        """Whether the deferred original response has its real content yet."""
        msg = self.message
        if msg is None:
            return False
        if self.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE:
            return not msg.loading
        if self.callback_type == Callback.DEFERRED_UPDATE_MESSAGE:
            return msg.edits > self.edits_at_callback or msg.deleted
        return True

    async def wait_for_followups(self, count: int = 1, timeout: float = 5.0) -> list[FakeMessage]:
        """Wait until at least ``count`` followup messages were posted."""
        deadline = time.monotonic() + timeout
        while len(self.followups) < count:
            if time.monotonic() > deadline:
                raise InteractionTimeout(
                    f"{len(self.followups)} of {count} followups to {self.label} arrived{self._diagnose()}"
                )
            await asyncio.sleep(0.01)
        return self.followups


def base_payload(
    *,
    interaction_id: int,
    token: str,
    kind: int,
    application_id: int,
    user: FakeUser,
    channel: FakeChannel,
    permissions: int,
    app_permissions: int,
    locale: str,
    guild_locale: str = "en-US",
    roles: list[int] | None = None,
) -> JsonDict:
    """The fields every interaction carries, for a guild channel or a DM."""
    payload: JsonDict = {
        "id": str(interaction_id),
        "application_id": str(application_id),
        "type": kind,
        "token": token,
        "version": 1,
        "channel_id": str(channel.id),
        "app_permissions": str(app_permissions),
        "locale": locale,
        "entitlements": [],
        "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
    }
    if channel.guild_id is None:
        payload.update(
            {
                "channel": channel_payload(channel, recipient=user),
                "user": user_payload(user),
                "context": InteractionContext.BOT_DM,
                "authorizing_integration_owners": {"0": "0"},
            }
        )
    else:
        channel_data = channel_payload(channel)
        channel_data["permissions"] = str(permissions)
        payload.update(
            {
                "guild_id": str(channel.guild_id),
                "guild": {"id": str(channel.guild_id), "locale": guild_locale, "features": []},
                "guild_locale": guild_locale,
                "channel": channel_data,
                "member": member_payload(user, permissions=permissions, roles=roles),
                "context": InteractionContext.GUILD,
                "authorizing_integration_owners": {"0": str(channel.guild_id)},
            }
        )
    return payload


@dataclass
class CommandPath:
    """A registered command resolved down to the (sub)command the user typed."""

    definition: JsonDict
    names: list[str]
    leaf: JsonDict

    def wrap(self, options: list[JsonDict]) -> list[JsonDict]:
        """Nest leaf options inside their subcommand (and group) as Discord does."""
        wrapped = options
        node = self.definition
        chain: list[JsonDict] = []
        for name in self.names[1:]:
            node = next(o for o in node.get("options", []) if o.get("name") == name)
            chain.append(node)
        for node in reversed(chain):
            wrapped = [{"name": node["name"], "type": node["type"], "options": wrapped}]
        return wrapped


def resolve_command(definition: JsonDict, names: Sequence[str]) -> CommandPath:
    """Walk ``["demo", "ping"]`` or ``["demo", "group", "sub"]`` through a command definition."""
    node = definition
    for name in names[1:]:
        subs = [o for o in node.get("options", []) if o.get("type") in SUBCOMMANDS]
        found = next((o for o in subs if o.get("name") == name), None)
        if found is None:
            raise LookupError(
                f"/{' '.join(names)}: {node['name']!r} has no subcommand {name!r}; "
                f"it has {[o['name'] for o in subs]}"
            )
        node = found
    if any(o.get("type") in SUBCOMMANDS for o in node.get("options", [])):
        subs = [o["name"] for o in node["options"]]
        raise LookupError(f"/{' '.join(names)} cannot be invoked by itself; pick one of {subs}")
    return CommandPath(definition, list(names), node)


@dataclass
class BuiltOptions:
    """Typed interaction options plus the ``resolved`` map they refer to."""

    options: list[JsonDict]
    resolved: JsonDict


def build_options(
    path: CommandPath,
    values: Mapping[str, Any],
    *,
    guild_id: int | None,
    focused: str | None = None,
) -> BuiltOptions:
    """Type each user-supplied value from the registered option, as the Discord client would.

    Raises for anything the client would refuse to send: unknown options, missing required ones, a
    value outside the registered choices or bounds. ``focused`` builds an autocomplete payload (the
    focused option's value is the raw text typed so far; required options may still be missing).
    """
    label = "/" + " ".join(path.names)
    by_name = {o["name"]: o for o in path.leaf.get("options", [])}
    resolved: JsonDict = {}
    options: list[JsonDict] = []
    for name, value in values.items():
        spec = by_name.get(name)
        if spec is None:
            raise LookupError(f"{label} has no option {name!r}; it has {sorted(by_name)}")
        entry: JsonDict = {"name": name, "type": spec["type"]}
        if name == focused:
            if not spec.get("autocomplete"):
                raise ValueError(f"{label} option {name!r} has no autocomplete")
            entry.update(value=str(value), focused=True)
        else:
            entry["value"] = _typed_value(label, spec, value, resolved, guild_id)
        options.append(entry)
    if focused is None:
        missing = [n for n, o in by_name.items() if o.get("required") and n not in values]
        if missing:
            raise ValueError(f"{label} is missing required options {missing}")
    elif focused not in values:
        raise ValueError(f"autocomplete focus {focused!r} needs a value (the text typed so far)")
    return BuiltOptions(options, resolved)


def _typed_value(label: str, spec: JsonDict, value: Any, resolved: JsonDict, guild_id: int | None) -> Any:
    """One option value on the wire, registering users and channels in ``resolved``."""
    kind = spec["type"]
    name = spec["name"]
    if kind in (OptionType.USER, OptionType.MENTIONABLE):
        if not isinstance(value, FakeUser):
            raise TypeError(f"{label} option {name!r} takes a FakeUser, got {value!r}")
        resolved.setdefault("users", {})[str(value.id)] = user_payload(value)
        if guild_id is not None:
            resolved.setdefault("members", {})[str(value.id)] = member_payload(
                None, permissions=EVERYONE_PERMISSIONS
            )
        return str(value.id)
    if kind == OptionType.ROLE:
        if not isinstance(value, FakeRole):
            raise TypeError(f"{label} option {name!r} takes a FakeRole, got {value!r}")
        resolved.setdefault("roles", {})[str(value.id)] = role_payload(value)
        return str(value.id)
    if kind == OptionType.CHANNEL:
        if not isinstance(value, FakeChannel):
            raise TypeError(f"{label} option {name!r} takes a FakeChannel, got {value!r}")
        data = channel_payload(value)
        data["permissions"] = str(EVERYONE_PERMISSIONS)
        resolved.setdefault("channels", {})[str(value.id)] = data
        return str(value.id)
    if kind == OptionType.STRING:
        if not isinstance(value, str):
            raise TypeError(f"{label} option {name!r} is a string option, got {value!r}")
        _check_bounds(label, spec, len(value), "min_length", "max_length")
    elif kind == OptionType.INTEGER:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{label} option {name!r} is an integer option, got {value!r}")
        _check_bounds(label, spec, value, "min_value", "max_value")
    elif kind == OptionType.NUMBER:
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise TypeError(f"{label} option {name!r} is a number option, got {value!r}")
        _check_bounds(label, spec, value, "min_value", "max_value")
    elif kind == OptionType.BOOLEAN:
        if not isinstance(value, bool):
            raise TypeError(f"{label} option {name!r} is a boolean option, got {value!r}")
    else:
        raise NotImplementedError(f"{label} option {name!r}: option type {kind} is not supported by the fake")
    choices = spec.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise ValueError(f"{label} option {name!r}: {value!r} is not one of {[c['value'] for c in choices]}")
    return value


def _check_bounds(label: str, spec: JsonDict, measure: float, low_key: str, high_key: str) -> None:
    """The client refuses values outside ``min_*``/``max_*``; so does the fake."""
    low, high = spec.get(low_key), spec.get(high_key)
    if (low is not None and measure < low) or (high is not None and measure > high):
        raise ValueError(f"{label} option {spec['name']!r}: {measure} is outside [{low}, {high}]")


def check_can_use(label: str, definition: JsonDict, permissions: int, in_guild: bool) -> None:
    """Refuse what the Discord client would hide: commands above the member's permissions or context."""
    contexts = definition.get("contexts")
    here = InteractionContext.GUILD if in_guild else InteractionContext.BOT_DM
    if contexts is not None and here not in contexts:
        raise PermissionError(f"{label} is not available {'in guilds' if in_guild else 'in DMs'}")
    required = definition.get("default_member_permissions")
    if in_guild and required is not None and not permissions & ADMINISTRATOR:
        need = int(required)
        if permissions & need != need:
            raise PermissionError(
                f"{label} needs permissions {need} but the member has {permissions}; pass permissions=..."
            )


def component_data(
    message: FakeMessage, custom_id: str, component_type: int, values: list[str] | None
) -> JsonDict:
    """``data`` of a component interaction, after checking the user could really use that component."""
    matches = [c for c in message.walk_components() if c.get("custom_id") == custom_id]
    if not matches:
        raise LookupError(
            f"message {message.id} has no component {custom_id!r}; it has {message.custom_ids()}"
        )
    comp = matches[0]
    if comp.get("type") != component_type:
        raise TypeError(f"component {custom_id!r} has type {comp.get('type')}, not {component_type}")
    if comp.get("disabled"):
        raise PermissionError(f"component {custom_id!r} is disabled; a user cannot use it")
    if message.deleted:
        raise LookupError(f"message {message.id} was deleted")
    data: JsonDict = {"custom_id": custom_id, "component_type": component_type}
    if "id" in comp:
        data["id"] = comp["id"]
    if component_type == Component.STRING_SELECT:
        allowed = [o["value"] for o in comp.get("options", [])]
        chosen = list(values or [])
        bad = [v for v in chosen if v not in allowed]
        if bad:
            raise ValueError(f"select {custom_id!r} has no options {bad}; options are {allowed}")
        low, high = comp.get("min_values", 1), comp.get("max_values", 1)
        if not low <= len(chosen) <= high:
            raise ValueError(f"select {custom_id!r} takes {low}..{high} values, got {len(chosen)}")
        data["values"] = chosen
    elif component_type == Component.USER_SELECT:
        chosen = list(values or [])
        low, high = comp.get("min_values", 1), comp.get("max_values", 1)
        if not low <= len(chosen) <= high:
            raise ValueError(f"select {custom_id!r} takes {low}..{high} values, got {len(chosen)}")
        data["values"] = chosen
    return data


def modal_submit_data(modal: JsonDict, values: Mapping[str, Any]) -> JsonDict:
    """``data`` of a modal submission mirroring the modal's layout (action rows or labels)."""
    used: set[str] = set()

    def answer(component: JsonDict) -> JsonDict:
        custom_id = component.get("custom_id", "")
        used.add(custom_id)
        if component.get("type") == Component.TEXT_INPUT:
            text = str(values.get(custom_id, component.get("value") or ""))
            if component.get("required", True) and not text:
                raise ValueError(f"modal field {custom_id!r} is required")
            answered: JsonDict = {"type": Component.TEXT_INPUT, "custom_id": custom_id, "value": text}
        else:
            chosen = list(values.get(custom_id, []))
            answered = {"type": component.get("type"), "custom_id": custom_id, "values": chosen}
        if "id" in component:
            answered["id"] = component["id"]
        return answered

    rows: list[JsonDict] = []
    for top in modal.get("components", []):
        if top.get("type") == Component.ACTION_ROW:
            rows.append({"type": Component.ACTION_ROW, "components": [answer(c) for c in top.get("components", [])]})
        elif top.get("type") == Component.LABEL:
            label: JsonDict = {"type": Component.LABEL, "component": answer(top["component"])}
            if "id" in top:
                label["id"] = top["id"]
            rows.append(label)
    unknown = set(values) - used
    if unknown:
        raise LookupError(f"modal {modal.get('custom_id')!r} has no fields {sorted(unknown)}")
    return {"custom_id": modal.get("custom_id"), "components": rows}

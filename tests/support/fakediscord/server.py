"""FakeDiscord: an offline Discord (REST v10 + gateway) on 127.0.0.1 that a real discord.py bot talks to.

Point the bot at it with ``discord.http.Route.BASE = fake.api_base`` and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)``, start it with
``fake.token``, then act as users with :meth:`FakeDiscord.slash`, :meth:`FakeDiscord.click` and
:meth:`FakeDiscord.select`, and assert on what they would see (:meth:`FakeDiscord.channel_messages`,
the returned :class:`InteractionResult`) and on :attr:`FakeDiscord.violations`.
"""

from __future__ import annotations

import asyncio
import base64
import mimetypes
import re
import secrets
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from aiohttp import web

from tests.support.codes import ChannelType, CommandType, Component, InteractionType, MessageFlag, MessageType

from .faults import FaultPlan, RestFault
from .gateway import CLOSE_UNKNOWN_ERROR, INTENT_GUILD_MESSAGES, INTENT_GUILDS, GatewayHub
from .interactions import (
    InteractionResult,
    base_payload,
    build_options,
    check_can_use,
    component_data,
    modal_submit_data,
    resolve_command,
)
from .models import (
    DISCORD_EPOCH_MS,
    OVERWRITE_MEMBER,
    OVERWRITE_ROLE,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeOverwrite,
    FakeRole,
    FakeUser,
    RecordedRequest,
    SnowflakeFactory,
    iso_now,
)
from .payloads import (
    DEFAULT_APP_PERMISSIONS,
    PERM_VIEW_CHANNEL,
    JsonDict,
    channel_payload,
    guild_create_payload,
    member_payload,
    member_permissions,
    message_payload,
    normalise_components,
    normalise_embeds,
    role_payload,
    user_payload,
)
from .rest import Call, RestApi, UploadedFile
from .routes import CALLBACK_ROUTE, register_routes
from .spec import SpecValidator

# Flags a sender may set: SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS, IS_COMPONENTS_V2. EPHEMERAL is only
# honoured on interaction responses and followups.
SETTABLE_FLAGS = (1 << 2) | (1 << 12) | (1 << 15)
# How long an enforced nonce is remembered: Discord says "the past few minutes", so two, to promise no more.
NONCE_WINDOW = 120.0


_MENTION = re.compile(r"<@!?([0-9]+)>")


def pinged_users(content: str, allowed: Any) -> frozenset[int]:
    """The users a message's content notifies, as Discord decides from its allowed_mentions."""
    mentioned = {int(m) for m in _MENTION.findall(content)}
    if not isinstance(allowed, Mapping):
        return frozenset(mentioned)  # no allowed_mentions: every mention notifies
    if "users" in (allowed.get("parse") or []):
        return frozenset(mentioned)
    listed = {int(u) for u in allowed.get("users") or []}
    return frozenset(mentioned & listed)


class FakeDiscord:
    """The fake Discord: state, an aiohttp server, and the driver API tests use to act as users."""

    def __init__(
        self,
        validator: SpecValidator | None = None,
        *,
        bot_name: str = "Tabletop",
        check_responses: bool = True,
    ) -> None:
        self.validator = validator
        # Also validate the fake's own 2xx answers against the description (issues land in
        # ``response_issues``): a cheap guard that the fake keeps talking like Discord.
        self.check_responses = check_responses
        self.ids = SnowflakeFactory()
        self.bot_user = FakeUser(self.ids.next(), bot_name, bot=True)
        # Modern applications share their id with their bot user.
        self.application_id = self.bot_user.id
        encoded = base64.b64encode(str(self.bot_user.id).encode()).decode().rstrip("=")
        self.token = f"{encoded}.fake.{secrets.token_urlsafe(27)}"
        self.app_permissions = DEFAULT_APP_PERMISSIONS
        # Commands a server admin opened to everyone in Server Settings > Integrations, overriding the
        # command's default_member_permissions (so the bot's own permission checks must hold).
        self.permission_overrides: set[str] = set()
        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.commands: dict[int | None, list[JsonDict]] = {}
        self.interactions: dict[int, InteractionResult] = {}
        self.requests: list[RecordedRequest] = []
        self.violations: list[str] = []
        self.response_issues: list[str] = []
        self.attachment_data: dict[int, bytes] = {}
        self._dm_channels: dict[int, FakeChannel] = {}
        self._dm_blocked: set[int] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        # Planned REST failures (see ``inject_rest_fault``).
        self.faults = FaultPlan()
        # Seconds Discord waits for an interaction's callback before refusing it with 10062 Unknown
        # interaction (3 s on Discord); None: not enforced. Fault tests set a short one to stay fast.
        self.interaction_deadline: float | None = None
        # Seconds the webhook tokens of interactions sent from now on have already lived (their ids are dated that
        # much earlier, as Discord's would be): 14.5 * 60 gives a token that lapses 30 s later.
        self.interaction_age = 0.0
        # The shard count GET /gateway/bot recommends (discord.py's AutoShardedClient without a shard_count asks).
        self.shard_count = 1
        self.hub = GatewayHub(self)
        self.rest = RestApi(self)
        register_routes(self, self.rest)
        self._runner: web.AppRunner | None = None
        self.port = 0

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        """Serve on 127.0.0.1 at a free port."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gw", self.hub.handle)
        app.router.add_get("/gw/", self.hub.handle)
        app.router.add_get("/attachments/{attachment_id}/{filename}", self._serve_attachment)
        app.router.add_route("*", "/{tail:.*}", self.rest.handle)
        runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(runner, sock).start()
        self._runner = runner

    async def close(self) -> None:
        """Close every gateway socket and stop serving. Close the bot first, or it will try to reconnect."""
        await self.hub.close_all()
        for task in list(self._tasks):
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """Assign to ``discord.http.Route.BASE``."""
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """Wrap in ``yarl.URL`` and assign to ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY``."""
        return f"ws://127.0.0.1:{self.port}/gw"

    # ------------------------------------------------------------------ world building

    def add_user(self, name: str, *, bot: bool = False) -> FakeUser:
        """A user tests can act as; any user may act in any guild."""
        user = FakeUser(self.ids.next(), name, bot=bot)
        self.users[user.id] = user
        return user

    def add_guild(
        self, name: str, *, owner: FakeUser | None = None, shard: int | None = None, shard_count: int | None = None
    ) -> FakeGuild:
        """A guild the bot is in (announced with GUILD_CREATE if its shard is connected).

        With ``shard``, its id is chosen so that Discord routes it to that shard of ``shard_count`` (default: the
        count GET /gateway/bot recommends), i.e. ``(id >> 22) % shard_count == shard``."""
        guild_id = self.ids.next() if shard is None else self.ids.on_shard(shard, shard_count or self.shard_count)
        guild = FakeGuild(guild_id, name, owner.id if owner else self.bot_user.id)
        self.guilds[guild.id] = guild
        if self.hub.reachable(guild.id):
            self.dispatch_soon("GUILD_CREATE", guild_create_payload(guild, self.bot_user))
        return guild

    def add_channel(self, guild: FakeGuild, name: str) -> FakeChannel:
        """A text channel in ``guild`` (announced with CHANNEL_CREATE if the guild's shard is connected)."""
        channel = FakeChannel(self.ids.next(), guild.id, name, position=len(guild.channels))
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        if self.hub.reachable(guild.id):
            self.dispatch_soon("CHANNEL_CREATE", channel_payload(channel), intent=INTENT_GUILDS)
        return channel

    def add_role(self, guild: FakeGuild, name: str, permissions: int = 0) -> FakeRole:
        """A role in ``guild`` (announced with GUILD_ROLE_CREATE if the guild's shard is connected)."""
        role = FakeRole(self.ids.next(), name, permissions, position=len(guild.roles) + 1)
        guild.roles.append(role)
        if self.hub.reachable(guild.id):
            self.dispatch_soon("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role_payload(role)},
                               intent=INTENT_GUILDS)
        return role

    def give_role(self, guild: FakeGuild, user: FakeUser, role: FakeRole) -> None:
        """``user`` gets ``role``. Announced to nobody: GUILD_MEMBER_UPDATE needs the privileged members intent; a bot
        without it learns a member's roles from their next interaction."""
        guild.member_roles.setdefault(user.id, set()).add(role.id)

    def take_role(self, guild: FakeGuild, user: FakeUser, role: FakeRole) -> None:
        """``user`` loses ``role`` (announced to nobody either, like ``give_role``)."""
        guild.member_roles.get(user.id, set()).discard(role.id)

    def add_private_channel(self, guild: FakeGuild, name: str, *,
                            seen_by: Sequence[FakeRole | FakeUser]) -> FakeChannel:
        """A text channel only ``seen_by`` (roles or members) may view: View Channel denied to ``@everyone`` and allowed
        to each of them, as Discord's "Private Channel" switch sets it up."""
        channel = self.add_channel(guild, name)
        self.set_overwrites(channel, [FakeOverwrite(guild.id, OVERWRITE_ROLE, deny=PERM_VIEW_CHANNEL)] + [
            FakeOverwrite(who.id, OVERWRITE_ROLE if isinstance(who, FakeRole) else OVERWRITE_MEMBER,
                          allow=PERM_VIEW_CHANNEL) for who in seen_by])
        return channel

    def set_overwrites(self, channel: FakeChannel, overwrites: Sequence[FakeOverwrite]) -> None:
        """Replace a guild channel's permission overwrites (announced with CHANNEL_UPDATE if its shard is connected)."""
        channel.overwrites = list(overwrites)
        if channel.guild_id is not None and self.hub.reachable(channel.guild_id):
            self.dispatch_soon("CHANNEL_UPDATE", channel_payload(channel), intent=INTENT_GUILDS)

    def can_view(self, user: FakeUser, channel: FakeChannel) -> bool:
        """Whether ``user`` may view ``channel`` (a thread: its parent), as Discord decides it; DMs: their own."""
        if channel.guild_id is None:
            return channel.recipient_id in (None, user.id)
        guild = self.guilds[channel.guild_id]
        where = self.channels.get(channel.parent_id) if channel.is_thread and channel.parent_id else channel
        return bool(member_permissions(guild, user.id, where) & PERM_VIEW_CHANNEL)

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        """The DM channel between the bot and ``user`` (created on first use, as Discord does)."""
        channel = self._dm_channels.get(user.id)
        if channel is None:
            channel = FakeChannel(self.ids.next(), None, user.name, type=ChannelType.DM, recipient_id=user.id)
            self._dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def fail_dm_for(self, user: FakeUser, failing: bool = True) -> None:
        """Make DMs to ``user`` fail with 403 / 50007 (DMs closed or bot blocked)."""
        if failing:
            self._dm_blocked.add(user.id)
        else:
            self._dm_blocked.discard(user.id)

    def dm_blocked(self, channel: FakeChannel) -> bool:
        """Whether sending into this DM channel must fail."""
        return channel.recipient_id in self._dm_blocked

    # ------------------------------------------------------------------ reading state

    def registered_commands(self, guild_id: int | None = None) -> list[JsonDict]:
        """Commands as stored by the last bulk PUT (global when ``guild_id`` is None)."""
        return list(self.commands.get(guild_id, []))

    def channel_messages(self, channel: FakeChannel) -> list[FakeMessage]:
        """What everyone sees in ``channel``: non-ephemeral, not deleted, oldest first."""
        return [
            m
            for m in self.messages.values()
            if m.channel_id == channel.id and not m.ephemeral and not m.deleted
        ]

    def notifications(self, user: FakeUser) -> list[FakeMessage]:
        """Every message that notified ``user``: a new message that pinged them (deleted since or not), or a DM."""
        dm = self._dm_channels.get(user.id)
        return [m for m in self.messages.values()
                if not m.ephemeral and (user.id in m.pinged or (dm is not None and m.channel_id == dm.id))]

    def dm_messages(self, user: FakeUser) -> list[FakeMessage]:
        """Messages the bot sent to ``user`` by DM, oldest first."""
        channel = self._dm_channels.get(user.id)
        return [] if channel is None else self.channel_messages(channel)

    def message(self, message_id: int) -> FakeMessage:
        """Any stored message by id."""
        return self.messages[message_id]

    def calls(self, method: str, route: str) -> list[RecordedRequest]:
        """Recorded requests for one route template: ``calls("POST", "/channels/{channel_id}/messages")``."""
        return [r for r in self.requests if r.method == method and r.route == route]

    def attachment_bytes(self, attachment: Mapping[str, Any]) -> bytes:
        """The uploaded bytes of an attachment dict from ``FakeMessage.attachments``."""
        return self.attachment_data[int(attachment["id"])]

    async def wait_until(self, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
        """Poll ``predicate`` every 10 ms until it holds; raise TimeoutError otherwise."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise TimeoutError(f"condition not met within {timeout} s{self.diagnose()}")
            await asyncio.sleep(0.01)

    async def wait_until_ready(self, timeout: float = 10.0, *, identifies: int = 1) -> None:
        """Wait until a bot identified (or resumed) and got READY plus a GUILD_CREATE per guild.

        After a restart pass ``identifies=2`` (3, ...) so the wait is for the new process, not satisfied
        by a connection of the old one that has not noticed it is closing yet.
        """
        deadline = time.monotonic() + timeout
        while self.hub.identify_count < identifies:
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"only {self.hub.identify_count} of {identifies} IDENTIFYs within {timeout} s"
                )
            await asyncio.sleep(0.01)
        await self.hub.wait_ready(max(0.0, deadline - time.monotonic()))

    async def disconnect_gateway(self) -> None:
        """Drop the bot's websocket (close code 4000); discord.py reconnects and RESUMEs."""
        await self.hub.disconnect(CLOSE_UNKNOWN_ERROR)

    # ------------------------------------------------------------------ faults

    async def gateway_reconnect(self) -> None:
        """Send a RECONNECT, as Discord does before moving a session; discord.py reconnects and RESUMEs."""
        await self.hub.request_reconnect()

    async def gateway_invalid_session(self, resumable: bool) -> None:
        """Send an INVALID_SESSION with ``d=resumable``.

        ``True``: discord.py reconnects and RESUMEs (the session is kept). ``False``: the session is gone
        (events since the last one the bot saw are lost) and discord.py IDENTIFYs anew.
        """
        await self.hub.invalidate_session(resumable)

    def inject_rest_fault(
        self,
        method: str,
        route: str,
        *,
        status: int | None = 500,
        retry_after: float = 0.1,
        is_global: bool = False,
        times: int = 1,
        applied: bool = False,
        delay: float = 0.0,
        drop: bool = False,
    ) -> RestFault:
        """Make the next ``times`` requests to ``method route`` fail (see :mod:`tests.support.fakediscord.faults`).

        ``route`` is a template as the fake registers it, e.g. ``CALLBACK_ROUTE`` or
        ``"/channels/{channel_id}/messages/{message_id}"``; an unknown one is an error, so a typo cannot
        make a test pass by never failing anything. The returned fault's ``hits`` are the requests it hit.
        """
        if not any(r.method == method and r.template == route for r in self.rest.routes):
            raise ValueError(f"{method} {route} is not a route of the fake")
        fault = RestFault(
            method,
            route,
            status=None if drop else status,
            retry_after=retry_after,
            is_global=is_global,
            times=times,
            applied=applied,
            delay=delay,
            drop=drop,
        )
        return self.faults.add(fault)

    def clear_rest_faults(self) -> None:
        """Forget every planned fault, hit or not."""
        self.faults.clear()

    def diagnose(self, since: int = 0) -> str:
        """Recent requests and violations, appended to timeout errors."""
        lines = [
            f"{r.method} {r.path} -> {r.status}" + (f" [fault: {r.fault}]" if r.fault else "")
            for r in self.requests[since:][-8:]
        ]
        text = "; recent requests: " + (", ".join(lines) if lines else "none")
        if self.violations:
            text += "; violations: " + " | ".join(self.violations[-5:])
        return text

    # ------------------------------------------------------------------ acting as users

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        subcommand: str | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        permissions: int | str = 0,
        locale: str | None = None,
        timeout: float = 5.0,
        wait: bool = True,
    ) -> InteractionResult:
        """Run ``/command [group] subcommand`` with options typed from the registered definition."""
        names = command.split() + (subcommand.split() if subcommand else [])
        definition, guild_id = self._find_command(names[0], channel)
        label = "/" + " ".join(names)
        if names[0] not in self.permission_overrides:
            check_can_use(label, definition, int(permissions), channel.guild_id is not None)
        path = resolve_command(definition, names)
        built = build_options(path, options or {}, guild_id=channel.guild_id)
        data = self._command_data(definition, guild_id, path.wrap(built.options), built.resolved)
        return await self._interact(
            InteractionType.APPLICATION_COMMAND, user, channel, data, label, permissions, locale, timeout, wait
        )

    async def autocomplete(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        subcommand: str | None = None,
        options: Mapping[str, Any] | None = None,
        *,
        focused: str,
        permissions: int | str = 0,
        locale: str | None = None,
        timeout: float = 5.0,
    ) -> list[JsonDict]:
        """Type into option ``focused`` (its value in ``options`` is the text so far); return the choices."""
        names = command.split() + (subcommand.split() if subcommand else [])
        definition, guild_id = self._find_command(names[0], channel)
        path = resolve_command(definition, names)
        built = build_options(path, options or {}, guild_id=channel.guild_id, focused=focused)
        data = self._command_data(definition, guild_id, path.wrap(built.options), built.resolved)
        label = f"autocomplete /{' '.join(names)} {focused}"
        res = await self._interact(
            InteractionType.APPLICATION_COMMAND_AUTOCOMPLETE, user, channel, data, label, permissions, locale, timeout,
            True
        )
        return res.choices or []

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str,
        *,
        permissions: int | str = 0,
        locale: str | None = None,
        timeout: float = 5.0,
        wait: bool = True,
    ) -> InteractionResult:
        """Press the button ``custom_id`` on ``message``."""
        data = component_data(message, custom_id, 2, None)
        return await self._component(
            user, message, data, f"click {custom_id!r}", permissions, locale, timeout, wait
        )

    async def select(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str,
        values: Sequence[str],
        *,
        permissions: int | str = 0,
        locale: str | None = None,
        timeout: float = 5.0,
        wait: bool = True,
    ) -> InteractionResult:
        """Choose ``values`` in the string select ``custom_id`` on ``message``."""
        data = component_data(message, custom_id, 3, list(values))
        label = f"select {custom_id!r} {list(values)}"
        return await self._component(user, message, data, label, permissions, locale, timeout, wait)

    async def select_users(
        self,
        user: FakeUser,
        message: FakeMessage,
        custom_id: str,
        users: Sequence[FakeUser],
        *,
        permissions: int | str = 0,
        timeout: float = 5.0,
    ) -> InteractionResult:
        """Choose ``users`` in the user select ``custom_id`` on ``message`` (Discord sends them resolved)."""
        data = component_data(message, custom_id, Component.USER_SELECT, [str(u.id) for u in users])
        data["resolved"] = {"users": {str(u.id): user_payload(u) for u in users}}
        label = f"select users {custom_id!r} {[u.name for u in users]}"
        return await self._component(user, message, data, label, permissions, None, timeout, True)

    async def submit_modal(
        self,
        user: FakeUser,
        shown: InteractionResult,
        values: Mapping[str, Any],
        *,
        permissions: int | str = 0,
        locale: str | None = None,
        timeout: float = 5.0,
        wait: bool = True,
    ) -> InteractionResult:
        """Fill in and submit the modal the bot showed in answer to ``shown`` (a MODAL callback)."""
        if shown.modal is None:
            raise LookupError(f"the bot showed no modal in answer to {shown.label}")
        data = modal_submit_data(shown.modal, values)
        label = f"modal {shown.modal.get('custom_id')!r}"
        return await self._interact(
            InteractionType.MODAL_SUBMIT,
            user,
            shown.channel,
            data,
            label,
            permissions,
            locale,
            timeout,
            wait,
            source=shown.source_message,
            trigger=shown,
        )

    async def _component(
        self,
        user: FakeUser,
        message: FakeMessage,
        data: JsonDict,
        label: str,
        permissions: int | str,
        locale: str | None,
        timeout: float,
        wait: bool,
    ) -> InteractionResult:
        """A component interaction carrying the whole message, as Discord sends it."""
        channel = self.channels[message.channel_id]
        return await self._interact(
            InteractionType.MESSAGE_COMPONENT, user, channel, data, label, permissions, locale, timeout, wait,
            source=message
        )

    def _find_command(self, name: str, channel: FakeChannel) -> tuple[JsonDict, int | None]:
        """The registered definition (guild commands of the channel's guild first, then global)."""
        scopes: list[int | None] = [channel.guild_id, None] if channel.guild_id else [None]
        for scope in scopes:
            for definition in self.commands.get(scope, []):
                kind = definition.get("type", CommandType.CHAT_INPUT)
                if definition.get("name") == name and kind == CommandType.CHAT_INPUT:
                    return definition, scope
        known = sorted({c["name"] for defs in self.commands.values() for c in defs})
        raise LookupError(
            f"/{name} is not registered (the bot must sync it first); registered commands: {known or 'none'}"
        )

    @staticmethod
    def _command_data(
        definition: JsonDict, guild_id: int | None, options: list[JsonDict], resolved: JsonDict
    ) -> JsonDict:
        """``data`` of an application-command interaction."""
        data: JsonDict = {"id": definition["id"], "name": definition["name"], "type": CommandType.CHAT_INPUT}
        if options:
            data["options"] = options
        if resolved:
            data["resolved"] = resolved
        if guild_id is not None:
            data["guild_id"] = str(guild_id)
        return data

    async def _interact(
        self,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: JsonDict,
        label: str,
        permissions: int | str,
        locale: str | None,
        timeout: float,
        wait: bool,
        *,
        source: FakeMessage | None = None,
        trigger: InteractionResult | None = None,
    ) -> InteractionResult:
        """Dispatch INTERACTION_CREATE and (optionally) wait for the bot's callback."""
        since = len(self.requests)
        res = InteractionResult(
            id=self.ids.next() if not self.interaction_age else self.ids.dated(time.time() - self.interaction_age),
            token="aW50ZXJhY3Rpb24" + secrets.token_urlsafe(32),
            type=kind,
            user=user,
            channel=channel,
            label=label,
            source_message=source,
            trigger=trigger,
            _diagnose=lambda: self.diagnose(since),
        )
        self.interactions[res.id] = res
        guild = self.guilds.get(channel.guild_id) if channel.guild_id is not None else None
        if guild is not None and not self.can_view(user, channel):
            # The Discord client shows a member no channel they may not view: nothing they do can come from it.
            raise AssertionError(f"{user.name} cannot view #{channel.name}, so cannot {label} there")
        payload = base_payload(
            interaction_id=res.id,
            token=res.token,
            kind=kind,
            application_id=self.application_id,
            user=user,
            channel=channel,
            permissions=int(permissions),
            app_permissions=self.app_permissions,
            locale=locale or user.locale,  # the client's language unless the test says otherwise
            guild_locale=self.guilds[channel.guild_id].locale if channel.guild_id in self.guilds else "en-US",
            roles=sorted(guild.member_roles.get(user.id, ())) if guild is not None else None,
        )
        payload["data"] = data
        if source is not None:
            payload["message"] = self.message_json(source)
        await self.hub.wait_routed(channel.guild_id, timeout)  # the shard of the guild (DMs: shard 0)
        slot = self.hub.route(channel.guild_id)
        res.shard = None if slot is None else slot.key
        res.created = time.monotonic()  # Discord's 3 s for the callback start when the event is sent
        res.token_born = res.created - self.interaction_age
        await self.hub.dispatch("INTERACTION_CREATE", payload)
        if wait:
            await res.wait(timeout)
        return res

    def interaction_for(self, interaction_id: str, token: str) -> InteractionResult | None:
        """The interaction an id/token pair in a callback URL refers to."""
        try:
            res = self.interactions.get(int(interaction_id))
        except ValueError:
            return None
        return res if res is not None and res.token == token else None

    def expire_tokens(self) -> None:
        """Let the webhook token of every interaction so far lapse, as 15 minutes would on Discord."""
        for res in self.interactions.values():
            res.token_expired = True

    def interaction_by_token(self, token: str) -> InteractionResult | None:
        """The interaction a webhook token belongs to."""
        return next((r for r in self.interactions.values() if r.token == token), None)

    def on_rejected(self, call: Call, reasons: list[str]) -> None:
        """A request failed validation; a rejected callback ends the wait on its interaction."""
        if call.record.route != CALLBACK_ROUTE:
            return
        res = self.interaction_for(call.params["interaction_id"], call.params["interaction_token"])
        if res is not None and not res.answered:
            res.errors.extend(reasons)
            res.settle()

    # ------------------------------------------------------------------ messages

    def message_json(self, message: FakeMessage) -> JsonDict:
        """The message object Discord would return for ``message``."""
        author = self.users.get(message.author_id, self.bot_user)
        return message_payload(message, author)

    def created_with_nonce(self, nonce: str) -> FakeMessage | None:
        """The bot's message created with `nonce` in the past `NONCE_WINDOW` seconds, if any: Discord checks an
        enforced nonce "for uniqueness in the past few minutes" and returns the message another create made with
        it (by the same author) instead of creating one. Deleted messages are not returned."""
        since_ms = int((time.time() - NONCE_WINDOW) * 1000) - DISCORD_EPOCH_MS
        return next((m for m in reversed(self.messages.values())
                     if m.nonce == nonce and not m.deleted and (m.id >> 22) >= since_ms), None)

    def create_message(
        self,
        channel: FakeChannel,
        payload: Mapping[str, Any],
        files: Sequence[UploadedFile] = (),
        *,
        message_type: int = MessageType.DEFAULT,
        allow_ephemeral: bool = False,
        extra_flags: int = 0,
        interaction_metadata: JsonDict | None = None,
    ) -> FakeMessage:
        """Store a message the bot sent and announce it on the gateway (unless ephemeral)."""
        wanted = int(payload.get("flags") or 0)
        flags = (wanted & SETTABLE_FLAGS) | extra_flags
        if allow_ephemeral:
            flags |= wanted & MessageFlag.EPHEMERAL
        reference = payload.get("message_reference")
        message = FakeMessage(
            id=self.ids.next(),
            channel_id=channel.id,
            author_id=self.bot_user.id,
            content=str(payload.get("content") or ""),
            embeds=normalise_embeds(payload.get("embeds")),
            components=normalise_components(payload.get("components")),
            flags=flags,
            type=MessageType.REPLY if reference and message_type == MessageType.DEFAULT else message_type,
            webhook_id=self.application_id if interaction_metadata is not None else None,
            application_id=self.application_id if interaction_metadata is not None else None,
            interaction_metadata=interaction_metadata,
            message_reference=dict(reference) if isinstance(reference, Mapping) else None,
        )
        message.attachments = self._attachments(message, payload, files, [])
        if not message.ephemeral:
            message.pinged = pinged_users(message.content, payload.get("allowed_mentions"))
        self.messages[message.id] = message
        if not message.ephemeral:
            self._announce("MESSAGE_CREATE", message)
        return message

    def edit_message(
        self, message: FakeMessage, payload: Mapping[str, Any], files: Sequence[UploadedFile] = ()
    ) -> FakeMessage:
        """Apply an edit: present fields replace, absent fields stay; a deferred message stops loading."""
        if "content" in payload:
            message.content = str(payload.get("content") or "")
        if "embeds" in payload:
            message.embeds = normalise_embeds(payload.get("embeds"))
        if "components" in payload:
            message.components = normalise_components(payload.get("components"))
        if "flags" in payload and payload.get("flags") is not None:
            keep = message.flags & MessageFlag.EPHEMERAL
            message.flags = keep | (int(payload["flags"]) & SETTABLE_FLAGS)
        completing = message.loading
        message.flags &= ~MessageFlag.LOADING
        if "attachments" in payload or files:
            message.attachments = self._attachments(message, payload, files, message.attachments)
        if not completing:
            # Filling in a deferred "thinking" message is not shown as an edit by Discord.
            message.edits += 1
            message.edited_timestamp = iso_now()
        if not message.ephemeral:
            self._announce("MESSAGE_UPDATE", message)
        return message

    def delete_message(self, message: FakeMessage) -> None:
        """Mark deleted and announce MESSAGE_DELETE."""
        message.deleted = True
        channel = self.channels.get(message.channel_id)
        if not message.ephemeral and channel is not None and channel.guild_id is not None:
            data = {"id": str(message.id), "channel_id": str(channel.id), "guild_id": str(channel.guild_id)}
            self.dispatch_soon("MESSAGE_DELETE", data, intent=INTENT_GUILD_MESSAGES)

    def _attachments(
        self,
        message: FakeMessage,
        payload: Mapping[str, Any],
        files: Sequence[UploadedFile],
        existing: list[JsonDict],
    ) -> list[JsonDict]:
        """Kept attachments (listed by id) plus new uploads (``files[n]`` matched by index)."""
        uploads = {_file_index(f.field, n): f for n, f in enumerate(files)}
        declared = payload.get("attachments")
        if declared is None:
            declared = [{"id": str(a["id"])} for a in existing] + [{"id": i} for i in sorted(uploads)]
        kept = {str(a["id"]): a for a in existing}
        result: list[JsonDict] = []
        for entry in declared:
            if not isinstance(entry, Mapping):
                continue
            key = str(entry.get("id"))
            if key in kept:
                result.append(kept[key])
                continue
            upload = uploads.pop(_safe_int(entry.get("id")), None)
            if upload is not None:
                result.append(self._store_upload(message, upload, entry))
        result.extend(self._store_upload(message, f, {}) for f in uploads.values())
        return result

    def _store_upload(self, message: FakeMessage, upload: UploadedFile, entry: Mapping[str, Any]) -> JsonDict:
        """Keep the bytes (served back at ``attachment["url"]``) and describe them like Discord."""
        attachment_id = self.ids.next()
        self.attachment_data[attachment_id] = upload.data
        filename = str(entry.get("filename") or upload.filename)
        content_type = mimetypes.guess_type(filename)[0] or upload.content_type or "application/octet-stream"
        url = f"{self.base_url}/attachments/{attachment_id}/{quote(filename)}"
        data: JsonDict = {
            "id": str(attachment_id),
            "filename": filename,
            "size": len(upload.data),
            "url": url,
            "proxy_url": url,
            "content_type": content_type,
        }
        if entry.get("description"):
            data["description"] = entry["description"]
        return data

    async def _serve_attachment(self, request: web.Request) -> web.Response:
        """``GET /attachments/{id}/{filename}``: the bytes a bot uploaded."""
        data = self.attachment_data.get(_safe_int(request.match_info["attachment_id"]))
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, content_type="application/octet-stream")

    def _announce(self, event: str, message: FakeMessage) -> None:
        """MESSAGE_CREATE / MESSAGE_UPDATE for guild channels (needs the guild-messages intent)."""
        channel = self.channels.get(message.channel_id)
        if channel is None or channel.guild_id is None:
            return
        data = self.message_json(message)
        data["guild_id"] = str(channel.guild_id)
        data["member"] = member_payload(None)
        self.dispatch_soon(event, data, intent=INTENT_GUILD_MESSAGES)

    def dispatch_soon(self, event: str, data: JsonDict, *, intent: int | None = None) -> None:
        """Send a gateway event in the background (REST answers must not wait on the websocket).

        Events are queued in order on the connection's lock, so a MESSAGE_CREATE sent here still
        reaches the bot before the INTERACTION_CREATE of a later click.
        """
        task = asyncio.get_running_loop().create_task(self.hub.dispatch(event, data, intent=intent))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _safe_int(value: Any) -> int:
    """``int(value)`` or -1."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def _file_index(field_name: str, position: int) -> int:
    """``files[3]`` -> 3; a part named otherwise keeps its position among the parts."""
    if field_name.startswith("files[") and field_name.endswith("]"):
        return _safe_int(field_name[6:-1])
    return position

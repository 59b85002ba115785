"""Handlers for the REST routes the fake implements, answering as Discord does.

Anything not registered here is answered 404 and recorded as an "unhandled route" violation, so a
bot reaching for an endpoint the fake does not know fails loudly instead of passing by accident.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from tests.support.codes import Callback, ChannelType, CommandType, InteractionType, MessageFlag, MessageType

from .errors import Issue
from .gateway import INTENT_GUILDS
from .interactions import (
    ALLOWED_CALLBACKS,
    InteractionResult,
)
from .limits import check_commands, check_interaction_callback, check_message
from .models import (
    FakeChannel,
    FakeMessage,
)
from .payloads import (
    JOINED_AT,
    JsonDict,
    channel_payload,
    current_user_payload,
    user_payload,
)
from .rest import Call, DiscordHTTPError, Reply, RestApi

if TYPE_CHECKING:
    from .server import FakeDiscord

CALLBACK_ROUTE = "/interactions/{interaction_id}/{interaction_token}/callback"
WEBHOOK = "/webhooks/{webhook_id}/{webhook_token}"
TOKEN_LIFETIME = 15 * 60.0  # seconds an interaction's token is honoured


def register_routes(fake: FakeDiscord, api: RestApi) -> None:
    """Wire every implemented endpoint into ``api``."""
    r = _Routes(fake)
    api.add("GET", "/users/@me", r.get_me)
    api.add("GET", "/oauth2/applications/@me", r.get_application)
    api.add("GET", "/gateway", r.get_gateway, auth=False)
    api.add("GET", "/gateway/bot", r.get_gateway_bot)
    for prefix in ("/applications/{application_id}", "/applications/{application_id}/guilds/{guild_id}"):
        api.add("GET", prefix + "/commands", r.get_commands)
        api.add("PUT", prefix + "/commands", r.put_commands, check=lambda c: check_commands(c.body))
    api.add("POST", "/users/@me/channels", r.create_dm)
    api.add("POST", CALLBACK_ROUTE, r.interaction_callback, auth=False, check=r.check_callback)
    for target in ("@original", "{message_id}"):
        route = f"{WEBHOOK}/messages/{target}"
        api.add("GET", route, r.get_webhook_message, auth=False)
        api.add("PATCH", route, r.edit_webhook_message, auth=False, check=_edit_check)
        api.add("DELETE", route, r.delete_webhook_message, auth=False)
    api.add("POST", WEBHOOK, r.followup, auth=False, check=_create_check)
    api.add("GET", "/channels/{channel_id}", r.get_channel)
    api.add("PATCH", "/channels/{channel_id}", r.edit_channel)
    api.add("POST", "/channels/{channel_id}/typing", r.typing)
    api.add("GET", "/channels/{channel_id}/messages", r.list_messages)
    api.add("POST", "/channels/{channel_id}/messages", r.send_message, check=_create_check)
    api.add("GET", "/channels/{channel_id}/messages/{message_id}", r.get_message)
    api.add("PATCH", "/channels/{channel_id}/messages/{message_id}", r.edit_message, check=_edit_check)
    api.add("DELETE", "/channels/{channel_id}/messages/{message_id}", r.delete_message)
    api.add("POST", "/channels/{channel_id}/threads", r.create_thread)
    api.add("POST", "/channels/{channel_id}/messages/{message_id}/threads", r.create_thread_from_message)
    api.add("PUT", "/channels/{channel_id}/thread-members/{user_id}", r.add_thread_member)
    api.add("DELETE", "/channels/{channel_id}/thread-members/{user_id}", r.remove_thread_member)


def _create_check(call: Call) -> list[Issue]:
    """Classic limits for a new message."""
    return check_message(call.body, creating=True, has_files=bool(call.files))


def _edit_check(call: Call) -> list[Issue]:
    """Classic limits for an edit (fields may be absent)."""
    return check_message(call.body, creating=False)


def _int(value: str) -> int:
    """A snowflake from the path; a malformed one is Discord's 404."""
    try:
        return int(value)
    except ValueError:
        raise DiscordHTTPError(404, 0, "404: Not Found") from None


class _Routes:
    """The handlers, sharing the fake's state."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake

    # ---------------------------------------------------------------- login and gateway

    async def get_me(self, call: Call) -> Reply:
        return Reply(200, current_user_payload(self.fake.bot_user))

    async def get_application(self, call: Call) -> Reply:
        fake = self.fake
        owner = user_payload(fake.bot_user) | {"id": str(fake.application_id + 1), "username": "owner"}
        owner.pop("bot", None)
        return Reply(
            200,
            {
                "id": str(fake.application_id),
                "name": fake.bot_user.name,
                "icon": None,
                "description": "",
                "summary": "",
                "type": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "verify_key": "0" * 64,
                "flags": 0,
                "flags_new": "0",
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "role_connections_verification_url": None,
                "owner": owner,
                "team": None,
                "bot": user_payload(fake.bot_user),
                "approximate_guild_count": len(fake.guilds),
                "approximate_user_install_count": 0,
                "approximate_user_authorization_count": 0,
                "explicit_content_filter": 0,
                "eligible_oauth2_scopes": [],
                "tags": [],
                "integration_types_config": {"0": {}},
            },
        )

    async def get_gateway(self, call: Call) -> Reply:
        return Reply(200, {"url": self.fake.gateway_url})

    async def get_gateway_bot(self, call: Call) -> Reply:
        limit = {"total": 1000, "remaining": 999, "reset_after": 86_400_000, "max_concurrency": 1}
        return Reply(200, {"url": self.fake.gateway_url, "shards": self.fake.shard_count, "session_start_limit": limit})

    # ---------------------------------------------------------------- application commands

    def _command_scope(self, call: Call) -> int | None:
        if _int(call.params["application_id"]) != self.fake.application_id:
            raise DiscordHTTPError(403, 50001, "Missing Access")
        guild_id = call.params.get("guild_id")
        if guild_id is None:
            return None
        if _int(guild_id) not in self.fake.guilds:
            raise DiscordHTTPError(403, 50001, "Missing Access")
        return _int(guild_id)

    async def get_commands(self, call: Call) -> Reply:
        return Reply(200, self.fake.registered_commands(self._command_scope(call)))

    async def put_commands(self, call: Call) -> Reply:
        fake = self.fake
        scope = self._command_scope(call)
        previous = {(c["name"], c.get("type", CommandType.CHAT_INPUT)): c["id"] for c in fake.commands.get(scope, [])}
        stored: list[JsonDict] = []
        for raw in call.body if isinstance(call.body, list) else []:
            command = dict(raw)
            kind = int(command.get("type") or CommandType.CHAT_INPUT)
            perms = command.get("default_member_permissions")
            command.update(
                id=previous.get((command["name"], kind)) or str(fake.ids.next()),
                application_id=str(fake.application_id),
                version=str(fake.ids.next()),
                type=kind,
                description=command.get("description", "") if kind == CommandType.CHAT_INPUT else "",
                # discord.py sends an integer; Discord stores and returns a string.
                default_member_permissions=None if perms is None else str(perms),
                nsfw=bool(command.get("nsfw", False)),
                # Discord fills in the default installation context (guild install) when none is given.
                integration_types=command.get("integration_types") or [0],
            )
            if scope is not None:
                command["guild_id"] = str(scope)
            stored.append(command)
        fake.commands[scope] = stored
        return Reply(200, stored)

    # ---------------------------------------------------------------- DMs

    async def create_dm(self, call: Call) -> Reply:
        recipient = call.json_object().get("recipient_id")
        try:
            user = self.fake.users[int(recipient)] if recipient is not None else None
        except (TypeError, ValueError, KeyError):
            user = None
        if user is None:
            raise DiscordHTTPError(400, 50033, "Invalid Recipient(s)")
        channel = self.fake.dm_channel(user)
        return Reply(200, channel_payload(channel, recipient=user))

    # ---------------------------------------------------------------- interactions

    def _interaction(self, call: Call) -> InteractionResult:
        res = self.fake.interaction_for(call.params["interaction_id"], call.params["interaction_token"])
        if res is None:
            raise DiscordHTTPError(404, 10062, "Unknown interaction")
        return res

    def check_callback(self, call: Call) -> list[Issue]:
        """Classic limits plus "is this callback type allowed for this interaction type"."""
        issues = check_interaction_callback(call.body, has_files=bool(call.files))
        res = self.fake.interaction_for(call.params["interaction_id"], call.params["interaction_token"])
        kind = call.json_object().get("type")
        if res is not None and kind not in ALLOWED_CALLBACKS.get(res.type, ()):
            issues.append(
                Issue(
                    ("type",),
                    f"Callback type {kind} is not valid for interaction type {res.type} "
                    f"(allowed: {ALLOWED_CALLBACKS.get(res.type)}).",
                    "INTERACTION_RESPONSE_TYPE_INVALID",
                )
            )
        return issues

    async def interaction_callback(self, call: Call) -> Reply:
        fake = self.fake
        res = self._interaction(call)
        if res.answered:
            raise DiscordHTTPError(400, 40060, "Interaction has already been acknowledged.")
        deadline = fake.interaction_deadline
        age = time.monotonic() - res.created
        if deadline is not None and age > deadline:
            # Discord forgets an interaction nobody answered in time; the user sees "interaction failed".
            res.expired = True
            res.errors.append(f"callback {age:.2f} s after the interaction; Discord allows {deadline:g} s")
            res.settle()
            raise DiscordHTTPError(404, 10062, "Unknown interaction")
        body = call.json_object()
        kind = int(body.get("type") or 0)
        data = body.get("data") if isinstance(body.get("data"), dict) else {}
        assert isinstance(data, dict)
        message: FakeMessage | None = None
        from_command = res.type == InteractionType.APPLICATION_COMMAND
        message_type = MessageType.CHAT_INPUT_COMMAND if from_command else MessageType.DEFAULT
        if kind == Callback.CHANNEL_MESSAGE:
            message = fake.create_message(
                res.channel,
                data,
                call.files,
                message_type=message_type,
                allow_ephemeral=True,
                interaction_metadata=self._metadata(res),
            )
        elif kind == Callback.DEFERRED_CHANNEL_MESSAGE:
            flags = {"flags": int(data.get("flags") or 0) & MessageFlag.EPHEMERAL}
            message = fake.create_message(
                res.channel,
                flags,
                message_type=message_type,
                allow_ephemeral=True,
                extra_flags=MessageFlag.LOADING,
                interaction_metadata=self._metadata(res),
            )
        elif kind in (Callback.DEFERRED_UPDATE_MESSAGE, Callback.UPDATE_MESSAGE):
            message = res.source_message
            if message is not None:
                res.edits_at_callback = message.edits
                if kind == Callback.UPDATE_MESSAGE:
                    fake.edit_message(message, data, call.files)
                    res.edits_at_callback = message.edits
        elif kind == Callback.AUTOCOMPLETE_RESULT:
            res.choices = list(data.get("choices") or [])
        elif kind == Callback.MODAL:
            res.modal = data
        res.callback_type = kind
        res.callback_data = data
        res.message = message
        res.settle()
        if not call.flag("with_response"):
            return Reply(204)
        interaction: JsonDict = {"id": str(res.id), "type": res.type}
        result: JsonDict = {"interaction": interaction}
        # Only created (CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE) or updated (UPDATE_MESSAGE) messages are
        # reported; only the undeferred two carry the message itself as the ``resource`` (a deferred answer has
        # nothing to show yet).
        shown = (Callback.CHANNEL_MESSAGE, Callback.DEFERRED_CHANNEL_MESSAGE, Callback.UPDATE_MESSAGE)
        if message is not None and kind in shown:
            interaction.update(
                response_message_id=str(message.id),
                response_message_loading=message.loading,
                response_message_ephemeral=message.ephemeral,
            )
            if kind in (Callback.CHANNEL_MESSAGE, Callback.UPDATE_MESSAGE):
                result["resource"] = {"type": kind, "message": fake.message_json(message)}
        return Reply(200, result)

    def _metadata(self, res: InteractionResult) -> JsonDict:
        """``interaction_metadata`` of a response message."""
        owners = {"0": str(res.channel.guild_id or 0)}
        data: JsonDict = {
            "id": str(res.id),
            "type": res.type,
            "user": user_payload(res.user),
            "authorizing_integration_owners": owners,
        }
        if res.type == InteractionType.MESSAGE_COMPONENT and res.source_message is not None:
            data["interacted_message_id"] = str(res.source_message.id)
        if res.type == InteractionType.MODAL_SUBMIT and res.trigger is not None:
            data["triggering_interaction_metadata"] = self._metadata(res.trigger)
        return data

    def _webhook_interaction(self, call: Call) -> InteractionResult:
        res = self.fake.interaction_by_token(call.params["webhook_token"])
        if res is None or call.params["webhook_id"] != str(self.fake.application_id):
            raise DiscordHTTPError(404, 10015, "Unknown Webhook")
        if res.token_expired or time.monotonic() - res.token_born > TOKEN_LIFETIME:
            raise DiscordHTTPError(401, 50027, "Invalid Webhook Token")
        return res

    def _webhook_message(self, call: Call) -> FakeMessage:
        res = self._webhook_interaction(call)
        target = call.params.get("message_id")
        if target is None:
            message = res.message
        else:
            wanted = _int(target)
            candidates = [res.message, *res.followups]
            message = next((m for m in candidates if m is not None and m.id == wanted), None)
        if message is None or message.deleted:
            raise DiscordHTTPError(404, 10008, "Unknown Message")
        return message

    async def get_webhook_message(self, call: Call) -> Reply:
        return Reply(200, self.fake.message_json(self._webhook_message(call)))

    async def edit_webhook_message(self, call: Call) -> Reply:
        message = self._webhook_message(call)
        self.fake.edit_message(message, call.json_object(), call.files)
        return Reply(200, self.fake.message_json(message))

    async def delete_webhook_message(self, call: Call) -> Reply:
        self.fake.delete_message(self._webhook_message(call))
        return Reply(204)

    async def followup(self, call: Call) -> Reply:
        fake = self.fake
        res = self._webhook_interaction(call)
        if not res.answered:
            raise DiscordHTTPError(404, 10015, "Unknown Webhook")
        original = res.message
        deferred = res.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE
        if deferred and original is not None and original.loading and not original.deleted:
            # Discord: the first followup after a deferred "thinking" answer replaces that message
            # (keeping the defer's ephemerality) instead of posting a new one.
            fake.edit_message(original, call.json_object(), call.files)
            return Reply(200, fake.message_json(original)) if call.flag("wait") else Reply(204)
        channel = res.channel
        thread_id = call.query.get("thread_id")
        if thread_id:
            channel = self._channel(thread_id)
        metadata = self._metadata(res)
        if res.message is not None:
            metadata["original_response_message_id"] = str(res.message.id)
        message = fake.create_message(
            channel, call.json_object(), call.files, allow_ephemeral=True, interaction_metadata=metadata
        )
        res.followups.append(message)
        if not call.flag("wait"):
            return Reply(204)
        return Reply(200, fake.message_json(message))

    # ---------------------------------------------------------------- channels and messages

    def _channel(self, raw_id: str) -> FakeChannel:
        channel = self.fake.channels.get(_int(raw_id))
        if channel is None:
            raise DiscordHTTPError(404, 10003, "Unknown Channel")
        return channel

    def _message(self, call: Call) -> FakeMessage:
        channel = self._channel(call.params["channel_id"])
        message = self.fake.messages.get(_int(call.params["message_id"]))
        if message is None or message.channel_id != channel.id or message.deleted or message.ephemeral:
            raise DiscordHTTPError(404, 10008, "Unknown Message")
        return message

    def _channel_json(self, channel: FakeChannel) -> JsonDict:
        recipient = self.fake.users.get(channel.recipient_id or 0)
        return channel_payload(channel, recipient=recipient)

    async def get_channel(self, call: Call) -> Reply:
        return Reply(200, self._channel_json(self._channel(call.params["channel_id"])))

    async def edit_channel(self, call: Call) -> Reply:
        channel = self._channel(call.params["channel_id"])
        body = call.json_object()
        if "name" in body:
            channel.name = str(body["name"])
        for key in ("archived", "locked", "invitable"):
            if key in body and channel.is_thread:
                setattr(channel, key, bool(body[key]))
        if "auto_archive_duration" in body and channel.is_thread:
            channel.auto_archive_duration = int(body["auto_archive_duration"])
        data = self._channel_json(channel)
        event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
        if channel.guild_id is not None:
            self.fake.dispatch_soon(event, data, intent=INTENT_GUILDS)
        return Reply(200, data)

    async def typing(self, call: Call) -> Reply:
        self._channel(call.params["channel_id"])
        return Reply(204)

    async def list_messages(self, call: Call) -> Reply:
        channel = self._channel(call.params["channel_id"])
        messages = list(reversed(self.fake.channel_messages(channel)))
        before, after = call.query.get("before"), call.query.get("after")
        if before:
            messages = [m for m in messages if m.id < _int(before)]
        if after:
            messages = [m for m in messages if m.id > _int(after)]
        limit = max(1, min(100, int(call.query.get("limit") or 50)))
        return Reply(200, [self.fake.message_json(m) for m in messages[:limit]])

    async def send_message(self, call: Call) -> Reply:
        channel = self._channel(call.params["channel_id"])
        if channel.is_dm and self.fake.dm_blocked(channel):
            raise DiscordHTTPError(403, 50007, "Cannot send messages to this user")
        if channel.is_thread and (channel.locked or channel.archived):
            raise DiscordHTTPError(400, 50083, "Thread is archived")
        payload = call.json_object()
        nonce = payload.get("nonce")
        if nonce is not None and payload.get("enforce_nonce"):
            earlier = self.fake.created_with_nonce(str(nonce))
            if earlier is not None:  # "that message will be returned and no new message will be created"
                return Reply(200, self.fake.message_json(earlier))
        message = self.fake.create_message(channel, payload, call.files)
        message.nonce = None if nonce is None else str(nonce)
        return Reply(200, self.fake.message_json(message))

    async def get_message(self, call: Call) -> Reply:
        return Reply(200, self.fake.message_json(self._message(call)))

    async def edit_message(self, call: Call) -> Reply:
        message = self._message(call)
        if message.author_id != self.fake.bot_user.id:
            raise DiscordHTTPError(403, 50005, "Cannot edit a message authored by another user")
        self.fake.edit_message(message, call.json_object(), call.files)
        return Reply(200, self.fake.message_json(message))

    async def delete_message(self, call: Call) -> Reply:
        self.fake.delete_message(self._message(call))
        return Reply(204)

    # ---------------------------------------------------------------- threads

    def _new_thread(
        self, parent: FakeChannel, body: JsonDict, *, thread_id: int | None, kind: int
    ) -> FakeChannel:
        fake = self.fake
        if parent.guild_id is None or parent.is_thread or parent.is_dm:
            raise DiscordHTTPError(400, 50024, "Cannot execute action on this channel type")
        guild = fake.guilds[parent.guild_id]
        thread = FakeChannel(
            thread_id or fake.ids.next(),
            parent.guild_id,
            str(body.get("name") or "thread"),
            type=kind,
            parent_id=parent.id,
            owner_id=fake.bot_user.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 1440),
            invitable=bool(body.get("invitable", True)),
            member_ids={fake.bot_user.id},
        )
        guild.threads.append(thread)
        fake.channels[thread.id] = thread
        event = channel_payload(thread) | {"newly_created": True}
        fake.dispatch_soon("THREAD_CREATE", event, intent=INTENT_GUILDS)
        return thread

    def _thread_json(self, thread: FakeChannel) -> JsonDict:
        member = {
            "id": str(thread.id),
            "user_id": str(self.fake.bot_user.id),
            "join_timestamp": JOINED_AT,
            "flags": 0,
        }
        return channel_payload(thread) | {"member": member}

    async def create_thread(self, call: Call) -> Reply:
        parent = self._channel(call.params["channel_id"])
        body = call.json_object()
        kind = int(body.get("type") or ChannelType.PRIVATE_THREAD)
        thread = self._new_thread(parent, body, thread_id=None, kind=kind)
        return Reply(201, self._thread_json(thread))

    async def create_thread_from_message(self, call: Call) -> Reply:
        message = self._message(call)
        parent = self._channel(call.params["channel_id"])
        if message.id in self.fake.channels:
            raise DiscordHTTPError(400, 160004, "A thread has already been created for this message")
        thread = self._new_thread(
            parent, call.json_object(), thread_id=message.id, kind=ChannelType.PUBLIC_THREAD
        )
        return Reply(201, self._thread_json(thread))

    async def add_thread_member(self, call: Call) -> Reply:
        thread = self._channel(call.params["channel_id"])
        if not thread.is_thread:
            raise DiscordHTTPError(400, 50024, "Cannot execute action on this channel type")
        user_id = _int(call.params["user_id"])
        if user_id not in self.fake.users:
            raise DiscordHTTPError(404, 10013, "Unknown User")
        thread.member_ids.add(user_id)
        return Reply(204)

    async def remove_thread_member(self, call: Call) -> Reply:
        thread = self._channel(call.params["channel_id"])
        thread.member_ids.discard(_int(call.params["user_id"]))
        return Reply(204)

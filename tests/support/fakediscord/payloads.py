"""JSON shapes Discord sends: users, members, roles, channels, guilds, messages.

Shapes follow Discord's OpenAPI response schemas (the self-tests validate the fake's own responses
against them) and what discord.py 2.7 reads; snowflakes are always strings on the wire.
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.codes import SELECT_MENUS, ChannelType

from .models import OVERWRITE_MEMBER, OVERWRITE_ROLE, FakeChannel, FakeGuild, FakeMessage, FakeRole, FakeUser

JsonDict = dict[str, Any]

# Permission bits (https://discord.com/developers/docs/topics/permissions).
PERM_ADD_REACTIONS = 1 << 6
PERM_VIEW_CHANNEL = 1 << 10
PERM_SEND_MESSAGES = 1 << 11
PERM_EMBED_LINKS = 1 << 14
PERM_ATTACH_FILES = 1 << 15
PERM_READ_MESSAGE_HISTORY = 1 << 16
PERM_USE_EXTERNAL_EMOJIS = 1 << 18
PERM_USE_APPLICATION_COMMANDS = 1 << 31
PERM_MANAGE_THREADS = 1 << 34
PERM_CREATE_PUBLIC_THREADS = 1 << 35
PERM_CREATE_PRIVATE_THREADS = 1 << 36
PERM_SEND_MESSAGES_IN_THREADS = 1 << 38
PERM_MANAGE_GUILD = 1 << 5
PERM_ADMINISTRATOR = 1 << 3
ALL_PERMISSIONS = (1 << 53) - 1

EVERYONE_PERMISSIONS = (
    PERM_ADD_REACTIONS
    | PERM_VIEW_CHANNEL
    | PERM_SEND_MESSAGES
    | PERM_EMBED_LINKS
    | PERM_ATTACH_FILES
    | PERM_READ_MESSAGE_HISTORY
    | PERM_USE_APPLICATION_COMMANDS
)
# What a freshly invited game bot typically holds in a channel: what everyone may, plus outside emojis and threads.
DEFAULT_APP_PERMISSIONS = (
    EVERYONE_PERMISSIONS
    | PERM_USE_EXTERNAL_EMOJIS
    | PERM_MANAGE_THREADS
    | PERM_CREATE_PUBLIC_THREADS
    | PERM_CREATE_PRIVATE_THREADS
    | PERM_SEND_MESSAGES_IN_THREADS
)
JOINED_AT = "2024-01-01T00:00:00+00:00"


def user_payload(user: FakeUser) -> JsonDict:
    """A public user object (``UserResponse``)."""
    data: JsonDict = {
        "id": str(user.id),
        "username": user.name,
        "discriminator": "0",
        "global_name": None if user.bot else user.name,
        "avatar": None,
        "public_flags": 0,
        "flags": 0,
        "banner": None,
        "accent_color": None,
        "avatar_decoration_data": None,
        "collectibles": None,
        "primary_guild": None,
    }
    if user.bot:
        data["bot"] = True
    return data


def current_user_payload(user: FakeUser) -> JsonDict:
    """``GET /users/@me`` for a bot (``UserPIIResponse``)."""
    data = user_payload(user)
    data.update({"mfa_enabled": False, "locale": "en-US", "verified": True, "email": None})
    return data


def member_payload(user: FakeUser | None, *, permissions: int | None = None,
                   roles: list[int] | None = None) -> JsonDict:
    """A guild member; ``user`` None gives the form used inside ``resolved.members``."""
    data: JsonDict = {
        "roles": [str(r) for r in roles or ()],
        "joined_at": JOINED_AT,
        "nick": None,
        "avatar": None,
        "banner": None,
        "premium_since": None,
        "communication_disabled_until": None,
        "deaf": False,
        "mute": False,
        "pending": False,
        "flags": 0,
    }
    if user is not None:
        data["user"] = user_payload(user)
    if permissions is not None:
        data["permissions"] = str(permissions)
    return data


def everyone_role_payload(guild: FakeGuild) -> JsonDict:
    """The ``@everyone`` role, whose id equals the guild id."""
    return role_payload(FakeRole(guild.id, "@everyone", EVERYONE_PERMISSIONS, position=0))


def role_payload(role: FakeRole) -> JsonDict:
    """A role object (``GuildRoleResponse``)."""
    return {
        "id": str(role.id),
        "name": role.name,
        "description": None,
        "permissions": str(role.permissions),
        "position": role.position,
        "color": 0,
        "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
        "hoist": False,
        "managed": False,
        "mentionable": False,
        "icon": None,
        "unicode_emoji": None,
        "flags": 0,
    }


def overwrites_payload(channel: FakeChannel) -> list[JsonDict]:
    """A channel's ``permission_overwrites``."""
    return [{"id": str(o.id), "type": o.type, "allow": str(o.allow), "deny": str(o.deny)} for o in channel.overwrites]


def member_permissions(guild: FakeGuild, user_id: int, channel: FakeChannel | None) -> int:
    """The permissions Discord computes for a member in a guild channel (for a thread, pass its parent), from the
    roles and the channel's overwrites (https://discord.com/developers/docs/topics/permissions#permission-overwrites);
    `channel` None: the member's base permissions in the guild."""
    if user_id == guild.owner_id:
        return ALL_PERMISSIONS
    mine = guild.member_roles.get(user_id, set())
    base = EVERYONE_PERMISSIONS
    for role in guild.roles:
        if role.id in mine:
            base |= role.permissions
    if base & PERM_ADMINISTRATOR:
        return ALL_PERMISSIONS
    if channel is None:
        return base
    overwrites = channel.overwrites
    for o in overwrites:
        if o.type == OVERWRITE_ROLE and o.id == guild.id:
            base = (base & ~o.deny) | o.allow
    allow = deny = 0
    for o in overwrites:
        if o.type == OVERWRITE_ROLE and o.id in mine:
            allow, deny = allow | o.allow, deny | o.deny
    base = (base & ~deny) | allow
    for o in overwrites:
        if o.type == OVERWRITE_MEMBER and o.id == user_id:
            base = (base & ~o.deny) | o.allow
    return base


def channel_payload(channel: FakeChannel, *, recipient: FakeUser | None = None) -> JsonDict:
    """A channel object for a guild text channel, a thread or a DM."""
    if channel.is_dm:
        return {
            "id": str(channel.id),
            "type": channel.type,
            "last_message_id": None,
            "flags": 0,
            "recipients": [user_payload(recipient)] if recipient is not None else [],
        }
    data: JsonDict = {
        "id": str(channel.id),
        "type": channel.type,
        "guild_id": str(channel.guild_id),
        "name": channel.name,
        "last_message_id": None,
        "flags": 0,
        "parent_id": str(channel.parent_id) if channel.parent_id else None,
        "rate_limit_per_user": 0,
    }
    if channel.is_thread:
        data.update(
            {
                "owner_id": str(channel.owner_id),
                "message_count": 0,
                "member_count": len(channel.member_ids),
                "total_message_sent": 0,
                "thread_metadata": {
                    "archived": channel.archived,
                    "archive_timestamp": JOINED_AT,
                    "auto_archive_duration": channel.auto_archive_duration,
                    "locked": channel.locked,
                    "create_timestamp": JOINED_AT,
                    **({"invitable": channel.invitable} if channel.type == ChannelType.PRIVATE_THREAD else {}),
                },
            }
        )
    else:
        data.update(
            {
                "position": channel.position,
                "permission_overwrites": overwrites_payload(channel),
                "nsfw": False,
                "topic": None,
                "last_pin_timestamp": None,
                "default_auto_archive_duration": 1440,
                "default_thread_rate_limit_per_user": 0,
            }
        )
    return data


def unavailable_guild_payload(guild: FakeGuild) -> JsonDict:
    """The stub READY lists before each GUILD_CREATE."""
    return {"id": str(guild.id), "unavailable": True}


def guild_create_payload(guild: FakeGuild, bot: FakeUser) -> JsonDict:
    """A full GUILD_CREATE: channels, threads, the @everyone role and the bot's own member."""
    return {
        "id": str(guild.id),
        "name": guild.name,
        "icon": None,
        "splash": None,
        "discovery_splash": None,
        "banner": None,
        "description": None,
        "owner_id": str(guild.owner_id),
        "region": "deprecated",
        "afk_channel_id": None,
        "afk_timeout": 300,
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "nsfw_level": 0,
        "premium_tier": 0,
        "premium_subscription_count": 0,
        "premium_progress_bar_enabled": False,
        "preferred_locale": guild.locale,
        "system_channel_id": None,
        "system_channel_flags": 0,
        "rules_channel_id": None,
        "public_updates_channel_id": None,
        "safety_alerts_channel_id": None,
        "vanity_url_code": None,
        "features": [],
        "max_members": 500000,
        "max_video_channel_users": 25,
        "application_id": None,
        "roles": [everyone_role_payload(guild), *(role_payload(r) for r in guild.roles)],
        "emojis": [],
        "stickers": [],
        "joined_at": JOINED_AT,
        "large": False,
        "unavailable": False,
        "member_count": 1,
        "voice_states": [],
        "members": [member_payload(bot)],
        "channels": [channel_payload(c) for c in guild.channels],
        "threads": [channel_payload(t) for t in guild.threads if not t.archived],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "soundboard_sounds": [],
        "lazy": True,
    }


def message_payload(message: FakeMessage, author: FakeUser) -> JsonDict:
    """A message object (``MessageResponse``)."""
    data: JsonDict = {
        "id": str(message.id),
        "channel_id": str(message.channel_id),
        "type": message.type,
        "content": message.content,
        "author": user_payload(author),
        "mentions": [],
        "mention_roles": [],
        "mention_everyone": False,
        "attachments": [dict(a) for a in message.attachments],
        "embeds": [dict(e) for e in message.embeds],
        "components": message.components,
        "timestamp": message.timestamp,
        "edited_timestamp": message.edited_timestamp,
        "flags": message.flags,
        "pinned": False,
        "tts": False,
    }
    if message.webhook_id is not None:
        data["webhook_id"] = str(message.webhook_id)
    if message.application_id is not None:
        data["application_id"] = str(message.application_id)
    if message.interaction_metadata is not None:
        data["interaction_metadata"] = message.interaction_metadata
    if message.nonce is not None:
        data["nonce"] = message.nonce
    if message.message_reference is not None:
        data["message_reference"] = message.message_reference
    return data


def normalise_components(components: Any) -> list[JsonDict]:
    """Components as Discord echoes them: deep-copied, numbered ``id`` fields, select defaults filled in."""
    counter = [0]

    def visit(item: Any) -> Any:
        if isinstance(item, list):
            return [visit(x) for x in item]
        if not isinstance(item, dict):
            return item
        out: JsonDict = {}
        if "type" in item:
            counter[0] += 1
            out["id"] = item.get("id") or counter[0]
        for key, value in item.items():
            if key != "id":
                out[key] = visit(value)
        if out.get("type") in SELECT_MENUS:
            out.setdefault("min_values", 1)
            out.setdefault("max_values", 1)
        return out

    result = visit(components or [])
    return result if isinstance(result, list) else []


def normalise_embeds(embeds: Any) -> list[JsonDict]:
    """Embeds as Discord echoes them: ``type`` defaults to ``rich``."""
    out: list[JsonDict] = []
    for embed in embeds or []:
        if isinstance(embed, dict):
            copy = json.loads(json.dumps(embed))
            copy.setdefault("type", "rich")
            out.append(copy)
    return out

"""Plain data the fake Discord keeps: users, guilds, channels, messages, requests.

These are the fake's own bookkeeping objects, not discord.py objects: tests read them to assert what a
user would have seen in the Discord client.
"""

from __future__ import annotations

import datetime
import itertools
import time
from dataclasses import dataclass, field
from typing import Any

from tests.support.codes import SELECT_MENUS, ChannelType, Component, MessageFlag, MessageType

DISCORD_EPOCH_MS = 1_420_070_400_000

THREAD_TYPES = (ChannelType.PUBLIC_THREAD, ChannelType.PRIVATE_THREAD)


class SnowflakeFactory:
    """Hands out real-looking, strictly increasing snowflakes.

    Built from the wall clock like Discord's (so discord.py's ``created_at`` and its "younger than 10 s"
    delete bucket see sane values) and bumped by one whenever two are asked for in the same millisecond.
    """

    def __init__(self) -> None:
        self._last = 0
        self._increment = itertools.count()

    def next(self) -> int:
        """Return a new snowflake larger than every earlier one."""
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = (now_ms << 22) | (1 << 17) | (next(self._increment) & 0xFFF)
        self._last = max(candidate, self._last + 1)
        return self._last

    def on_shard(self, shard_id: int, num_shards: int) -> int:
        """A new snowflake that Discord routes to shard ``shard_id`` of ``num_shards`` (``(id >> 22) % num_shards``):
        its millisecond is moved forward by less than ``num_shards`` when need be."""
        if not 0 <= shard_id < num_shards:
            raise ValueError(f"shard {shard_id} is not one of {num_shards} shards")
        snowflake = self.next()
        moved = (shard_id - (snowflake >> 22)) % num_shards
        if moved:
            snowflake = (((snowflake >> 22) + moved) << 22) | (1 << 17) | (next(self._increment) & 0xFFF)
            self._last = snowflake
        return snowflake

    def dated(self, when: float) -> int:
        """A snowflake of the moment `when` (epoch seconds), earlier than the ones handed out since: for an
        interaction that reaches the bot some time after it was made."""
        return ((int(when * 1000) - DISCORD_EPOCH_MS) << 22) | (2 << 17) | (next(self._increment) & 0xFFF)


def iso_now() -> str:
    """Return the current time in Discord's ISO 8601 form."""
    return datetime.datetime.now(datetime.UTC).isoformat()


@dataclass(eq=False)
class FakeUser:
    """A Discord account: the bot itself or a human a test acts as."""

    id: int
    name: str
    bot: bool = False
    locale: str = "en-US"  # the language of their Discord client, sent with each of their interactions

    @property
    def mention(self) -> str:
        """The ``<@id>`` form, as it appears in message content."""
        return f"<@{self.id}>"


@dataclass(eq=False)
class FakeRole:
    """A guild role besides ``@everyone`` (whose id is the guild's): its permission bits."""

    id: int
    name: str
    permissions: int = 0
    position: int = 1


# The two kinds of permission overwrite on a channel (https://discord.com/developers/docs/resources/channel).
OVERWRITE_ROLE = 0
OVERWRITE_MEMBER = 1


@dataclass(frozen=True)
class FakeOverwrite:
    """A channel's permission overwrite for a role (``@everyone`` is the role with the guild's id) or a member."""

    id: int
    type: int  # OVERWRITE_ROLE or OVERWRITE_MEMBER
    allow: int = 0
    deny: int = 0


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel, a thread (``parent_id`` set) or a DM channel (``guild_id`` None)."""

    id: int
    guild_id: int | None
    name: str
    type: int = ChannelType.GUILD_TEXT
    position: int = 0
    parent_id: int | None = None
    owner_id: int | None = None
    recipient_id: int | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    invitable: bool = True
    member_ids: set[int] = field(default_factory=set)
    overwrites: list[FakeOverwrite] = field(default_factory=list)  # a guild channel's; a thread has its parent's

    @property
    def is_thread(self) -> bool:
        """True for public and private threads."""
        return self.type in THREAD_TYPES

    @property
    def is_dm(self) -> bool:
        """True for a one-to-one DM channel."""
        return self.type == ChannelType.DM


@dataclass(eq=False)
class FakeGuild:
    """A guild (server); any fake user may act in it."""

    id: int
    name: str
    owner_id: int
    channels: list[FakeChannel] = field(default_factory=list)
    threads: list[FakeChannel] = field(default_factory=list)
    locale: str = "en-US"  # the server's preferred locale (Server Settings > Community in Discord)
    roles: list[FakeRole] = field(default_factory=list)  # besides @everyone
    member_roles: dict[int, set[int]] = field(default_factory=dict)  # user id -> the ids of their roles


@dataclass(eq=False)
class FakeMessage:
    """A message as Discord stores it; interaction responses, followups and DMs included.

    ``components`` holds the raw action rows as Discord echoes them back (with numeric ``id`` fields);
    ``attachments`` holds ``{"id", "filename", "size", ...}`` dicts. ``edits`` counts edits after the
    message became visible: filling in a deferred "thinking" message is not one (Discord does not mark
    it edited either).
    """

    id: int
    channel_id: int
    author_id: int
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    type: int = MessageType.DEFAULT
    timestamp: str = field(default_factory=iso_now)
    edited_timestamp: str | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction_metadata: dict[str, Any] | None = None
    message_reference: dict[str, Any] | None = None
    deleted: bool = False
    edits: int = 0
    # Whom Discord notified when the message was created: the users its content mentions, as far as its
    # allowed_mentions let it (an edit notifies nobody).
    pinged: frozenset[int] = frozenset()
    nonce: str | None = None  # the nonce it was created with, if any (see FakeDiscord.created_with_nonce)

    @property
    def ephemeral(self) -> bool:
        """True when only the interacting user can see the message."""
        return bool(self.flags & MessageFlag.EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while a deferred response still shows "Bot is thinking..."."""
        return bool(self.flags & MessageFlag.LOADING)

    def walk_components(self) -> list[dict[str, Any]]:
        """Every component at any depth (rows, containers, sections and their children), in order."""
        found: list[dict[str, Any]] = []

        def visit(items: list[Any]) -> None:
            for item in items:
                if not isinstance(item, dict):
                    continue
                found.append(item)
                visit(item.get("components", []))
                accessory = item.get("accessory")
                if isinstance(accessory, dict):
                    visit([accessory])

        visit(self.components)
        return found

    def buttons(self) -> list[dict[str, Any]]:
        """All buttons, flattened across rows."""
        return [c for c in self.walk_components() if c.get("type") == Component.BUTTON]

    def selects(self) -> list[dict[str, Any]]:
        """All select menus (string, user, role, mentionable, channel)."""
        return [c for c in self.walk_components() if c.get("type") in SELECT_MENUS]

    def custom_ids(self) -> list[str]:
        """Custom ids of every interactive component, in display order."""
        return [c["custom_id"] for c in self.walk_components() if "custom_id" in c]

    def button(self, label_substring: str) -> dict[str, Any]:
        """The single button whose label contains ``label_substring``; raise if none or several match."""
        matches = [b for b in self.buttons() if label_substring in (b.get("label") or "")]
        if len(matches) != 1:
            labels = [b.get("label") for b in self.buttons()]
            raise LookupError(f"{len(matches)} buttons match {label_substring!r}; labels are {labels}")
        return matches[0]

    def text(self) -> str:
        """Content plus every embed title, description, field, author and footer, one per line."""
        parts: list[str] = [self.content] if self.content else []
        for embed in self.embeds:
            author = embed.get("author") or {}
            footer = embed.get("footer") or {}
            parts.extend(
                str(v) for v in (author.get("name"), embed.get("title"), embed.get("description")) if v
            )
            for fld in embed.get("fields", []):
                parts.extend(str(fld.get(k, "")) for k in ("name", "value"))
            if footer.get("text"):
                parts.append(str(footer["text"]))
        for comp in self.walk_components():
            if comp.get("type") == Component.TEXT_DISPLAY and comp.get("content"):
                parts.append(str(comp["content"]))
        return "\n".join(parts)


@dataclass
class RecordedRequest:
    """One REST call the bot made, as the fake saw it.

    ``path`` is relative to ``/api/v10``; ``route`` is the matched template (``None`` when unhandled);
    ``json`` is the JSON body or, for multipart requests, the parsed ``payload_json``.
    """

    method: str
    path: str
    query: dict[str, str]
    json: Any
    status: int = 0
    route: str | None = None
    files: list[tuple[str, str, int]] = field(default_factory=list)
    file_digests: list[str] = field(default_factory=list)  # sha256 of each uploaded file, in ``files`` order
    validated: bool = False
    violations: list[str] = field(default_factory=list)
    # The planned fault that hit this request (see ``faults.RestFault.describe``), if any.
    fault: str | None = None

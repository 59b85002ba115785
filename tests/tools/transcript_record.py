"""What each participant receives from the bot, written down as a reviewer reads it (tests/tools/transcript.py).

A `Recorder` watches the offline Discord's messages (every one the bot creates, edits or deletes, and the threads it
opens, locks and archives) and the players' own actions, and writes them step by step: after each action the bot is
left to go quiet, then every message it touched is shown once, as it stands then, under the name of who can see it
(everyone in a channel or thread, one person's private answer, one person's DMs). Ids become stable names (@alice,
#games, message 3), timestamps are written relative to the pinned clock, pictures by their file name and size.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.codes import SELECT_MENUS, ButtonStyle, ChannelType, Component
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser

# How a button's style is shown (SECONDARY, grey, is the usual one and left unsaid).
STYLES = {ButtonStyle.PRIMARY: "blue", ButtonStyle.SUCCESS: "green", ButtonStyle.DANGER: "red",
          ButtonStyle.LINK: "link"}
SNOWFLAKE = re.compile(r"(?<![0-9])[0-9]{15,21}(?![0-9])")
TIMESTAMP = re.compile(r"<t:(-?[0-9]+)(?::([tTdDfFR]))?>")
USER = re.compile(r"<@!?([0-9]+)>")
CHANNEL = re.compile(r"<#([0-9]+)>")
ROLE = re.compile(r"<@&([0-9]+)>")
COMMAND = re.compile(r"</([^:>]+):[0-9]+>")
MESSAGE = re.compile(r"<message:([0-9]+)>")  # a message the transcript refers to (an action's)
LINK = re.compile(r"discord\.com/channels/([0-9]+|@me)/([0-9]+)(?:/([0-9]+))?")
INDENT = "    │ "


def duration(seconds: float) -> str:
    """A signed, rounded duration: +24h, -5m, +90s, now."""
    sign = "-" if seconds < 0 else "+"
    left = abs(round(seconds))
    if left == 0:
        return "now"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if left >= size and left % size == 0:
            return f"{sign}{left // size}{unit}"
    if left >= 3600:
        return f"{sign}{left // 3600}h{left % 3600 // 60:02d}m"
    if left >= 60:
        return f"{sign}{left // 60}m{left % 60:02d}s"
    return f"{sign}{left}s"


def png_size(data: bytes) -> tuple[int, int] | None:
    """A PNG's width and height, from its header."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 24:
        return None
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


@dataclass
class Touch:
    """A message the bot created, edited or deleted during one step."""

    message: FakeMessage
    created: bool = False
    edited: bool = False
    deleted: bool = False


@dataclass
class Recorder:
    fake: FakeDiscord
    now: Callable[[], float]  # the bot's pinned clock: timestamps are shown relative to it
    wall: Callable[[], float]  # the real time, for the few timestamps the bot takes from it
    pictures: Path | None = None
    prefix: str = ""
    lines: list[str] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    numbers: dict[int, int] = field(default_factory=dict)  # message id -> its number in the transcript
    _touched: dict[int, Touch] = field(default_factory=dict)
    _threads: dict[int, tuple[bool, bool]] = field(default_factory=dict)  # thread id -> (archived, locked) shown
    _pictures_saved: int = 0
    _unknown: int = 0
    _mark: tuple[int, dict[int, int], dict[int, str]] | None = None  # where the muted part began

    @property
    def muted(self) -> bool:
        """While muted, what happens is followed (message states, threads) but not written."""
        return self._mark is not None

    @muted.setter
    def muted(self, on: bool) -> None:
        if on and self._mark is None:
            self._mark = len(self.lines), dict(self.numbers), dict(self.names)
        elif not on and self._mark is not None:
            count, self.numbers, self.names = self._mark
            del self.lines[count:]
            self._mark = None

    def __post_init__(self) -> None:
        fake = self.fake
        create, edit, delete = fake.create_message, fake.edit_message, fake.delete_message

        def created(*args: Any, **kwargs: Any) -> FakeMessage:
            message = create(*args, **kwargs)
            self._touch(message).created = True
            return message

        def edited(message: FakeMessage, *args: Any, **kwargs: Any) -> FakeMessage:
            result = edit(message, *args, **kwargs)
            self._touch(message).edited = True
            return result

        def deleted(message: FakeMessage) -> None:
            delete(message)
            self._touch(message).deleted = True

        # The fake's routes call these through the instance: every message the bot sends passes here.
        fake.create_message = created  # type: ignore[method-assign]
        fake.edit_message = edited  # type: ignore[method-assign]
        fake.delete_message = deleted  # type: ignore[method-assign]
        self.names[fake.bot_user.id] = "@" + fake.bot_user.name

    # ----- names ---------------------------------------------------------------------------------------------------
    def name_user(self, user: FakeUser) -> None:
        self.names[user.id] = "@" + user.name

    def name_channel(self, channel: FakeChannel, name: str | None = None) -> None:
        self.names[channel.id] = "#" + (name or channel.name)

    def name_guild(self, guild_id: int, name: str) -> None:
        self.names[guild_id] = name

    def _name(self, snowflake: int) -> str:
        if snowflake in self.names:
            return self.names[snowflake]
        if snowflake in self.numbers:
            return f"message {self.numbers[snowflake]}"
        channel = self.fake.channels.get(snowflake)
        if channel is not None and channel.is_thread:
            self.names[snowflake] = "#" + channel.name
            return self.names[snowflake]
        message = self.fake.messages.get(snowflake)
        if message is not None:
            self.numbers[snowflake] = len(self.numbers) + 1
            return f"message {self.numbers[snowflake]}"
        self._unknown += 1
        self.names[snowflake] = f"id{self._unknown}"
        return self.names[snowflake]

    def _channel_name(self, snowflake: int) -> str:
        """A channel's or thread's name (a thread opened on a message has that message's id)."""
        channel = self.fake.channels.get(snowflake)
        if snowflake not in self.names and channel is not None:
            self.names[snowflake] = "#" + channel.name if channel.guild_id is not None else "DMs"
        return self._name(snowflake)

    def _link(self, match: re.Match[str]) -> str:
        guild, channel, message = match.group(1), match.group(2), match.group(3)
        words = f"discord.com/channels/{self._name(int(guild)) if guild.isdigit() else guild}/"
        words += self._channel_name(int(channel))
        return words + (f"/{self._message_name(int(message))}" if message else "")

    def _message_name(self, snowflake: int) -> str:
        if snowflake not in self.numbers and snowflake in self.fake.messages:
            self.numbers[snowflake] = len(self.numbers) + 1
        return f"message {self.numbers[snowflake]}" if snowflake in self.numbers else self._name(snowflake)

    def clean(self, text: str) -> str:
        """Mentions, ids and timestamps in stable words."""
        text = LINK.sub(self._link, text)
        text = MESSAGE.sub(lambda m: self._message_name(int(m.group(1))), text)
        text = USER.sub(lambda m: self._name(int(m.group(1))), text)
        text = CHANNEL.sub(lambda m: self._channel_name(int(m.group(1))), text)
        text = ROLE.sub(lambda m: "@role:" + self._name(int(m.group(1))), text)
        text = COMMAND.sub(lambda m: f"/{m.group(1)}", text)
        text = TIMESTAMP.sub(self._timestamp, text)
        return SNOWFLAKE.sub(lambda m: self._name(int(m.group(0))), text)

    def _timestamp(self, match: re.Match[str]) -> str:
        when, style = int(match.group(1)), match.group(2) or "f"
        offset, real = when - self.now(), when - self.wall()
        if abs(offset) <= abs(real):  # from the bot's clock
            return f"<time {duration(offset)}:{style}>"
        # From the real time (an interaction's token lasts 15 real minutes): to the minute, which a scenario's few
        # seconds do not change.
        return f"<real time {duration(60 * round(real / 60))}:{style}>"

    # ----- steps ----------------------------------------------------------------------------------------------------
    def _touch(self, message: FakeMessage) -> Touch:
        touch = self._touched.get(message.id)
        if touch is None:
            touch = self._touched[message.id] = Touch(message)
        return touch

    def action(self, who: FakeUser, what: str) -> None:
        """A player's action, written before what the bot answers to it."""
        self.flush()
        self.lines.append("")
        self.lines.append(f"▶ {self.names.get(who.id, who.name)} {self.clean(what)}")

    def note(self, text: str) -> None:
        """A line of the scenario's own (not something the bot sent)."""
        self.flush()
        self.lines.append("")
        self.lines.append(f"# {text}")

    def shown_form(self, who: FakeUser, modal: dict[str, Any]) -> None:
        """A form (modal) the bot opened for `who`."""
        self.flush()
        self.lines.append(f"  {self.names[who.id]} only · form “{self.clean(str(modal.get('title', '')))}”")
        for row in modal.get("components", []):
            for item in [row, *row.get("components", [])]:
                if item.get("type") == Component.TEXT_INPUT:
                    label = item.get("label") or ""
                    hint = f" (e.g. {item['placeholder']})" if item.get("placeholder") else ""
                    self.lines.append(f"{INDENT}field “{self.clean(str(label))}”{self.clean(hint)}")
                elif item.get("type") == Component.TEXT_DISPLAY:
                    for line in str(item.get("content", "")).splitlines():
                        self.lines.append(INDENT + self.clean(line))
                elif item.get("type") == Component.LABEL:  # around an input
                    self.lines.append(f"{INDENT}field “{self.clean(str(item.get('label', '')))}”")

    def failed(self, who: FakeUser, errors: list[str]) -> None:
        self.flush()
        self.lines.append(f"  {self.names[who.id]} only · ⚠ the interaction failed: {'; '.join(errors)}")

    def flush(self) -> None:
        """Write every message the last step touched, once, as it stands now: after the threads the step opened,
        before those it closed."""
        touched, self._touched = self._touched, {}
        self._threads_changed(opened=True)
        for touch in sorted(touched.values(), key=self._place):
            self._message(touch)
        self._threads_changed(opened=False)

    def _threads_changed(self, *, opened: bool) -> None:
        for channel in list(self.fake.channels.values()):
            if not channel.is_thread:
                continue
            state = (channel.archived, channel.locked)
            before = self._threads.get(channel.id)
            if before == state or (before is None) != opened:
                continue
            self._threads[channel.id] = state
            kind = "private thread" if channel.type == ChannelType.PRIVATE_THREAD else "thread"
            if before is None:
                parent = self._channel_name(channel.parent_id) if channel.parent_id else "?"
                self.lines.append(f"  {parent} · {kind} #{channel.name} opened")
            else:
                words = [w for w, on in (("archived", channel.archived), ("locked", channel.locked)) if on]
                self.lines.append(f"  #{channel.name} · {kind} now {' and '.join(words) or 'open again'}")

    def _place(self, touch: Touch) -> tuple[int, str, int, int]:
        """Where a touched message is written among one step's: the bot does some of a step's work side by side
        (the boards of a move, a ping), so the order it happened to finish in is not kept. The channel comes first,
        then threads, private answers and DMs (each by name); in each, messages already shown (by number), then new
        ones in the order they were posted."""
        message = touch.message
        channel = self.fake.channels[message.channel_id]
        if channel.is_dm:
            group, name = 3, self.names.get(channel.recipient_id or 0, "")
        elif message.ephemeral:
            group, name = 2, self.names.get(int(((message.interaction_metadata or {}).get("user") or {}).get("id", 0)),
                                            "")
        else:
            group, name = (1, channel.name) if channel.is_thread else (0, channel.name)
        known = self.numbers.get(message.id)
        return group, name, 0 if known is not None else 1, known if known is not None else message.id

    def _audience(self, message: FakeMessage) -> str:
        channel = self.fake.channels[message.channel_id]
        if channel.is_dm:
            return f"DM to {self._name(channel.recipient_id or 0)}"
        where = self._channel_name(channel.id)
        if message.ephemeral:
            meta = message.interaction_metadata or {}
            user = int((meta.get("user") or {}).get("id", 0))
            return f"{where} · only {self._name(user)} sees"
        return where

    def _message(self, touch: Touch) -> None:
        message = touch.message
        known = message.id in self.numbers
        label = self._message_name(message.id) if known or not touch.deleted else ""
        if touch.created and touch.deleted:
            self.lines.append(f"  {self._audience(message)} · a message posted and deleted at once")
            return
        if touch.deleted:
            self.lines.append(f"  {self._audience(message)} · {label} deleted")
            return
        what = "new" if touch.created else "edited"
        head = f"  {self._audience(message)} · {label} · {what}"
        if touch.created and message.pinged:
            head += " · pings " + ", ".join(sorted(self._name(u) for u in message.pinged))
        if touch.created and message.message_reference:
            reference = message.message_reference.get("message_id")
            if reference:
                head += f" · replying to {self._message_name(int(reference))}"
        self.lines.append(head)
        self.lines.extend(INDENT + line for line in self.render(message))

    # ----- one message ----------------------------------------------------------------------------------------------
    def render(self, message: FakeMessage) -> list[str]:
        out: list[str] = []
        if message.loading:
            out.append("(thinking…)")
        out.extend(self.clean(line) for line in message.content.splitlines())
        pictures = {str(a.get("filename")): a for a in message.attachments}
        shown: set[str] = set()
        for embed in message.embeds:
            out.extend(self._embed(message, embed, pictures, shown))
        for name, attachment in pictures.items():
            if name not in shown:
                out.append(self._picture(message, attachment))
        for item in message.components:
            out.extend(self._component(item))
        if not out:
            out.append("(empty)")
        return out

    def _embed(self, message: FakeMessage, embed: dict[str, Any], pictures: dict[str, dict[str, Any]],
               shown: set[str]) -> list[str]:
        out = ["┌─ embed"]
        author = (embed.get("author") or {}).get("name")
        if author:
            out.append(f"│ author: {self.clean(str(author))}")
        if embed.get("title"):
            out.append(f"│ **{self.clean(str(embed['title']))}**")
        if embed.get("url"):
            out.append(f"│ (link: {self.clean(str(embed['url']))})")
        for line in str(embed.get("description") or "").splitlines():
            out.append("│ " + self.clean(line))
        for fld in embed.get("fields", []):
            inline = " (inline)" if fld.get("inline") else ""
            out.append(f"│ ▸ {self.clean(str(fld.get('name', '')))}{inline}")
            out.extend("│   " + self.clean(line) for line in str(fld.get("value", "")).splitlines())
        for key in ("image", "thumbnail"):
            url = str((embed.get(key) or {}).get("url") or "")
            if url.startswith("attachment://"):
                name = url.removeprefix("attachment://")
                shown.add(name)
                attachment = pictures.get(name)
                out.append("│ " + (f"{key}: " if key != "image" else "") + (
                    self._picture(message, attachment) if attachment else f"picture {name} (missing!)"))
            elif url:
                out.append(f"│ {key}: {url}")
        footer = (embed.get("footer") or {}).get("text")
        if footer:
            out.extend("│ footer: " + self.clean(line) for line in str(footer).splitlines())
        if embed.get("timestamp"):
            out.append("│ (timestamped)")
        out.append("└─")
        return out

    def _picture(self, message: FakeMessage, attachment: dict[str, Any]) -> str:
        """A picture in words: its file name, its size and its caption. With a pictures directory it is saved there as
        <scenario>-<lang>-<running number>-message<N>-<file name>, the transcript's text staying the same."""
        data = self.fake.attachment_bytes(attachment)
        size = png_size(data)
        words = f"🖼 picture {attachment.get('filename')}"
        words += f", {size[0]}x{size[1]} px" if size else f", {len(data)} bytes"
        if attachment.get("description"):
            words += f", caption “{self.clean(str(attachment['description']))}”"
        if self.pictures is not None and not self.muted:
            self._pictures_saved += 1
            number = self._message_name(message.id).replace(" ", "")
            name = f"{self.prefix}{self._pictures_saved:03d}-{number}-{attachment.get('filename')}"
            (self.pictures / name).write_bytes(data)
        return words

    def _component(self, item: dict[str, Any]) -> list[str]:
        kind = item.get("type")
        if kind == Component.ACTION_ROW:  # its buttons on one line, each menu on its own
            buttons = [c for c in item.get("components", []) if c.get("type") == Component.BUTTON]
            out = [" ".join(self._button(b) for b in buttons)] if buttons else []
            for other in item.get("components", []):
                if other.get("type") != Component.BUTTON:
                    out.extend(self._component(other))
            return out
        if kind == Component.BUTTON:
            return [self._button(item)]
        if kind in SELECT_MENUS:
            return self._menu(item)
        if kind == Component.TEXT_DISPLAY:
            return [self.clean(line) for line in str(item.get("content", "")).splitlines()]
        if kind == Component.SEPARATOR:
            return ["───"]
        nested: list[str] = []
        for child in item.get("components", []):
            nested.extend(self._component(child))
        if isinstance(item.get("accessory"), dict):
            nested.extend(self._component(item["accessory"]))
        return nested

    def _button(self, button: dict[str, Any]) -> str:
        emoji = (button.get("emoji") or {}).get("name")
        label = " ".join(str(p) for p in (emoji, button.get("label")) if p)
        extras = [STYLES[s] for s in [button.get("style")] if s in STYLES]
        if button.get("url"):
            extras.append(f"→ {self.clean(str(button['url']))}")
        if button.get("disabled"):
            extras.append("disabled")
        return f"[{self.clean(label)}{' · ' + ' · '.join(extras) if extras else ''}]"

    def _menu(self, menu: dict[str, Any]) -> list[str]:
        placeholder = self.clean(str(menu.get("placeholder") or "choose"))
        extras = " (disabled)" if menu.get("disabled") else ""
        most = menu.get("max_values", 1)
        if most and most != 1:
            extras += f" (up to {most})"
        out = [f"«{placeholder}»{extras}"]
        for option in menu.get("options") or []:
            emoji = (option.get("emoji") or {}).get("name")
            label = " ".join(str(p) for p in (emoji, option.get("label")) if p)
            line = f"  · {self.clean(label)}"
            if option.get("description"):
                line += f" — {self.clean(str(option['description']))}"
            if option.get("default"):
                line += " (chosen)"
            out.append(line)
        return out

    def notified(self, people: list[FakeUser]) -> None:
        """Who was notified by what (pings and DMs), per participant, at the end."""
        self.flush()
        self.lines.append("")
        self.lines.append("# notifications per participant (pings and DMs)")
        for user in people:
            got = [m for m in self.fake.notifications(user) if m.id in self.numbers]
            unseen = len(self.fake.notifications(user)) - len(got)
            words = [self._message_name(m.id) + (" (DM)" if self.fake.channels[m.channel_id].is_dm else "")
                     for m in got]
            line = f"  {self.names[user.id]}: {len(got)}" + (f" — {', '.join(words)}" if words else "")
            self.lines.append(line + (f" (and {unseen} in the part not shown)" if unseen else ""))

"""Interactions past the fake's client-side checks, old messages carrying any component, and waiting until the
bot is idle: shared by the fuzzer (tests/tools/fuzz.py) and the tests of refusals."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from typing import Any

from tests.support.codes import ButtonStyle, Callback, Component
from tests.support.fakediscord import FakeChannel, FakeDiscord, FakeMessage, FakeUser, InteractionResult

BUTTON, SELECT = Component.BUTTON, Component.STRING_SELECT  # what a click, or a choice in a menu, is made on
# Tasks in which the bot handles events, plays bot seats and tells of a tournament's changes (discord.py's and ours, by
# name).
BOT_TASKS = ("discord.py: ", "discord-ui-", "CommandTree-invoker", "bot-turns-", "events-", "tournament-")
CARRIER_TEXT = "an old message"


async def bot_idle(fake: FakeDiscord, timeout: float = 30.0, written: Callable[[], Any] = lambda: None) -> bool:
    """Wait until the bot has finished what earlier interactions started (answers, redraws, bot moves, DMs):
    none of its event, component, command or bot-turn tasks runs, and no request (nor `written()`) changes
    for two polls. False if it kept working for `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last: tuple[int, Any] | None = None
    stable = 0
    while stable < 2:
        me = asyncio.current_task()
        busy = [t for t in asyncio.all_tasks() if t is not me and t.get_name().startswith(BOT_TASKS)]
        if busy:
            await asyncio.wait(busy, timeout=max(0.01, deadline - time.monotonic()))
        await asyncio.sleep(0.005)
        now = (len(fake.requests), written())
        stable = stable + 1 if now == last and not busy else 0
        last = now
        if time.monotonic() > deadline:
            return False
    return True


async def accepted_challenge(fake: FakeDiscord, channel: FakeChannel, challenger: FakeUser, opponent: FakeUser,
                             kind: str, timeout: float = 15.0) -> FakeMessage:
    """`challenger`'s /`kind` challenge of `opponent` in `channel`, accepted by a click on its Accept button: its
    board (each step may take `timeout` seconds: a bot in its own process answers more slowly)."""
    res = await fake.slash(challenger, channel, kind, "challenge", options={"opponent": opponent}, timeout=timeout)
    board = res.message
    assert board is not None, res.errors
    accepted = await fake.click(opponent, board, board.button("Accept")["custom_id"], timeout=timeout)
    assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
    return board


async def raw_interaction(fake: FakeDiscord, kind: int, user: FakeUser, channel: FakeChannel, data: dict[str, Any],
                          *, source: FakeMessage | None = None, permissions: int = 0, label: str = "",
                          timeout: float = 15.0, locale: str = "en-US") -> InteractionResult:
    """Send an interaction whose `data` goes out exactly as given: none of the client-side checks of the fake's
    slash / click / select (registered options, types, bounds, choices, permissions, contexts, components on
    the message) apply. The envelope (user, member, channel, guild, the message of a component) is still
    built as Discord builds it."""
    res = await fake._interact(kind, user, channel, data, label or f"raw interaction type {kind}", permissions,
                               locale, timeout, True, source=source)
    if res.callback_type == Callback.DEFERRED_CHANNEL_MESSAGE:
        await res.wait_for_original(timeout)
    return res


def carrier(fake: FakeDiscord, channel: FakeChannel, custom_id: str, ctype: int = BUTTON,
            like: Mapping[str, Any] | None = None) -> FakeMessage:
    """A bot message in `channel` carrying one component with `custom_id`, as an old message could (one posted
    before a restore from backup, or by an older version of the bot): Discord only sends clicks on components
    that are on their message."""
    if ctype == SELECT:
        options = (like or {}).get("options") or [{"label": "a", "value": "a"}]
        component: dict[str, Any] = {"type": SELECT, "custom_id": custom_id, "options": options}
    else:
        component = {"type": BUTTON, "style": ButtonStyle.SECONDARY, "label": "x", "custom_id": custom_id}
    rows = [{"type": Component.ACTION_ROW, "components": [component]}]
    return fake.create_message(channel, {"content": CARRIER_TEXT, "components": rows})


def check_shown_and_pinged(fake: FakeDiscord, check: Callable[[FakeMessage], None], shown: list[FakeMessage],
                           people: tuple[FakeUser, ...]) -> None:
    """`check` every message in `shown`, and every ping `people` had (there must be at least one)."""
    for message in shown:
        check(message)
    pings = [message for person in people for message in fake.notifications(person)]
    assert pings
    for message in pings:
        check(message)

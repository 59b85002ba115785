"""So Long Sucker through the offline Discord: open a table, wait for its redraws, read the stored game and
make the decision the status message asks for, as a player clicks it. The helpers find buttons and menus by their
custom ids, never by their words, so they work in every language the bot speaks."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.client import TabletopBot
from games.sucker import SuckerState
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.interactions import bot_idle
from tests.support.world import TabletopRunner, World, change_stored, stored_rows


async def stored(target: str | Path, game_id: int = 1) -> tuple[str, SuckerState, list[tuple[int, int | None, str]]]:
    """A game as stored: its status, its state and its move log (seat, user id, action text), read from the bot's
    database (`target`: a runner's `.target`) on a connection of its own."""
    [(status, state)] = await stored_rows(target, "SELECT status, state FROM games WHERE id = ?", (game_id,))
    moves = await stored_rows(target, "SELECT seat, user_id, action FROM moves WHERE game_id = ? ORDER BY ply",
                              (game_id,))
    return (str(status), SuckerState.from_dict(json.loads(state)),
            [(int(a), None if b is None else int(b), str(c)) for a, b, c in moves])


def _button(message: FakeMessage, verb: str) -> str:
    """A lobby button by its verb (`cl:<lobby>:<verb>`), whatever its label's language."""
    return str(next(b["custom_id"] for b in message.buttons() if str(b["custom_id"]).endswith(f":{verb}")))


async def open_table(world: World, users: list[FakeUser], bots: int = 0,
                     options: dict[str, Any] | None = None) -> FakeMessage:
    """The first user opens a lobby (with `options` of /sucker new), the others join, `bots` bot seats are added and
    it starts. Returns the table's status message: posted in the table's thread (the lobby message becomes the game's
    summary in the channel), or the lobby message itself when the table has no thread."""
    host, *others = users
    res = await world.fake.slash(host, world.channel, "sucker", "new",
                                 options={"players": len(users) + bots, **(options or {})})
    lobby = res.message
    assert res.callback_type == Callback.CHANNEL_MESSAGE and lobby is not None
    for user in others:
        await world.fake.click(user, lobby, _button(lobby, "join"))
    for _ in range(bots):
        await world.fake.click(host, lobby, _button(lobby, "bot"))
    started = await world.fake.click(host, lobby, _button(lobby, "start"))
    assert started.callback_type == Callback.UPDATE_MESSAGE, started.errors
    await world.fake.wait_until(lambda: table_status(world, lobby) is not None)
    status = table_status(world, lobby)
    assert status is not None
    return status


def summary(world: World, status: FakeMessage) -> FakeMessage:
    """The game's summary in the channel, of a table whose status message is in its thread."""
    number = _game_number(status)
    return next(m for m in world.fake.channel_messages(world.channel) if m.embeds and _game_number(m) == number)


def _game_number(message: FakeMessage) -> str:
    found = re.search(r"#([0-9]+)", str(message.embeds[0].get("title", ""))) if message.embeds else None
    return found.group(1) if found else ""


def table_status(world: World, lobby: FakeMessage) -> FakeMessage | None:
    """The status message of the table `lobby` started (it carries Resign, `skr:<game>:resign`), once posted."""
    if any(str(c).startswith("skr:") for c in lobby.custom_ids()):
        return lobby  # no thread: the lobby message is the status
    number = _game_number(lobby)
    for thread in reversed(world.guild.threads):
        for message in world.fake.channel_messages(thread):
            if any(str(c).startswith(f"skr:{number}:") for c in message.custom_ids()):
                return message
    return None


async def edited(world: World, message: FakeMessage, count: int) -> None:
    """Wait until the bot has edited `message` `count` times in all (its redraws follow its answers)."""
    await world.fake.wait_until(lambda: message.edits >= count)


async def thread_opened(world: World, status: FakeMessage) -> None:
    """The table's thread is open: its status message is in it."""
    await world.fake.wait_until(lambda: world.fake.channels[status.channel_id].is_thread)


def _shows_turn(status: FakeMessage, turn: int) -> bool:
    """Whether the status message's decision components were drawn for `turn` (they all carry it)."""
    tokens = {m.group(1) for c in status.walk_components()
              if (m := re.match(r"sks?:[0-9]+:([0-9]+):", str(c.get("custom_id", ""))))}
    return tokens == {str(turn)}


async def decide(world: World, status: FakeMessage, user: FakeUser, state: SuckerState, rng: random.Random,
                 private: Callable[[FakeMessage], None] | None = None) -> None:
    """Make the decision the status message asks of `user`, the way a player clicks it; `private` checks what only
    they are shown on the way (the pile choice of a two-step chip play)."""
    await world.fake.wait_until(lambda: _shows_turn(status, state.turn))  # the bot's redraws may still be coming
    edits = status.edits
    menus = [c for c in status.walk_components() if re.fullmatch(r"sks:[0-9]+:[0-9]+:play[0-4]",
                                                                     str(c.get("custom_id", "")))]
    if menus:  # one step: "colour on pile" in a menu of the status message, answered by redrawing it
        menu = rng.choice(menus)
        play = await world.fake.select(user, status, str(menu["custom_id"]),
                                       values=[rng.choice([o["value"] for o in menu["options"]])])
        assert play.callback_type == Callback.UPDATE_MESSAGE, play.errors
        return
    select = next((c for c in status.walk_components() if ":chip" in str(c.get("custom_id", ""))), None)
    if select is not None:  # two steps (more plays than the menus hold): the colour, then the pile in private
        colour = rng.choice([o["value"] for o in select["options"]])
        asked = await world.fake.select(user, status, str(select["custom_id"]), values=[colour])
        assert asked.ephemeral and asked.message is not None and asked.message.content.endswith("?")  # where?
        if private is not None:
            private(asked.message)
        piles = asked.message.buttons()
        res = await world.fake.click(user, asked.message, rng.choice(piles)["custom_id"])
        assert res.callback_type == Callback.UPDATE_MESSAGE and asked.message.buttons() == [], res.errors  # "Done: ..."
        if private is not None:
            private(asked.message)
        await edited(world, status, edits + 1)
        return
    buttons = [b for b in status.buttons() if str(b["custom_id"]).startswith("sk:")]  # decisions, not Resign
    if state.phase == "name":  # naming a player without chips is what brings rescues and defeats about
        broke = [b for b in buttons if any(
            str(b["custom_id"]).endswith(f":next:{state.colours[s]}") and state.held(s) == 0
            for s in state.live_seats())]
        buttons = broke or buttons
    if state.phase == "rescue" and rng.random() < 0.7:
        buttons = [b for b in buttons if str(b["custom_id"]).endswith(":decline")] or buttons
    res = await world.fake.click(user, status, rng.choice(buttons)["custom_id"])
    assert res.callback_type == Callback.UPDATE_MESSAGE, res.errors


async def put_position(world: World, bot: TabletopBot, target: str | Path, state: SuckerState,
                       game_id: int = 1) -> None:
    """Set a stored game to a literal position, as if play had led there, and redraw its status message (`target`:
    the runner's `.target`)."""
    assert await bot_idle(world.fake)
    await change_stored(target, "UPDATE games SET state = ?, version = version + 1 WHERE id = ?",
                        (json.dumps(state.to_dict()), game_id))
    # Written behind the bot's back, as by another process: the bot reads it again (as it would once its next write
    # of the game were refused as stale), then redraws.
    await bot.service.load(game_id)
    await bot.redraw(game_id)


async def state_user(bots: TabletopRunner, seat: int, game_id: int = 1) -> int:
    """The user id in `seat` of a stored game."""
    [(user_id,)] = await stored_rows(bots.target, "SELECT user_id FROM game_players WHERE game_id = ? AND seat = ?",
                                     (game_id, seat))
    return int(user_id)

"""Issue 7, point 5: the token never appears in logs or errors; admin commands need Manage Server; only seated
players act; no one acts in a game from another server (or a DM)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from storage.connection import open_database
from storage.sql import Dialect, select
from tests.support.boards import player_to_move
from tests.support.codes import Callback, CommandType, Component, InteractionType, OptionType
from tests.support.fakediscord import FakeDiscord, FakeMessage, FakeUser, InteractionResult
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.fakediscord.routes import CALLBACK_ROUTE
from tests.support.interactions import accepted_challenge, bot_idle, carrier, raw_interaction
from tests.support.processes import stop_bot
from tests.support.sucker import open_table
from tests.support.world import VALIDATOR, TabletopRunner, World

ROOT = Path(__file__).resolve().parents[2]
# Everything a moderator might have except Manage Server (and Administrator, which implies it).
MODERATOR = (1 << 1) | (1 << 2) | (1 << 4) | (1 << 13) | (1 << 28) | (1 << 40)


async def rows(target: str | Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table: what must not change when a request is refused."""
    db = await open_database(target)
    tables_sql = ("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                  "AND table_type = 'BASE TABLE'" if db.dialect is Dialect.POSTGRESQL
                  else "SELECT name FROM sqlite_master WHERE type = 'table'")
    try:
        tables = [str(r[0]) for r in await db.query(select(tables_sql, ()))]
        found = {t: sorted(await db.query(select(f'SELECT * FROM "{t}"', ())), key=repr) for t in tables}
        # The language a person's Discord client uses is remembered from whatever they send (for the direct
        # messages we write them later): not something their request changed. Their notification choice is.
        found["user_settings"] = sorted(await db.query(select(
            "SELECT user_id, notify FROM user_settings WHERE notify != 'mention'", ())))
        # Nor is the process's heartbeat, renewed every few seconds whatever happens (bot/service/heartbeat.py).
        found["leases"] = sorted(await db.query(select("SELECT * FROM leases WHERE key NOT LIKE 'process:%'", ())),
                                 key=repr)
        found.pop("lease_tokens", None)  # the last lease token given: SQLite raises it at every heartbeat too
        return found
    finally:
        await db.close()


def refused(res: InteractionResult, *words: str) -> bool:
    """Answered privately, with a reason containing `words`."""
    message = res.message
    return (res.callback_type == Callback.CHANNEL_MESSAGE and message is not None and message.ephemeral
            and bool(message.content.strip())
            and all(w in message.content for w in words))


def button(message: FakeMessage, label: str) -> str:
    return str(next(b["custom_id"] for b in message.buttons() if str(b.get("label", "")).startswith(label)))


# ----- the token -----------------------------------------------------------------------------------------------
async def _run_bot(fake: FakeDiscord, tmp_path: Path, token: str, log: Path) -> asyncio.subprocess.Process:
    """`python -m bot` as an admin runs it, at LOG_LEVEL=DEBUG, pointed at the fake."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DISCORD_")}
    env.update(DISCORD_TOKEN=token, DATABASE_PATH=str(tmp_path / "bot.sqlite3"), LOG_LEVEL="DEBUG",
               DISCORD_API_BASE=fake.api_base, DISCORD_GATEWAY_URL=fake.gateway_url,
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""))
    with log.open("wb") as out:
        return await asyncio.create_subprocess_exec(sys.executable, "-m", "bot", cwd=tmp_path, env=env,
                                                    stdout=out, stderr=asyncio.subprocess.STDOUT)


async def test_the_token_never_appears_in_logs_or_errors(world: World, tmp_path: Path) -> None:
    fake = world.fake
    log = tmp_path / "bot.log"
    process = await _run_bot(fake, tmp_path, fake.token, log)
    try:
        await fake.wait_until_ready(timeout=30)
        await fake.wait_until(lambda: bool(fake.registered_commands()), timeout=30)
        # Play, be refused, lose the gateway and resume it, and have Discord fail an answer (a logged fault).
        board = await accepted_challenge(fake, world.channel, world.alice, world.bob, "chopsticks")
        outsider = await fake.click(world.carol, board, board.buttons()[0]["custom_id"], timeout=15)
        assert refused(outsider)
        await fake.disconnect_gateway()
        await fake.wait_until(lambda: fake.hub.is_ready, timeout=30)
        bad = await fake.slash(world.alice, world.channel, "replay", options={"game": 99}, timeout=15)
        assert refused(bad, "no game #99")
        fault = fake.inject_rest_fault("POST", CALLBACK_ROUTE, status=400)  # raised at once: a logged fault
        apology = await fake.slash(world.alice, world.channel, "history", timeout=15)
        assert fault.hits and refused(apology, "Something went wrong")
    finally:
        await stop_bot(process, 20)
    text = log.read_text(encoding="utf-8", errors="replace")
    # The logs were as verbose as they get, a resume and a fault's traceback included.
    assert "sent the IDENTIFY payload" in text and "RESUME payload" in text and "DEBUG" in text
    assert "fault while handling" in text and "Traceback" in text and "400 Bad Request" in text
    assert fake.token not in text
    for message in fake.messages.values():  # nor in anything the bot said
        assert fake.token not in message.text()


async def test_a_wrong_or_malformed_token_is_not_repeated(restore_discord_urls: None, tmp_path: Path) -> None:
    fake = FakeDiscord(validator=VALIDATOR)
    await fake.start()
    try:
        wrong = fake.token[:-6] + ("AAAAAA" if not fake.token.endswith("AAAAAA") else "BBBBBB")
        log = tmp_path / "wrong.log"
        process = await _run_bot(fake, tmp_path, wrong, log)
        assert await asyncio.wait_for(process.wait(), 30) == 1
        text = log.read_text(encoding="utf-8", errors="replace")
        assert "Discord refused the token" in text and wrong not in text and fake.token not in text
        malformed = "Bot " + fake.token
        log = tmp_path / "malformed.log"
        process = await _run_bot(fake, tmp_path, malformed, log)
        assert await asyncio.wait_for(process.wait(), 30) == 2
        text = log.read_text(encoding="utf-8", errors="replace")
        assert "DISCORD_TOKEN looks malformed" in text and fake.token not in text
    finally:
        await fake.close()


# ----- Manage Server --------------------------------------------------------------------------------------------
async def test_settings_need_manage_server_from_discord_and_from_the_bot(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    definition = next(c for c in fake.registered_commands() if c["name"] == "settings")
    assert definition["default_member_permissions"] == str(PERM_MANAGE_GUILD) and definition["dm_permission"] is False
    try:  # Discord shows /settings only to members with Manage Server ...
        await fake.slash(world.bob, world.channel, "settings", "show", permissions=MODERATOR)
        raise AssertionError("the fake let a member without Manage Server run /settings")
    except PermissionError:
        pass

    # ... unless the server's admins opened it to everyone: then the bot refuses by itself.
    fake.permission_overrides.add("settings")
    before = await rows(bots.target)
    for sub, options in (("show", {}), ("set", {"images": False, "turn_time": "1h"}),
                         ("game", {"game": "sucker", "enabled": False})):
        for permissions in (0, MODERATOR):
            res = await fake.slash(world.bob, world.channel, "settings", sub, options=options, permissions=permissions)
            assert refused(res, "Manage Server"), res.message and res.message.content
    data = {"id": definition["id"], "name": "settings", "type": CommandType.CHAT_INPUT,
            "options": [{"name": "set", "type": OptionType.SUB_COMMAND,
                         "options": [{"name": "images", "type": OptionType.BOOLEAN, "value": False}]}]}
    in_dm = await raw_interaction(fake, InteractionType.APPLICATION_COMMAND, world.alice, fake.dm_channel(world.alice),
                                  data, permissions=PERM_MANAGE_GUILD)
    assert refused(in_dm, "server")
    assert await rows(bots.target) == before

    allowed = await fake.slash(world.alice, world.channel, "settings", "set", options={"images": False},
                               permissions=PERM_MANAGE_GUILD)
    assert allowed.ephemeral and allowed.message is not None and "pictures: **off**" in allowed.message.text()
    assert await rows(bots.target) != before


# ----- seated players only --------------------------------------------------------------------------------------
async def _sucker_table(world: World, host: FakeUser, others: list[FakeUser]) -> FakeMessage:
    """A started table of `host`, `others` and one computer seat: its status message (in the table's thread)."""
    return await open_table(world, [host, *others], bots=1)


async def test_only_seated_players_act(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake, carol = world.fake, world.carol
    board = (await fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                              options={"opponent": world.bob})).message
    assert board is not None
    await fake.click(world.bob, board, button(board, "Accept"))
    status = await _sucker_table(world, world.alice, [world.bob])
    challenge = (await fake.slash(world.alice, world.channel, "generals", "challenge",
                                  options={"opponent": world.bob})).message
    assert challenge is not None
    assert await bot_idle(fake)

    before = await rows(bots.target)
    answers = []
    for message in (board, status, challenge):
        for component in message.walk_components():
            custom_id = str(component.get("custom_id", ""))
            if component.get("type") == Component.BUTTON:
                answers.append(await fake.click(carol, message, custom_id))
            elif component.get("type") == Component.STRING_SELECT:
                answers.append(await fake.select(carol, message, custom_id, [component["options"][0]["value"]]))
    answers.append(await fake.slash(carol, world.channel, "sucker", "give",
                                    options={"chip": "red", "to": world.alice}))
    answers.append(await fake.slash(carol, world.channel, "sucker", "deal", options={"text": "I am not playing"}))
    answers.append(await fake.slash(carol, world.channel, "generals", "board", options={"game": 3}))
    assert len(answers) >= 8
    assert all(refused(a) for a in answers), [a.message and a.message.content for a in answers if not refused(a)]
    assert await rows(bots.target) == before


# ----- another server -------------------------------------------------------------------------------------------
async def test_no_one_acts_in_a_game_from_another_server_or_a_dm(world: World, bots: TabletopRunner) -> None:
    fake = world.fake
    elsewhere = fake.add_channel(fake.add_guild("Elsewhere"), "games")
    await bots.start()
    users = {u.id: u for u in (world.alice, world.bob, world.carol)}
    board = (await fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                              options={"opponent": world.bob})).message
    assert board is not None
    await fake.click(world.bob, board, button(board, "Accept"))
    status = await _sucker_table(world, world.alice, [world.bob])
    lobby = (await fake.slash(world.alice, world.channel, "chopsticks", "new", options={"players": 3})).message
    assert lobby is not None
    accepted = (await fake.slash(world.alice, world.channel, "generals", "challenge",
                                 options={"opponent": world.bob})).message
    assert accepted is not None
    await fake.click(world.bob, accepted, button(accepted, "Accept"))
    assert await bot_idle(fake)

    mover = users[player_to_move(board) or 0]
    move = next(c for c in board.custom_ids() if ":mv:" in c)
    before = await rows(bots.target)
    answers = []
    for place in (elsewhere, fake.dm_channel(mover)):  # the real move, by the player to move, from elsewhere
        answers.append(await fake.click(mover, carrier(fake, place, move), move))
    decision = next(c for c in status.walk_components() if str(c.get("custom_id", "")).startswith(("sk:", "sks:")))
    for place in (elsewhere, fake.dm_channel(world.alice)):  # a decision on this server's table, from elsewhere
        copy = carrier(fake, place, str(decision["custom_id"]), int(decision["type"]), decision)
        if decision["type"] == 2:
            answers.append(await fake.click(world.alice, copy, str(decision["custom_id"])))
        else:
            value = decision["options"][0]["value"]
            answers.append(await fake.select(world.alice, copy, str(decision["custom_id"]), [value]))
    join = button(lobby, "Join")
    for place in (elsewhere, fake.dm_channel(world.carol)):  # joining this server's lobby from elsewhere
        answers.append(await fake.click(world.carol, carrier(fake, place, join), join))
    for sub, options in (("status", {}), ("give", {"chip": "red", "to": world.bob}), ("deal", {"text": "hi"})):
        answers.append(await fake.slash(world.alice, elsewhere, "sucker", sub, options={**options, "game": 2}))
    answers.append(await fake.slash(world.alice, fake.dm_channel(world.alice), "sucker", "status",
                                    options={"game": 2}))
    answers.append(await fake.slash(world.alice, elsewhere, "generals", "board", options={"game": 3}))
    assert all(refused(a, "another server") for a in answers), [
        a.message and a.message.content for a in answers if not refused(a, "another server")]
    assert await rows(bots.target) == before

    # The same move on the game's own board is played.
    done = await fake.click(mover, board, move)
    assert done.callback_type == Callback.UPDATE_MESSAGE and await rows(bots.target) != before

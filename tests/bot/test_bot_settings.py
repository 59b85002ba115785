"""/settings and /history through the real bot and the offline Discord."""

from __future__ import annotations

import asyncio

from tests.support.chopsticks import accepted_game
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.world import TabletopRunner, World


async def test_settings_need_manage_server_and_take_effect(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    # Discord hides /settings from members without Manage Server; an admin may still open it to everyone.
    world.fake.permission_overrides.add("settings")
    refused = await world.fake.slash(world.bob, world.channel, "settings", "set", options={"images": False})
    assert refused.ephemeral and refused.message is not None and "Manage Server" in refused.message.content
    world.fake.permission_overrides.clear()
    shown = await world.fake.slash(world.alice, world.channel, "settings", "show", permissions=PERM_MANAGE_GUILD)
    assert shown.message is not None and "pictures: **on**" in shown.message.text()
    assert "Turn time for new games: **24 h (the bot's default)**" in shown.message.text()  # not just "the default"

    other = world.fake.add_channel(world.guild, "elsewhere")
    saved = await world.fake.slash(world.alice, world.channel, "settings", "set", permissions=PERM_MANAGE_GUILD,
                                   options={"turn_time": "2h", "channel": other})
    assert saved.ephemeral and saved.message is not None and "2 h" in saved.message.text()
    assert f"<#{other.id}> only" in saved.message.text()

    # New games now start only in the chosen channel, with the server's turn time.
    wrong = await world.fake.slash(world.bob, world.channel, "chopsticks", "challenge")
    assert wrong.ephemeral and wrong.message is not None and f"<#{other.id}>" in wrong.message.content
    right = await world.fake.slash(world.bob, other, "chopsticks", "challenge", options={"opponent": world.carol})
    assert right.message is not None and "2 h per move" in right.message.text()

    off = await world.fake.slash(world.alice, world.channel, "settings", "game", permissions=PERM_MANAGE_GUILD,
                                 options={"game": "sucker", "enabled": False})
    assert off.message is not None and "Games switched off: **So Long Sucker**" in off.message.text()
    blocked = await world.fake.slash(world.bob, other, "sucker", "new")
    assert blocked.ephemeral and blocked.message is not None and "switched off" in blocked.message.content
    bad = await world.fake.slash(world.alice, world.channel, "settings", "set", permissions=PERM_MANAGE_GUILD,
                                 options={"turn_time": "soon"})
    assert bad.ephemeral and bad.message is not None and "not a duration" in bad.message.content


async def test_history_lists_recent_games_with_links(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    started = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"level": "easy"})
    board = started.message
    assert board is not None
    await world.fake.wait_until(lambda: ":mv:" in str(board.custom_ids()))  # the bot has moved if it was first
    text = ""
    for _ in range(20):  # the board message is recorded just after the command was answered
        res = await world.fake.slash(world.bob, world.channel, "history", options={"user": world.alice})
        assert res.message is not None
        text = res.message.text() + str(res.message.embeds)
        if "discord.com/channels/" in text:
            break
    assert "Chopsticks #1" in text and "in progress" in text and "discord.com/channels/" in text
    none = await world.fake.slash(world.carol, world.channel, "history")
    assert none.message is not None and "No games yet." in none.message.text()


async def test_replay_steps_through_a_game(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await accepted_game(world)
    users = {world.alice.id: world.alice, world.bob.id: world.bob}
    for _ in range(3):
        mover = users[int(board.text().split("▶ <@")[1].split(">")[0])]
        await world.fake.click(mover, board, next(b["custom_id"] for b in board.buttons() if ":mv:" in b["custom_id"]))
    start = await world.fake.slash(world.carol, world.channel, "replay", options={"game": 1, "move": 0})
    frame = start.message
    assert start.ephemeral and frame is not None and "Position `1111`" in frame.text() and "move 0 of 3" in frame.text()
    forward = next(b["custom_id"] for b in frame.buttons() if b["label"] == "▶")
    await world.fake.click(world.carol, frame, forward)
    assert "Position `1211`" in frame.text() and "move 1 of 3" in frame.text()
    last = next(b["custom_id"] for b in frame.buttons() if b["label"] == "⏭")
    await world.fake.click(world.carol, frame, last)
    code = board.text().split("Position `")[1][:4]
    assert f"Position `{code}`" in frame.text() and "time runs out" not in frame.text()
    missing = await world.fake.slash(world.carol, world.channel, "replay", options={"game": 99})
    assert missing.ephemeral and missing.message is not None and "no game #99" in missing.message.content


async def test_simultaneous_settings_changes_are_all_kept(world: World, bots: TabletopRunner) -> None:
    # Several admins change different settings at the same moment: each is told "Saved." and each change stays.
    await bots.start()
    other = world.fake.add_channel(world.guild, "tables")
    changes: list[tuple[str, dict[str, object]]] = [
        ("set", {"images": False}), ("set", {"threads": False}), ("set", {"turn_time": "2h"}),
        ("set", {"channel": other}),
    ]
    changes += [("game", {"game": kind, "enabled": False}) for kind in ("chopsticks", "generals", "sucker")]
    answers = await asyncio.gather(*(
        world.fake.slash(world.alice, world.channel, "settings", sub, permissions=PERM_MANAGE_GUILD, options=options)
        for sub, options in changes))
    assert all(a.message is not None and a.message.content == "Saved." for a in answers), [a.errors for a in answers]
    shown = await world.fake.slash(world.alice, world.channel, "settings", "show", permissions=PERM_MANAGE_GUILD)
    assert shown.message is not None
    text = shown.message.text()
    for kept in ("Turn time for new games: **2 h**", "Board pictures: **off**", "(So Long Sucker): **off**",
                 "Games switched off: **Chopsticks, Game of the Generals, So Long Sucker**", f"<#{other.id}> only"):
        assert kept in text, text

"""Issue 14, bug 9: what one server sees of another's games, through the offline Discord with two servers.

Server A ("Game Night") holds a finished Chopsticks game (#1, alice vs bob) and a So Long Sucker table with its thread
(#2, alice, bob, carol); server B holds a finished Chopsticks game (#3, bob vs dave). In B, and in DMs, nobody is
shown A's games except their own players, privately; nothing the bot sends there names A (its id, a channel, a
thread, a message or a link to one); and a replay of A's game is never posted or stepped publicly in B.
"""

from __future__ import annotations

import json

from tests.support.codes import Callback
from tests.support.fakediscord import FakeChannel, FakeMessage, FakeUser
from tests.support.sucker import open_table, thread_opened
from tests.support.world import TabletopRunner, World


def _button(message: FakeMessage, label: str) -> str:
    return str(next(b["custom_id"] for b in message.buttons() if b["label"] == label))


async def _finished_chopsticks(world: World, channel: FakeChannel, first: FakeUser, second: FakeUser) -> FakeMessage:
    """A rated Chopsticks game between two people in `channel`, played one move and resigned; its board message."""
    fake = world.fake
    res = await fake.slash(first, channel, "chopsticks", "challenge", options={"opponent": second})
    board = res.message
    assert board is not None, res.errors
    await fake.click(second, board, _button(board, "Accept"))
    mover = first if f"▶ <@{first.id}>" in board.text() else second
    await fake.click(mover, board, next(b["custom_id"] for b in board.buttons() if ":mv:" in b["custom_id"]))
    confirm = await fake.click(mover, board, _button(board, "Resign"))
    assert confirm.message is not None
    await fake.click(mover, confirm.message, confirm.message.buttons()[0]["custom_id"])
    await fake.wait_until(lambda: "resigned" in board.text())
    return board


def _sent_since(world: World, start: int) -> str:
    """Everything the bot sent to Discord since request `start`: paths and bodies (messages, embeds, buttons,
    autocomplete choices), as one text to search."""
    return "\n".join(f"{r.method} {r.path} {json.dumps(r.json)}" for r in world.fake.requests[start:])


def _forge(message: FakeMessage, label: str, custom_id: str) -> None:
    """Give the button `label` on `message` another custom id, as a tampered client could send."""
    for component in message.walk_components():
        if component.get("label") == label:
            component["custom_id"] = custom_id
            return
    raise LookupError(label)


async def test_another_servers_games_are_shown_only_to_their_players_privately_and_never_named(
        world: World, bots: TabletopRunner) -> None:
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    dave = fake.add_user("dave")
    other = fake.add_guild("Other Place")
    there = fake.add_channel(other, "play")
    bot = await bots.start()

    await _finished_chopsticks(world, world.channel, alice, bob)  # #1, server A
    status = await open_table(world, [alice, bob, carol])  # #2, server A, with a thread for table talk
    await thread_opened(world, status)
    b_board = await _finished_chopsticks(world, there, bob, dave)  # #3, server B
    await bot.service.told()
    thread_id = next(g.thread_id for g in [await bot.service.info(2)])
    assert thread_id is not None
    # What would name server A: its id, its channel, the table's thread, any message posted there.
    secrets = {str(world.guild.id), str(world.channel.id), str(thread_id)}
    secrets |= {str(m.id) for m in fake.channel_messages(world.channel)}
    start = len(fake.requests)

    # In B, a stranger to A's games: neither /replay nor /history shows them; the refusal is private and says why.
    refused = await fake.slash(dave, there, "replay", options={"game": 1})
    assert refused.ephemeral and refused.message is not None
    assert "Game #1 was not played in this server" in refused.message.text()
    theirs = await fake.slash(dave, there, "history", options={"user": alice})
    # Shown only to the asker: what a member may see of B's games depends on the channels they may view (issue 22).
    assert theirs.message is not None and theirs.ephemeral
    assert "No games yet." in theirs.message.text() and "on this server" in theirs.message.text()
    bobs = await fake.slash(dave, there, "history", options={"user": bob})
    assert bobs.message is not None
    assert "Chopsticks #3" in bobs.message.text() and "#1 " not in bobs.message.text()
    assert "#2 " not in bobs.message.text() and "discord.com/channels/" in bobs.message.text()  # B's own board
    # Even A's own player asking about another player sees only B's games.
    asked_by_alice = await fake.slash(alice, there, "history", options={"user": bob})
    assert asked_by_alice.message is not None and "#1 " not in asked_by_alice.message.text()

    # In B, A's player asking about themselves: every game of theirs, privately, A's only said to be elsewhere.
    for options in ({}, {"user": alice}):
        mine = await fake.slash(alice, there, "history", options=options)
        assert mine.ephemeral and mine.message is not None, mine.errors
        text = mine.message.text()
        assert "Your recent games" in text and "Chopsticks #1" in text and "So Long Sucker #2" in text
        assert text.count("on another server") == 2 and "discord.com/channels/" not in text
    suggested = await fake.autocomplete(alice, there, "replay", options={"game": ""}, focused="game")
    assert [c["value"] for c in suggested] == [2, 1]
    assert all(c["name"].endswith("on another server") for c in suggested), suggested
    assert [c["value"] for c in await fake.autocomplete(dave, there, "replay", options={"game": ""},
                                                        focused="game")] == [3]

    # ... and replays them privately, stepping through them, with no way to post them in B.
    for game in (2, 1):  # the table has no move yet; the Chopsticks game one (and a resignation)
        frame = await fake.slash(alice, there, "replay", options={"game": game, "move": 0})
        assert frame.ephemeral and frame.message is not None, frame.errors
        assert "Post publicly" not in str(frame.message.buttons())
    own = frame.message
    assert own is not None
    stepped = await fake.click(alice, own, _button(own, "▶"))
    assert stepped.callback_type == Callback.UPDATE_MESSAGE and own.content.startswith("Move 1 of 1"), stepped.errors

    # Forged buttons change nothing: A's replay is not posted in B, nor stepped to on B's public replay.
    _forge(own, "⏮", "rpp:1:0")
    posting = await fake.click(alice, own, "rpp:1:0")
    assert posting.ephemeral and posting.message is not None
    assert "cannot be posted here" in posting.message.text()
    mine3 = await fake.slash(bob, there, "replay", options={"game": 3, "move": 0})
    assert mine3.message is not None
    posted = await fake.click(bob, mine3.message, _button(mine3.message, "Post publicly"))
    public = posted.message
    assert public is not None and not posted.ephemeral and public in fake.channel_messages(there)
    shown_before = public.text()
    _forge(public, "▶", "rp:1:1:n")
    stepped_to_a = await fake.click(alice, public, "rp:1:1:n")
    assert stepped_to_a.ephemeral and stepped_to_a.message is not None
    assert "not shown in this channel" in stepped_to_a.message.text() and public.text() == shown_before
    assert [m for m in fake.channel_messages(there) if "Replay" in m.text()] == [public]

    # In DMs: only one's own games.
    dm = fake.dm_channel(dave)
    no_replay = await fake.slash(dave, dm, "replay", options={"game": 1})
    assert no_replay.message is not None and "only your own games" in no_replay.message.text()
    no_history = await fake.slash(dave, dm, "history", options={"user": alice})
    assert no_history.message is not None and "only your own games" in no_history.message.text()
    alice_dm = await fake.slash(alice, fake.dm_channel(alice), "history")
    assert alice_dm.message is not None and alice_dm.message.text().count("on another server") == 2
    in_dm = await fake.slash(alice, fake.dm_channel(alice), "replay", options={"game": 1})
    assert in_dm.message is not None and "Post publicly" not in str(in_dm.message.buttons()), in_dm.errors

    # Stats and ladders in B name nothing of A either.
    for user in (alice, dave):
        assert (await fake.slash(dave, there, "stats", options={"user": user})).message is not None
    for scope in ("server", "global"):
        ladder = await fake.slash(alice, there, "leaderboard", options={"game": "chopsticks", "scope": scope})
        assert ladder.message is not None

    sent = _sent_since(world, start)
    assert sent and not [s for s in secrets if s in sent], [s for s in secrets if s in sent]
    assert str(b_board.id) in sent  # the check can see ids: B's own board is linked in B


async def test_in_its_own_server_a_game_is_open_to_everyone_there(world: World, bots: TabletopRunner) -> None:
    """At home: anyone on A who may view the channel lists (privately) and replays A's games there, with links; a player
    may post the replay."""
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    await bots.start()
    board = await _finished_chopsticks(world, world.channel, alice, bob)
    listed = await fake.slash(carol, world.channel, "history", options={"user": alice})
    assert listed.message is not None and listed.ephemeral  # to the asker: they may view this channel
    assert f"/{world.guild.id}/{world.channel.id}/{board.id})" in listed.message.text()
    frame = await fake.slash(carol, world.channel, "replay", options={"game": 1})
    # She may replay it; posting it is for its players (not offered to her: issue 23).
    assert frame.ephemeral and frame.message is not None and "Post publicly" not in str(frame.message.buttons())
    mine = await fake.slash(bob, world.channel, "replay", options={"game": 1})
    assert mine.message is not None
    posted = await fake.click(bob, mine.message, _button(mine.message, "Post publicly"))
    assert posted.message is not None and not posted.ephemeral, posted.errors
    assert ((await fake.click(carol, posted.message, _button(posted.message, "⏮"))).callback_type
            == Callback.UPDATE_MESSAGE)

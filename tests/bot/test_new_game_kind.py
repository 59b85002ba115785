"""A game kind defined only inside tests/ (Nim, tests/support/nim/) plays through the real bot and the offline
Discord: the seam between the rules, the service and the Discord layer is real, and every list of games
(commands, ladders, settings, replays, help, refusal hints) derives from the registry."""

from __future__ import annotations

import re

from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.world import TabletopRunner, World


def _to_move(world: World, board: FakeMessage) -> FakeUser | None:
    for user in (world.alice, world.bob):
        if f"▶ <@{user.id}> to move" in board.text():
            return user
    return None


async def test_a_game_kind_defined_only_in_the_tests_plays_through_discord(
    world: World, bots: TabletopRunner, nim: None
) -> None:
    await bots.start()
    commands = {c["name"]: c for c in world.fake.registered_commands()}
    assert "nim" in commands
    ladder_game = next(o for o in commands["leaderboard"]["options"] if o["name"] == "game")
    assert {"name": "Nim", "value": "nim"} in ladder_game["choices"]
    settings_game = next(o for o in commands["settings"]["options"] if o["name"] == "game")
    switch = next(o for o in settings_game["options"] if o["name"] == "game")
    assert {"name": "Nim", "value": "nim"} in switch["choices"]

    res = await world.fake.slash(world.alice, world.channel, "nim", "challenge", options={"opponent": world.bob})
    assert res.message is not None and not res.ephemeral
    board = res.message
    accept = board.button("Accept")["custom_id"]
    outsider = await world.fake.click(world.carol, board, accept)
    assert outsider.ephemeral and outsider.message is not None
    assert "Start your own with /nim challenge." in outsider.message.content
    res = await world.fake.click(world.bob, board, accept)
    assert res.callback_type == Callback.UPDATE_MESSAGE and "Stones left: **7**" in board.text()

    moves = 0
    while (mover := _to_move(world, board)) is not None:
        other = world.bob if mover is world.alice else world.alice
        take = board.buttons()[0]["custom_id"]  # take one stone each time
        refused = await world.fake.click(other, board, take)
        assert refused.ephemeral, "only the player to move may take"
        res = await world.fake.click(mover, board, take)
        assert res.callback_type == Callback.UPDATE_MESSAGE, res.errors
        moves += 1
    assert moves == 7 and "took the last stone and wins" in board.text() and not board.buttons()
    winner = world.alice  # seven single stones: the first mover takes the last one

    res = await world.fake.slash(world.carol, world.channel, "leaderboard", options={"game": "nim"})
    assert res.message is not None
    ladder = res.message.text()
    assert "Nim ladder" in ladder and f"**1.** <@{winner.id}>" in ladder and f"<@{world.bob.id}>" in ladder

    res = await world.fake.slash(world.carol, world.channel, "replay", options={"game": 1})
    assert res.message is not None and "Replay · Nim #1 · move 7 of 7" in res.message.text()
    first = res.message.button("⏮")["custom_id"]
    res = await world.fake.click(world.carol, res.message, first)
    assert res.message is not None and "move 0 of 7" in res.message.text()
    assert "Stones left: **7**" in res.message.text()

    res = await world.fake.slash(world.carol, world.channel, "help")
    assert res.message is not None and res.ephemeral
    text = res.message.text()
    assert "**Nim** (2 players; against me: perfect)" in text
    assert re.search(r"</nim challenge:\d+>|`/nim challenge`", text)


async def test_a_game_against_the_computer_player_of_a_new_kind(
    world: World, bots: TabletopRunner, nim: None
) -> None:
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "nim", "challenge")
    assert res.message is not None
    board = res.message
    while board.buttons():
        await world.fake.click(world.alice, board, board.buttons()[0]["custom_id"])
        await world.fake.wait_until(lambda: bool(board.buttons()) or "wins" in board.text(), timeout=5)
    assert "took the last stone and wins" in board.text()

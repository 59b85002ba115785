"""Rematch (issue 23, defect 12): at most one rematch of a finished game waits for an answer or is played at a time,
whoever clicks (later clicks, by anyone, are pointed to it privately with a link), and a rematch between two people is
worded from the side of the one who asked ("@alice asks @bob for a rematch", and the ping asks bob to accept)."""

from __future__ import annotations

from bot.client import TabletopBot
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.interactions import bot_idle
from tests.support.world import TabletopRunner, World, stored_rows


def _link(world: World, message: FakeMessage) -> str:
    return f"https://discord.com/channels/{world.guild.id}/{message.channel_id}/{message.id}"


async def _count(bots: TabletopRunner, sql: str) -> int:
    [(count,)] = await stored_rows(bots.target, sql)
    return int(count)


async def _resign(world: World, bot: TabletopBot, board: FakeMessage, resigner: FakeUser) -> None:
    await world.fake.click(resigner, board, board.button("Resign")["custom_id"])
    confirm = next(m for m in reversed(list(world.fake.messages.values())) if m.ephemeral and "Resign" in m.content)
    await world.fake.click(resigner, confirm, confirm.button("Yes, resign")["custom_id"])
    await bot.service.told()


def _ending(world: World, number: int) -> FakeMessage:
    return next(m for m in world.fake.channel_messages(world.channel)
                if m.embeds and f"#{number} is over" in m.text())


async def _rematch(world: World, user: FakeUser, ending: FakeMessage) -> FakeMessage:
    res = await world.fake.click(user, ending, ending.button("Rematch")["custom_id"])
    assert res.message is not None and not res.ephemeral, (res.errors, res.message and res.message.text())
    await bot_idle(world.fake)
    return res.message


async def _pointed(world: World, user: FakeUser, ending: FakeMessage, to: FakeMessage) -> str:
    res = await world.fake.click(user, ending, ending.button("Rematch")["custom_id"])
    assert res.ephemeral and res.message is not None, res.errors
    assert _link(world, to) in res.message.content, res.message.content
    return res.message.content


async def test_the_rematch_is_asked_from_the_askers_side_and_later_clicks_point_to_it(
        world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    fake, alice, bob = world.fake, world.alice, world.bob
    res = await fake.slash(alice, world.channel, "chopsticks", "challenge", options={"opponent": bob})
    assert res.message is not None, res.errors
    board = res.message
    await fake.click(bob, board, board.button("Accept")["custom_id"])
    await _resign(world, bot, board, alice)
    ending = _ending(world, 1)

    # Alice (who now moves second: the first player rotates) asks; Bob is asked and pinged.
    rematch = await _rematch(world, alice, ending)
    assert f"<@{alice.id}> asks <@{bob.id}> for a rematch of Chopsticks" in rematch.text(), rematch.text()
    assert rematch.content.startswith(f"<@{bob.id}>: <@{alice.id}> asks you for a rematch") and "Accept" in \
        rematch.content
    assert rematch.pinged == {bob.id}
    pings = len(fake.notifications(bob))
    for user in (alice, alice):  # again, by the one who asked
        assert "waits for an answer" in await _pointed(world, user, ending, rematch)
    # by the one asked: told who asks and to answer it there
    told = await _pointed(world, bob, ending, rematch)
    assert f"<@{alice.id}> already asks you for a rematch" in told and "Accept or decline it there" in told, told
    assert await _count(bots, "SELECT count(*) FROM games") == 2 and len(fake.notifications(bob)) == pings

    # Accepted and being played: still the one rematch of game 1.
    refused = await fake.click(alice, rematch, rematch.button("Accept")["custom_id"])
    assert refused.ephemeral, "the one who asked does not accept it"
    await fake.click(bob, rematch, rematch.button("Accept")["custom_id"])
    await bot.service.told()
    assert "being played" in await _pointed(world, bob, ending, rematch)
    assert await _count(bots, "SELECT count(*) FROM games") == 2


async def test_a_declined_rematch_can_be_asked_again_and_bob_asking_is_worded_from_his_side(
        world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    fake, alice, bob = world.fake, world.alice, world.bob
    res = await fake.slash(alice, world.channel, "generals", "challenge", options={"opponent": bob})
    assert res.message is not None, res.errors
    await fake.click(bob, res.message, "gg:1:accept")
    await bot_idle(fake)
    resigned = await fake.click(alice, res.message, "gg:1:resign")
    assert resigned.message is not None, resigned.errors
    await fake.click(alice, resigned.message, "gg:1:resign-yes")
    await bot.service.told()
    ending = _ending(world, 1)

    rematch = await _rematch(world, bob, ending)
    assert f"<@{bob.id}> asks <@{alice.id}> for a rematch of Game of the Generals" in rematch.text(), rematch.text()
    assert rematch.pinged == {alice.id}
    withdrawn = await fake.click(bob, rematch, "gg:2:decline")
    assert withdrawn.callback_type == Callback.UPDATE_MESSAGE, withdrawn.errors
    assert f"<@{bob.id}> withdrew this challenge." in rematch.text(), rematch.text()
    again = await _rematch(world, alice, ending)  # no longer waiting: another may be asked
    assert f"<@{alice.id}> asks <@{bob.id}> for a rematch" in again.text()
    assert await _count(bots, "SELECT count(*) FROM games") == 3


async def test_one_rematch_against_the_computer_however_often_it_is_clicked(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"level": "easy"})
    assert res.message is not None, res.errors
    await bot.computer_turns.idle()
    await _resign(world, bot, res.message, world.alice)
    ending = _ending(world, 1)
    rematch = await _rematch(world, world.alice, ending)
    await bot.computer_turns.idle()
    assert "being played" in await _pointed(world, world.alice, ending, rematch)
    assert await _count(bots, "SELECT count(*) FROM games") == 2


async def test_one_rematch_table_for_a_finished_table_whoever_clicks(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    fake = world.fake
    res = await fake.slash(world.alice, world.channel, "chopsticks", "new", options={"players": 3})
    assert res.message is not None, res.errors
    lobby = res.message
    for user in (world.bob, world.carol):
        await fake.click(user, lobby, lobby.button("Join")["custom_id"])
    await fake.click(world.alice, lobby, lobby.button("Start")["custom_id"])
    await bot.service.told()
    for user in (world.alice, world.bob):
        await _resign(world, bot, lobby, user)
    ending = _ending(world, 1)
    table = await _rematch(world, world.carol, ending)
    for user in (world.alice, world.carol):
        assert "Join it there" in await _pointed(world, user, ending, table)
    assert await _count(bots, "SELECT count(*) FROM lobbies") == 2

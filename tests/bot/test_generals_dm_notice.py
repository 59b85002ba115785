"""Issue 23: the channel's "I could not DM you" notice of Game of the Generals is there to tell a player with closed
DMs where their board is. It goes once they have their board (they opened My board), or else when the game ends;
it stays while they have not found it yet, even across a restart."""

from __future__ import annotations

from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.generals import accepted
from tests.support.interactions import bot_idle
from tests.support.world import TabletopRunner, World

NOTICE = "could not send you a direct message"


def notice_of(world: World, user: FakeUser) -> FakeMessage | None:
    """The notice telling `user` their DM failed, as everyone sees the channel (None once deleted)."""
    return next((m for m in world.fake.channel_messages(world.channel) if NOTICE in m.text() and f"<@{user.id}>"
                 in m.text()), None)


async def test_the_dm_notice_goes_once_the_player_has_their_board_or_the_game_ends(
        world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    fake, alice, bob = world.fake, world.alice, world.bob
    fake.fail_dm_for(alice)
    fake.fail_dm_for(bob)
    channel_board = await accepted(world)
    await fake.wait_until(lambda: notice_of(world, alice) is not None and notice_of(world, bob) is not None)
    bobs, alices = notice_of(world, bob), notice_of(world, alice)
    assert bobs is not None and alices is not None and bobs.pinged == {bob.id}

    await bots.stop(bot)  # remembered across a restart
    await bots.start()
    mine = await fake.click(bob, channel_board, "gg:1:board")  # Bob finds his board: his notice has done its job
    assert mine.ephemeral and mine.message is not None and "Deploy your army" in mine.message.text(), mine.errors
    await fake.wait_until(lambda: bobs.deleted)
    assert await bot_idle(fake) and not alices.deleted  # Alice has not found hers yet: hers stays

    asked = await fake.click(alice, channel_board, "gg:1:resign")  # she resigns without ever opening it
    assert asked.message is not None, asked.errors
    assert (await fake.click(alice, asked.message, "gg:1:resign-yes")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: alices.deleted)
    assert notice_of(world, alice) is None and notice_of(world, bob) is None
    assert alices.pinged == {alice.id}  # she was told (deleting a message takes back no notification)

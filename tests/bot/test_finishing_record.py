"""A player's record of finishing games through the offline Discord (issue 25, point 5): a game lost on time shows as
abandoned in /stats (on the server: its counts beside the global share; in DMs: the counts from everywhere), and a
table that asks for a share refuses a player below it privately, with their share and the requirement."""

from __future__ import annotations

from tests.support.boards import move_buttons, player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage
from tests.support.world import TabletopRunner, World, change_stored

TIMEOUT = 1.2  # the forfeit after 1.2 s


def _stats_text(res_message: FakeMessage | None) -> str:
    assert res_message is not None
    return res_message.text()


async def test_a_game_lost_on_time_shows_as_abandoned_in_stats(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start_with(turn_timeout=TIMEOUT)
    fake = world.fake
    res = await fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"opponent": world.bob})
    assert res.message is not None, res.errors
    board = res.message
    await fake.click(world.bob, board, board.button("Accept")["custom_id"])
    mover = world.alice if player_to_move(board) == world.alice.id else world.bob
    late = world.bob if mover is world.alice else world.alice
    await fake.click(mover, board, move_buttons(board)[0]["custom_id"])
    await fake.wait_until(lambda: "ran out of time" in board.text(), timeout=5)
    await bot.service.told()

    theirs = _stats_text((await fake.slash(mover, world.channel, "stats", options={"user": late})).message)
    assert "This server: finished 0 of 1 game (0%) · 1 abandoned" in theirs, theirs
    assert "Global: 0% finished" in theirs
    mine = _stats_text((await fake.slash(mover, world.channel, "stats")).message)
    assert "This server: finished 1 of 1 game (100%) · 0 abandoned" in mine, mine
    own = _stats_text((await fake.slash(late, fake.dm_channel(late), "stats")).message)
    assert "Global: finished 0 of 1 game (0%) · 1 abandoned" in own and "This server" not in own, own


async def test_a_table_asking_for_a_share_refuses_a_player_below_it_with_the_reason(
    world: World, bots: TabletopRunner
) -> None:
    """Bob finished 3 of his 6 games (50%), carol 9 of 10 (90%), dave none: a table asking for 80% refuses bob
    (privately, saying why), seats carol, and seats dave, a newcomer (fewer than 5 games are never judged)."""
    fake, bob, carol = world.fake, world.bob, world.carol
    dave = fake.add_user("dave")
    for seeded, finished, abandoned in ((bob.id, 3, 3), (carol.id, 9, 1)):
        await change_stored(bots.target, "INSERT INTO finishing (guild_id, user_id, finished, abandoned)"
                                         " VALUES (0, ?, ?, ?)", (seeded, finished, abandoned))
    await bots.start()
    res = await fake.slash(world.alice, world.channel, "sucker", "new", options={"players": 4, "min_finished": 80})
    lobby = res.message
    assert lobby is not None and res.callback_type == Callback.CHANNEL_MESSAGE, res.errors
    assert "For players who finished at least 80% of their games (or played fewer than 5 games)." in lobby.text()
    join = next(b["custom_id"] for b in lobby.buttons() if b["custom_id"].endswith(":join"))

    refused = await fake.click(bob, lobby, join)
    assert refused.ephemeral and refused.message is not None, refused.errors
    assert refused.message.text() == (
        "This table is for players who finished at least 80% of their games, and you finished 3 of 6 games (50%): "
        "finish more of your games to the end, or join a table that asks less.")
    assert f"<@{bob.id}>" not in lobby.text()
    for user in (carol, dave):
        joined = await fake.click(user, lobby, join)
        assert joined.callback_type == Callback.UPDATE_MESSAGE, joined.errors
    assert f"2. <@{carol.id}>" in lobby.text() and f"3. <@{dave.id}>" in lobby.text()

    # A challenge names its opponent: no share to ask there.
    challenge = await fake.slash(world.alice, world.channel, "chopsticks", "new",
                                 options={"opponent": bob, "min_finished": 50})
    assert challenge.ephemeral and challenge.message is not None
    assert "`min_finished` is for tables others join" in challenge.message.text()

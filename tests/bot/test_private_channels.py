"""Issue 22, bug 11: a game played in a private channel is for those who may view that channel, and its players.

Server "Game Night" has #games, open to all, and #staff, which only the "mods" role may view (Discord's Private
Channel: View Channel denied to @everyone, allowed to the role). Alice and bob (mods) play Chopsticks #1 in #staff;
alice, bob and erin (a mod) play So Long Sucker #2 there, whose table talk has a thread of #staff, and alice and bob
start Chopsticks #3 inside that thread; alice and carol play Chopsticks #4 in #games. Carol, no mod, is shown none of
#staff's games, by /history or /replay, nor by tampering with a posted replay's buttons; erin, a mod who did not play
#1, is; and bob, once no longer a mod, still is shown the games he played. The bot learns the roles and overwrites
from the gateway and the member's roles from each interaction, as it would from Discord (no privileged intent).
"""

from __future__ import annotations

import dataclasses

from tests.bot.test_privacy_across_servers import _button, _finished_chopsticks, _forge
from tests.support.codes import Callback
from tests.support.fakediscord import FakeUser
from tests.support.sucker import open_table, thread_opened
from tests.support.world import TabletopRunner, World


def _listed(text: str) -> set[int]:
    """The game numbers a /history answer lists."""
    return {int(part.split(" ")[0]) for part in text.split(" #")[1:] if part.split(" ")[0].isdigit()}


async def _history_of(world: World, asker: FakeUser, user: FakeUser) -> set[int]:
    res = await world.fake.slash(asker, world.channel, "history", options={"user": user})
    assert res.message is not None and res.ephemeral, res.errors  # what one member may see is not for the channel
    return _listed(res.message.text())


async def test_a_private_channels_games_are_only_for_those_who_see_it_and_their_players(
        world: World, bots: TabletopRunner) -> None:
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    erin = fake.add_user("erin")
    mods = fake.add_role(world.guild, "mods")
    for mod in (alice, bob, erin):
        fake.give_role(world.guild, mod, mods)
    staff = fake.add_private_channel(world.guild, "staff", seen_by=[mods])
    assert not fake.can_view(carol, staff) and fake.can_view(erin, staff)
    bot = await bots.start()

    await _finished_chopsticks(world, staff, alice, bob)  # #1
    status = await open_table(dataclasses.replace(world, channel=staff), [alice, bob, erin])  # #2
    await thread_opened(world, status)
    thread = fake.channels[status.channel_id]  # the table's status is in its thread
    in_thread = await fake.slash(alice, thread, "chopsticks", "challenge", options={"opponent": bob})  # #3
    assert in_thread.message is not None, in_thread.errors
    accepted = await fake.click(bob, in_thread.message, _button(in_thread.message, "Accept"))
    assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
    await _finished_chopsticks(world, world.channel, alice, carol)  # #4
    assert [(await bot.service.info(n)).channel_id for n in (1, 2, 3, 4)] == [staff.id, staff.id, thread.id,
                                                                             world.channel.id]

    # Carol sees #games only: of alice's games, the one in #games (which she played) and nothing of #staff.
    assert await _history_of(world, carol, alice) == {4}
    assert await _history_of(world, carol, bob) == set()
    for game in (1, 2, 3):
        refused = await fake.slash(carol, world.channel, "replay", options={"game": game})
        assert refused.ephemeral and refused.message is not None
        assert f"Game #{game} was played in a channel you cannot see" in refused.message.text()

    # Erin may view #staff (and so its thread): every game of alice's, and each replays for her.
    assert await _history_of(world, erin, alice) == {1, 2, 3, 4}
    for game in (1, 2, 3):
        frame = await fake.slash(erin, world.channel, "replay", options={"game": game})
        assert frame.ephemeral and frame.message is not None and "Replay" in frame.message.text(), frame.errors
    from_thread = await fake.slash(erin, thread, "replay", options={"game": 1})  # asked inside #staff's thread
    assert from_thread.message is not None and "Replay" in from_thread.message.text(), from_thread.errors

    # Bob leaves the mods: #staff is hidden from him now, but the games he played there stay his.
    fake.take_role(world.guild, bob, mods)
    assert not fake.can_view(bob, staff)
    assert await _history_of(world, bob, alice) == {1, 2, 3, 4}
    assert await _history_of(world, bob, erin) == {2}
    mine = await fake.slash(bob, world.channel, "replay", options={"game": 1})
    assert mine.message is not None and "Post publicly" in str(mine.message.buttons()), mine.errors

    # A player posts #1's replay in #games: anyone there steps through it, but a button tampered to lead to
    # another of #staff's games shows nothing of it.
    posted = await fake.click(bob, mine.message, _button(mine.message, "Post publicly"))
    public = posted.message
    assert public is not None and not posted.ephemeral and public in fake.channel_messages(world.channel)
    stepped = await fake.click(carol, public, _button(public, "⏮"))
    assert stepped.callback_type == Callback.UPDATE_MESSAGE and public.content.startswith("Move 0 of 1"), stepped.errors
    shown = public.text()
    _forge(public, "▶", "rp:3:0:n")
    forged = await fake.click(carol, public, "rp:3:0:n")
    assert forged.ephemeral and forged.message is not None and public.text() == shown
    assert "Game #3 was played in a channel you cannot see" in forged.message.text()

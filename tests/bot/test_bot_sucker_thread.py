"""So Long Sucker's table in its thread (issue 23): the status message with the decision controls is in the thread
where the table talks, the channel keeps one summary with a link; every step of a run of computer decisions is told;
a defeat is announced and the defeated pinged, as is the person whose rescue is being decided; at the end the thread
gets the result and is locked and archived; a table's thread can be private to its players; replays tell each step in
words.

Seats follow join order: alice red, bob blue, carol green, then the computer seats."""

from __future__ import annotations

import re

from bot.client import TabletopBot
from bot.games.sucker import board
from bot.i18n import Say
from bot.service.model import Game, present
from games import EndReason
from games.sucker import SuckerState
from storage import GameRecord, Seat
from tests.support.codes import Callback, ChannelType
from tests.support.fakediscord import FakeChannel, FakeMessage, FakeUser, InteractionResult
from tests.support.fakediscord.payloads import PERM_CREATE_PRIVATE_THREADS, PERM_MANAGE_GUILD
from tests.support.interactions import bot_idle
from tests.support.sucker import open_table, put_position, stored, summary, thread_opened
from tests.support.world import TabletopRunner, World, stored_rows

R, B, G = 0, 1, 2


async def table(world: World, bots: TabletopRunner, users: list[FakeUser], computers: int = 0,
                position: SuckerState | None = None,
                options: dict[str, object] | None = None) -> tuple[TabletopBot, FakeMessage, FakeChannel]:
    bot = await bots.start()
    status = await open_table(world, users, bots=computers, options=options)
    await thread_opened(world, status)
    if position is not None:
        await put_position(world, bot, bots.target, position)
    return bot, status, world.fake.channels[status.channel_id]


async def click(world: World, user: FakeUser, message: FakeMessage, label: str) -> InteractionResult:
    res = await world.fake.click(user, message, message.button(label)["custom_id"])
    assert res.callback_type in (Callback.CHANNEL_MESSAGE, Callback.UPDATE_MESSAGE), res.errors
    return res


def thread_message(world: World, thread: FakeChannel, words: str) -> FakeMessage | None:
    return next((m for m in world.fake.channel_messages(thread) if words in m.text()), None)


# ----- where the table is -------------------------------------------------------------------------------------------
async def test_the_decisions_are_made_in_the_thread_and_the_channel_keeps_a_summary(world: World,
                                                                                   bots: TabletopRunner) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    _bot, status, thread = await table(world, bots, [alice, bob, carol])
    assert thread.is_thread and thread.type == ChannelType.PUBLIC_THREAD and thread.parent_id == world.channel.id
    assert any(c.startswith("skr:1:") for c in status.custom_ids())  # the controls are beside the talk
    assert status.content == ""  # drawn in its thread: no "table talk in <#...>" there
    assert {alice.id, bob.id, carol.id} <= thread.member_ids
    shown = summary(world, status)
    await world.fake.wait_until(lambda: f"<#{thread.id}>" in shown.text())  # once the status is in the thread
    assert shown.channel_id == world.channel.id and shown.components == []  # no controls in the channel
    assert "anyone can read along" in shown.text()
    assert "Table #1 is now So Long Sucker #1." in shown.text()  # the lobby's number is the table's, said apart
    edits = shown.edits
    position = SuckerState.from_table(3, holdings=["RRB", "BB", "GG"], piles=["G", "BR"], chain=(R,))
    await put_position(world, _bot, bots.target, position)
    await click(world, alice, status, "Resign")  # a click in the thread is answered there, as any decision
    assert shown.edits == edits  # a decision never edits the summary: one request per decision


async def test_at_the_end_the_thread_gets_the_result_and_is_locked_and_archived(world: World,
                                                                               bots: TabletopRunner) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    _bot, status, thread = await table(world, bots, [alice, bob, carol])
    for user in (bob, carol):
        ask = await click(world, user, status, "Resign")
        assert ask.message is not None
        await click(world, user, ask.message, "Yes, resign")
    await world.fake.wait_until(lambda: thread.archived)
    assert thread.locked and (await stored(bots.target))[0] == "finished"
    ending = next(m for m in world.fake.channel_messages(thread)
                  if any("is over" in str(e.get("title")) for e in m.embeds))
    assert "wins" in ending.text() and ending.pinged == {alice.id, bob.id, carol.id}
    assert ending.message_reference is not None and int(ending.message_reference["message_id"]) == status.id
    shown = summary(world, status)
    assert "So Long Sucker #1 is over" in shown.text() and f"🏆 {alice.mention} (red) wins!" in shown.text()
    assert any(c.startswith("rm:1") for c in shown.custom_ids())  # Rematch is asked for in the channel
    closed = [r for r in world.fake.calls("PATCH", "/channels/{channel_id}") if r.path.endswith(f"/{thread.id}")]
    assert closed and closed[-1].json == {"archived": True, "locked": True}
    # Nothing can start in the closed thread any more: the bot could not post a word of it (found by the fuzzer).
    refused = await world.fake.slash(alice, thread, "chopsticks", "challenge", options={"opponent": bob})
    assert refused.ephemeral and refused.message is not None and "thread is closed" in refused.message.content
    assert await stored_rows(bots.target, "SELECT count(*) FROM games") == [(1,)]


async def test_the_thread_stays_open_while_another_game_is_played_in_it(world: World, bots: TabletopRunner) -> None:
    """A Chopsticks game challenged in the table's thread: closing the thread at the table's end would leave that game
    unable to post its moves and its ending (Discord refuses messages in an archived thread; found by the fuzzer)."""
    alice, bob, carol = world.alice, world.bob, world.carol
    _bot, status, thread = await table(world, bots, [alice, bob, carol])
    challenge = await world.fake.slash(alice, thread, "chopsticks", "challenge", options={"opponent": bob})
    assert challenge.message is not None, challenge.errors
    for user in (bob, carol):
        ask = await click(world, user, status, "Resign")
        assert ask.message is not None
        await click(world, user, ask.message, "Yes, resign")
    await world.fake.wait_until(lambda: any(any("is over" in str(e.get("title")) for e in m.embeds)
                                            for m in world.fake.channel_messages(thread)))
    assert await bot_idle(world.fake)
    assert not thread.archived and not thread.locked
    accepted = await world.fake.click(bob, challenge.message, challenge.message.button("Accept")["custom_id"])
    assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors  # the other game goes on in the thread
    # Its end is the last of the thread's: the thread is closed then, as the table's end would have closed it.
    board = accepted.message
    assert board is not None
    ask = await click(world, bob, board, "Resign")
    assert ask.message is not None
    await click(world, bob, ask.message, "Yes, resign")
    await world.fake.wait_until(lambda: thread.archived and thread.locked)
    endings = [m for m in world.fake.channel_messages(thread)
               if any("is over" in str(e.get("title")) for e in m.embeds)]
    assert len(endings) == 2  # the table's, then the other game's, posted before it closed


# ----- private tables -----------------------------------------------------------------------------------------------
async def test_a_private_table_talks_in_a_private_thread_of_its_players(world: World, bots: TabletopRunner) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    _bot, status, thread = await table(world, bots, [alice, bob, carol], options={"private": True})
    assert thread.type == ChannelType.PRIVATE_THREAD and not thread.invitable
    assert thread.member_ids == {world.fake.bot_user.id, alice.id, bob.id, carol.id}
    shown = summary(world, status)
    await world.fake.wait_until(lambda: f"<#{thread.id}>" in shown.text())
    assert "a thread private to its players" in shown.text()
    greeting = world.fake.channel_messages(thread)[0]
    assert greeting.content.startswith("The table of So Long Sucker #1, private to its players")


async def test_the_server_can_make_every_table_private_and_a_table_can_choose_public(world: World,
                                                                                    bots: TabletopRunner) -> None:
    await bots.start()
    saved = await world.fake.slash(world.alice, world.channel, "settings", "set", permissions=PERM_MANAGE_GUILD,
                                   options={"private_tables": True})
    assert saved.message is not None and "private to the players" in saved.message.text(), saved.errors
    first = await open_table(world, [world.alice, world.bob, world.carol])
    assert world.fake.channels[first.channel_id].type == ChannelType.PRIVATE_THREAD
    second = await open_table(world, [world.bob, world.carol, world.alice], options={"private": False})
    assert world.fake.channels[second.channel_id].type == ChannelType.PUBLIC_THREAD


async def test_without_the_permission_a_private_table_is_refused_with_what_to_do(world: World,
                                                                                 bots: TabletopRunner) -> None:
    world.fake.app_permissions &= ~PERM_CREATE_PRIVATE_THREADS
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "sucker", "new", options={"private": True})
    assert res.ephemeral and res.message is not None
    assert "Create Private Threads" in res.message.content and "`private: False`" in res.message.content
    assert world.guild.threads == []


# ----- defeats and rescues ------------------------------------------------------------------------------------------
async def test_the_stuck_player_is_pinged_and_a_defeat_is_announced_with_a_ping(world: World,
                                                                                bots: TabletopRunner) -> None:
    alice, bob, carol = world.alice, world.bob, world.carol
    # Alice (red) has played on pile 1 and must name blue (the only colour not in it); bob (blue) holds nothing;
    # carol (green) holds a blue prisoner and is asked to rescue him.
    start = SuckerState.from_table(3, holdings=["RR", "", "GB"], piles=["G"], chain=(R,))
    naming = start.apply(R, start.parse_action("play:red:1"))
    _bot, status, thread = await table(world, bots, [alice, bob, carol], position=naming)
    await click(world, alice, status, "Blue moves next")
    plea = f"{bob.mention} (blue), you have the move in So Long Sucker #1 but no chips."
    await world.fake.wait_until(lambda: thread_message(world, thread, plea) is not None)
    asked = thread_message(world, thread, plea)
    assert asked is not None and bob.id in asked.pinged
    assert f"{carol.mention} (green) is asked first whether to rescue you" in asked.content

    await click(world, carol, status, "Decline to rescue")
    out = f"💀 So Long Sucker #1: {carol.mention} (green) declines to rescue {bob.mention} (blue); {bob.mention} " \
          "(blue) is defeated."
    await world.fake.wait_until(lambda: thread_message(world, thread, out) is not None)
    defeat = thread_message(world, thread, out)
    assert defeat is not None and defeat.pinged == frozenset({bob.id})
    assert await bot_idle(world.fake)
    assert [m for m in world.fake.channel_messages(thread) if plea in m.content] == [asked]  # told once


async def test_every_step_of_a_run_of_computer_decisions_is_on_the_table(world: World, bots: TabletopRunner) -> None:
    alice = world.alice
    # Bot 1 (blue) plays on pile 1 and must name Bot 2 (green), who holds nothing; Bot 1, the only holder of a
    # prisoner, declines to rescue: Bot 2 is defeated and the move comes back to Bot 1, who starts a pile and names
    # alice. Its last step alone would hide the defeat.
    state = SuckerState.from_table(3, holdings=["R", "BBBG", ""], piles=["R"], chain=(R, B))
    for text in ("play:blue:1", "next:green", "decline", "play:blue:new", "next:red"):
        state = state.apply(B, state.parse_action(text))
    assert state.defeated == (G,) and state.current_player() == R
    _bot, status, _thread = await table(world, bots, [alice], computers=2, position=state)
    bot1, bot2 = "Bot 1 (blue)", "Bot 2 (green)"
    lines = status.text().splitlines()
    start = lines.index("**Latest steps**")
    assert lines[start + 1:start + 6] == [
        f"• {bot1} plays a blue chip on pile 1.",
        f"• {bot1} names {bot2} to move next.",
        f"• {bot1} declines to rescue {bot2}; {bot2} is defeated.",
        f"• {bot1} starts a new pile with a blue chip.",
        f"• {bot1} names {alice.mention} (red) to move next.",
    ]


# ----- replays in words ---------------------------------------------------------------------------------------------
async def test_a_replay_tells_each_step_in_words(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    people = [world.alice, world.bob, world.carol]
    await open_table(world, people)
    for _ in range(2):  # a chip played, then who moves next named (by the service: the table's tests click)
        _status, state, _log = await stored(bots.target)
        seat = state.current_player()
        assert seat is not None
        await bot.service.act(1, people[seat].id, state.legal_actions(seat)[0].text())
    *_, log = await stored(bots.target)
    assert log[1][2].startswith("next:")
    res = await world.fake.slash(world.carol, world.channel, "replay", options={"game": 1, "move": 2})
    assert res.message is not None, res.errors
    named = re.fullmatch(r"Move 2 of 2: <@(\d+)> \((\w+)\) (names <@\d+> \((\w+)\) to move next|chooses to move "
                         r"again)\.", res.message.content)
    assert named is not None, res.message.content  # not "played `next:blue`"


def test_computer_seats_left_in_share_the_win_on_the_status() -> None:
    # Alice (red) is out; two computer seats are still in when no person is left: they share the win ("wins!" for
    # two names was what the table read).
    state = SuckerState.from_table(3, holdings=["", "B", "G"], chain=(B,), defeated=(R,)).stop(EndReason.NO_PERSON_LEFT)
    seats = (Seat(0, 10**17), Seat(1, None, "basic"), Seat(2, None, "basic"))
    record = GameRecord(
        id=7, kind="sucker", guild_id=1, channel_id=2, message_id=3, status="finished", options={"chips": 7},
        initial_state={}, state=state.to_dict(), version=1, move_count=0, draw_offer=None, turn_timeout=86400.0,
        deadline=None, remind_at=None, created_at=0.0, updated_at=0.0, finished_at=1.0, seats=seats)
    result = present(Game(record, state))
    text = board.status_embed(result.game, result.public, Say("en")).description or ""
    assert "🏆 Bot 1 (blue), Bot 2 (green) share the win." in text and "wins!" not in text


async def test_history_links_the_board_in_the_tables_thread(world: World, bots: TabletopRunner) -> None:
    _bot, status, thread = await table(world, bots, [world.alice, world.bob, world.carol])
    # The summary names the thread once the game's message in it is stored.
    await world.fake.wait_until(lambda: f"<#{thread.id}>" in summary(world, status).text())
    res = await world.fake.slash(world.alice, world.channel, "history")
    assert res.message is not None, res.errors
    assert f"/{thread.id}/{status.id})" in res.message.text()  # not the channel's id: that link would lead nowhere

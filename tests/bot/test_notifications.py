"""Turn notifications and game endings, counted the way players feel them: who was notified, how often, by what.

A notification is a new message that pings someone, or a direct message (an edit notifies nobody); the fake
Discord records whom each new message pinged from its content and its allowed_mentions.
"""

from __future__ import annotations

import json
import random
import re

from bot.client import TabletopBot
from bot.service import GameService, Player
from games.sucker.engine import SuckerState
from games.sucker.narration import Deed
from storage.connection import open_database
from storage.notifications import NotificationStore, TurnPing
from tests.support.boards import move_buttons, player_to_move
from tests.support.clock import AWAY, real_time_clock
from tests.support.fakediscord import FakeMessage
from tests.support.generals import A_GRID, B_GRID, import_grid, move, move_number, settled, to_move
from tests.support.sucker import decide, open_table, stored, thread_opened
from tests.support.world import TabletopRunner, World, stored_rows

_LINK = re.compile(r"https://discord.com/channels/\d+/\d+/(\d+)")


async def _challenge_accepted(world: World, bot: TabletopBot) -> FakeMessage:
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                                 options={"opponent": world.bob})
    assert res.message is not None
    board = res.message
    await world.fake.click(world.bob, board, board.button("Accept")["custom_id"])
    await bot.service.told()
    return board


def _live_pings(world: World) -> list[FakeMessage]:
    return [m for m in world.fake.channel_messages(world.channel) if m.pinged and "your move" in m.content]


async def test_every_decision_notifies_its_person_once_and_the_channel_keeps_one_live_ping(
    world: World, bots: TabletopRunner
) -> None:
    bot = await bots.start()
    clock = real_time_clock(bot.service)
    board = await _challenge_accepted(world, bot)
    users = {world.alice.id: world.alice, world.bob.id: world.bob}
    challenge_pings = {world.alice.id: 0, world.bob.id: 1}  # the challenge mentioned bob
    expected = dict.fromkeys(users, 0)
    first = player_to_move(board)
    assert first is not None
    if first == world.alice.id:  # bob accepted and alice moves first: she is told; bob is looking at the board
        expected[world.alice.id] += 1
    rng = random.Random(3)
    while move_buttons(board):
        mover = player_to_move(board)
        assert mover is not None
        clock.now += AWAY  # each player comes back when pinged (one at the table is not pinged: its own test)
        await world.fake.click(users[mover], board, rng.choice(move_buttons(board))["custom_id"])
        await bot.service.told()
        following = player_to_move(board)
        if following is not None:
            expected[following] += 1
            live = _live_pings(world)
            assert len(live) == 1, "one live turn notification per game"
            assert live[0].pinged == {following} and live[0].content.startswith(f"<@{following}>, it is your move")
            linked = _LINK.search(live[0].content)
            assert linked is not None and int(linked.group(1)) == board.id, "the notification links to the board"
    assert _live_pings(world) == [], "the end of the game retires the last turn notification"
    ending = next(m for m in world.fake.channel_messages(world.channel) if m.embeds and "is over" in m.text())
    for user in users:
        expected[user] += 1  # the ending mentions every player
        assert len(world.fake.notifications(users[user])) - challenge_pings[user] == expected[user]
    assert ending.pinged == set(users) and ending.message_reference is not None
    assert int(ending.message_reference["message_id"]) == board.id, "the ending replies to the board"


async def test_a_computer_seat_is_never_notified_and_its_replies_notify_the_person(
    world: World, bots: TabletopRunner
) -> None:
    bot = await bots.start()
    clock = real_time_clock(bot.service)
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"level": "easy"})
    assert res.message is not None
    board = res.message
    await bot.computer_turns.idle()
    await bot.service.told()
    replies = 0
    while move_buttons(board):
        clock.now += AWAY  # she comes back when pinged (one who plays on at once is not: test_turn_pings_at_the_table)
        await world.fake.click(world.alice, board, move_buttons(board)[0]["custom_id"])
        await bot.computer_turns.idle()
        await bot.service.told()
        replies += bool(move_buttons(board))
    assert bot.user is not None
    assert not any(bot.user.id in m.pinged for m in world.fake.messages.values())
    pings = [m for m in world.fake.notifications(world.alice) if "your move" in m.content]
    # Alice started the game herself, so she is told only after each of the bot's replies.
    assert len(pings) in (replies, replies + 1)


async def test_players_choose_how_they_are_told_and_the_choice_survives_a_restart(
    world: World, bots: TabletopRunner
) -> None:
    bot = await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "notifications", options={"how": "dm"})
    assert res.ephemeral and res.message is not None and "direct message" in res.message.content
    res = await world.fake.slash(world.bob, world.channel, "notifications", options={"how": "off"})
    assert res.ephemeral and res.message is not None and "nothing" in res.message.content
    await bots.stop(bot)
    bot = await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "notifications")
    assert res.message is not None and "a direct message" in res.message.content

    clock = real_time_clock(bot.service)
    board = await _challenge_accepted(world, bot)
    users = {world.alice.id: world.alice, world.bob.id: world.bob}
    for _ in range(4):
        mover = player_to_move(board)
        if mover is None:
            break
        clock.now += AWAY
        await world.fake.click(users[mover], board, move_buttons(board)[0]["custom_id"])
        await bot.service.told()
    alice_dms = [m for m in world.fake.dm_messages(world.alice) if "your move" in m.content]
    assert alice_dms, "alice is told by direct message"
    assert not any(world.alice.id in m.pinged for m in world.fake.channel_messages(world.channel)
                   if "your move" in m.content), "and not by a mention"
    assert not any(world.bob.id in m.pinged and "your move" in m.content for m in world.fake.messages.values())
    assert world.fake.dm_messages(world.bob) == []


async def test_a_lobby_game_that_starts_pings_its_players_once(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "new", options={"players": 3})
    assert res.message is not None
    lobby = res.message
    for user in (world.bob, world.carol):
        await world.fake.click(user, lobby, lobby.button("Join")["custom_id"])
    before = {u.id: len(world.fake.notifications(u)) for u in (world.alice, world.bob, world.carol)}
    await world.fake.click(world.alice, lobby, lobby.button("Start")["custom_id"])
    await bot.service.told()
    start = [m for m in world.fake.channel_messages(world.channel) if "has begun" in m.content]
    assert len(start) == 1 and start[0].pinged == {world.alice.id, world.bob.id, world.carol.id}
    for user in (world.alice, world.bob, world.carol):
        assert len(world.fake.notifications(user)) == before[user.id] + 1


async def test_the_end_of_a_game_says_how_it_went_and_offers_a_rematch_and_a_replay(
    world: World, bots: TabletopRunner
) -> None:
    bot = await bots.start()
    board = await _challenge_accepted(world, bot)
    first = player_to_move(board)
    resigner = world.alice if first == world.alice.id else world.bob
    other = world.bob if resigner is world.alice else world.alice
    await world.fake.click(resigner, board, move_buttons(board)[0]["custom_id"])  # one move: a rated game
    await world.fake.click(resigner, board, board.button("Resign")["custom_id"])
    confirm = next(m for m in world.fake.messages.values() if m.ephemeral and "Resign" in m.content)
    await world.fake.click(resigner, confirm, confirm.button("Yes, resign")["custom_id"])
    await bot.service.told()
    ending = next(m for m in world.fake.channel_messages(world.channel) if m.embeds and "is over" in m.text())
    text = ending.text()
    assert f"<@{resigner.id}> resigned" in text and "resign" not in text.replace("resigned", "")
    assert re.search(rf"<@{other.id}>: 1000 → \d+ \(\+\d+\) \(provisional\)", text), text
    assert re.search(rf"<@{resigner.id}>: 1000 → \d+ \(-\d+\) \(provisional\)", text), text
    assert "1 move in" in text  # moves of play: the resignation is none
    assert [b["label"] for b in ending.buttons()] == ["Rematch", "Replay"]

    replay = await world.fake.click(other, ending, ending.button("Replay")["custom_id"])
    assert replay.ephemeral and replay.message is not None and "move 0 of 1" in replay.message.text()

    outsider = await world.fake.click(world.carol, ending, ending.button("Rematch")["custom_id"])
    assert outsider.ephemeral and outsider.message is not None and "Only the players" in outsider.message.content
    res = await world.fake.click(resigner, ending, ending.button("Rematch")["custom_id"])
    assert res.message is not None and not res.ephemeral
    rematch = res.message
    assert rematch.pinged == {other.id} and "rematch" in rematch.content
    refused = await world.fake.click(resigner, rematch, rematch.button("Accept")["custom_id"])
    assert refused.ephemeral, "the one who asked for the rematch does not accept it"
    await world.fake.click(other, rematch, rematch.button("Accept")["custom_id"])
    await bot.service.told()
    assert player_to_move(rematch) is not None and move_buttons(rematch)


async def test_a_rematch_against_the_bot_is_one_click(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"level": "easy"})
    assert res.message is not None
    board = res.message
    await bot.computer_turns.idle()
    await world.fake.click(world.alice, board, board.button("Resign")["custom_id"])
    confirm = next(m for m in world.fake.messages.values() if m.ephemeral and "Resign" in m.content)
    await world.fake.click(world.alice, confirm, confirm.button("Yes, resign")["custom_id"])
    await bot.service.told()
    ending = next(m for m in world.fake.channel_messages(world.channel) if m.embeds and "is over" in m.text())
    assert "Not rated: games against me are not rated." in ending.text()
    res = await world.fake.click(world.alice, ending, ending.button("Rematch")["custom_id"])
    assert res.message is not None
    await bot.computer_turns.idle()
    assert "Chopsticks #2" in res.message.text() and (move_buttons(res.message) or "thinking" in res.message.text())


async def test_generals_players_are_told_by_their_boards_then_once_per_turn(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    clock = real_time_clock(bot.service)
    fake = world.fake
    res = await fake.slash(world.alice, world.channel, "generals", "challenge", options={"opponent": world.bob})
    assert res.message is not None
    channel_board = res.message
    await fake.click(world.bob, channel_board, "gg:1:accept")
    await fake.wait_until(lambda: bool(fake.dm_messages(world.alice)) and bool(fake.dm_messages(world.bob)))
    a, b = fake.dm_messages(world.alice)[0], fake.dm_messages(world.bob)[0]
    for user, board, grid in ((world.alice, a, A_GRID), (world.bob, b, B_GRID)):
        await import_grid(fake, user, board, grid)
        await fake.click(user, board, "gg:1:ready")
    await fake.wait_until(lambda: to_move(channel_board) is not None)
    await settled(fake, channel_board, a, b)
    await bot.service.told()
    first = to_move(channel_board)
    assert first is not None
    began = [m for m in fake.channel_messages(world.channel) if "both armies are deployed" in m.content]
    # The start of play is announced once; it mentions the first mover unless they are at the table (they just
    # clicked Ready): then their turn notification comes a minute later if they have not moved.
    assert len(began) == 1 and began[0].pinged <= {first}
    # Told so far: bob by the challenge; each by the DM that brings their board; the first mover by the start.
    expected = {world.alice.id: 1, world.bob.id: 2}
    expected[first] += 1
    users = {world.alice.id: (world.alice, a), world.bob.id: (world.bob, b)}
    clock.now += AWAY
    bot.service.timers_changed.set()
    await fake.wait_until(lambda: len(fake.notifications(users[first][0])) == expected[first])
    plans = {world.alice.id: ["a3-a4", "a4-a3", "a3-a4"], world.bob.id: ["e6-e5", "e5-e4", "e4-e3"]}
    while plans[world.bob.id]:
        mover = to_move(channel_board)
        assert mover is not None
        user, board = users[mover]
        before = move_number(channel_board) or 0
        clock.now += AWAY  # each comes back when pinged
        await move(fake, user, board, plans[mover].pop(0))
        await settled(fake, channel_board, a, b, at_least=before + 1)
        await bot.service.told()
        following = to_move(channel_board)
        if following is not None:
            expected[following] += 1
    await fake.wait_until(lambda: "wins" in channel_board.text())
    await bot.service.told()
    ending = next(m for m in fake.channel_messages(world.channel) if m.embeds and "is over" in m.text())
    # Both armies are shown once: on the board, edited at the end, which the ending replies to (not again under it).
    assert "Both armies are revealed" in channel_board.text() and channel_board.attachments
    assert len(ending.embeds) == 1 and not ending.attachments, "the ending repeats the revealed board"
    assert ending.message_reference is not None and int(ending.message_reference["message_id"]) == channel_board.id
    for user in (world.alice, world.bob):
        expected[user.id] += 1  # the ending
        assert len(fake.notifications(user)) == expected[user.id], [m.content for m in fake.notifications(user)]


async def test_so_long_sucker_every_decision_that_passes_notifies_its_person_once(
    world: World, bots: TabletopRunner
) -> None:
    bot = await bots.start()
    clock = real_time_clock(bot.service)
    users = [world.alice, world.bob, world.carol]
    status = await open_table(world, users)
    await thread_opened(world, status)
    rng = random.Random(11)
    for _ in range(400):
        await bot.service.told()
        game_status, state, _log = await stored(bots.target)
        if game_status != "active":
            break
        decider = state.current_player()
        assert decider is not None
        clock.now += AWAY  # each comes back when pinged
        await decide(world, status, users[decider], state, rng)
    await bot.service.told()
    game_status, _final, log = await stored(bots.target)
    assert game_status == "finished"
    # Replay the log: a decision passed to a person (who did not bring it about) each time the decider changed.
    expected = {u.id: 2 for u in users}  # the start of the game, and its end
    position = SuckerState.from_dict(await _initial(bots))
    for seat, actor, text in log:
        before = position.current_player()
        position = position.apply_text(seat, text)
        after = position.current_player()
        if after is not None and after != before and users[after].id != actor:
            expected[users[after].id] += 1
        # The table's own events (bot/games/sucker/presenter.py): a defeat pings the defeated, a rescue being
        # decided pings the person waiting for it.
        view = position.public_view()
        said = view.narration
        if said is not None and view.outcome is None:
            for out in said.defeated:
                expected[users[out].id] += 1
            if view.stuck is not None and not view.declined and said.deed not in (Deed.GIVE, Deed.KILL_PRISONER):
                expected[users[view.stuck].id] += 1
    for person in users:
        told = world.fake.notifications(person)
        assert len(told) == expected[person.id], [m.content for m in told]
    [(live,)] = await stored_rows(bots.target, "SELECT count(*) FROM turn_pings")
    assert live == 0, "no turn notification is left once the game is over"


async def _initial(bots: TabletopRunner) -> dict[str, object]:
    [(initial,)] = await stored_rows(bots.target, "SELECT initial_state FROM games WHERE id = 1")
    loaded: dict[str, object] = json.loads(initial)
    return loaded


async def test_a_decision_reads_its_decider_s_last_move_and_the_live_notification_together(
        database_target: str) -> None:
    """What a decision's notification needs from the database (is its person at the table, which notification does it
    replace) is one read: the person's last move in the game, and the game's live turn notification."""
    db = await open_database(database_target)
    try:
        service = GameService(db)
        game = (await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(1), Player(2)])).game
        mover = game.user_at(game.to_decide) if game.to_decide is not None else None
        assert mover is not None
        other = 3 - mover
        store = NotificationStore(db)
        assert await store.last_move_and_live_ping(game.id, mover) == (None, None)
        moved = await service.act(game.id, mover, "AC")
        ping = TurnPing(game.id, other, 20, 30)
        await store.set_live_ping(ping, 5.0)
        assert await store.last_move_and_live_ping(game.id, mover) == (moved.game.updated_at, ping)
        assert await store.last_move_and_live_ping(game.id, other) == (None, ping)
        await store.forget_live_ping(game.id)
        assert await store.last_move_and_live_ping(game.id, mover) == (moved.game.updated_at, None)
    finally:
        await db.close()

"""Tournaments in Discord, through the real bot and the offline Discord, on both databases: made by an organiser,
entered from its announcement, its rounds' games posted and played, one standings message edited, the podium."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from bot.service import GameService
from storage.connection import open_database
from storage.leases import round_post_key
from tests.support.boards import player_to_move
from tests.support.chopsticks import accepted_game
from tests.support.codes import Callback, InteractionType
from tests.support.fakediscord import FakeChannel, FakeMessage, FakeUser
from tests.support.fakediscord.payloads import PERM_MANAGE_GUILD
from tests.support.interactions import BUTTON, bot_idle, carrier, raw_interaction
from tests.support.world import TabletopRunner, World, change_stored, stored_rows


def _button(message: FakeMessage, label: str) -> str:
    return str(next(b["custom_id"] for b in message.buttons() if b["label"] == label))


async def _announce(world: World, **options: object) -> FakeMessage:
    res = await world.fake.slash(world.alice, world.channel, "tournament", "new", permissions=PERM_MANAGE_GUILD,
                                 options={"game": "chopsticks", "format": "swiss", **options})
    assert res.callback_type == Callback.CHANNEL_MESSAGE and res.message is not None, res.errors
    return res.message


async def _round_boards(world: World, bots: TabletopRunner, number: int, count: int) -> list[FakeMessage]:
    """The boards of round `number`'s games, once the bot has posted them all."""
    query = ("SELECT g.message_id FROM tournament_pairings p JOIN games g ON g.id = p.game_id WHERE p.round = ? "
             "ORDER BY p.position")
    for _ in range(200):
        rows = await stored_rows(bots.target, query, (number,))
        if len(rows) == count and all(row[0] is not None for row in rows):
            return [world.fake.message(int(row[0])) for row in rows]
        await asyncio.sleep(0.05)
    raise AssertionError(f"round {number}'s boards were not posted")


async def _resign_to_move(world: World, board: FakeMessage, users: dict[int, FakeUser]) -> int:
    """The player to move resigns; the winner's id."""
    mover = next(u for u in users if f"▶ <@{u}>" in board.text())
    ask = await world.fake.click(users[mover], board, _button(board, "Resign"))
    assert ask.message is not None, ask.errors
    await world.fake.click(users[mover], ask.message, ask.message.buttons()[0]["custom_id"])
    await world.fake.wait_until(lambda: "resigned" in board.text())
    return next(u for u in users if u != mover and f"<@{u}>" in board.text())


def _edited(message: FakeMessage, edits: int) -> Callable[[], bool]:
    return lambda: message.edits >= edits


def _noticed(world: World, users: set[int | None], where: FakeChannel) -> Callable[[], bool]:
    """Whether each of `users` got a turn notification in `where` (the notices of their new games)."""
    return lambda: users <= {p for m in world.fake.channel_messages(where) if "it is your move" in m.content
                             for p in m.pinged}


def _thread_of(world: World, boards: list[FakeMessage]) -> FakeChannel:
    """The thread the round's `boards` are in (all in one), opened from the round's pairings message in the
    tournament's channel."""
    [thread_id] = {board.channel_id for board in boards}
    thread = world.fake.channels[thread_id]
    assert thread.is_thread and thread.parent_id == world.channel.id
    assert world.fake.messages[thread_id].channel_id == world.channel.id  # opened from a message of the channel
    return thread


async def _joined_by_two_then_stopped(world: World, bots: TabletopRunner) -> FakeMessage:
    """A tournament of one round announced, joined by alice and bob, then the bot stopped: its announcement."""
    bot = await bots.start()
    announcement = await _announce(world, rounds=1)
    for user in (world.alice, world.bob):
        await world.fake.click(user, announcement, _button(announcement, "Join"))
    await bots.stop(bot)
    return announcement


async def _started_by_a_process_that_stops(bots: TabletopRunner, organiser: int) -> None:
    """Tournament 1 started by `organiser` in a process that makes its first round and stops before posting any of it
    (the service alone, no Discord part)."""
    db = await open_database(bots.target)
    try:
        service = GameService(db)
        await service.tournaments.start(1, organiser)
        await service.tournaments.told()
    finally:
        await db.close()


async def test_a_restart_redraws_the_boards_in_view_before_it_waits_for_a_round_another_process_posts(
        world: World, bots: TabletopRunner) -> None:
    """Start-up waits for a round left unposted while another process holds its posting (one starting at the same
    time, or one stopped with its lease still running); the boards players already see are redrawn first."""
    fake, alice, bob = world.fake, world.alice, world.bob
    bot = await bots.start()
    board = await accepted_game(world)  # Chopsticks #1, outside the tournament
    announcement = await _announce(world, rounds=1)
    for user in (alice, bob):
        await fake.click(user, announcement, _button(announcement, "Join"))
    await bots.stop(bot)
    await _started_by_a_process_that_stops(bots, alice.id)  # tournament 1's round 1, not posted
    mover = player_to_move(board)
    assert mover is not None
    db = await open_database(bots.target)
    try:
        elsewhere = GameService(db)  # another process: it moved in Chopsticks #1, and is posting the round
        await elsewhere.act(1, mover, "AC")
        key = round_post_key(1, 1)
        assert await elsewhere.hold(key) is not None
        await bots.start()
        await fake.wait_until(lambda: player_to_move(board) not in (None, mover), timeout=5)  # redrawn at once
        assert _pairings_posts(world, 1) == []  # while the round waits for the other process
        await elsewhere.let_go_of(key)  # it stopped (or its lease lapsed) before posting anything
        await _round_boards(world, bots, 1, 1)
        assert len(_pairings_posts(world, 1)) == 1
    finally:
        await db.close()


async def test_a_swiss_of_chopsticks_runs_to_its_podium(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    dave = fake.add_user("dave")
    users = {u.id: u for u in (alice, bob, carol, dave)}
    announcement = await _announce(world, rounds=3, min_players=4)
    assert "Tournament #1: Chopsticks" in announcement.text() and "Swiss" in announcement.text()
    assert "3 rounds." in announcement.text()
    for user in users.values():
        joined = await fake.click(user, announcement, _button(announcement, "Join"))
        assert joined.callback_type == Callback.UPDATE_MESSAGE, joined.errors
    assert "Players (4; 4 to 64)" in announcement.text() and f"4. <@{dave.id}>" in announcement.text()

    refused = await fake.click(bob, announcement, _button(announcement, "Start"))
    assert refused.ephemeral and refused.message is not None
    assert "Only the tournament's organiser" in refused.message.content
    started = await fake.click(alice, announcement, _button(announcement, "Start"))
    assert started.callback_type == Callback.UPDATE_MESSAGE, started.errors

    wins: dict[int, int] = dict.fromkeys(users, 0)
    standings: FakeMessage | None = None
    for number in (1, 2, 3):
        boards = await _round_boards(world, bots, number, 2)
        pairings = next(m for m in fake.channel_messages(world.channel)
                        if f"round {number} of 3" in m.content)
        # The round's boards are in its own thread, opened from its pairings message and named after the round;
        # their turn notices go there too.
        thread = _thread_of(world, boards)
        assert thread.id == pairings.id and thread.name == f"Tournament #1: Chopsticks · Round {number}"
        # Typed in the round's thread, a command without `tournament:` means this tournament.
        asked = await fake.slash(bob, thread, "tournament", "pairings", options={"round": number})
        assert asked.ephemeral and asked.message is not None and "Chopsticks #" in asked.message.content, asked.errors
        # Each player is pinged once this round: the first to move by the game's turn notification, the others by
        # the pairings; the boards themselves ping nobody.
        first = {player_to_move(board) for board in boards}
        assert len(first) == 2
        await fake.wait_until(_noticed(world, first, thread))
        assert pairings.pinged == set(users) - first, pairings.pinged
        assert all(not board.pinged for board in boards)
        table = next(m for m in fake.channel_messages(world.channel) if m.embeds
                     and "Standings" in str(m.embeds[0].get("title")))
        assert standings is None or table is standings  # the same message all along
        standings, edits = table, table.edits
        for board in boards:
            wins[await _resign_to_move(world, board, users)] += 1
        # Edited after each result (and once more as the next round starts).
        await fake.wait_until(_edited(table, edits + 2))
    await fake.wait_until(lambda: any("🥇" in m.content for m in fake.channel_messages(world.channel)))
    podium = next(m for m in fake.channel_messages(world.channel) if "🥇" in m.content)
    best = max(wins.values())
    assert best >= 2 and "is over" in podium.content and "🥈" in podium.content
    assert any(f"🥇 <@{u}>: {best} points" in podium.content for u, w in wins.items() if w == best), podium.content
    assert standings is not None and "After 3 of 3 rounds" in standings.text()
    await fake.wait_until(lambda: "Finished." in announcement.text() and announcement.buttons() == [])
    assert len([m for m in fake.channel_messages(world.channel) if m.embeds
                and "Standings" in str(m.embeds[0].get("title"))]) == 1  # one standings message, edited
    [(status,)] = await stored_rows(bots.target, "SELECT status FROM tournaments")
    assert status == "finished"


async def test_a_join_below_the_share_of_finished_games_is_refused(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    await change_stored(bots.target, "INSERT INTO finishing (guild_id, user_id, finished, abandoned)"
                                     " VALUES (0, ?, 3, 3)", (world.bob.id,))
    announcement = await _announce(world, min_finished=80)
    assert "at least 80%" in announcement.text()
    refused = await world.fake.click(world.bob, announcement, _button(announcement, "Join"))
    assert refused.ephemeral and refused.message is not None
    assert "at least 80%" in refused.message.content and "3 of 6" in refused.message.content
    joined = await world.fake.click(world.carol, announcement, _button(announcement, "Join"))  # no record: welcome
    assert joined.callback_type == Callback.UPDATE_MESSAGE and f"<@{world.carol.id}>" in announcement.text()
    assert f"<@{world.bob.id}>" not in announcement.text()
    # Remove player: a menu of the server's members, for the organiser only.
    remove = next(c for c in announcement.custom_ids() if c.endswith(":remove"))
    refused = await world.fake.select_users(world.bob, announcement, remove, [world.carol])
    assert refused.ephemeral and refused.message is not None and "organiser" in refused.message.content
    removed = await world.fake.select_users(world.alice, announcement, remove, [world.carol])
    assert removed.callback_type == Callback.UPDATE_MESSAGE, removed.errors
    assert f"<@{world.carol.id}>" not in announcement.text() and "Players (0;" in announcement.text()


async def test_only_managers_make_a_tournament(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    res = await world.fake.slash(world.bob, world.channel, "tournament", "new",
                                 options={"game": "chopsticks", "format": "swiss"})
    assert res.ephemeral and res.message is not None and "Manage Server" in res.message.content
    wrong = await world.fake.slash(world.alice, world.channel, "tournament", "new", permissions=PERM_MANAGE_GUILD,
                                   options={"game": "chopsticks", "format": "tables"})
    assert wrong.ephemeral and wrong.message is not None and "does not fit" in wrong.message.content
    # The game's rules as its lobby words them, variants included; a variant the game lacks is refused.
    plain = await _announce(world)
    cutoff = await _announce(world, variants="cutoff")
    assert "2 hands each" in plain.text() and "2 hands each" in cutoff.text()
    assert plain.text().replace("#1", "#2") != cutoff.text()
    # The usual rules in one line (and where the rest are told); a variant's rules in full, as its lobby says them.
    assert "Otherwise the usual rules: /chopsticks rules." in plain.text()
    assert "You win when every opponent is out." not in plain.text()
    assert "You win when every opponent is out." in cutoff.text() and "Otherwise the usual" not in cutoff.text()
    bad = await world.fake.slash(world.alice, world.channel, "tournament", "new", permissions=PERM_MANAGE_GUILD,
                                 options={"game": "chopsticks", "format": "swiss", "variants": "nonsense"})
    assert bad.ephemeral and bad.message is not None and "nonsense" in bad.message.content, bad.errors


async def _sucker_tables_started(world: World, bots: TabletopRunner) -> tuple[FakeMessage, FakeMessage, FakeUser]:
    """A So Long Sucker tables tournament joined by four (Alice, Bob, Carol, Dave) and started: its announcement,
    its one table's status message, and Dave."""
    await bots.start()
    fake = world.fake
    dave = fake.add_user("dave")
    res = await fake.slash(world.alice, world.channel, "tournament", "new", permissions=PERM_MANAGE_GUILD,
                           options={"game": "sucker", "format": "tables", "min_players": 4})
    announcement = res.message
    assert announcement is not None and "So Long Sucker tables" in announcement.text(), res.errors
    assert "So Long Sucker for up to 5 players" in announcement.text()  # its tables seat 3 to 5
    for user in (world.alice, world.bob, world.carol, dave):
        await fake.click(user, announcement, _button(announcement, "Join"))
    started = await fake.click(world.alice, announcement, _button(announcement, "Start"))
    assert started.callback_type == Callback.UPDATE_MESSAGE, started.errors
    [table] = await _round_boards(world, bots, 1, 1)
    return announcement, table, dave


async def test_a_so_long_sucker_tables_round_starts_its_table(world: World, bots: TabletopRunner) -> None:
    fake = world.fake
    announcement, table, dave = await _sucker_tables_started(world, bots)
    pairings = next(m for m in fake.channel_messages(world.channel) if "round 1 of" in m.content)
    assert "So Long Sucker #1" in pairings.content and len(pairings.pinged) == 3  # the first to decide: by its notice
    assert "Pause" in {b["label"] for b in announcement.buttons()} and table.text()
    # The table plays in a public thread of its own, as a lobby's table does: its players in it, greeted, its status
    # message there with its controls, and the first decider's turn notice.
    thread = fake.channels[table.channel_id]
    assert thread.is_thread and thread.parent_id == world.channel.id and thread.name == "So Long Sucker #1"
    assert {world.alice.id, world.bob.id, world.carol.id, dave.id} <= thread.member_ids
    assert "negotiate, promise and betray here" in fake.channel_messages(thread)[0].content
    await fake.wait_until(lambda: bool(table.buttons()))  # its controls come with the drawing that follows
    assert [c.id for c in _threads(world)] == [thread.id]
    first = {world.alice.id, world.bob.id, world.carol.id, dave.id} - pairings.pinged
    await fake.wait_until(_noticed(world, set(first), thread))


async def test_the_buttons_and_the_standings_survive_a_restart(world: World, bots: TabletopRunner) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    announcement = await _joined_by_two_then_stopped(world, bots)
    await bots.start()  # a new process: the announcement's buttons are answered by their custom ids
    started = await fake.click(alice, announcement, _button(announcement, "Start"))
    assert started.callback_type == Callback.UPDATE_MESSAGE and "round 1 of 1" in announcement.text(), started.errors
    [board] = await _round_boards(world, bots, 1, 1)
    await fake.wait_until(lambda: any(m.embeds and "Standings" in str(m.embeds[0].get("title"))
                                      for m in fake.channel_messages(world.channel)))
    [standings] = [m for m in fake.channel_messages(world.channel)
                   if m.embeds and "Standings" in str(m.embeds[0].get("title"))]
    await bots.stop_all()
    await bots.start()  # the result comes after a restart: the stored standings message is the one edited
    winner = await _resign_to_move(world, board, {alice.id: alice, bob.id: bob})
    await fake.wait_until(lambda: any("🥇" in m.content for m in fake.channel_messages(world.channel)))
    assert f"**1.** <@{winner}>: **1**" in standings.text()
    assert len([m for m in fake.channel_messages(world.channel)
                if m.embeds and "Standings" in str(m.embeds[0].get("title"))]) == 1
    await fake.wait_until(lambda: "Finished." in announcement.text())


async def test_a_tournament_game_ends_with_replay_but_no_rematch(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake, alice, bob = world.fake, world.alice, world.bob
    announcement = await _announce(world, rounds=1)
    for user in (alice, bob):
        await fake.click(user, announcement, _button(announcement, "Join"))
    await fake.click(alice, announcement, _button(announcement, "Start"))
    [board] = await _round_boards(world, bots, 1, 1)
    await _resign_to_move(world, board, {alice.id: alice, bob.id: bob})
    thread = _thread_of(world, [board])  # the game's ending goes where its board is: its round's thread

    def ending() -> FakeMessage | None:
        return next((m for m in fake.channel_messages(thread)
                     if m.embeds and "Chopsticks #1 is over" in str(m.embeds[0].get("title"))), None)

    await fake.wait_until(lambda: ending() is not None)
    over = ending()
    assert over is not None and "A game of round 1 of tournament #1." in over.text()
    assert [b["label"] for b in over.buttons()] == ["Replay"]  # the tournament decides who plays whom
    # A Rematch clicked anyway (on an older message) is refused: the new game would carry the tournament.
    old = carrier(fake, thread, "rm:1", BUTTON)
    res = await raw_interaction(fake, InteractionType.MESSAGE_COMPONENT, alice, thread,
                                {"custom_id": "rm:1", "component_type": BUTTON}, source=old)
    assert res.message is not None and res.message.ephemeral, res.errors
    assert "Tournament #1 decides who plays whom" in res.message.content
    assert await stored_rows(bots.target, "SELECT count(*) FROM games") == [(1,)]


async def test_commands_a_bye_a_withdrawal_pause_resume_and_cancel(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    announcement = await _announce(world, rounds=2)
    for user in (alice, bob, carol):
        await fake.click(user, announcement, _button(announcement, "Join"))
    early = await fake.slash(bob, world.channel, "tournament", "pairings", options={"round": 1})
    assert early.ephemeral and early.message is not None and "has not started" in early.message.content
    await fake.click(alice, announcement, _button(announcement, "Start"))
    await _round_boards(world, bots, 1, 1)  # three players: one game and a bye
    pairings = await fake.slash(carol, world.channel, "tournament", "pairings", options={"round": 1})
    assert pairings.ephemeral and pairings.message is not None, pairings.errors
    assert "has a bye this round" in pairings.message.content and "Chopsticks #1" in pairings.message.content

    paused = await fake.click(alice, announcement, _button(announcement, "Pause"))
    assert paused.callback_type == Callback.UPDATE_MESSAGE and "Paused by the organiser" in announcement.text()
    refused = await fake.click(bob, announcement, _button(announcement, "Resume"))
    assert refused.ephemeral and refused.message is not None and "organiser" in refused.message.content
    await fake.click(alice, announcement, _button(announcement, "Resume"))
    assert "round 1 of 2" in announcement.text()

    left = await fake.slash(carol, world.channel, "tournament", "leave")
    assert left.ephemeral and left.message is not None and "You left tournament #1" in left.message.content
    await fake.wait_until(lambda: f"3. <@{carol.id}> (withdrawn)" in announcement.text())
    standings = await fake.slash(bob, world.channel, "tournament", "standings", options={"tournament": 1})
    assert standings.ephemeral and standings.message is not None
    assert f"<@{carol.id}>" in standings.message.text() and "withdrawn" in standings.message.text()

    cancelled = await fake.click(alice, announcement, _button(announcement, "Cancel"))
    assert cancelled.callback_type == Callback.UPDATE_MESSAGE and announcement.buttons() == []
    assert "The organiser cancelled this tournament." in announcement.text()
    nothing = await fake.slash(alice, world.channel, "tournament", "standings", options={"tournament": 7})
    assert nothing.ephemeral and nothing.message is not None and "no tournament #7" in nothing.message.content


async def test_a_round_robin_of_three_gives_a_bye_that_scores_nothing(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake = world.fake
    announcement = await _announce(world, format="round-robin")
    for user in (world.alice, world.bob, world.carol):
        await fake.click(user, announcement, _button(announcement, "Join"))
    await fake.click(world.alice, announcement, _button(announcement, "Start"))
    await _round_boards(world, bots, 1, 1)
    pairings = next(m for m in fake.channel_messages(world.channel) if "round 1 of 3" in m.content)
    assert "has a bye this round (no opponent): it scores nothing." in pairings.content, pairings.content


async def test_the_organisers_role_set_in_settings_may_run_tournaments(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    fake, bob = world.fake, world.bob
    role = fake.add_role(world.guild, "Tournament directors")
    fake.give_role(world.guild, bob, role)
    options = {"game": "chopsticks", "format": "swiss"}
    before = await fake.slash(bob, world.channel, "tournament", "new", options=options)
    assert before.ephemeral and before.message is not None and "Manage Server" in before.message.content
    saved = await fake.slash(world.alice, world.channel, "settings", "set", permissions=PERM_MANAGE_GUILD,
                             options={"organiser_role": role})
    assert saved.message is not None and f"<@&{role.id}>" in saved.message.text(), saved.errors
    made = await fake.slash(bob, world.channel, "tournament", "new", options=options)
    assert made.callback_type == Callback.CHANNEL_MESSAGE and made.message is not None, made.errors
    await fake.slash(world.alice, world.channel, "settings", "set", permissions=PERM_MANAGE_GUILD,
                     options={"no_organiser_role": True})
    again = await fake.slash(bob, world.channel, "tournament", "new", options=options)
    assert again.ephemeral and again.message is not None and "Manage Server" in again.message.content


async def test_a_table_posted_by_a_process_that_stopped_before_storing_its_status_is_not_posted_twice(
        world: World, bots: TabletopRunner) -> None:
    """Its thread was opened (and stored at once), its players added, greeted and its status message posted, and the
    process stopped before storing that message: the restart posts into the same thread, and Discord returns the
    greeting and the status posted first (their nonces)."""
    fake = world.fake
    _announcement, table, _dave = await _sucker_tables_started(world, bots)
    thread = fake.channels[table.channel_id]
    await fake.wait_until(lambda: bool(table.buttons()) and any(
        "it is your move" in m.content for m in fake.channel_messages(thread)))  # drawn, and its first decider told
    posted = list(fake.channel_messages(thread))
    await bots.stop_all()
    await change_stored(bots.target, "UPDATE games SET message_id = NULL")
    await bots.start()
    assert await _round_boards(world, bots, 1, 1) == [table]  # the status posted first, returned by Discord
    assert _threads(world) == [thread]  # no second thread
    assert await bot_idle(fake)
    def told(messages: list[FakeMessage]) -> list[int]:
        """The greeting and the status: not the turn notice, which a game posted anew sends again (this test stored
        no message after the notice had gone; a stopped process never sent it, since it follows the storing)."""
        return [m.id for m in messages if "it is your move" not in m.content]

    now = fake.channel_messages(thread)
    assert told(now) == told(posted) and len(now) == len(posted)  # no second greeting, status or notice
    assert await stored_rows(bots.target, "SELECT message_id, thread_id FROM games") == [(table.id, thread.id)]
    assert table.buttons()


def _threads(world: World) -> list[FakeChannel]:
    return [c for c in world.fake.channels.values() if c.parent_id == world.channel.id]


def _pairings_posts(world: World, number: int) -> list[FakeMessage]:
    return [m for m in world.fake.channel_messages(world.channel) if f"round {number} of" in m.content]


async def test_a_round_made_by_a_process_that_stopped_before_posting_it_is_posted_once(
        world: World, bots: TabletopRunner) -> None:
    fake, alice, bob = world.fake, world.alice, world.bob
    await _joined_by_two_then_stopped(world, bots)
    # The round is made and committed by a process that stops before it posts anything (no Discord part at all).
    await _started_by_a_process_that_stops(bots, alice.id)
    assert await stored_rows(bots.target, "SELECT message_id, thread_id FROM tournament_rounds") == [(None, None)]
    await bots.start()  # start-up posts it: its pairings, its thread, its board, each player pinged once
    [board] = await _round_boards(world, bots, 1, 1)
    thread = _thread_of(world, [board])
    [pairings] = _pairings_posts(world, 1)
    first = player_to_move(board)
    await fake.wait_until(_noticed(world, {first}, thread))
    assert pairings.pinged == {alice.id, bob.id} - {first} and thread.id == pairings.id
    assert await stored_rows(bots.target, "SELECT message_id, thread_id FROM tournament_rounds") == [
        (pairings.id, thread.id)]
    await bots.stop_all()
    await bots.start()  # posted once: a restart posts nothing again
    await bots.stop_all()
    assert len(_pairings_posts(world, 1)) == 1 and _threads(world) == [thread]
    assert [m for m in fake.channel_messages(thread) if m.embeds and "Chopsticks #1" in str(m.embeds)] == [board]


async def _four_started(world: World, bots: TabletopRunner) -> tuple[list[FakeMessage], FakeChannel]:
    """A tournament of one round joined by four and started: its first round's two boards and their thread."""
    await bots.start()
    announcement = await _announce(world, rounds=1)
    for user in (world.alice, world.bob, world.carol, world.fake.add_user("dave")):
        await world.fake.click(user, announcement, _button(announcement, "Join"))
    await world.fake.click(world.alice, announcement, _button(announcement, "Start"))
    first = await _round_boards(world, bots, 1, 2)
    return first, _thread_of(world, first)


async def test_a_round_thread_opened_by_a_process_that_stopped_is_reused(world: World, bots: TabletopRunner) -> None:
    fake = world.fake
    first, thread = await _four_started(world, bots)
    await bots.stop_all()
    # As if the process had stopped right after opening the thread: neither the thread nor the boards stored.
    await change_stored(bots.target, "UPDATE tournament_rounds SET thread_id = NULL")
    await change_stored(bots.target, "UPDATE games SET message_id = NULL, channel_id = ?", (world.channel.id,))
    await bots.start()
    again = await _round_boards(world, bots, 1, 2)
    # Posted again with the same nonce, each board is the one posted first (Discord returns it): no second copy.
    assert [m.id for m in again] == [m.id for m in first]
    assert _thread_of(world, again) == thread and _threads(world) == [thread]  # the same thread, not a second one
    assert len(_pairings_posts(world, 1)) == 1
    assert [m for m in fake.channel_messages(thread) if m.embeds and "Chopsticks #" in str(m.embeds)] == first
    assert await stored_rows(bots.target, "SELECT thread_id FROM tournament_rounds") == [(thread.id,)]


async def test_a_round_posted_by_a_process_that_stopped_before_storing_any_of_it_is_not_posted_twice(
        world: World, bots: TabletopRunner) -> None:
    """Its pairings message, its standings and its boards were posted, and nothing of them stored: the restart posts
    them again with the same nonces and Discord returns the messages posted first, which are stored."""
    fake = world.fake
    first, thread = await _four_started(world, bots)
    [pairings] = _pairings_posts(world, 1)
    def standings_posts() -> list[FakeMessage]:
        return [m for m in fake.channel_messages(world.channel) if "Standings" in str(m.embeds)]

    await fake.wait_until(lambda: bool(standings_posts()))  # posted by the same task as the boards, a moment apart
    standings = standings_posts()
    assert len(standings) == 1
    await bots.stop_all()
    await change_stored(bots.target, "UPDATE tournament_rounds SET message_id = NULL, thread_id = NULL")
    await change_stored(bots.target, "UPDATE games SET message_id = NULL, channel_id = ?", (world.channel.id,))
    await change_stored(bots.target, "DELETE FROM bot_state WHERE key LIKE 'tournament:%:standings'")
    # Meanwhile the first game moved on (as by a click on its board, which plays though unstored): the board Discord
    # returns shows the older position, and is drawn again.
    mover = player_to_move(first[0])
    assert mover is not None
    db = await open_database(bots.target)
    try:
        [(game_id,), _] = await stored_rows(
            bots.target, "SELECT game_id FROM tournament_pairings WHERE round = 1 ORDER BY position")
        await GameService(db).act(int(game_id), mover, "AC")
    finally:
        await db.close()
    shown_before = first[0].text()
    await bots.start()
    again = await _round_boards(world, bots, 1, 2)
    assert [m.id for m in again] == [m.id for m in first] and _threads(world) == [thread]
    await world.fake.wait_until(lambda: player_to_move(first[0]) not in (None, mover))
    assert first[0].text() != shown_before
    assert _pairings_posts(world, 1) == [pairings]
    assert await stored_rows(bots.target, "SELECT message_id, thread_id FROM tournament_rounds") == [
        (pairings.id, thread.id)]
    assert await bot_idle(fake)
    assert standings_posts() == standings


async def _started_without_leave_to_open_threads(world: World, bots: TabletopRunner, rounds: int) -> FakeMessage:
    """A tournament of Alice and Bob started where I may not open a thread (403): its first round's one board."""
    await bots.start()
    fake = world.fake
    fake.inject_rest_fault("POST", "/channels/{channel_id}/messages/{message_id}/threads", status=403)
    announcement = await _announce(world, rounds=rounds)
    for user in (world.alice, world.bob):
        await fake.click(user, announcement, _button(announcement, "Join"))
    await fake.click(world.alice, announcement, _button(announcement, "Start"))
    [board] = await _round_boards(world, bots, 1, 1)
    return board


async def test_without_leave_to_open_a_thread_a_round_is_played_in_the_channel(
        world: World, bots: TabletopRunner) -> None:
    fake = world.fake
    board = await _started_without_leave_to_open_threads(world, bots, rounds=2)
    assert board.channel_id == world.channel.id and _threads(world) == []
    said = [m for m in fake.channel_messages(world.channel) if "could not open a thread for round 1" in m.content]
    assert len(said) == 1 and "Create Public Threads" in said[0].content and not said[0].pinged
    await fake.wait_until(_noticed(world, {player_to_move(board)}, world.channel))
    # The next round, allowed again, has its thread.
    await _resign_to_move(world, board, {world.alice.id: world.alice, world.bob.id: world.bob})
    [second] = await _round_boards(world, bots, 2, 1)
    assert _thread_of(world, [second]).name == "Tournament #1: Chopsticks · Round 2"
    assert len([m for m in fake.channel_messages(world.channel) if "could not open a thread" in m.content]) == 1


async def test_the_notice_that_a_round_plays_in_the_channel_is_given_once_even_after_a_stop(
        world: World, bots: TabletopRunner) -> None:
    """A process that stored the round's place (the channel: no thread could be opened) and stopped before saying so:
    whoever posts the round's boards says it, once."""
    fake = world.fake
    board = await _started_without_leave_to_open_threads(world, bots, rounds=1)

    def notices() -> list[FakeMessage]:
        return [m for m in fake.channel_messages(world.channel) if "could not open a thread for round 1" in m.content]

    [said] = notices()
    for notice_sent in (False, True):  # stopped before the notice, then after it (both before the board was stored)
        await bots.stop_all()
        if not notice_sent:
            fake.delete_message(said)
        await change_stored(bots.target, "UPDATE games SET message_id = NULL")
        await bots.start()
        assert await _round_boards(world, bots, 1, 1) == [board]  # returned by Discord (its nonce): no second copy
        assert await bot_idle(fake)
        told = notices()
        assert len(told) == 1 and "Create Public Threads" in told[0].content and not told[0].pinged
        assert (told[0] == said) == notice_sent  # said anew when it was not; returned by Discord when it was
        said = told[0]


async def test_two_processes_starting_together_post_a_round_once(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    fake = world.fake
    dave = fake.add_user("dave")
    announcement = await _announce(world, rounds=1)
    for user in (world.alice, world.bob, world.carol, dave):
        await fake.click(user, announcement, _button(announcement, "Join"))
    await bots.stop(bot)
    await _started_by_a_process_that_stops(bots, world.alice.id)
    others = TabletopRunner(fake, bots.database, url=bots.url)
    try:
        await asyncio.gather(bots.start(), others.start())  # both look for rounds left unposted as they start
        boards = await _round_boards(world, bots, 1, 2)
        thread = _thread_of(world, boards)
        await fake.wait_until(_noticed(world, {player_to_move(b) for b in boards}, thread))
        assert len(_pairings_posts(world, 1)) == 1 and _threads(world) == [thread]
        assert len([m for m in fake.channel_messages(thread) if m.embeds and "Chopsticks #" in str(m.embeds)]) == 2
        notices = [m for m in fake.channel_messages(thread) if "it is your move" in m.content]
        assert len(notices) == 2, [m.content for m in notices]  # each first mover told once
    finally:
        await others.stop_all()


async def test_a_running_process_posts_a_round_another_process_made_and_never_posted(
        world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    cog: Any = bot.get_cog("Tournament")
    cog.sweep_every = 0.3  # it looks every minute; here every 0.3 s
    fake = world.fake
    announcement = await _announce(world, rounds=1)
    for user in (world.alice, world.bob):
        await fake.click(user, announcement, _button(announcement, "Join"))
    await _started_by_a_process_that_stops(bots, world.alice.id)
    [board] = await _round_boards(world, bots, 1, 1)  # the running process posts it, without a restart
    thread = _thread_of(world, [board])
    await fake.wait_until(_noticed(world, {player_to_move(board)}, thread))
    await asyncio.sleep(1.0)  # more sweeps: nothing posted twice
    assert len(_pairings_posts(world, 1)) == 1 and _threads(world) == [thread]
    assert len([m for m in fake.channel_messages(thread) if "it is your move" in m.content]) == 1


async def test_the_organiser_chooses_the_tie_breaks_the_table_points_and_the_knockout_draw_rule(
        world: World, bots: TabletopRunner) -> None:
    await bots.start()
    swiss = await _announce(world, tiebreaks="sonneborn-berger, buchholz")
    assert "Ties are broken by: Sonneborn-Berger, Buchholz." in swiss.text(), swiss.text()
    tables = await _announce(world, game="sucker", format="tables", points="6 3 1 0", min_players=4,
                             tiebreaks="tables-won table-mates")
    assert ("6 / 3 / 1 / 0 points by place at a table of 4 (of 3: 6 / 3 / 0; of 5: 6 / 3 / 1 / 1 / 0)."
            in tables.text()), tables.text()
    assert "Ties are broken by: Tables won, Table-mates' points." in tables.text()
    usual = await _announce(world, game="sucker", format="tables", min_players=4)
    assert "4 / 2 / 1 / 0 points by place at a table of 4 (of 3: 4 / 2 / 0; of 5: 4 / 2 / 1 / 1 / 0)." in usual.text()
    knockout = await _announce(world, format="knockout", knockout_draws="higher-seed")
    assert "After a draw, the higher seed (the higher rating at the start) goes through." in knockout.text()

    posted = len(world.fake.channel_messages(world.channel))
    for options, why in (
            ({"tiebreaks": "table-mates"}, "`tiebreaks` takes some of `buchholz-cut-1`, `buchholz`, "
                                           "`sonneborn-berger`, `direct-encounter`, `wins`, each once"),
            ({"tiebreaks": "buchholz buchholz"}, "each once, in the order they count, e.g. `buchholz buchholz-cut-1`"),
            ({"points": "4 2 1 0"}, "`points` is for So Long Sucker tables"),
            ({"game": "sucker", "format": "tables", "min_players": 4, "points": "1 2 3 4"},
             "none above the one before, e.g. `4 2 1 0`"),
            ({"game": "sucker", "format": "tables", "min_players": 4, "points": "4 2 nan 0"},
             "four numbers from 0 to 100"),
            ({"knockout_draws": "higher-seed"}, "`knockout_draws` is for a knockout")):
        res = await world.fake.slash(world.alice, world.channel, "tournament", "new", permissions=PERM_MANAGE_GUILD,
                                     options={"game": "chopsticks", "format": "swiss", **options})
        assert res.ephemeral and res.message is not None, res.errors
        assert why in res.message.text(), res.message.text()
    assert len(world.fake.channel_messages(world.channel)) == posted  # nothing made, nothing announced

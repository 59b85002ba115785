"""Chopsticks through the real bot and the offline Discord: slash commands, clicks, restarts, refusals."""

from __future__ import annotations

import asyncio
import copy
import random

from games.chopsticks import ChopsticksState
from tests.support.boards import human_to_move, move_buttons, player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.world import (
    TabletopRunner,
    World,
    stored_chopsticks,
)


async def _challenge(world: World, challenger: FakeUser, opponent: FakeUser) -> FakeMessage:
    res = await world.fake.slash(challenger, world.channel, "chopsticks", "challenge", options={"opponent": opponent})
    assert res.callback_type == Callback.CHANNEL_MESSAGE and not res.ephemeral and res.message is not None
    assert res.message.custom_ids() == ["cs:1:accept", "cs:1:decline"] or len(res.message.custom_ids()) == 2
    return res.message


async def _accepted_game(world: World) -> FakeMessage:
    board = await _challenge(world, world.alice, world.bob)
    accept = next(b["custom_id"] for b in board.buttons() if b["label"] == "Accept")
    res = await world.fake.click(world.bob, board, accept)
    assert res.callback_type == Callback.UPDATE_MESSAGE and res.message is board
    return board


def _users(world: World) -> dict[int, FakeUser]:
    return {u.id: u for u in (world.alice, world.bob, world.carol)}


async def test_bot_logs_in_and_registers_its_commands_once(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    commands = {c["name"]: c for c in world.fake.registered_commands()}
    assert set(commands) == {"chopsticks", "generals", "sucker", "leaderboard", "stats", "history", "settings",
                             "replay", "help", "notifications", "tournament"}
    command = commands["chopsticks"]
    assert {o["name"] for o in command["options"]} >= {"challenge", "new"}
    puts = len(world.fake.calls("PUT", "/applications/{application_id}/commands"))
    assert puts == 1
    await bots.stop(bot)
    await bots.start()  # same commands, same database: no second sync
    assert len(world.fake.calls("PUT", "/applications/{application_id}/commands")) == 1


async def test_a_whole_game_between_two_users_by_clicks(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await _accepted_game(world)
    users, rng = _users(world), random.Random(5)
    moves = 0
    while move_buttons(board):
        mover = player_to_move(board)
        assert mover in (world.alice.id, world.bob.id)
        assert "Position `" in board.text()
        button = rng.choice(move_buttons(board))
        res = await world.fake.click(users[mover], board, button["custom_id"])
        assert res.callback_type == Callback.UPDATE_MESSAGE, res.errors
        moves += 1
        assert moves < 300
    text = board.text()
    assert "wins" in text or "Drawn" in text
    assert board.components == []  # a finished game has no buttons left
    status, _state, log = (await stored_chopsticks(bots, 1))
    assert status == "finished" and len(log) == moves


async def test_a_game_continues_after_a_restart(world: World, bots: TabletopRunner) -> None:
    first = await bots.start()
    board = await _accepted_game(world)
    users = _users(world)
    mover = player_to_move(board)
    assert mover is not None
    await world.fake.click(users[mover], board, move_buttons(board)[0]["custom_id"])
    await bots.stop(first)

    await bots.start()  # a new client on the same database file
    mover_after = player_to_move(board)
    assert mover_after is not None and mover_after != mover
    res = await world.fake.click(users[mover_after], board, move_buttons(board)[0]["custom_id"])
    assert res.callback_type == Callback.UPDATE_MESSAGE, res.errors
    _status, _state, log = (await stored_chopsticks(bots, 1))
    assert len(log) == 2


async def test_others_are_refused_privately_and_nothing_changes(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await _challenge(world, world.alice, world.bob)
    res = await world.fake.click(world.carol, board, next(b["custom_id"] for b in board.buttons()
                                                          if b["label"] == "Accept"))
    assert res.ephemeral and "for someone else" in (res.message.content if res.message else "")
    accept = next(b["custom_id"] for b in board.buttons() if b["label"] == "Accept")
    await world.fake.click(world.bob, board, accept)

    users = _users(world)
    mover = player_to_move(board)
    assert mover is not None
    waiting = world.bob if mover == world.alice.id else world.alice
    move = move_buttons(board)[0]["custom_id"]
    before = board.text()

    third = await world.fake.click(world.carol, board, move)
    assert third.ephemeral and third.message is not None and "not playing" in third.message.content
    wrong = await world.fake.click(waiting, board, move)
    assert wrong.ephemeral and wrong.message is not None and "not your turn" in wrong.message.content
    assert board.text() == before
    assert (await stored_chopsticks(bots, 1))[2] == []

    as_seen_before = copy.deepcopy(board)  # a client that has not yet received the edit
    await world.fake.click(users[mover], board, move)
    stale = await world.fake.click(waiting, as_seen_before, move)
    assert stale.ephemeral and stale.message is not None and "look at the board again" in stale.message.content
    assert len((await stored_chopsticks(bots, 1))[2]) == 1


async def test_concurrent_clicks_apply_one_move(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await _accepted_game(world)
    mover = _users(world)[player_to_move(board) or 0]
    buttons = [b["custom_id"] for b in move_buttons(board)]
    results = await asyncio.gather(*(world.fake.click(mover, board, buttons[i % len(buttons)]) for i in range(8)))
    assert sum(r.callback_type == Callback.UPDATE_MESSAGE for r in results) == 1
    assert all(r.ephemeral for r in results if r.callback_type != Callback.UPDATE_MESSAGE)
    assert len((await stored_chopsticks(bots, 1))[2]) == 1


async def test_play_against_the_bot(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge")
    board = res.message
    assert res.callback_type == Callback.CHANNEL_MESSAGE and board is not None
    rng = random.Random(1)
    while await human_to_move(world.fake, board, {world.alice.id}) is not None:
        res = await world.fake.click(world.alice, board, rng.choice(move_buttons(board))["custom_id"])
        assert res.callback_type == Callback.UPDATE_MESSAGE
    status, _state, log = (await stored_chopsticks(bots, 1))
    assert status == "finished" and {seat for seat, _ in log} == {0, 1}


async def test_resign_needs_confirmation_and_draws_need_both(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await _accepted_game(world)
    resign = next(b["custom_id"] for b in board.buttons() if b["label"] == "Resign")
    confirm = await world.fake.click(world.alice, board, resign)
    assert confirm.ephemeral and confirm.message is not None
    assert (await stored_chopsticks(bots, 1))[0] == "active"  # asking is not resigning
    draw = next(b["custom_id"] for b in board.buttons() if b["label"] == "Offer draw")
    await world.fake.click(world.bob, board, draw)
    assert "offers a draw" in board.text()
    again = await world.fake.click(world.bob, board, next(b["custom_id"] for b in board.buttons()
                                                          if b["label"] == "Accept draw"))
    assert again.ephemeral and again.message is not None and "already offered" in again.message.content

    yes = next(b["custom_id"] for b in confirm.message.buttons() if "resign" in b["label"].lower())
    done = await world.fake.click(world.alice, confirm.message, yes)
    assert done.callback_type == Callback.UPDATE_MESSAGE
    await world.fake.wait_until(lambda: "resigned" in board.text())
    assert board.components == []
    assert (await stored_chopsticks(bots, 1))[0] == "finished"


async def test_draw_by_agreement(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await _accepted_game(world)
    await world.fake.click(world.alice, board, next(b["custom_id"] for b in board.buttons() if "draw" in b["label"]))
    await world.fake.click(world.bob, board, next(b["custom_id"] for b in board.buttons() if "draw" in b["label"]))
    assert "Drawn by agreement" in board.text() and board.components == []


async def test_declined_challenge_and_self_challenge(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await _challenge(world, world.alice, world.bob)
    decline = next(b["custom_id"] for b in board.buttons() if b["label"] == "Decline")
    await world.fake.click(world.bob, board, decline)
    assert f"<@{world.bob.id}> declined this challenge." in board.text() and board.components == []
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge",
                                 options={"opponent": world.alice})
    assert res.ephemeral and res.message is not None and "yourself" in res.message.content


async def test_turn_timer_reminds_then_forfeits_and_survives_a_restart(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start_with(turn_timeout=1.2)
    board = await _accepted_game(world)
    mover = player_to_move(board)
    await world.fake.wait_until(
        lambda: any("it is your move" in m.content for m in world.fake.channel_messages(world.channel)), timeout=5
    )
    reminder = next(m for m in world.fake.channel_messages(world.channel) if "it is your move" in m.content)
    assert f"<@{mover}>" in reminder.content
    await bots.stop(bot)  # the forfeit falls due while the bot is down
    await asyncio.sleep(0.6)
    await bots.start_with(turn_timeout=1.2)
    await world.fake.wait_until(lambda: "ran out of time" in board.text(), timeout=5)
    assert board.components == []
    assert (await stored_chopsticks(bots, 1))[0] == "finished"


async def test_challenge_expires(world: World, bots: TabletopRunner) -> None:
    await bots.start_with(challenge_timeout=0.5)
    board = await _challenge(world, world.alice, world.bob)
    await world.fake.wait_until(lambda: "did not answer" in board.text(), timeout=5)
    assert board.components == []


async def test_buttons_are_exactly_the_legal_moves(world: World, bots: TabletopRunner) -> None:
    await bots.start()
    board = await _accepted_game(world)
    users, rng = _users(world), random.Random(11)
    for _ in range(12):
        if not move_buttons(board):
            break
        code = board.text().split("Position `")[1][:4]
        position = ChopsticksState.from_code(code)
        expected = [a.text() for a in position.legal_actions(0)]
        assert [b["custom_id"].rsplit(":", 1)[1] for b in move_buttons(board)] == expected
        mover = users[player_to_move(board) or 0]
        await world.fake.click(mover, board, rng.choice(move_buttons(board))["custom_id"])


async def test_commands_go_to_the_development_guild_when_set(world: World, bots: TabletopRunner) -> None:
    await bots.start_with(dev_guild_id=world.guild.id)
    names = sorted(c["name"] for c in world.fake.registered_commands(guild_id=world.guild.id))
    assert names == ["chopsticks", "generals", "help", "history", "leaderboard", "notifications", "replay",
                     "settings", "stats", "sucker", "tournament"]
    assert world.fake.registered_commands() == []

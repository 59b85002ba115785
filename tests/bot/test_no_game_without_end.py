"""No game without end (issue 22, point 1), through the real bot and the offline Discord: a table whose last person
leaves ends at once with the places the rules give; a stored game that must not go on is ended, not driven, when the
bot starts; computer players in a row are paced and their table is redrawn as they play."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any

import pytest

import bot.service.computer_turns
from bot.service import Player
from tests.support.boards import human_to_move, move_buttons
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.world import TabletopRunner, World, change_stored, stored_chopsticks, stored_rows

BIG_TABLE = {"players": 6, "hands": 4, "rollover": 10}
NO_PERSON_LEFT, MOVE_LIMIT = "no-person-left", "move-limit"  # the end reasons, as the move log and snapshots say


def _button(message: FakeMessage, label: str) -> str:
    return str(next(b["custom_id"] for b in message.buttons() if b["label"] == label))


def _endings(world: World) -> list[FakeMessage]:
    return [m for m in world.fake.channel_messages(world.channel) if m.embeds and "is over" in m.text()]


async def _table_with_computers(world: World, computers: int, **options: Any) -> FakeMessage:
    """Alice's Chopsticks table with `computers` computer players, started; the lobby message is now the board."""
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "new", options=options)
    board = res.message
    assert board is not None, res.errors
    for _ in range(computers):
        await world.fake.click(world.alice, board, _button(board, "Add bot"))
    started = await world.fake.click(world.alice, board, _button(board, "Start"))
    assert started.callback_type == Callback.UPDATE_MESSAGE and "Position `" in board.text(), started.errors
    return board


async def _resign(world: World, user: FakeUser, board: FakeMessage) -> None:
    asked = await world.fake.click(user, board, _button(board, "Resign"))
    assert asked.ephemeral and asked.message is not None, asked.errors
    done = await world.fake.click(user, asked.message, _button(asked.message, "Yes, resign"))
    assert done.callback_type == Callback.UPDATE_MESSAGE, done.errors


async def _moves(bots: TabletopRunner) -> int:
    [(count,)] = await stored_rows(bots.target, "SELECT count(*) FROM moves")
    return int(count)


async def test_a_table_of_computers_whose_only_person_resigns_ends_at_once(world: World,
                                                                          bots: TabletopRunner) -> None:
    """The issue's reproduction: `/chopsticks new players:6 hands:4 rollover:10`, five computer players, start,
    resign. Before, the computers played on (thousands of moves a minute, a restart resumed them)."""
    await bots.start()
    board = await _table_with_computers(world, 5, **BIG_TABLE)
    await human_to_move(world.fake, board, {world.alice.id})  # the computers before her have moved
    await _resign(world, world.alice, board)
    await world.fake.wait_until(lambda: bool(_endings(world)), timeout=5)
    moves = await _moves(bots)
    await asyncio.sleep(0.3)  # time for thousands of computer moves, were they still playing
    assert await _moves(bots) == moves

    status, snapshot, log = await stored_chopsticks(bots, 1)  # the log replays to the snapshot, stop included
    state: dict[str, Any] = dict(snapshot)
    assert status == "finished" and [a for _, a in log[-2:]] == ["resign", NO_PERSON_LEFT]
    assert state["result"]["reason"] == NO_PERSON_LEFT
    places = dict(await stored_rows(bots.target, "SELECT seat, place FROM game_players WHERE game_id = 1"))
    [alice_seat] = [s for s, u in await stored_rows(
        bots.target, "SELECT seat, user_id FROM game_players WHERE game_id = 1") if u == world.alice.id]
    out_before = [s for s in state["out_order"] if s != alice_seat]
    still_in = [s for s in range(6) if s not in state["out_order"]]
    # The computer players still in share first place; Alice keeps the place her going out gave her, after theirs.
    assert {places[s] for s in still_in} == {1} and len(still_in) >= 2
    assert places[alice_seat] == len(still_in) + 1 and all(places[s] > places[alice_seat] for s in out_before)

    [ending] = _endings(world)  # announced once
    assert "No person is left in the game" in ending.text() and f"<@{world.alice.id}>" in (ending.content or "")
    assert board.components == [] and "No person is left in the game" in board.text()


async def test_a_person_out_of_time_at_a_table_of_computers_ends_it(world: World, bots: TabletopRunner) -> None:
    """The other way the last person leaves: their turn time runs out (the timer's ending is announced once)."""
    bot_ = await bots.start_with(turn_timeout=0.5)
    board = await _table_with_computers(world, 2, players=3)
    await human_to_move(world.fake, board, {world.alice.id})
    await world.fake.wait_until(lambda: bool(_endings(world)), timeout=10)
    await bot_.service.told()
    await asyncio.sleep(0.2)
    [ending] = _endings(world)
    assert "No person is left in the game" in ending.text()
    status, _state, log = await stored_chopsticks(bots, 1)
    assert status == "finished" and [a for _, a in log[-2:]] == ["timeout", NO_PERSON_LEFT]


async def _store_endless(world: World, bots: TabletopRunner, state_change: Any) -> None:
    """A big table whose only person has gone, stored as the bot before this rule left it: active, a computer to
    move. `state_change` turns the stored snapshot into the stored situation."""
    running = await bots.start()
    board = await _table_with_computers(world, 5, **BIG_TABLE)
    await human_to_move(world.fake, board, {world.alice.id})
    await running.close()
    [(raw,)] = await stored_rows(bots.target, "SELECT state FROM games WHERE id = 1")
    state = json.loads(raw)
    state_change(state)
    await change_stored(bots.target, "UPDATE games SET state = ?, deadline = NULL, remind_at = NULL WHERE id = 1",
                        (json.dumps(state),))


def _alice_gone_computer_to_move(state: dict[str, Any]) -> None:
    """Alice (the seat to move) out, as a resignation leaves her, the next seat to move."""
    seat = state["to_move"]
    state["hands"][seat] = [0] * len(state["hands"][seat])
    state["out_order"].append(seat)
    state["to_move"] = (seat + 1) % len(state["hands"])


def _old_and_past_the_limit(state: dict[str, Any]) -> None:
    """Stored before there was a limit (no max_plies), 2,500 moves in, a computer to move."""
    state["rules"].pop("max_plies", None)
    state["ply"] = 2500
    state["to_move"] = (state["to_move"] + 1) % len(state["hands"])


@pytest.mark.parametrize(("situation", "reason"), [(_alice_gone_computer_to_move, NO_PERSON_LEFT),
                                                    (_old_and_past_the_limit, MOVE_LIMIT)])
async def test_a_restart_ends_a_stored_game_that_must_not_go_on(world: World, bots: TabletopRunner, situation: Any,
                                                                 reason: str) -> None:
    await _store_endless(world, bots, situation)
    moves = await _moves(bots)
    await bots.start()
    await world.fake.wait_until(lambda: bool(_endings(world)), timeout=5)
    await asyncio.sleep(0.3)
    [(status, action, user)] = await stored_rows(
        bots.target, "SELECT g.status, m.action, m.user_id FROM games g JOIN moves m ON m.game_id = g.id"
        " WHERE g.id = 1 ORDER BY m.ply DESC LIMIT 1")
    # Ended by one logged stop, without a single computer move more.
    assert (status, action, user) == ("finished", reason, None) and await _moves(bots) == moves + 1
    [ending] = _endings(world)
    assert ("No person is left" if reason == NO_PERSON_LEFT else "a game lasts 300 moves at most") in \
        ending.text()


async def test_computer_moves_in_a_row_are_paced_and_shown(world: World, bots: TabletopRunner,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Three computer players in a row after Alice's move: at least the interval between two of their moves, and the
    board redrawn as they play (once per interval), not only once they are done."""
    interval = 0.3
    monkeypatch.setattr(bot.service.computer_turns, "COMPUTER_MOVE_INTERVAL", interval)
    await bots.start()
    board = await _table_with_computers(world, 3, players=4)
    await human_to_move(world.fake, board, {world.alice.id})
    edits, started = board.edits, time.monotonic()
    [(before,)] = await stored_rows(bots.target, "SELECT max(ply) FROM moves WHERE game_id = 1")
    await world.fake.click(world.alice, board, move_buttons(board)[0]["custom_id"])
    await human_to_move(world.fake, board, {world.alice.id})
    took = time.monotonic() - started
    times = [float(t) for (t,) in await stored_rows(
        bots.target, "SELECT created_at FROM moves WHERE game_id = 1 AND user_id IS NULL AND ply > ? ORDER BY ply",
        (before or 0,))]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert len(times) == 3 and all(gap >= interval * 0.9 for gap in gaps), gaps
    assert took >= interval * len(gaps)
    # Alice's answer, a redraw between two computer moves, the redraw once they are done: one edit per computer move.
    assert board.edits - edits == 1 + len(times), (board.edits - edits, times)


async def test_the_timer_announces_the_ending_of_a_game_whose_board_was_never_posted(world: World,
                                                                                   bots: TabletopRunner) -> None:
    """A game the service made without a message (a tournament's round, made by the service: bot/service/
    tournaments.py) whose turn time runs out before any board shows it: its ending is still announced, without a
    reply to a board (before, the reference left out was passed as MISSING, which discord.py refuses, and the
    announcement was given up after three tries)."""
    bot_ = await bots.start_with(turn_timeout=0.5)
    made = await bot_.service.create("chopsticks", guild_id=world.guild.id, channel_id=world.channel.id,
                                     players=[Player(world.alice.id), Player(world.bob.id)], options={"first": 0})
    assert made.game.message_id is None
    await world.fake.wait_until(lambda: bool(_endings(world)), timeout=10)
    [ending] = _endings(world)
    assert f"Chopsticks #{made.game.id} is over" in ending.text() and ending.message_reference is None

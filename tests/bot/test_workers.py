"""Issue 15, point 5: computer players think and board pictures are drawn in worker processes (bot/workers.py),
never in the bot's own process where they held the GIL against the event loop; a worker that dies is replaced and
its work done anyway; the processes end with the bot, even a killed one."""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot import workers
from bot.games.generals.pictures import render_player_board, render_public_board
from games.engines import computer_move, computer_targets
from games.generals import GeneralsState, formation
from games.text import Text
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage
from tests.support.generals import move_number, to_move
from tests.support.worker_jobs import always_die, die_once, nap, refuse
from tests.support.world import TabletopRunner, World

REPO = Path(__file__).resolve().parents[2]
GENERALS = computer_targets("generals")


@pytest.fixture
async def pools() -> AsyncIterator[None]:
    workers.start()
    try:
        yield
    finally:
        await workers.stop()


def _position() -> GeneralsState:
    rng = random.Random(3)
    return GeneralsState.from_setups(formation("balanced", rng, 0), formation("blitz", rng, 1))


def _gone(pid: int) -> bool:
    """Whether process `pid` has exited (a zombie waiting for a parent that does not reap counts as exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


async def _all_gone(pids: list[int], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(_gone(pid) for pid in pids):
            return True
        await asyncio.sleep(0.1)
    return all(_gone(pid) for pid in pids)


async def test_a_picture_drawn_in_a_worker_is_the_picture_drawn_here(pools: None) -> None:
    state = _position()
    done = workers.DRAWING.done_in_processes
    mine = await workers.draw(render_player_board, state.view_for(1), "e6", language="en")
    public = await workers.draw(render_public_board, state.public_view(), language="en")
    assert workers.DRAWING.in_processes and workers.DRAWING.done_in_processes == done + 2
    assert os.getpid() not in workers.DRAWING.pids()
    # The same view gives the same bytes in any process: a fixed palette, nothing that depends on the process.
    assert mine == render_player_board(state.view_for(1), "e6", language="en")
    assert public == render_public_board(state.public_view(), language="en")


async def test_a_picture_is_drawn_in_a_worker_even_while_its_module_is_unloaded(pools: None) -> None:
    # When a bot stops, discord.py unloads its extensions: the game's modules leave sys.modules while a picture may
    # still be on its way. A pickled function would then fail ("not the same object"); a worker gets its name.
    name = "bot.games.generals.pictures"
    pictures = importlib.import_module(name)
    view = _position().public_view()
    done = workers.DRAWING.done_in_processes
    del sys.modules[name]
    try:
        drawn = await workers.draw(pictures.render_public_board, view, language="en")
    finally:
        sys.modules[name] = pictures
    assert drawn == pictures.render_public_board(view, language="en") and workers.DRAWING.done_in_processes == done + 1


async def test_computer_players_think_with_the_operating_systems_randomness(pools: None) -> None:
    # A setup in a worker: nothing in the snapshot decides it, so three of them are (almost surely) not all alike.
    fresh = GeneralsState.new(2, {}, random.Random(1)).to_dict()
    setups = {await workers.think(computer_move, *GENERALS, fresh, 0, "strong") for _ in range(3)}
    assert all(text.startswith("setup:") for text in setups) and len(setups) > 1
    assert workers.THINKING.in_processes and workers.THINKING.done_in_processes >= 3
    state = _position()
    seat = state.current_player()
    assert seat is not None
    text = await workers.think(computer_move, *GENERALS, state.to_dict(), seat, "strong")
    assert text in [action.text() for action in state.legal_actions(seat)]


async def test_a_worker_that_dies_is_replaced_and_its_work_done(
    pools: None, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    replaced = workers.THINKING.replaced
    pid = await workers.think(die_once, str(tmp_path / "marker"))
    assert workers.THINKING.replaced == replaced + 1 and pid != os.getpid()
    assert [r.getMessage() for r in caplog.records] == [
        "a thinking worker process died; starting new ones and trying its work again"]
    # Its own exception comes back as it is; work that kills every worker is refused in the end, not retried forever.
    with pytest.raises(ValueError, match="no such move"):
        await workers.think(refuse, "no such move")
    with pytest.raises(workers.WorkerError, match="always_die killed 3 worker processes"):
        await workers.think(always_die)
    assert await workers.think(os.getpid) in workers.THINKING.pids()  # and the pool works again


async def test_a_pool_takes_the_owners_of_waiting_work_in_turns(pools: None) -> None:
    # Issue 22, point 5: one person's burst must not delay another's work. Before, a pool ran its work first come,
    # first served: a piece asked after ten others waited for all ten.
    pool, done = workers.THINKING, []

    async def piece(owner: str) -> None:
        await pool.run(nap, 0.05, owner=owner)
        done.append(owner)

    burst = [asyncio.create_task(piece("burst")) for _ in range(10)]
    await asyncio.sleep(0.01)  # all ten are in the pool (its workers busy, the rest waiting)
    assert pool.owned_by("burst") == 10 and pool.waiting == 10 - pool.workers
    await asyncio.gather(piece("other"), *burst)
    # The other owner's piece ran as soon as one of the burst's was done: after at most one more of the burst's.
    assert done.index("other") <= pool.workers + 1, done
    assert pool.owned_by("burst") == pool.owned_by("other") == pool.waiting == 0


async def test_a_bounded_pool_refuses_work_at_once_beyond_an_owners_share_or_its_line() -> None:
    pool = workers.WorkerPool("bounded", 1, per_owner=2, waiting_limit=2, busy=Text("yours"), full=Text("full"))
    pool.start()
    try:
        first = [asyncio.create_task(pool.run(nap, 0.2, owner=owner)) for owner in ("a", "a", "b")]
        await asyncio.sleep(0.01)
        with pytest.raises(workers.Busy) as refused:
            await pool.run(nap, 0, owner="a")  # "a" has two pieces in the pool: one running, one waiting
        assert refused.value.args[0] == Text("yours")
        with pytest.raises(workers.Busy) as refused:
            await pool.run(nap, 0, owner="c")  # two pieces wait already
        assert refused.value.args[0] == Text("full")
        with pytest.raises(workers.Busy), pool.admit("c"):  # the check an interaction makes before deferring
            pass
        await asyncio.gather(*first)
        assert await pool.run(nap, 0, owner="a") in pool.pids()  # room again
    finally:
        await pool.stop()


async def test_without_started_pools_the_work_runs_in_a_thread() -> None:
    assert not workers.DRAWING.in_processes
    state = _position()
    assert await workers.draw(render_public_board, state.public_view(), language="en") == render_public_board(
        state.public_view(), language="en")


async def _bot_to_move_against(world: World, level: str) -> FakeMessage:
    fake = world.fake
    res = await fake.slash(world.alice, world.channel, "generals", "challenge", options={"level": level})
    assert res.message is not None, res.errors
    board = res.message
    await fake.wait_until(lambda: len(fake.dm_messages(world.alice)) == 1)
    dm = fake.dm_messages(world.alice)[0]
    assert ((await fake.select(world.alice, dm, "ggs:1:formation", ["f:balanced"])).callback_type
            == Callback.UPDATE_MESSAGE)
    assert (await fake.click(world.alice, dm, "gg:1:ready")).callback_type == Callback.UPDATE_MESSAGE
    await fake.wait_until(lambda: to_move(board) == world.alice.id, timeout=20)
    return board


def _answered(board: FakeMessage, number: int) -> Callable[[], bool]:
    """A condition: the board shows a move after `number` (the bot answered), or the game is over."""
    return lambda: (move_number(board) or 0) > number or "wins" in board.text()


async def test_the_bot_thinks_in_a_worker_and_moves_even_when_that_worker_was_killed(
    world: World, bots: TabletopRunner, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    bot = await bots.start()
    thought, drawn = workers.THINKING.done_in_processes, workers.DRAWING.done_in_processes
    board = await _bot_to_move_against(world, "strong")
    await bot.computer_turns.idle()
    # The bot's setup (and its first move, if it had it) came from a worker; so did the board pictures.
    assert workers.THINKING.done_in_processes > thought and workers.DRAWING.done_in_processes > drawn
    for pid in workers.THINKING.pids():  # as the out-of-memory killer would
        os.kill(pid, signal.SIGKILL)
    replaced = workers.THINKING.replaced
    fake = world.fake
    for _ in range(2):
        before = move_number(board) or 0
        choices = await fake.autocomplete(world.alice, world.channel, "generals", "move", {"move": ""},
                                          focused="move")
        res = await fake.slash(world.alice, world.channel, "generals", "move", options={"move": choices[0]["value"]})
        assert res.message is not None and "You " in res.message.text(), res.errors
        # The bot's answer: the board shows the move after the player's (or the end of the game).
        await fake.wait_until(_answered(board, before + 1), timeout=20)
        await bot.computer_turns.idle()
    assert workers.THINKING.replaced == replaced + 1  # the bot answered both moves, the first from a new pool
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


async def test_the_worker_processes_end_with_the_bot(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    await _bot_to_move_against(world, "random")
    await bot.computer_turns.idle()
    pids = workers.THINKING.pids() + workers.DRAWING.pids()
    assert pids
    await bots.stop(bot)
    assert not workers.THINKING.in_processes and await _all_gone(pids, timeout=5)


KILLED_BOT = """
import asyncio, os, random
from bot import workers
from bot.games.generals.pictures import render_public_board
from games.generals import GeneralsState

async def main():
    workers.start()
    view = GeneralsState.new(2, {}, random.Random(1)).public_view()
    await workers.draw(render_public_board, view, language="en")
    await workers.think(os.getpid)
    print(" ".join(map(str, workers.THINKING.pids() + workers.DRAWING.pids())), flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


async def test_the_worker_processes_of_a_killed_bot_exit_on_their_own() -> None:
    process = subprocess.Popen([sys.executable, "-c", KILLED_BOT], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), timeout=60)
        pids = [int(pid) for pid in re.findall(r"\d+", line)]
        assert len(pids) == len(set(pids)) >= 2 and not any(_gone(pid) for pid in pids)
    finally:
        process.kill()  # SIGKILL: no shutdown of the pools, nothing in the bot runs
        process.wait()
    assert await _all_gone(pids, timeout=10)

"""One read of its game per click at most, and none when the game's current version is in memory (issue 15, point 2):
the component's check (the game is of this kind and played on this server) and the action use the same copy, and a
game being played stays in memory from one click to the next. A copy that another process made stale is refused by
the version-guarded write with the usual "look again", dropped, and read afresh by the next click."""

from __future__ import annotations

import pytest

import storage.games
from storage import GameStore
from storage.connection import open_database
from storage.sql import Dialect, Plan
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.interactions import bot_idle
from tests.support.world import TabletopRunner, World, stored_rows


class GameReads:
    """Counts the reads of a game row (every read of a game goes through `storage.games._load`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = storage.games._load

        def counted(dialect: Dialect, game_id: int, lock: bool = False) -> Plan[storage.GameRecord | None]:
            self.count += 1
            return real(dialect, game_id, lock)

        monkeypatch.setattr(storage.games, "_load", counted)


def _mover(world: World, board: FakeMessage) -> FakeUser:
    return world.alice if f"▶ <@{world.alice.id}>" in board.text() else world.bob


def _a_move(board: FakeMessage) -> str:
    return str(next(b["custom_id"] for b in board.buttons() if ":mv:" in str(b["custom_id"])))


async def _started_game(world: World) -> FakeMessage:
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge", options={"opponent": world.bob})
    board = res.message
    assert board is not None, res.errors
    accepted = await world.fake.click(world.bob, board, board.button("Accept")["custom_id"])
    assert accepted.callback_type == Callback.UPDATE_MESSAGE, accepted.errors
    return board


async def _reads_of_click(world: World, reads: GameReads, board: FakeMessage) -> int:
    """Game reads while the player to move clicks a move, and while what the click set going (notifications,
    redraws) runs."""
    await bot_idle(world.fake)
    before = reads.count
    played = await world.fake.click(_mover(world, board), board, _a_move(board))
    assert played.callback_type == Callback.UPDATE_MESSAGE and not played.ephemeral, played.errors
    await bot_idle(world.fake)
    return reads.count - before


async def test_a_move_click_reads_its_game_once_after_a_restart_and_never_while_it_is_in_memory(
    world: World, bots: TabletopRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = GameReads(monkeypatch)
    bot = await bots.start()
    board = await _started_game(world)

    for _ in range(3):  # the accept wrote the game: every later version is the one this process wrote
        count = await _reads_of_click(world, reads, board)
        assert count == 0, f"{count} reads of a game whose current version is in memory"

    await bots.stop(bot)
    await bots.start()  # a new process: nothing in memory
    await bot_idle(world.fake)
    count = await _reads_of_click(world, reads, board)
    assert count == 1, f"{count} reads for one click (the check and the move must share one)"


async def test_a_copy_made_stale_by_another_process_is_read_afresh_and_the_click_applied(
    world: World, bots: TabletopRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process changed the game (a shard drove a bot, a timer) since this one last saw it: a click on the
    position the board shows is applied, after one read of the game, not refused for this process's old copy."""
    reads = GameReads(monkeypatch)
    await bots.start()
    board = await _started_game(world)
    game_id = int(_a_move(board).split(":")[1])
    other = await open_database(bots.target)  # another process changes the game behind this one's back
    try:
        stored = await GameStore(other).get(game_id)
        await GameStore(other).update(stored, now=stored.updated_at)
    finally:
        await other.close()

    mover, move = _mover(world, board), _a_move(board)
    await bot_idle(world.fake)
    before = reads.count
    played = await world.fake.click(mover, board, move)
    await bot_idle(world.fake)
    assert played.callback_type == Callback.UPDATE_MESSAGE and not played.ephemeral, played.errors
    assert reads.count - before == 1, "the stale copy is read afresh once, then the move is written"
    [(count,)] = await stored_rows(bots.target, "SELECT move_count FROM games WHERE id = ?", (game_id,))
    assert int(count) >= 1

"""Two processes on one database (each its own service and connection; both databases): a player acts on the position
the game is in now, which the other process made (it drove a bot's move, applied the opponent's click, fired a timer).
This process's copy of the game is older: the action is judged on the game read afresh, not refused for that copy."""

from __future__ import annotations

from bot.service import GameService, Player, ServiceError
from storage.database import Database

ALICE, BOB = 11, 22


async def _game_both_know(here: GameService, there: GameService) -> int:
    game = await here.create("chopsticks", guild_id=5, channel_id=1, players=[Player(ALICE), Player(BOB)],
                             options={"first": 0})
    await there.view(game.id)  # the other process has read it too
    return game.id


async def test_a_move_typed_after_the_other_process_moved_is_applied(two: tuple[Database, Database]) -> None:
    here, there = GameService(two[0]), GameService(two[1])
    game_id = await _game_both_know(here, there)
    await there.act(game_id, ALICE, "AC")  # alice's move, made by the other process: bob to move
    # This process last saw alice to move; bob's typed move (no turn token) is judged on the stored game.
    result = await here.act(game_id, BOB, "AC")
    assert result.game.move_count == 2


async def test_a_click_on_the_new_position_is_applied_and_one_on_the_old_one_refused(
    two: tuple[Database, Database]
) -> None:
    here, there = GameService(two[0]), GameService(two[1])
    game_id = await _game_both_know(here, there)
    await there.act(game_id, ALICE, "AC", expected_ply=0)
    try:
        await here.act(game_id, BOB, "AC", expected_ply=0)  # bob looked at the board before alice moved
    except ServiceError as exc:
        assert "look at the board again" in str(exc.args[0])
    else:
        raise AssertionError("a click on a position that is gone was applied")
    assert (await here.act(game_id, BOB, "AC", expected_ply=1)).game.move_count == 2

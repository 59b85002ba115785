"""No game without end, in the service (issue 22, point 1): a game in which no person is left ends in the write that
left it so, whoever made that move (a person, a timer, a computer player), and a stored game that must not go on is
ended by a logged stop, never played on. (The same through Discord: tests/bot/test_no_game_without_end.py.)"""

from __future__ import annotations

from typing import Any

from bot.service import GameEnded, GameService, Player
from games.engines import replay

ALICE = 101


async def _log(service: GameService, game_id: int) -> list[tuple[int, str]]:
    return [(m.seat, m.action) for m in await service.store.moves(game_id)]


def _ended(events: tuple[Any, ...]) -> GameEnded:
    [ended] = [e for e in events if isinstance(e, GameEnded)]
    return ended


async def test_a_sucker_table_whose_person_resigns_ends_with_the_computers_sharing_the_win(
        service: GameService) -> None:
    game = await service.create("sucker", guild_id=1, channel_id=2, options={"first": 1},
                                players=[Player(ALICE), Player(computer="basic"), Player(computer="basic")])
    result = await service.resign(game.id, ALICE)
    assert result.game.status == "finished" and not result.game.computer_to_move
    ended = _ended(result.events)
    assert ended.places == (3, 1, 1) and ended.reason == "no-person-left"
    assert await service.play_computer_turn(game.id) is None  # nothing left to drive
    log = await _log(service, game.id)
    assert [text for _, text in log] == ["resign", "no-person-left"]
    stored = await service.load(game.id)
    assert replay("sucker", stored.record.initial_state, log).to_dict() == stored.record.state
    assert [s.place for s in stored.record.seats] == [3, 1, 1]


async def test_generals_against_the_computer_ends_when_the_person_resigns(service: GameService) -> None:
    game = await service.create("generals", guild_id=1, channel_id=2,
                                players=[Player(ALICE), Player(computer="random")])
    result = await service.resign(game.id, ALICE)
    assert result.game.status == "finished" and _ended(result.events).reason == "resign"
    assert [text for _, text in await _log(service, game.id)] == ["resign"]  # no stop needed: it ended


async def test_a_computer_move_that_takes_an_old_game_to_the_limit_ends_it_in_the_same_write(
        service: GameService) -> None:
    """A game stored before there was a limit (no max_plies) at move 299: the computer's next move reaches the limit
    the rules now set, and the same transaction logs the stop."""
    game = await service.create("chopsticks", guild_id=1, channel_id=2, options={"first": 1},
                                players=[Player(ALICE), Player(computer="easy"), Player(computer="easy")])
    record = (await service.load(game.id)).record
    old = dict(record.state, ply=299, rules={k: v for k, v in record.state["rules"].items() if k != "max_plies"})
    await service.store.update(record, now=service.clock(), state=old)
    result = await service.play_computer_turn(game.id)
    assert result is not None and result.game.status == "finished"
    assert _ended(result.events).reason == "move-limit"
    [(seat, move), (_, stop)] = await _log(service, game.id)
    assert seat == 1 and move not in ("move-limit", "no-person-left") and stop == "move-limit"
    assert await service.play_computer_turn(game.id) is None


async def test_a_stored_game_with_no_person_left_is_stopped_not_played(service: GameService) -> None:
    game = await service.create("chopsticks", guild_id=1, channel_id=2, options={"first": 1},
                                players=[Player(ALICE), Player(computer="easy"), Player(computer="easy")])
    record = (await service.load(game.id)).record
    gone = dict(record.state, hands=[[0, 0], [1, 1], [1, 1]], out_order=[0])  # as the old bot left it
    await service.store.update(record, now=service.clock(), state=gone)
    assert await service.games_awaiting_computers() == [game.id]
    result = await service.play_computer_turn(game.id)
    assert result is not None and result.game.status == "finished"
    assert _ended(result.events).places == (3, 1, 1)
    assert [text for _, text in await _log(service, game.id)] == ["no-person-left"]  # no computer move at all

"""Computer players draw on randomness no player can know, and their choices are what the move log keeps."""

from __future__ import annotations

import random

from bot.service import GameService, Player
from games.engines import computer_player, replay
from games.generals.setup import FORMATIONS, compact, formation

ALICE = 101


async def _against_the_bot(service: GameService) -> tuple[int, list[tuple[int, str]]]:
    """A Generals game against the random bot with the same public history every time: the same first mover,
    the same human setup; returns the game and its move log once the bot has deployed."""
    service.rng = random.Random(1)  # the public randomness of a new game, pinned
    game = await service.create("generals", guild_id=1, channel_id=2,
                                players=[Player(ALICE), Player(computer="random")])
    await service.act(game.id, ALICE, "setup:" + compact(formation("balanced", random.Random(0), 0)))
    await service.act(game.id, ALICE, "ready")
    while await service.play_computer_turn(game.id) is not None:
        if any(m.seat == 1 and m.action == "ready" for m in await service.store.moves(game.id)):
            break
    return game.id, [(m.seat, m.action) for m in await service.store.moves(game.id)]


def _bot_setup(log: list[tuple[int, str]]) -> str:
    return next(text for seat, text in log if seat == 1 and text.startswith("setup:"))


async def test_two_games_with_the_same_public_history_get_different_bot_setups(service: GameService) -> None:
    _, first = await _against_the_bot(service)
    _, second = await _against_the_bot(service)
    assert [text for seat, text in first if seat == 0] == [text for seat, text in second if seat == 0]
    assert _bot_setup(first) != _bot_setup(second)


async def test_the_bot_setup_cannot_be_reproduced_from_public_numbers(service: GameService) -> None:
    game_id, log = await _against_the_bot(service)
    stored = await service.load(game_id)
    bot_moves = [ply for ply, (seat, _) in enumerate(log) if seat == 1]
    choose = computer_player("generals")
    for ply in bot_moves:
        before = replay("generals", stored.record.initial_state, log[:ply])
        # What the bot would have chosen had it been seeded from the game id and the move count (or the ply).
        for seed in (f"{game_id}:{ply}", f"{game_id}:{stored.record.move_count}", game_id, ply):
            guess = choose(before, 1, "random", random.Random(seed)).text()
            if log[ply][1].startswith("setup:"):
                assert guess != log[ply][1]
    # And the log alone replays the game exactly, bot choices included.
    assert replay("generals", stored.record.initial_state, log).to_dict() == stored.record.state


async def test_a_named_formation_is_expanded_into_the_setup_the_log_keeps(service: GameService) -> None:
    game = await service.create("generals", guild_id=1, channel_id=2,
                                players=[Player(ALICE), Player(computer="random")])
    await service.act(game.id, ALICE, "formation:random")
    await service.act(game.id, ALICE, "formation:balanced")
    logged = [m.action for m in await service.store.moves(game.id)]
    assert len(logged) == 2 and all(text.startswith("setup:") for text in logged)
    assert "random" in FORMATIONS

"""The service over a real SQLite file: turns, refusals, concurrency, draws, timers, replay."""

from __future__ import annotations

import asyncio
import random

import pytest

from bot.service import GameService, Player, ServiceError, StaleStateError, TimerEvent
from bot.service.model import Game
from games import EndReason, replay
from storage.database import Database
from tests.support.clock import Clock

ALICE, BOB, CAROL = 101, 202, 303


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(db: Database, clock: Clock) -> GameService:
    return GameService(db, clock=clock, turn_timeout=100.0, challenge_timeout=50.0)


async def _human_game(service: GameService, first: int = 0) -> int:
    game = await service.create("chopsticks", guild_id=1, channel_id=2,
                                players=[Player(ALICE), Player(BOB)], options={"first": first})
    return game.id


async def test_turns_are_enforced_and_moves_logged(service: GameService) -> None:
    game_id = await _human_game(service)
    with pytest.raises(ServiceError, match="not your turn"):
        await service.act(game_id, BOB, "AC")
    with pytest.raises(ServiceError, match="not playing"):
        await service.act(game_id, CAROL, "AC")
    with pytest.raises(ServiceError, match="not a move"):
        await service.act(game_id, ALICE, "XYZ")
    game = await service.act(game_id, ALICE, "AC", expected_ply=0)
    assert game.public.code == "1211"
    assert game.game.move_count == 1
    moves = await service.store.moves(game_id)
    assert [(m.seat, m.user_id, m.action) for m in moves] == [(0, ALICE, "AC")]


async def test_twenty_concurrent_clicks_apply_exactly_one(service: GameService) -> None:
    game_id = await _human_game(service)
    results = await asyncio.gather(
        *(service.act(game_id, ALICE, "AC", expected_ply=0) for _ in range(20)), return_exceptions=True
    )
    applied = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(applied) == 1
    assert len(refused) == 19 and all(isinstance(r, StaleStateError) for r in refused)
    assert "look at the board again" in str(refused[0])
    assert len(await service.store.moves(game_id)) == 1


async def test_concurrent_moves_without_a_ply_still_apply_one(service: GameService) -> None:
    game_id = await _human_game(service)
    results = await asyncio.gather(*(service.act(game_id, ALICE, "AC") for _ in range(20)), return_exceptions=True)
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all("not your turn" in str(r) for r in results if isinstance(r, BaseException))


async def test_challenge_accept_decline_and_expiry(service: GameService, clock: Clock) -> None:
    pending = await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                                   challenge=True)
    with pytest.raises(ServiceError, match="starts once the challenge is accepted"):
        await service.act(pending.id, ALICE, "AC")
    with pytest.raises(ServiceError, match="You sent this challenge"):
        await service.accept(pending.id, ALICE)
    with pytest.raises(ServiceError, match="for someone else"):
        await service.accept(pending.id, CAROL)
    accepted = await service.accept(pending.id, BOB)
    assert accepted.game.status == "active" and accepted.game.deadline == clock.now + 100.0
    with pytest.raises(ServiceError, match="already accepted"):
        await service.accept(pending.id, BOB)

    declined = await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                                    challenge=True)
    assert (await service.decline(declined.id, BOB)).game.status == "declined"

    expiring = await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                                    challenge=True)
    clock.now += 51
    fired = await service.fire_timer(expiring.id)
    assert fired is not None and fired[0] is TimerEvent.EXPIRED
    with pytest.raises(ServiceError, match="closed"):
        await service.accept(expiring.id, BOB)


async def test_reminder_then_forfeit_on_timeout(service: GameService, clock: Clock) -> None:
    game_id = await _human_game(service, first=1)
    clock.now += 74
    assert await service.due_timers() == []
    clock.now += 2
    assert await service.due_timers() == [game_id]
    fired = await service.fire_timer(game_id)
    assert fired is not None and fired[0] is TimerEvent.REMINDER
    assert await service.fire_timer(game_id) is None  # only one reminder
    clock.now += 25
    fired = await service.fire_timer(game_id)
    assert fired is not None and fired[0] is TimerEvent.FORFEIT
    game = fired[1]
    outcome = game.public.outcome
    assert outcome is not None and outcome.reason == "timeout" and outcome.winners == (0,)
    assert game.game.status == "finished" and game.game.deadline is None
    assert [s.place for s in game.game.seats] == [1, 2]


async def test_a_move_resets_the_turn_timer(service: GameService, clock: Clock) -> None:
    game_id = await _human_game(service)
    clock.now += 90
    await service.act(game_id, ALICE, "AC")
    stored = (await service.load(game_id)).record
    assert stored.deadline == clock.now + 100 and stored.remind_at == clock.now + 75


async def test_draw_by_agreement_and_resignation(service: GameService) -> None:
    game_id = await _human_game(service)
    game, drawn = await service.offer_draw(game_id, ALICE)
    assert not drawn and game.game.draw_offer == 0
    with pytest.raises(ServiceError, match="already offered"):
        await service.offer_draw(game_id, ALICE)
    game, drawn = await service.offer_draw(game_id, BOB)
    outcome = game.public.outcome
    assert drawn and outcome is not None and outcome.is_draw and outcome.reason == EndReason.DRAW_AGREED
    with pytest.raises(ServiceError, match="over"):
        await service.act(game_id, ALICE, "AC")

    other = await _human_game(service)
    await service.offer_draw(other, ALICE)
    game = await service.act(other, ALICE, "AC")
    assert game.game.draw_offer == 0, "the offer lasts until the opponent answers it (issue 23)"
    game = await service.act(other, BOB, "AC")
    assert game.game.draw_offer is None and game.game.draw_declined == 0, "playing on declines it"
    game = await service.act(other, ALICE, "AC")
    assert game.game.draw_offer is None and game.game.draw_declined is None
    game = await service.resign(other, ALICE)
    outcome = game.public.outcome
    assert outcome is not None and outcome.winners == (1,) and outcome.reason == "resign"


async def test_bot_games_play_to_the_end_and_replay_matches_snapshot(service: GameService) -> None:
    rng = random.Random(7)
    for n in range(10):
        game = await service.create("chopsticks", guild_id=1, channel_id=2,
                                    players=[Player(ALICE), Player(computer="medium")], options={"first": n % 2})
        stored = await _bots_done(service, game.id)
        while stored.record.status == "active":
            assert stored.state.current_player() == 0, "after the bots' turns a human is to move"
            move = rng.choice(list(stored.state.legal_actions(0)))
            await service.act(game.id, ALICE, move.text())
            stored = await _bots_done(service, game.id)
        stored = await service.load(game.id)
        log = [(m.seat, m.action) for m in await service.store.moves(game.id)]
        assert replay("chopsticks", stored.record.initial_state, log) == stored.state
        assert stored.record.move_count == len(log)


async def _bots_done(service: GameService, game_id: int) -> Game:
    while await service.play_computer_turn(game_id) is not None:
        pass
    return await service.load(game_id)


async def test_a_bot_move_that_loses_a_race_is_dropped(service: GameService) -> None:
    game = await service.create("chopsticks", guild_id=1, channel_id=2,
                                players=[Player(ALICE), Player(computer="medium")], options={"first": 1})
    assert game.game.computer_to_move
    thinking = asyncio.create_task(service.play_computer_turn(game.id))
    await service.resign(game.id, ALICE)  # lands while the bot is (or is about to be) thinking
    after = await thinking
    # Whichever way the race went, the game ended by the resignation and no bot move came after it.
    assert after is None or after.game.status == "finished"
    assert [m.action for m in await service.store.moves(game.id)][-1] == "resign"
    assert await service.play_computer_turn(game.id) is None


async def test_unknown_game_and_refused_options(service: GameService) -> None:
    with pytest.raises(ServiceError, match="no game #999"):
        await service.act(999, ALICE, "AC")
    with pytest.raises(ServiceError, match="only one seat"):
        await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(ALICE)])
    with pytest.raises(ServiceError, match="Unknown variant"):
        await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB)],
                             options={"variants": ["nonsense"]})


async def test_a_timeout_in_a_rescue_declines_instead_of_defeating(service: GameService, clock: Clock) -> None:
    from games.sucker import SuckerState

    game = await service.create("sucker", guild_id=1, channel_id=2, players=[Player(ALICE), Player(BOB), Player(CAROL)],
                                options={"chips": 3, "first": 0})
    users = [ALICE, BOB, CAROL]
    # A line of play (found with the engine) that leaves red with the move and no chips, green holding prisoners.
    line = ["play:red:new", "next:green", "play:green:1", "next:blue", "play:blue:1", "play:red:new", "next:green",
            "play:green:1", "play:red:new", "next:green", "play:green:1", "kill:blue", "play:green:new", "next:red"]
    for text in line:
        seat = game.game.to_decide
        assert seat is not None
        game = await service.act(game.id, users[seat], text)
    state = (await service.load(game.id)).state
    assert isinstance(state, SuckerState) and state.phase == "rescue" and state.rescuer() == 2
    clock.now += 101
    fired = await service.fire_timer(game.id)
    assert fired is not None and fired[0] is TimerEvent.DEFAULTED
    after = (await service.load(game.id)).state
    assert isinstance(after, SuckerState) and 2 not in after.defeated, "green declined; it was not defeated"
    assert (await service.store.moves(game.id))[-1].action == "decline"

"""Losing a race on a write other than a move, over a real SQLite file shared by two connections (two processes):
a player's write (accept, decline, draw offer) is refused with the same "look again" reason as a stale move; the
bot's own writes (the board's message, the thread, timers, a rematch's seats) cannot lose it at all. Never a raw
StaleVersionError, never an ERROR."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.service import GameService, Player, ServiceError, StaleStateError, TimerEvent
from bot.service.lobbies import LobbyService
from bot.service.model import STALE_TEXT
from bot.service.rematch import Rematch
from bot.service.results import Result
from bot.service.timers import Fence, TimerLoop
from storage.database import Database
from storage.lobbies import LobbyRecord
from tests.support.clock import Clock
from tests.support.races import Interloper

ALICE, BOB, CAROL = 101, 202, 303


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def service(two: tuple[Database, Database], clock: Clock) -> GameService:
    return GameService(two[0], clock=clock, turn_timeout=100.0, challenge_timeout=50.0)


@pytest.fixture
def interloper(two: tuple[Database, Database], monkeypatch: pytest.MonkeyPatch) -> Interloper:
    return Interloper(two[1], monkeypatch)


async def _challenge(service: GameService, opponent: int = BOB) -> int:
    game = await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(ALICE), Player(opponent)],
                                options={"first": 0}, challenge=True)
    return game.id


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_players_write_that_loses_the_race_is_refused_as_stale(
    service: GameService, interloper: Interloper
) -> None:
    game_id = await _challenge(service)
    interloper.arm(game_id)
    with pytest.raises(StaleStateError) as refused:
        await service.accept(game_id, BOB)
    assert str(refused.value) == str(STALE_TEXT) and interloper.landed == [True]
    assert (await service.accept(game_id, BOB)).game.status == "active", "looking again, it works"

    await service.act(game_id, ALICE, "AC")
    interloper.arm(game_id)
    with pytest.raises(StaleStateError, match="look at the board again"):
        await service.offer_draw(game_id, BOB)
    _game, drawn = await service.offer_draw(game_id, BOB)
    assert not drawn

    declined = await _challenge(service)
    interloper.arm(declined)
    with pytest.raises(StaleStateError, match="look at the board again"):
        await service.decline(declined, BOB)
    assert (await service.decline(declined, BOB)).game.status == "declined"


async def test_two_processes_accepting_at_once_start_the_game_once(
    two: tuple[Database, Database], service: GameService, clock: Clock
) -> None:
    there = GameService(two[1], clock=clock, turn_timeout=100.0)
    game_id = await _challenge(service)
    answers = await asyncio.gather(service.accept(game_id, BOB), there.accept(game_id, BOB), return_exceptions=True)
    started = [a for a in answers if isinstance(a, Result)]
    refused = [a for a in answers if isinstance(a, BaseException)]
    assert len(started) == 1 and len(refused) == 1 and isinstance(refused[0], ServiceError), answers
    assert str(refused[0]) in (str(STALE_TEXT), "This challenge was already accepted; the game is on.")


async def test_the_bots_own_writes_cannot_lose_the_race(service: GameService, interloper: Interloper) -> None:
    game_id = await _challenge(service)
    await service.accept(game_id, BOB)
    interloper.arm(game_id)
    shown = await service.set_message(game_id, 4242)
    interloper.arm(game_id)
    threaded = await service.set_thread(game_id, 4343)
    assert interloper.landed == [False, False], "the other process waited for these writes"
    assert await interloper.settle() == [False, False], "and then found the game changed under it"
    assert shown.game.message_id == 4242 and threaded.game.thread_id == 4343
    stored = (await service.view(game_id)).game
    assert (stored.message_id, stored.thread_id) == (4242, 4343)


async def test_timers_fire_despite_another_process_and_log_no_error(
    service: GameService, interloper: Interloper, clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    fired: list[tuple[TimerEvent, int]] = []

    async def announce(event: TimerEvent, result: Result[object, object], fence: Fence) -> None:
        assert await fence()
        fired.append((event, result.id))

    async def nothing(lobby: LobbyRecord) -> None:
        return None

    loop = TimerLoop(service, announce, LobbyService(service), nothing)
    expiring = await _challenge(service)
    playing = await _challenge(service, CAROL)  # one challenge between two people waits at a time (starts.py)
    await service.accept(playing, CAROL)
    clock.now += 80  # the challenge has expired; the reminder to move is due
    for game_id in (expiring, playing):
        interloper.arm(game_id)
    assert await loop.fire_due() == 0
    clock.now += 30  # now the forfeit
    interloper.arm(playing)
    assert await loop.fire_due() == 0
    await interloper.settle()
    assert fired == [(TimerEvent.EXPIRED, expiring), (TimerEvent.REMINDER, playing), (TimerEvent.FORFEIT, playing)]
    assert _errors(caplog) == []


async def test_a_rematch_lobby_keeps_its_computer_seats_when_someone_joins_at_once(
    two: tuple[Database, Database], service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    lobbies = LobbyService(service)
    elsewhere = LobbyService(GameService(two[1]))
    old = await service.create("sucker", guild_id=1, channel_id=2, options={"first": 0},
                               players=[Player(ALICE), Player(BOB), Player(computer="basic")])
    await service.resign(old.id, BOB)
    await service.resign(old.id, ALICE)
    offered = await Rematch(service, lobbies).offer(old.id, ALICE)
    assert offered.lobby is not None and offered.invited == (BOB,)
    # The lobby is on the table for everyone the moment it opens (its computer seats in the same write, since issue 23
    # inside the rematch's own transaction): another process lets bob in at once.
    await elsewhere.join(offered.lobby.id, BOB)
    members = (await lobbies.load(offered.lobby.id)).members
    assert [(m.user_id, m.bot) for m in members] == [(ALICE, None), (None, "basic"), (BOB, None)]

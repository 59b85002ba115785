"""A tournament's start time, through the service and its timer loop, on each database: it starts by itself then (as
the organiser's Start does), or, with too few players, stays open and says so once; never twice with two processes
or after a restart, never when it started by hand, was cancelled or paused."""

from __future__ import annotations

import asyncio

import pytest

from bot.service import GameService, ServiceError
from bot.service.lobbies import LobbyService
from bot.service.timers import TimerLoop
from bot.service.tournaments import RoundStarted, StartMissed, TournamentUpdate
from games.tournaments.model import Format, Settings
from storage.database import Database
from storage.server_settings import ServerSettingsStore
from storage.sql import Plan, Sql
from tests.support.clock import Clock

ORGANISER, ANN, BEN, CAT, DAN = 1, 11, 12, 13, 14
HOUR = 3_600.0


def _loop(service: GameService) -> TimerLoop:
    async def announce(_event: object, _result: object, _fence: object) -> None:
        return None

    async def nothing(_lobby: object) -> None:
        return None
    return TimerLoop(service, announce, LobbyService(service), nothing)


async def _open(service: GameService, starts_at: float | None, players: tuple[int, ...], least: int = 2) -> int:
    made = await service.tournaments.create("chopsticks", Settings(Format.SWISS, rounds=2), guild_id=1, channel_id=2,
                                            organiser_id=ORGANISER, min_players=least, starts_at=starts_at)
    for player in players:
        await service.tournaments.join(made.tournament.id, player)
    return made.tournament.id


def _heard(service: GameService) -> list[TournamentUpdate]:
    """What the tournament listeners of `service` are told from now on."""
    heard: list[TournamentUpdate] = []

    async def listen(update: TournamentUpdate) -> None:
        heard.append(update)
    service.tournaments.listeners.append(listen)
    return heard


async def _count(db: Database, sql: str, *params: object) -> int:
    def plan() -> Plan[int]:
        done = yield Sql(sql, params)
        return int(done.rows[0][0])
    return await db.query(plan())


async def test_a_tournament_starts_by_itself_at_its_start_time(clocked: tuple[GameService, Clock]) -> None:
    service, clock = clocked
    tournaments, loop = service.tournaments, _loop(service)
    service.timers_changed.take()
    tournament_id = await _open(service, clock.now + HOUR, (ANN, BEN, CAT, DAN))
    # The timer loop is told of the new start time (it sleeps until then), and reads it after a restart.
    assert service.timers_changed.take() == (False, clock.now + HOUR)
    assert await tournaments.next_start() == clock.now + HOUR
    heard = _heard(service)
    clock.now += HOUR - 1
    assert await tournaments.due_starts() == []
    assert await loop.fire_due() == 0
    assert (await tournaments.view(tournament_id)).status == "open" and heard == []
    clock.now += 1
    assert await tournaments.due_starts() == [tournament_id]
    assert await loop.fire_due() == 0
    await tournaments.told()
    info = await tournaments.view(tournament_id)
    assert info.status == "running" and len(info.rounds) == 1 and all(p.game_id for p in info.rounds[0])
    assert info.start_missed is None
    # Told as the Start button's start is: round 1 with its two games, for the channel to post.
    [update] = heard
    assert [e.number for e in update.events if isinstance(e, RoundStarted)] == [1]
    assert len(update.games) == 2
    assert await tournaments.next_start() is None and await tournaments.due_starts() == []
    clock.now += 60
    assert await loop.fire_due() == 0  # nothing more
    assert (await tournaments.start_due(tournament_id)).events == ()
    assert await _count(service.db, "SELECT COUNT(*) FROM tournament_rounds") == 1
    assert await _count(service.db, "SELECT COUNT(*) FROM games") == 2


async def test_too_few_players_at_the_start_time_leave_it_open_and_say_so_once(
        clocked: tuple[GameService, Clock]) -> None:
    service, clock = clocked
    tournaments, loop = service.tournaments, _loop(service)
    tournament_id = await _open(service, clock.now + HOUR, (ANN, BEN), least=4)
    heard = _heard(service)
    clock.now += HOUR
    assert await loop.fire_due() == 0
    await tournaments.told()
    [update] = heard
    assert update.events == (StartMissed(tournament_id, players=2, needed=4),)
    info = await tournaments.view(tournament_id)
    assert info.status == "open" and info.rounds == () and info.start_missed == clock.now
    # Once: neither the timer loop nor another call says it again, and the loop no longer waits for it.
    assert await tournaments.due_starts() == [] and await tournaments.next_start() is None
    clock.now += HOUR
    assert await loop.fire_due() == 0
    assert (await tournaments.start_due(tournament_id)).events == ()
    await tournaments.told()
    assert len(heard) == 1
    # It stays open for the organiser: more join, and Start starts it.
    await tournaments.join(tournament_id, CAT)
    with pytest.raises(ServiceError, match="needs 4 players"):
        await tournaments.start(tournament_id, ORGANISER)
    await tournaments.join(tournament_id, DAN)
    started = await tournaments.start(tournament_id, ORGANISER)
    assert started.tournament.status == "running" and len(started.games) == 2


@pytest.mark.parametrize("how", ["started", "cancelled", "paused"])
async def test_one_started_by_hand_cancelled_or_paused_never_starts_by_itself(
        clocked: tuple[GameService, Clock], how: str) -> None:
    service, clock = clocked
    tournaments = service.tournaments
    soon = 300.0  # before its games' turn timers (600 s) fire
    tournament_id = await _open(service, clock.now + soon, (ANN, BEN, CAT, DAN))
    if how == "cancelled":
        await tournaments.cancel(tournament_id, ORGANISER)
    else:
        await tournaments.start(tournament_id, ORGANISER)  # earlier than its start time
        if how == "paused":
            await tournaments.pause(tournament_id, ORGANISER)
    assert await tournaments.next_start() is None
    clock.now += soon
    assert await tournaments.due_starts() == []
    assert await _loop(service).fire_due() == 0
    assert (await tournaments.start_due(tournament_id)).events == ()
    info = await tournaments.view(tournament_id)
    assert info.status == {"started": "running"}.get(how, how) and info.start_missed is None
    assert await _count(service.db, "SELECT COUNT(*) FROM tournament_rounds") == (0 if how == "cancelled" else 1)


@pytest.mark.parametrize("players", [(ANN, BEN, CAT, DAN), (ANN, BEN)])
async def test_two_processes_and_a_restart_start_it_or_say_why_not_once(
        two: tuple[Database, Database], players: tuple[int, ...]) -> None:
    clock = Clock(5_000.0)
    one, other = GameService(two[0], clock=clock), GameService(two[1], clock=clock)
    tournament_id = await _open(one, clock.now + HOUR, players, least=4)
    heard_one, heard_other = _heard(one), _heard(other)
    clock.now += HOUR
    # Both processes' timer loops see the start time at once, and each also calls the start again.
    await asyncio.gather(_loop(one).fire_due(), _loop(other).fire_due(), one.tournaments.start_due(tournament_id),
                         other.tournaments.start_due(tournament_id))
    await one.tournaments.told()
    await other.tournaments.told()
    told = [event for update in heard_one + heard_other for event in update.events]
    if len(players) == 4:
        assert [e.number for e in told if isinstance(e, RoundStarted)] == [1]
        assert not [e for e in told if isinstance(e, StartMissed)]
    else:
        assert told == [StartMissed(tournament_id, players=2, needed=4)]
    # A process started afterwards (a restart) finds nothing to do.
    restarted = GameService(two[0], clock=clock)
    assert await restarted.tournaments.due_starts() == []
    assert await _loop(restarted).fire_due() == 0
    assert await restarted.tournaments.catch_up() == []
    rounds = 1 if len(players) == 4 else 0
    assert await _count(two[0], "SELECT COUNT(*) FROM tournament_rounds") == rounds
    assert await _count(two[0], "SELECT COUNT(*) FROM games") == 2 * rounds
    info = await restarted.tournaments.view(tournament_id)
    assert info.status == ("running" if rounds else "open")


async def test_a_start_whose_games_are_refused_leaves_it_open_with_the_reason(
        clocked: tuple[GameService, Clock]) -> None:
    service, clock = clocked
    tournament_id = await _open(service, clock.now + HOUR, (ANN, BEN))
    settings = ServerSettingsStore(service.db)
    await settings.switch_game(1, "chopsticks", False)  # an admin switches the game off on the server meanwhile
    heard = _heard(service)
    clock.now += HOUR
    assert await _loop(service).fire_due() == 0
    await service.tournaments.told()
    [update] = heard
    [missed] = update.events
    assert isinstance(missed, StartMissed) and (missed.players, missed.needed) == (2, 2)
    assert missed.refusal is not None and "chopsticks" in str(missed.refusal).lower()
    assert update.tournament.status == "open" and update.tournament.start_missed == clock.now
    assert await service.tournaments.due_starts() == []
    await settings.switch_game(1, "chopsticks", True)
    started = await service.tournaments.start(tournament_id, ORGANISER)  # the organiser, once it is put right
    assert started.tournament.status == "running" and len(started.games) == 1

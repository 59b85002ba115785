"""Tournaments through the service, on each database: rounds that run themselves as their games end (by moves,
resignations, draws and turn timers), exactly once with two processes on one database, and after a crash half-way
through a round's creation."""

from __future__ import annotations

import asyncio

import pytest

from bot.service import GameEnded, GameService, ServiceError, TimerEvent
from bot.service.lobbies import LobbyService
from bot.service.timers import TimerLoop
from bot.service.tournaments import (
    PlayerWithdrawn,
    RoundEnded,
    RoundStarted,
    TournamentFinished,
    TournamentInfo,
    TournamentUpdate,
)
from games.tournaments.model import DrawRule, Entrant, Format, Game, Result, Round, Settings, Table, Tournament
from games.tournaments.standings import standings
from storage.database import Database
from storage.server_settings import ServerSettingsStore
from storage.sql import Plan, Sql, statement
from tests.support.clock import Clock

ORGANISER, ANN, BEN, CAT, DAN, EVE, FAY = 1, 11, 12, 13, 14, 15, 16
FOUR = (ANN, BEN, CAT, DAN)


async def _settled(*services: GameService) -> None:
    """Every listener has heard every change (a game's end records its result and may start the next round, whose
    games are published in turn)."""
    for _ in range(3):
        for service in services:
            await service.told()
            await service.tournaments.told()


async def _open(service: GameService, settings: Settings, players: tuple[int, ...], kind: str = "chopsticks",
                round_time: float | None = None, deadline_rule: str = "draw", **options: object) -> int:
    made = await service.tournaments.create(kind, settings, guild_id=1, channel_id=2, organiser_id=ORGANISER,
                                            min_players=len(players), options=dict(options), round_time=round_time,
                                            deadline_rule=deadline_rule)
    for player in players:
        await service.tournaments.join(made.tournament.id, player)
    return made.tournament.id


async def _count(db: Database, sql: str, *params: object) -> int:
    def plan() -> Plan[int]:
        done = yield Sql(sql, params)
        return int(done.rows[0][0])
    return await db.query(plan())


def _recomputed(service_games: dict[int, tuple[tuple[int | None, ...], tuple[int, ...] | None]],
                info: TournamentInfo) -> Tournament:
    """The tournament recomputed from the stored games alone: each pairing's result read off its game's places."""
    rounds = []
    for pairings in info.rounds:
        games, tables = [], []
        for p in pairings:
            if p.table:
                seats, places = service_games[p.game_id or 0]
                tables.append(Table(p.players, places))
                continue
            if p.game_id is None:
                games.append(Game(p.players[0] or 0, None if len(p.players) == 1 else p.players[1],
                                  None if p.result is None else Result(p.result)))
                continue
            seats, places = service_games[p.game_id]
            assert places is not None
            first = places[seats.index(p.players[0])]
            second = places[seats.index(p.players[1])]
            result = Result.DRAW if first == second else Result.FIRST_WINS if first < second else Result.SECOND_WINS
            games.append(Game(p.players[0] or 0, p.players[1], result))
        rounds.append(Round(tuple(games), tuple(tables)))
    entrants = tuple(Entrant(s.player, 0.0) for s in info.standings)
    return Tournament(info.settings, tuple(sorted(entrants, key=lambda e: e.player)), tuple(rounds))


async def _stored_games(service: GameService, info: TournamentInfo) -> dict[int, tuple[tuple[int | None, ...],
                                                                                        tuple[int, ...] | None]]:
    found = {}
    for pairings in info.rounds:
        for p in pairings:
            if p.game_id is not None:
                game = (await service.view(p.game_id, fresh=True)).game
                found[p.game_id] = (tuple(s.user_id for s in game.seats),
                                    None if game.status != "finished" else tuple(s.place or 0 for s in game.seats))
    return found


def _events(update: TournamentUpdate, kind: type) -> list[object]:
    return [event for event in update.events if isinstance(event, kind)]


async def test_a_swiss_of_four_plays_three_rounds_of_chopsticks_to_its_end(service: GameService) -> None:
    tournaments = service.tournaments
    heard: list[TournamentUpdate] = []

    async def listen(update: TournamentUpdate) -> None:
        heard.append(update)
    tournaments.listeners.append(listen)
    tournament_id = await _open(service, Settings(Format.SWISS, rounds=3), FOUR)
    with pytest.raises(ServiceError, match="Only the tournament's organiser"):
        await tournaments.start(tournament_id, ANN)
    started = await tournaments.start(tournament_id, ORGANISER)
    [first] = _events(started, RoundStarted)
    assert isinstance(first, RoundStarted) and first.number == 1 and len(first.pairings) == 2
    assert len(started.games) == 2 and started.tournament.status == "running"
    for number in (1, 2, 3):
        info = await tournaments.view(tournament_id)
        assert len(info.rounds) == number
        pairings = info.rounds[-1]
        for index, pairing in enumerate(pairings):
            assert pairing.game_id is not None and len(pairing.players) == 2
            game = await service.load(pairing.game_id)
            # seated as paired, the first of the pairing moving first, and marked as the tournament's
            assert [s.user_id for s in game.record.seats] == list(pairing.players)
            assert game.state.current_player() == 0 and game.record.options["tournament"] == tournament_id
            if index == 0:  # the first board: a move, then the second player resigns
                await service.act(pairing.game_id, pairing.players[0] or 0, "AC")
                await service.resign(pairing.game_id, pairing.players[1] or 0)
            else:  # the second: drawn by agreement
                await service.offer_draw(pairing.game_id, pairing.players[0] or 0)
                await service.offer_draw(pairing.game_id, pairing.players[1] or 0)
        await _settled(service)
    info = await tournaments.view(tournament_id)
    assert info.status == "finished" and len(info.rounds) == 3
    assert all(p.result is not None for pairings in info.rounds for p in pairings)
    # no rematch in a Swiss of four over three rounds: everyone met everyone once
    met = {frozenset(p.players) for pairings in info.rounds for p in pairings}
    assert len(met) == 6
    assert [[p.result for p in pairings] for pairings in info.rounds] == [["1-0", "1/2-1/2"]] * 3
    assert sum(s.points for s in info.standings) == 6.0
    # the standings are those of the tournament recomputed from the stored games alone
    recomputed = standings(_recomputed(await _stored_games(service, info), info))
    assert [(s.place, s.player, s.points, s.tiebreaks) for s in recomputed] == [
        (s.place, s.player, s.points, s.tiebreaks) for s in info.standings]
    events = [event for update in heard for event in update.events]
    assert [e.number for e in events if isinstance(e, RoundStarted)] == [1, 2, 3]
    assert [e.number for e in events if isinstance(e, RoundEnded)] == [1, 2, 3]
    [finished] = [e for e in events if isinstance(e, TournamentFinished)]
    assert [s.player for s in finished.podium] == [s.player for s in info.standings if s.place <= 3]


async def test_entries_leaving_and_the_organisers_controls(service: GameService) -> None:
    tournaments = service.tournaments
    tournament_id = await _open(service, Settings(Format.SWISS, rounds=2), (ANN, BEN, CAT))
    with pytest.raises(ServiceError, match="already in"):
        await tournaments.join(tournament_id, ANN)
    left = await tournaments.leave(tournament_id, CAT)
    assert left.tournament.players == (ANN, BEN) and not left.events
    with pytest.raises(ServiceError, match="needs 3 players"):
        await tournaments.start(tournament_id, ORGANISER)
    await tournaments.join(tournament_id, DAN)
    await tournaments.start(tournament_id, ORGANISER)
    paused = await tournaments.pause(tournament_id, ORGANISER)
    assert paused.tournament.status == "paused"
    info = await tournaments.view(tournament_id)
    [game] = [p for p in info.rounds[0] if p.game_id is not None]
    [bye] = [p for p in info.rounds[0] if p.game_id is None]
    assert len(bye.players) == 1  # three players: one bye, recorded at once
    await service.resign(game.game_id or 0, game.players[0] or 0)
    await _settled(service)
    assert len((await tournaments.view(tournament_id)).rounds) == 1  # paused: no new round
    resumed = await tournaments.resume(tournament_id, ORGANISER)
    assert [e.number for e in _events(resumed, RoundStarted)] == [2]  # type: ignore[attr-defined]
    removed = await tournaments.remove(tournament_id, ORGANISER, DAN)
    assert _events(removed, PlayerWithdrawn) == [PlayerWithdrawn(tournament_id, DAN, "removed", 3)]
    cancelled = await tournaments.cancel(tournament_id, ORGANISER)
    assert cancelled.tournament.status == "cancelled"
    with pytest.raises(ServiceError, match="over"):
        await tournaments.pause(tournament_id, ORGANISER)


async def test_a_so_long_sucker_round_of_one_table(service: GameService) -> None:
    tournament_id = await _open(service, Settings(Format.TABLES, rounds=1), FOUR, kind="sucker")
    started = await service.tournaments.start(tournament_id, ORGANISER)
    [round_] = _events(started, RoundStarted)
    assert isinstance(round_, RoundStarted)
    [table] = round_.pairings
    assert table.table and sorted(p or 0 for p in table.players) == sorted(FOUR) and table.game_id is not None
    game = await service.load(table.game_id)
    assert [s.user_id for s in game.record.seats] == list(table.players)
    winner = table.players[3]
    for player in table.players[:3]:  # the others resign in turn: the last one in wins
        await service.resign(table.game_id, player or 0)
    await _settled(service)
    info = await service.tournaments.view(tournament_id)
    assert info.status == "finished"
    assert info.standings[0].player == winner and info.standings[0].points == 4.0
    assert info.rounds[0][0].places is not None and info.rounds[0][0].places[3] == 1


async def test_a_knockout_replays_a_drawn_game_with_the_other_player_first(service: GameService) -> None:
    settings = Settings(Format.KNOCKOUT, draw_rule=DrawRule.REPLAY)
    tournament_id = await _open(service, settings, (ANN, BEN))
    started = await service.tournaments.start(tournament_id, ORGANISER)
    [game] = started.tournament.rounds[0]
    await service.offer_draw(game.game_id or 0, ANN)
    await service.offer_draw(game.game_id or 0, BEN)
    await _settled(service)
    info = await service.tournaments.view(tournament_id)
    assert len(info.rounds) == 1 and info.status == "running"
    drawn, replay = info.rounds[0]
    assert drawn.result == "1/2-1/2" and replay.players == tuple(reversed(drawn.players))
    assert replay.game_id is not None and replay.game_id != drawn.game_id
    await service.resign(replay.game_id, replay.players[1] or 0)
    await _settled(service)
    info = await service.tournaments.view(tournament_id)
    assert info.status == "finished" and info.standings[0].player == replay.players[0]


async def test_two_games_lost_by_absence_withdraw_a_player(clocked: tuple[GameService, Clock]) -> None:
    service, clock = clocked
    tournament_id = await _open(service, Settings(Format.SWISS, rounds=3), FOUR)
    await service.tournaments.start(tournament_id, ORGANISER)
    heard: list[TournamentUpdate] = []

    async def listen(update: TournamentUpdate) -> None:
        heard.append(update)
    service.tournaments.listeners.append(listen)
    for _ in range(2):  # two rounds in which DAN never moves: his turn timer forfeits him
        info = await service.tournaments.view(tournament_id)
        for pairing in info.rounds[-1]:
            assert pairing.game_id is not None
            if DAN in pairing.players:
                if pairing.players[0] != DAN:
                    await service.act(pairing.game_id, pairing.players[0] or 0, "AC")
            else:
                await service.resign(pairing.game_id, pairing.players[1] or 0)
        clock.now += 601.0
        for game_id in await service.due_timers():
            await service.fire_timer(game_id)
        await _settled(service)
    info = await service.tournaments.view(tournament_id)
    assert DAN in info.withdrawn and len(info.rounds) == 3
    assert all(DAN not in p.players for p in info.rounds[2])  # not paired any more: the bye goes to someone else
    lost = [p.result for pairings in info.rounds[:2] for p in pairings if DAN in p.players]
    assert lost in (["-/+", "-/+"], ["+/-", "+/-"], ["-/+", "+/-"], ["+/-", "-/+"])
    events = [e for update in heard for e in update.events]
    assert PlayerWithdrawn(tournament_id, DAN, "absent", 3) in events
    [dan] = [s for s in info.standings if s.player == DAN]
    assert dan.withdrawn and dan.points == 0.0


async def test_a_round_is_created_once_by_two_processes_on_one_database(two: tuple[Database, Database]) -> None:
    one, other = GameService(two[0]), GameService(two[1])
    tournament_id = await _open(one, Settings(Format.SWISS, rounds=2), FOUR)
    await one.tournaments.start(tournament_id, ORGANISER)
    info = await other.tournaments.view(tournament_id)
    (a, b) = info.rounds[0]
    # each process ends one of the two games: the second of them, whichever it is, makes round 2
    await one.resign(a.game_id or 0, a.players[1] or 0)
    await other.resign(b.game_id or 0, b.players[1] or 0)
    # then both record every ending again at once, as a catch-up after a restart would
    await asyncio.gather(*(s.tournaments.game_ended(g) for s in (one, other) for g in (a.game_id or 0,
                                                                                       b.game_id or 0)),
                         one.tournaments.catch_up(), other.tournaments.catch_up())
    await _settled(one, other)
    info = await one.tournaments.view(tournament_id)
    assert len(info.rounds) == 2 and all(p.game_id is not None for p in info.rounds[1])
    assert await _count(two[0], "SELECT COUNT(*) FROM tournament_rounds WHERE tournament_id = ?", tournament_id) == 2
    assert await _count(two[0], "SELECT COUNT(*) FROM games") == 4


# A trigger that refuses a third game (the database's own error), on each database.
_HALF_WAY = {
    "sqlite": ["CREATE TRIGGER killed_half_way BEFORE INSERT ON games WHEN (SELECT COUNT(*) FROM games) >= 2"
               " BEGIN SELECT RAISE(ABORT, 'killed half-way'); END"],
    "postgresql": ["CREATE FUNCTION killed_half_way() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN IF (SELECT COUNT(*)"
                   " FROM games) >= 2 THEN RAISE EXCEPTION ''killed half-way''; END IF; RETURN NEW; END'",
                   "CREATE TRIGGER killed_half_way BEFORE INSERT ON games FOR EACH ROW"
                   " EXECUTE FUNCTION killed_half_way()"],
}


async def test_a_round_creation_that_fails_half_way_leaves_nothing_and_runs_once_again(service: GameService) -> None:
    tournament_id = await _open(service, Settings(Format.SWISS, rounds=2), (ANN, BEN, CAT, DAN, EVE, FAY))

    # The database refuses the round's third game, as a process killed after its second would never write it.
    for sql in _HALF_WAY[service.db.dialect.value]:
        await service.db.run(statement(sql))
    with pytest.raises(Exception, match="killed half-way"):
        await service.tournaments.start(tournament_id, ORGANISER)
    info = await service.tournaments.view(tournament_id)
    assert info.status == "open" and info.rounds == ()
    assert await _count(service.db, "SELECT COUNT(*) FROM games") == 0
    await service.db.run(statement("DROP TRIGGER killed_half_way" + (" ON games" if service.db.dialect.value ==
                                                                     "postgresql" else "")))
    started = await service.tournaments.start(tournament_id, ORGANISER)
    assert len(started.games) == 3
    for _ in range(2):  # creating again, as a restart's catch-up does, makes nothing twice
        assert await service.tournaments.catch_up() == []
    with pytest.raises(ServiceError, match="already started"):
        await service.tournaments.start(tournament_id, ORGANISER)
    assert await _count(service.db, "SELECT COUNT(*) FROM games") == 3
    assert await _count(service.db, "SELECT COUNT(*) FROM tournament_pairings") == 3


async def test_a_round_deadline_stops_what_is_left_by_the_rule_stated_at_creation(
        clocked: tuple[GameService, Clock]) -> None:
    service, clock = clocked
    tournaments = service.tournaments
    tournament_id = await _open(service, Settings(Format.SWISS, rounds=2), FOUR, round_time=3_600.0,
                                deadline_rule="loss")
    started = await tournaments.start(tournament_id, ORGANISER)
    assert started.tournament.deadlines == (clock.now + 3_600.0,)
    assert await tournaments.next_round_deadline() == clock.now + 3_600.0
    played, left = started.tournament.rounds[0]
    await service.resign(played.game_id or 0, played.players[1] or 0)
    await _settled(service)
    clock.now += 3_599.0
    assert await tournaments.due_round_deadlines() == []
    assert not (await tournaments.adjudicate(tournament_id)).events  # not yet
    clock.now += 1.0
    assert await tournaments.due_round_deadlines() == [tournament_id]
    update = await tournaments.adjudicate(tournament_id)
    await _settled(service)
    assert [e.number for e in _events(update, RoundStarted)] == [2]  # type: ignore[attr-defined]
    info = await tournaments.view(tournament_id)
    # nobody had moved in the game left: the player to move (the first) loses it, over the board, no absence
    assert info.rounds[0][1].result == "0-1" and info.withdrawn == ()
    game = (await service.view(left.game_id or 0, fresh=True)).game
    assert game.status == "finished" and [s.place for s in game.seats] == [2, 1]
    assert (await tournaments.adjudicate(tournament_id)).events == ()  # round 2's deadline is an hour away
    assert await tournaments.next_round_deadline() == clock.now + 3_600.0


async def test_a_round_deadline_draws_a_table_among_those_still_in(clocked: tuple[GameService, Clock]) -> None:
    service, clock = clocked
    tournament_id = await _open(service, Settings(Format.TABLES, rounds=1), FOUR, kind="sucker", round_time=600.0)
    started = await service.tournaments.start(tournament_id, ORGANISER)
    [table] = started.tournament.rounds[0]
    await service.resign(table.game_id or 0, table.players[0] or 0)
    clock.now += 600.0
    await service.tournaments.adjudicate(tournament_id)
    await _settled(service)
    info = await service.tournaments.view(tournament_id)
    assert info.status == "finished"
    places = info.rounds[0][0].places
    assert places is not None and places[0] == 4 and places[1:] == (1, 1, 1)
    assert [s.points for s in info.standings] == [4.0, 4.0, 4.0, 0.0]


async def test_an_ending_missed_while_no_process_listened_is_caught_up_at_start(two: tuple[Database, Database]) -> None:
    one, other = GameService(two[0]), GameService(two[1])
    other.listeners.clear()  # a process that stops right after the game's last move, before anything heard of it
    tournament_id = await _open(one, Settings(Format.SWISS, rounds=2), FOUR)
    await one.tournaments.start(tournament_id, ORGANISER)
    a, b = (await one.tournaments.view(tournament_id)).rounds[0]
    await one.resign(a.game_id or 0, a.players[1] or 0)
    await _settled(one)
    await other.resign(b.game_id or 0, b.players[0] or 0)
    await _settled(one, other)
    info = await one.tournaments.view(tournament_id)
    assert len(info.rounds) == 1 and info.rounds[0][1].result is None  # missed
    restarted = GameService(two[1])
    [update] = await restarted.tournaments.catch_up()
    assert [e.number for e in _events(update, RoundStarted)] == [2]  # type: ignore[attr-defined]
    info = await one.tournaments.view(tournament_id)
    assert info.rounds[0][1].result == "0-1" and len(info.rounds) == 2
    assert await restarted.tournaments.catch_up() == []


@pytest.mark.parametrize("rated", [True, False])
async def test_an_unrated_tournament_changes_no_ladder(service: GameService, rated: bool) -> None:
    made = await service.tournaments.create("chopsticks", Settings(Format.KNOCKOUT), guild_id=1, channel_id=2,
                                            organiser_id=ORGANISER, rated=rated)
    for player in (ANN, BEN):
        await service.tournaments.join(made.tournament.id, player)
    started = await service.tournaments.start(made.tournament.id, ORGANISER)
    [game] = started.tournament.rounds[0]
    await service.act(game.game_id or 0, game.players[0] or 0, "AC")
    ended = await service.resign(game.game_id or 0, game.players[1] or 0)
    [event] = [e for e in ended.events if isinstance(e, GameEnded)]
    assert bool(event.rating_changes) is rated and started.tournament.rated is rated
    await _settled(service)
    assert (await service.tournaments.view(started.tournament.id)).status == "finished"


async def test_computer_players_fill_a_short_so_long_sucker_table_when_allowed(service: GameService) -> None:
    tournament_id = await _open(service, Settings(Format.TABLES, rounds=1, fillers=True), (ANN, BEN, CAT),
                                kind="sucker")
    started = await service.tournaments.start(tournament_id, ORGANISER)
    [table] = started.tournament.rounds[0]
    assert table.table and len(table.players) == 4 and table.players.count(None) == 1
    game = await service.load(table.game_id or 0)
    assert [s.computer is not None for s in game.record.seats] == [p is None for p in table.players]


async def test_the_timer_loop_adjudicates_a_round_at_its_deadline(clocked: tuple[GameService, Clock]) -> None:
    service, clock = clocked
    tournament_id = await _open(service, Settings(Format.SWISS, rounds=1), (ANN, BEN), round_time=300.0)
    await service.tournaments.start(tournament_id, ORGANISER)
    told: list[TimerEvent] = []

    async def announce(event: TimerEvent, _result: object, _fence: object) -> None:
        told.append(event)

    async def nothing(_lobby: object) -> None:
        return None
    loop = TimerLoop(service, announce, LobbyService(service), nothing)
    clock.now += 299.0  # the round ends within a turn time (600 s): no turn timer fires first
    assert await loop.fire_due() == 0
    assert (await service.tournaments.view(tournament_id)).status == "running"
    clock.now += 1.0
    assert await loop.fire_due() == 0
    await _settled(service)
    info = await service.tournaments.view(tournament_id)
    assert info.status == "finished" and info.rounds[0][0].result == "1/2-1/2" and told == []


async def test_a_withdrawn_players_round_robin_games_are_forfeits_without_a_game(service: GameService) -> None:
    tournament_id = await _open(service, Settings(Format.ROUND_ROBIN), FOUR)
    started = await service.tournaments.start(tournament_id, ORGANISER)
    assert started.tournament.total_rounds == 3
    await service.tournaments.leave(tournament_id, DAN)
    for pairing in started.tournament.rounds[0]:
        await service.resign(pairing.game_id or 0, pairing.players[1] or 0)
    await _settled(service)
    info = await service.tournaments.view(tournament_id)
    [forfeit] = [p for p in info.rounds[1] if DAN in p.players]
    assert forfeit.game_id is None and forfeit.result in ("+/-", "-/+")
    assert [p.game_id is not None for p in info.rounds[1]].count(True) == 1
    assert await _count(service.db, "SELECT COUNT(*) FROM games") == 3


async def test_a_swiss_takes_a_late_entry_from_the_next_round(service: GameService) -> None:
    tournament_id = await _open(service, Settings(Format.SWISS, rounds=2), (ANN, BEN, CAT))
    await service.tournaments.start(tournament_id, ORGANISER)
    joined = await service.tournaments.join(tournament_id, DAN)
    assert joined.tournament.players == (ANN, BEN, CAT, DAN)
    [game] = [p for p in joined.tournament.rounds[0] if p.game_id is not None]
    assert DAN not in {p for pairings in joined.tournament.rounds for pairing in pairings for p in pairing.players}
    await service.resign(game.game_id or 0, game.players[1] or 0)
    await _settled(service)
    info = await service.tournaments.view(tournament_id)
    assert len(info.rounds) == 2 and DAN in {p for pairing in info.rounds[1] for p in pairing.players}
    round_robin = await service.tournaments.create("chopsticks", Settings(Format.ROUND_ROBIN), guild_id=1,
                                                   channel_id=2, organiser_id=ORGANISER)
    for player in (ANN, BEN):
        await service.tournaments.join(round_robin.tournament.id, player)
    await service.tournaments.start(round_robin.tournament.id, ORGANISER)
    with pytest.raises(ServiceError, match="no more entries"):
        await service.tournaments.join(round_robin.tournament.id, CAT)


async def test_a_game_of_the_generals_knockout_starts_its_game_and_a_format_must_fit_the_game(
        service: GameService) -> None:
    tournament_id = await _open(service, Settings(Format.KNOCKOUT), (ANN, BEN), kind="generals")
    started = await service.tournaments.start(tournament_id, ORGANISER)
    [game] = started.tournament.rounds[0]
    record = (await service.load(game.game_id or 0)).record
    assert record.kind == "generals" and [s.user_id for s in record.seats] == list(game.players)
    with pytest.raises(ServiceError, match="does not fit"):
        await service.tournaments.create("sucker", Settings(Format.SWISS, rounds=3), guild_id=1, channel_id=2,
                                         organiser_id=ORGANISER)
    with pytest.raises(ServiceError, match="does not fit"):
        await service.tournaments.create("chopsticks", Settings(Format.TABLES, rounds=3), guild_id=1, channel_id=2,
                                         organiser_id=ORGANISER)


async def test_a_round_that_cannot_be_made_keeps_the_results_and_is_made_later(service: GameService) -> None:
    tournament_id = await _open(service, Settings(Format.SWISS, rounds=2), FOUR)
    started = await service.tournaments.start(tournament_id, ORGANISER)
    settings = ServerSettingsStore(service.db)
    await settings.switch_game(1, "chopsticks", False)  # an admin switches the game off on the server meanwhile
    for pairing in started.tournament.rounds[0]:
        await service.resign(pairing.game_id or 0, pairing.players[1] or 0)
    await _settled(service)
    info = await service.tournaments.view(tournament_id)
    assert len(info.rounds) == 1 and [p.result for p in info.rounds[0]] == ["1-0", "1-0"]  # the results stand
    await settings.switch_game(1, "chopsticks", True)
    [update] = await service.tournaments.catch_up()
    assert [e.number for e in _events(update, RoundStarted)] == [2]  # type: ignore[attr-defined]
    assert len(update.games) == 2

"""Tournaments as rows (storage/tournaments.py), on each database: the pure tournament rebuilt from its rows, a round
created once, a result written once, and a round's transaction that fails half-way leaving nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from games.tournaments import next_round
from games.tournaments.model import Entrant, Format, Result, Settings, Tiebreak, Tournament
from storage.connection import open_database
from storage.database import Database
from storage.records import StaleVersionError
from storage.sql import Plan, Sql
from storage.tournaments import (
    EntrantRow,
    PairingRow,
    TournamentRecord,
    add_entrant,
    add_pairings,
    add_round,
    create_tournament,
    load_tournament,
    set_entrant,
    set_result,
    update_tournament,
)

SETTINGS = Settings(Format.SWISS, rounds=3, bye_points=0.5, tiebreaks=(Tiebreak.BUCHHOLZ, Tiebreak.WINS))


@pytest.fixture
async def db(database_target: str) -> AsyncIterator[Database]:
    database = await open_database(database_target)
    yield database
    await database.close()


async def _new(db: Database, settings: Settings = SETTINGS, players: tuple[int, ...] = (11, 12, 13)) -> int:
    async with db.transaction() as conn:
        tournament_id = await conn.run(create_tournament(
            guild_id=1, channel_id=2, organiser_id=3, kind="chopsticks", options={"hands": 2}, settings=settings,
            starts_at=9_000.0, min_players=2, max_players=8, rated=False, turn_timeout=600.0, minimum_finished=0.8,
            now=5_000.0))
        for number, player in enumerate(players):
            await conn.run(add_entrant(tournament_id, EntrantRow(player, 1000.0 + number)))
    return tournament_id


async def _load(db: Database, tournament_id: int) -> TournamentRecord:
    async with db.transaction() as conn:
        return await conn.run(load_tournament(conn.dialect, tournament_id))


def _rows(number: int, tournament: Tournament) -> list[PairingRow]:
    round_ = tournament.rounds[number - 1]
    return [PairingRow(number, i, g.first, g.second, None, None, None if g.result is None else g.result.value, None)
            for i, g in enumerate(round_.games)]


def _count(table: str) -> Plan[int]:
    done = yield Sql(f"SELECT COUNT(*) FROM {table}")
    return int(done.rows[0][0])


async def test_the_pure_tournament_is_rebuilt_from_its_rows(db: Database) -> None:
    tournament_id = await _new(db)
    record = await _load(db, tournament_id)
    assert (record.kind, record.options, record.settings, record.status, record.rated, record.minimum_finished) == (
        "chopsticks", {"hands": 2}, SETTINGS, "open", False, 0.8)
    expected = Tournament(SETTINGS, (Entrant(11, 1000.0), Entrant(12, 1001.0), Entrant(13, 1002.0)))
    assert record.tournament() == expected
    # round 1 as the pure pairing makes it, one game played and the bye, then the results
    expected = expected.with_round(next_round(expected))
    async with db.transaction() as conn:
        await conn.run(add_round(tournament_id, 1, 5_100.0, deadline=8_700.0))
        await conn.run(add_pairings(tournament_id, _rows(1, expected)))
    record = await _load(db, tournament_id)
    assert record.tournament() == expected and record.rounds[0].pairings[0].game_id is None
    assert (record.rounds[0].deadline, record.rounds[0].ended_at, record.round_time, record.deadline_rule) == (
        8_700.0, None, None, "draw")
    game = next(p for p in record.rounds[0].pairings if p.second_id is not None)
    async with db.transaction() as conn:
        await conn.run(set_result(tournament_id, game, Result.SECOND_WINS.value, None))
        await conn.run(set_entrant(tournament_id, 13, left_round=2, absences=2))
    index = next(i for i, g in enumerate(expected.rounds[0].games) if g.second is not None)
    expected = expected.with_result(1, index, Result.SECOND_WINS).with_entrant(Entrant(13, 1002.0, left=2))
    rebuilt = (await _load(db, tournament_id)).tournament()
    assert rebuilt.rounds == expected.rounds
    assert sorted(rebuilt.entrants, key=lambda e: e.player) == sorted(expected.entrants, key=lambda e: e.player)
    assert (await _load(db, tournament_id)).entrant(13) == EntrantRow(13, 1002.0, 1, 0.0, 2, 2)


async def test_a_so_long_sucker_table_keeps_its_seats_and_places(db: Database) -> None:
    settings = Settings(Format.TABLES, rounds=1, fillers=True)
    tournament_id = await _new(db, settings, (11, 12, 13))
    table = PairingRow(1, 0, None, None, (11, None, 12, 13), None, None, None)
    async with db.transaction() as conn:
        await conn.run(add_round(tournament_id, 1, 5_100.0))
        await conn.run(add_pairings(tournament_id, [table]))
        await conn.run(set_result(tournament_id, table, None, (2, 4, 1, 3)))
    rebuilt = (await _load(db, tournament_id)).tournament()
    [round_] = rebuilt.rounds
    assert round_.tables[0].seats == (11, None, 12, 13) and round_.tables[0].places == (2, 4, 1, 3)


async def test_a_round_and_a_result_are_written_once(db: Database) -> None:
    tournament_id = await _new(db)
    async with db.transaction() as conn:
        await conn.run(add_round(tournament_id, 1, 5_100.0))
    with pytest.raises(Exception) as raised:  # the database's own unique-key error, whichever the database
        async with db.transaction() as conn:
            await conn.run(add_round(tournament_id, 1, 5_200.0))
    assert "unique" in str(raised.value).lower() or "duplicate" in str(raised.value).lower()
    game = PairingRow(1, 0, 11, 12, None, None, None, None)
    async with db.transaction() as conn:
        await conn.run(add_pairings(tournament_id, [game]))
        await conn.run(set_result(tournament_id, game, Result.DRAW.value, None))
    with pytest.raises(StaleVersionError):
        async with db.transaction() as conn:
            await conn.run(set_result(tournament_id, game, Result.FIRST_WINS.value, None))
    assert (await _load(db, tournament_id)).rounds[0].pairings[0].result == Result.DRAW.value


async def test_a_round_whose_transaction_fails_half_way_leaves_nothing(db: Database) -> None:
    tournament_id = await _new(db)
    with pytest.raises(RuntimeError):
        async with db.transaction() as conn:
            await conn.run(add_round(tournament_id, 1, 5_100.0))
            await conn.run(add_pairings(tournament_id, [PairingRow(1, 0, 11, 12, None, None, None, None)]))
            raise RuntimeError("killed half-way")
    record = await _load(db, tournament_id)
    assert record.rounds == ()
    assert await db.query(_count("tournament_pairings")) == 0
    async with db.transaction() as conn:  # and it is made again, whole
        await conn.run(add_round(tournament_id, 1, 5_100.0))
        await conn.run(add_pairings(tournament_id, [PairingRow(1, 0, 11, 12, None, None, None, None)]))
    assert len((await _load(db, tournament_id)).rounds[0].pairings) == 1


async def test_its_status_changes_are_guarded_by_its_version(db: Database) -> None:
    tournament_id = await _new(db)
    record = await _load(db, tournament_id)
    async with db.transaction() as conn:
        running = await conn.run(update_tournament(record, status="running"))
    assert running.status == "running" and running.version == record.version + 1
    with pytest.raises(StaleVersionError):
        async with db.transaction() as conn:
            await conn.run(update_tournament(record, status="cancelled"))
    with pytest.raises(ValueError):
        async with db.transaction() as conn:
            await conn.run(update_tournament(running, status="lost"))
    assert (await _load(db, tournament_id)).status == "running"


async def test_the_migration_moves_a_missed_start_from_the_bots_memory_to_the_tournaments_row(
    database_target: str,
) -> None:
    old = await open_database(database_target, migrate_to=23)
    try:
        missed, other = await _new(old), await _new(old)
        await old.run(_remember([(f"tournament:{missed}:start-missed", "9000.5"), ("commands-digest", "abc")]))
        await old.migrate()
        assert (await _load(old, missed)).start_missed == 9000.5
        assert (await _load(old, other)).start_missed is None
        kept = await old.query(_keys())
    finally:
        await old.close()
    assert kept == ["commands-digest"]


def _remember(pairs: list[tuple[str, str]]) -> Plan[None]:
    yield Sql("INSERT INTO bot_state (key, value) VALUES (?, ?)", pairs, many=True)


def _keys() -> Plan[list[str]]:
    done = yield Sql("SELECT key FROM bot_state ORDER BY key")
    return [str(row[0]) for row in done.rows]

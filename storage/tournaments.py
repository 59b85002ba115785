"""Tournaments as rows (migration 0021): the tournament and its settings, its entrants, its rounds and each round's
pairings with the game each created and its result, so that the pure `games.tournaments.Tournament` is rebuilt from
them (`TournamentRecord.tournament`).

A round is a row keyed by (tournament, number): written in the same transaction as its pairings and their games, it
exists once or not at all. Every function here runs inside its caller's transaction (`Connection`): the service
locks the tournament's row first (`load_tournament(..., lock=True)`), so two processes change one tournament in turn.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from games.tournaments import model
from games.tournaments.model import Settings, Tournament
from storage.database import Connection
from storage.records import StaleVersionError
from storage.sql import Dialect, Plan, Sql

STATUSES = ("open", "running", "paused", "finished", "cancelled")


class TournamentNotFoundError(LookupError):
    """No tournament has this id."""


@dataclass(frozen=True)
class EntrantRow:
    user_id: int
    rating: float
    joined: int = 1
    start_points: float = 0.0
    left_round: int | None = None
    absences: int = 0


@dataclass(frozen=True)
class PairingRow:
    """A two-player pairing (`first_id` moves first; `second_id` None: a bye) or a So Long Sucker table (`seats`,
    None for a computer seat), the game it made (None: a bye, or a game decided without being played) and its
    result: a `model.Result` value, or a table's places."""

    round: int
    position: int
    first_id: int | None
    second_id: int | None
    seats: tuple[int | None, ...] | None
    game_id: int | None
    result: str | None
    places: tuple[int, ...] | None

    @property
    def is_table(self) -> bool:
        return self.seats is not None

    @property
    def ended(self) -> bool:
        return self.result is not None or self.places is not None or (not self.is_table and self.second_id is None)


@dataclass(frozen=True)
class RoundRow:
    number: int
    created_at: float
    deadline: float | None
    ended_at: float | None
    pairings: tuple[PairingRow, ...]
    message_id: int | None = None  # its pairings message, once posted (0: posted before this was stored)
    thread_id: int | None = None  # its thread (the tournament's channel: none could be opened); None: none opened


@dataclass(frozen=True)
class TournamentRecord:
    id: int
    guild_id: int | None
    channel_id: int
    organiser_id: int
    kind: str
    options: dict[str, Any]
    settings: Settings
    status: str
    starts_at: float | None
    min_players: int
    max_players: int
    rated: bool
    turn_timeout: float | None
    minimum_finished: float | None
    round_time: float | None
    deadline_rule: str
    version: int
    created_at: float
    finished_at: float | None
    entrants: tuple[EntrantRow, ...]
    rounds: tuple[RoundRow, ...]
    start_missed: float | None = None  # when its start time came with too few players (it stays open)

    def entrant(self, user_id: int) -> EntrantRow | None:
        return next((e for e in self.entrants if e.user_id == user_id), None)

    def tournament(self) -> Tournament:
        """The pure tournament these rows describe (checked as a snapshot is: InvalidStateError if they are not one)."""
        rounds = []
        for round_ in self.rounds:
            games = [[p.first_id, p.second_id, p.result] for p in round_.pairings if not p.is_table]
            tables = [[list(p.seats or ()), None if p.places is None else list(p.places)]
                      for p in round_.pairings if p.is_table]
            rounds.append({"games": games, "tables": tables})
        return model.from_dict({
            "format": model.FORMAT_VERSION,
            "settings": settings_dict(self.settings),
            "entrants": [[e.user_id, e.rating, e.joined, e.start_points, e.left_round] for e in self.entrants],
            "rounds": rounds,
        })


def settings_dict(settings: Settings) -> dict[str, Any]:
    """The settings as the snapshot has them (stored as JSON)."""
    return dict(model.to_dict(Tournament(settings, ()))["settings"])


def _settings(text: str) -> Settings:
    return model.from_dict({"format": model.FORMAT_VERSION, "settings": json.loads(text), "entrants": [],
                            "rounds": []}).settings


_UPDATABLE = frozenset({"status", "finished_at", "starts_at", "start_missed"})
_COLUMNS = ("id, guild_id, channel_id, organiser_id, kind, options, settings, status, starts_at, min_players,"
            " max_players, rated, turn_timeout, minimum_finished, round_time, deadline_rule, version, created_at,"
            " finished_at, start_missed")


# ----- the statements, as plans (storage/sql.py) -----------------------------------------------------------------
def create_tournament(
    *, guild_id: int | None, channel_id: int, organiser_id: int, kind: str, options: Mapping[str, Any],
    settings: Settings, starts_at: float | None, min_players: int, max_players: int, rated: bool,
    turn_timeout: float | None, minimum_finished: float | None, now: float, round_time: float | None = None,
    deadline_rule: str = "draw",
) -> Plan[int]:
    """A new open tournament without entrants; its id."""
    done = yield Sql(
        "INSERT INTO tournaments (guild_id, channel_id, organiser_id, kind, options, settings, status, starts_at,"
        " min_players, max_players, rated, turn_timeout, minimum_finished, round_time, deadline_rule, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (guild_id, channel_id, organiser_id, kind, json.dumps(dict(options), sort_keys=True),
         json.dumps(settings_dict(settings), sort_keys=True), starts_at, min_players, max_players, int(rated),
         turn_timeout, minimum_finished, round_time, deadline_rule, now),
    )
    return int(done.value())


def load_tournament(dialect: Dialect, tournament_id: int, *, lock: bool = False) -> Plan[TournamentRecord]:
    """The tournament with its entrants, rounds and pairings; with `lock` its row is locked until the transaction
    ends (PostgreSQL; SQLite's write transaction holds the whole file), so the caller's writes from it are the only
    ones."""
    done = yield Sql(f"SELECT {_COLUMNS} FROM tournaments WHERE id = ?{dialect.for_update if lock else ''}",
                     (tournament_id,))
    row = done.one()
    if row is None:
        raise TournamentNotFoundError(tournament_id)
    entrants = yield Sql(
        "SELECT user_id, rating, joined, start_points, left_round, absences FROM tournament_entrants"
        " WHERE tournament_id = ? ORDER BY position", (tournament_id,))
    rounds = yield Sql("SELECT number, created_at, deadline, ended_at, message_id, thread_id FROM tournament_rounds"
                       " WHERE tournament_id = ? ORDER BY number", (tournament_id,))
    pairings = yield Sql(
        "SELECT round, position, first_id, second_id, seats, game_id, result, places FROM tournament_pairings"
        " WHERE tournament_id = ? ORDER BY round, position", (tournament_id,))
    by_round: dict[int, list[PairingRow]] = {}
    for p in pairings.rows:
        by_round.setdefault(int(p[0]), []).append(PairingRow(
            int(p[0]), int(p[1]), _opt_int(p[2]), _opt_int(p[3]),
            None if p[4] is None else tuple(json.loads(p[4])), _opt_int(p[5]), p[6],
            None if p[7] is None else tuple(json.loads(p[7]))))
    return TournamentRecord(
        id=int(row[0]), guild_id=_opt_int(row[1]), channel_id=int(row[2]), organiser_id=int(row[3]),
        kind=str(row[4]), options=json.loads(row[5]), settings=_settings(row[6]), status=str(row[7]),
        starts_at=row[8], min_players=int(row[9]), max_players=int(row[10]), rated=bool(row[11]),
        turn_timeout=row[12], minimum_finished=row[13], round_time=row[14], deadline_rule=str(row[15]),
        version=int(row[16]), created_at=float(row[17]), finished_at=row[18],
        entrants=tuple(EntrantRow(int(e[0]), float(e[1]), int(e[2]), float(e[3]), _opt_int(e[4]), int(e[5]))
                       for e in entrants.rows),
        rounds=tuple(RoundRow(int(r[0]), float(r[1]), r[2], r[3], tuple(by_round.get(int(r[0]), ())), _opt_int(r[4]),
                              _opt_int(r[5])) for r in rounds.rows),
        start_missed=row[19],
    )


def update_tournament(record: TournamentRecord, **changes: Any) -> Plan[TournamentRecord]:
    """Change its status (and when it finished, or is to start), guarded by its version."""
    bad = set(changes) - _UPDATABLE
    if bad:
        raise ValueError(f"cannot update {sorted(bad)}")
    if "status" in changes and changes["status"] not in STATUSES:
        raise ValueError(f"no tournament status {changes['status']!r}")
    sets = "".join(f"{column} = ?, " for column in changes)
    done = yield Sql(f"UPDATE tournaments SET {sets}version = version + 1 WHERE id = ? AND version = ?",
                     (*changes.values(), record.id, record.version))
    if done.rowcount != 1:
        raise StaleVersionError(record.id, record.version)
    return replace(record, version=record.version + 1, **changes)


def add_entrant(tournament_id: int, entrant: EntrantRow) -> Plan[None]:
    """Enter a player (after everyone entered so far)."""
    yield Sql(
        "INSERT INTO tournament_entrants (tournament_id, user_id, position, rating, joined, start_points, left_round,"
        " absences) VALUES (?, ?, (SELECT COALESCE(MAX(position), -1) + 1 FROM tournament_entrants"
        " WHERE tournament_id = ?), ?, ?, ?, ?, ?)",
        (tournament_id, entrant.user_id, tournament_id, entrant.rating, entrant.joined, entrant.start_points,
         entrant.left_round, entrant.absences))


def remove_entrant(tournament_id: int, user_id: int) -> Plan[None]:
    """Take a player out before the tournament starts (no trace left)."""
    yield Sql("DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?", (tournament_id, user_id))


def set_entrant(tournament_id: int, user_id: int, *, left_round: int | None, absences: int) -> Plan[None]:
    """A player's withdrawal (not paired from `left_round` on) and their count of games lost by absence."""
    yield Sql("UPDATE tournament_entrants SET left_round = ?, absences = ? WHERE tournament_id = ? AND user_id = ?",
              (left_round, absences, tournament_id, user_id))


def add_round(tournament_id: int, number: int, now: float, deadline: float | None = None) -> Plan[None]:
    """The round's row: its primary key makes a second creation of the same round fail (and its transaction with
    it)."""
    yield Sql("INSERT INTO tournament_rounds (tournament_id, number, created_at, deadline) VALUES (?, ?, ?, ?)",
              (tournament_id, number, now, deadline))


def end_round(tournament_id: int, number: int, now: float) -> Plan[None]:
    yield Sql("UPDATE tournament_rounds SET ended_at = ? WHERE tournament_id = ? AND number = ? AND ended_at IS NULL",
              (now, tournament_id, number))


def set_round_message(tournament_id: int, number: int, message_id: int) -> Plan[bool]:
    """The round's pairings message was posted: stored once (False: it was stored already, by another process)."""
    done = yield Sql("UPDATE tournament_rounds SET message_id = ? WHERE tournament_id = ? AND number = ?"
                     " AND message_id IS NULL", (message_id, tournament_id, number))
    return done.rowcount == 1


def set_round_thread(tournament_id: int, number: int, thread_id: int) -> Plan[tuple[int, bool]]:
    """The round's thread, stored once: the thread stored (another process's, if it stored one first) and whether
    this call stored it."""
    done = yield Sql("UPDATE tournament_rounds SET thread_id = ? WHERE tournament_id = ? AND number = ?"
                     " AND thread_id IS NULL", (thread_id, tournament_id, number))
    stored = yield Sql("SELECT thread_id FROM tournament_rounds WHERE tournament_id = ? AND number = ?",
                       (tournament_id, number))
    return int(stored.value()), done.rowcount == 1


def unposted_rounds(created_before: float) -> Plan[list[tuple[int, int]]]:
    """The rounds (tournament, number) made before `created_before` that are not fully posted: their pairings message
    was never posted, or a game of theirs being played has no board stored yet (the process that made them stopped
    part-way: a thread it opened is found again, a board it posted is returned by Discord, its nonce), oldest
    first."""
    done = yield Sql(
        "SELECT r.tournament_id, r.number FROM tournament_rounds r WHERE r.created_at < ? AND (r.message_id IS NULL"
        " OR EXISTS (SELECT 1 FROM tournament_pairings p JOIN games g ON g.id = p.game_id"
        " WHERE p.tournament_id = r.tournament_id AND p.round = r.number AND g.message_id IS NULL"
        " AND g.status = 'active'))"
        " ORDER BY r.created_at, r.tournament_id, r.number", (created_before,))
    return [(int(row[0]), int(row[1])) for row in done.rows]


def add_pairings(tournament_id: int, pairings: Sequence[PairingRow]) -> Plan[None]:
    if not pairings:
        return
    yield Sql(
        "INSERT INTO tournament_pairings (tournament_id, round, position, first_id, second_id, seats, game_id, result,"
        " places) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(tournament_id, p.round, p.position, p.first_id, p.second_id, None if p.seats is None else json.dumps(p.seats),
          p.game_id, p.result, None if p.places is None else json.dumps(p.places)) for p in pairings],
        many=True)


def set_result(tournament_id: int, pairing: PairingRow, result: str | None, places: Sequence[int] | None) -> Plan[None]:
    """A pairing's result (two players) or places (a table), written once: a second write changes nothing."""
    done = yield Sql(
        "UPDATE tournament_pairings SET result = ?, places = ? WHERE tournament_id = ? AND round = ? AND position = ?"
        " AND result IS NULL AND places IS NULL",
        (result, None if places is None else json.dumps(list(places)), tournament_id, pairing.round,
         pairing.position))
    if done.rowcount != 1:
        raise StaleVersionError(tournament_id, pairing.round)


def tournament_of_game(game_id: int) -> Plan[int | None]:
    """The tournament whose pairing made game `game_id` (None: no tournament's)."""
    done = yield Sql("SELECT tournament_id FROM tournament_pairings WHERE game_id = ?", (game_id,))
    row = done.one()
    return None if row is None else int(row[0])


def unrecorded_endings() -> Plan[list[int]]:
    """Games of tournaments still going on that have ended but whose pairing has no result yet (their ending was
    missed: the process stopped before it recorded it), oldest first."""
    done = yield Sql(
        "SELECT p.game_id FROM tournament_pairings p JOIN games g ON g.id = p.game_id"
        " JOIN tournaments t ON t.id = p.tournament_id"
        " WHERE p.result IS NULL AND p.places IS NULL AND g.status <> 'active' AND g.status <> 'pending'"
        " AND t.status IN ('running', 'paused') ORDER BY p.game_id")
    return [int(row[0]) for row in done.rows]


_OPEN_DEADLINES = ("FROM tournament_rounds r JOIN tournaments t ON t.id = r.tournament_id"
                   " WHERE r.deadline IS NOT NULL AND r.ended_at IS NULL AND t.status = 'running'")


def next_round_deadline() -> Plan[float | None]:
    """The earliest deadline of a round being played in a running tournament, or None."""
    done = yield Sql(f"SELECT MIN(r.deadline) {_OPEN_DEADLINES}")
    row = done.one()
    return None if row is None or row[0] is None else float(row[0])


def due_round_deadlines(now: float) -> Plan[list[int]]:
    """The running tournaments whose round being played is past its deadline."""
    done = yield Sql(f"SELECT DISTINCT r.tournament_id {_OPEN_DEADLINES} AND r.deadline <= ? ORDER BY r.tournament_id",
                     (now,))
    return [int(row[0]) for row in done.rows]


# Open tournaments whose start time is still to come, or has come and not been acted on.
_DUE_STARTS = "FROM tournaments WHERE status = 'open' AND starts_at IS NOT NULL AND start_missed IS NULL"


def next_start() -> Plan[float | None]:
    """The earliest start time of an open tournament that has not come yet (or not been acted on), or None."""
    done = yield Sql(f"SELECT MIN(starts_at) {_DUE_STARTS}")
    row = done.one()
    return None if row is None or row[0] is None else float(row[0])


def due_starts(now: float) -> Plan[list[int]]:
    """The open tournaments whose start time has come and not been acted on (to start, or to say why not)."""
    done = yield Sql(f"SELECT id {_DUE_STARTS} AND starts_at <= ? ORDER BY id", (now,))
    return [int(row[0]) for row in done.rows]


def tournaments_with_status(*statuses: str) -> Plan[list[int]]:
    marks = ", ".join("?" * len(statuses))
    done = yield Sql(f"SELECT id FROM tournaments WHERE status IN ({marks}) ORDER BY id", statuses)
    return [int(row[0]) for row in done.rows]


def latest_in_channel(channel_id: int) -> Plan[int | None]:
    """The newest tournament announced in a channel, or whose round plays in that thread (what a command without
    `tournament:` means there)."""
    done = yield Sql("SELECT id FROM tournaments WHERE channel_id = ? OR id IN (SELECT tournament_id FROM"
                     " tournament_rounds WHERE thread_id = ?) ORDER BY id DESC LIMIT 1", (channel_id, channel_id))
    return int(done.rows[0][0]) if done.rows else None


async def load(conn: Connection, tournament_id: int, *, lock: bool = False) -> TournamentRecord:
    return await conn.run(load_tournament(conn.dialect, tournament_id, lock=lock))


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)

"""The statements of a game write ("units"), as plans (storage/sql.py) that either database runs.

A unit is a `storage.database.WriteUnit`: on SQLite its plan runs on the database's thread in one trip, whether inside
a `GameTransaction` (storage/games.py) or in a group commit with other writes (`Database.write`, storage/writes.py).
Every unit is guarded by the version its game was read at: it raises `StaleVersionError`, having written nothing,
if the game changed since.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from storage.records import GameRecord, Seat, StaleVersionError
from storage.sql import Plan, Sql

# Columns a write may change besides the state; anything else is fixed when the game is created. `channel_id` moves
# only before the game's board is posted (a tournament round's game, to the round's thread).
UPDATABLE = frozenset(
    {"status", "channel_id", "message_id", "thread_id", "draw_offer", "draw_declined", "deadline", "remind_at",
     "finished_at", "state"}
)

# A draw offer lasts until the opponent answers: the offerer's own move keeps it; anyone else's move declines it, and
# `draw_declined` says so until the next move (SET reads the row as it was: both see the old draw_offer).
_DRAW_AFTER_MOVE = ("draw_declined = CASE WHEN draw_offer <> {seat} THEN draw_offer END,"
                    " draw_offer = CASE WHEN draw_offer = {seat} THEN draw_offer END")
_MOVE_UPDATE = ("UPDATE games SET state = ?, status = ?, deadline = ?, remind_at = ?, "
                + _DRAW_AFTER_MOVE.format(seat="?") + ", finished_at = ?, version = version + 1,"
                " move_count = move_count + 1, updated_at = ?"
                " WHERE id = ? AND version = ?")
_MOVE_INSERT = "INSERT INTO moves (game_id, ply, seat, user_id, action, created_at) VALUES (?, ?, ?, ?, ?, ?)"


@dataclass(frozen=True)
class MoveWrite:
    """One move: the guarded snapshot, the move log and, when the game ends, the places; then `then`'s statements
    (the ladders, for a game's last move), in the same write and only if the guard let the move through.

    Its plan writes the move and returns its ply (`record` then gives the game after it). A plain move (no places,
    nothing after it) can also be written `together` with the other plain moves of a group commit: one read of their
    versions and two statements for all of them (storage/writes.py)."""

    game: GameRecord
    seat: int
    user_id: int | None
    action: str
    state: Mapping[str, Any]
    state_json: str
    now: float
    status: str
    deadline: float | None
    remind_at: float | None
    places: Sequence[int] | None = None
    then: Callable[[], Plan[object]] | None = None
    row: str = ""  # this move as a JSON array, for `_moves_together` (made in the caller, see `move_writer`)

    @property
    def together(self) -> Callable[[sqlite3.Connection, list[MoveWrite]], list[tuple[bool, Any] | None]] | None:
        return _moves_together if self.places is None and self.then is None else None

    @property
    def _finished_at(self) -> float | None:
        return self.now if self.status == "finished" else None

    def _update_row(self) -> tuple[Any, ...]:
        return (self.state_json, self.status, self.deadline, self.remind_at, self.seat, self.seat,
                self._finished_at, self.now, self.game.id, self.game.version)

    def _insert_row(self, ply: int) -> tuple[Any, ...]:
        return (self.game.id, ply, self.seat, self.user_id, self.action, self.now)

    def plan(self) -> Plan[int]:
        done = yield Sql(_MOVE_UPDATE + " RETURNING move_count", self._update_row())
        if not done.rows:
            raise StaleVersionError(self.game.id, self.game.version)
        ply = int(done.rows[0][0])
        yield Sql(_MOVE_INSERT, self._insert_row(ply))
        if self.places is not None:
            yield Sql("UPDATE game_players SET place = ? WHERE game_id = ? AND seat = ?",
                      [(place, self.game.id, seat_no) for seat_no, place in enumerate(self.places)], many=True)
        if self.then is not None:
            yield from self.then()
        return ply

    def record(self, ply: int) -> GameRecord:
        """The game as this move, written at `ply`, left it."""
        offer = self.game.draw_offer
        return replace(
            self.game, state=dict(self.state), status=self.status, deadline=self.deadline, remind_at=self.remind_at,
            draw_offer=offer if offer == self.seat else None,
            draw_declined=offer if offer is not None and offer != self.seat else None,
            finished_at=self._finished_at, version=self.game.version + 1, move_count=ply,
            updated_at=self.now, seats=with_places(self.game.seats, self.places),
        )


def move_writer(
    game: GameRecord,
    *,
    seat: int,
    user_id: int | None,
    action: str,
    state: Mapping[str, Any],
    now: float,
    status: str,
    deadline: float | None,
    remind_at: float | None,
    places: Sequence[int] | None = None,
    then: Callable[[], Plan[object]] | None = None,
) -> MoveWrite:
    # The JSON is made here, in the caller: a state that cannot be stored fails its own caller only, and the database's
    # thread is left only SQLite's work. (Floats survive JSON exactly: Python writes the shortest round-trip form.)
    state_json = dumps(state)
    finished_at = now if status == "finished" else None
    row = json.dumps([game.id, game.version, state_json, status, deadline, remind_at, finished_at, now,
                      game.move_count + 1, seat, user_id, action])
    return MoveWrite(game, seat, user_id, action, state, state_json, now, status, deadline, remind_at, places, then,
                     row)


# The plain moves of a group as one JSON array (one row per move, in `MoveWrite.row`'s order): three statements write
# them all, so the database's thread hardly needs the interpreter while SQLite works (see storage/writes.py).
_STALE_OF_GROUP = ("SELECT m.value->>0 FROM json_each(?) AS m LEFT JOIN games AS g"
                   " ON g.id = m.value->>0 AND g.version = m.value->>1 WHERE g.id IS NULL")
_LOG_GROUP = ("INSERT INTO moves (game_id, ply, seat, user_id, action, created_at)"
              " SELECT m.value->>0, m.value->>8, m.value->>9, m.value->>10, m.value->>11, m.value->>7"
              " FROM json_each(?) AS m")
_UPDATE_GROUP = ("UPDATE games SET state = m.value->>2, status = m.value->>3, deadline = m.value->>4,"
                 " remind_at = m.value->>5, " + _DRAW_AFTER_MOVE.format(seat="m.value->>9")
                 + ", finished_at = m.value->>6, version = version + 1,"
                 " move_count = move_count + 1, updated_at = m.value->>7"
                 " FROM json_each(?) AS m WHERE games.id = m.value->>0 AND games.version = m.value->>1")


def _moves_together(conn: sqlite3.Connection, moves: list[MoveWrite]) -> list[tuple[bool, Any] | None]:
    """Plain moves of different games, inside a write transaction: the stale ones found and refused by one read (no
    other process can change a version before the commit: this transaction holds SQLite's write lock), the others
    logged by one INSERT and written by one UPDATE. A second move of a game in the same group is left to run alone
    afterwards (None), so that it meets the first one's new version."""
    outcomes: list[tuple[bool, Any] | None] = [None] * len(moves)
    first: dict[int, int] = {}
    for index, move in enumerate(moves):
        first.setdefault(move.game.id, index)
    rows = "[" + ",".join(moves[index].row for index in first.values()) + "]"
    stale = {int(r[0]) for r in conn.execute(_STALE_OF_GROUP, (rows,)).fetchall()}
    going = [index for game_id, index in first.items() if game_id not in stale]
    if stale:
        rows = "[" + ",".join(moves[index].row for index in going) + "]"
        for game_id in stale:
            move = moves[first[game_id]]
            outcomes[first[game_id]] = (False, StaleVersionError(game_id, move.game.version))
    conn.execute(_LOG_GROUP, (rows,))
    if conn.execute(_UPDATE_GROUP, (rows,)).rowcount != len(going):  # cannot happen under the write lock
        raise RuntimeError("a version changed inside the write transaction")  # undone; the moves then go alone
    for index in going:
        outcomes[index] = (True, moves[index].game.move_count + 1)  # a matching version has that move count too
    return outcomes


@dataclass(frozen=True)
class UpdateWrite:
    """A guarded change of a few columns (status, message id, draw offer, timers)."""

    game: GameRecord
    now: float
    changes: dict[str, Any]
    together = None  # rare: each goes alone

    def plan(self) -> Plan[int]:
        values = [dumps(v) if c == "state" else v for c, v in self.changes.items()]
        sets = "".join(f"{c} = ?, " for c in self.changes)
        done = yield Sql(f"UPDATE games SET {sets}version = version + 1, updated_at = ? WHERE id = ? AND version = ?",
                         (*values, self.now, self.game.id, self.game.version))
        if done.rowcount != 1:
            raise StaleVersionError(self.game.id, self.game.version)
        return self.game.move_count

    def record(self, _move_count: int) -> GameRecord:
        return replace(self.game, version=self.game.version + 1, updated_at=self.now, **self.changes)


def update_writer(game: GameRecord, now: float, changes: dict[str, Any]) -> UpdateWrite:
    bad = set(changes) - UPDATABLE
    if bad:
        raise ValueError(f"cannot update {sorted(bad)}")
    return UpdateWrite(game, now, changes)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def with_places(seats: tuple[Seat, ...], places: Sequence[int] | None) -> tuple[Seat, ...]:
    if places is None:
        return seats
    return tuple(replace(s, place=places[s.seat]) for s in seats)

"""Games, seats and move logs in SQLite, as plain dataclasses."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import aiosqlite

from storage.db import Database

ACTIVE_STATUSES = ("pending", "active")


class StaleVersionError(Exception):
    """A write was based on a version of the game that is no longer current; nothing was written."""

    def __init__(self, game_id: int, expected: int) -> None:
        super().__init__(f"game {game_id} is no longer at version {expected}; reload it and try again")
        self.game_id = game_id
        self.expected = expected


class GameNotFoundError(LookupError):
    """No game has this id."""


@dataclass(frozen=True)
class Seat:
    seat: int
    user_id: int | None  # None for a bot seat
    bot: str | None = None  # the bot's level, for a bot seat
    place: int | None = None


@dataclass(frozen=True)
class GameRecord:
    id: int
    kind: str
    guild_id: int | None
    channel_id: int
    message_id: int | None
    status: str
    options: dict[str, Any]
    initial_state: dict[str, Any]
    state: dict[str, Any]
    version: int
    move_count: int
    draw_offer: int | None
    turn_timeout: float
    deadline: float | None
    remind_at: float | None
    created_at: float
    updated_at: float
    finished_at: float | None
    seats: tuple[Seat, ...]
    thread_id: int | None = None

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)


@dataclass(frozen=True)
class MoveRow:
    ply: int
    seat: int
    user_id: int | None
    action: str
    created_at: float


# Columns a write may change besides the state; anything else is fixed when the game is created.
_UPDATABLE = frozenset(
    {"status", "message_id", "thread_id", "draw_offer", "deadline", "remind_at", "finished_at", "state"}
)


class GameTransaction:
    """Reads and writes of games that commit together (see `GameStore.transaction`).

    The transaction opens at the first write, not at the first read: a game is read in one short statement,
    the rules decide without holding the database, and the writes then run in one transaction. Nothing can
    slip in between unnoticed, because every game write is guarded by the version that was read (and in this
    process the service also holds the game's lock from the read to the commit).
    """

    def __init__(self, db: Database, stack: AsyncExitStack) -> None:
        self._db = db
        self._stack = stack
        self._conn: aiosqlite.Connection | None = None

    async def writer(self) -> aiosqlite.Connection:
        """The transaction's connection, opening the transaction now if it is not open yet."""
        if self._conn is None:
            self._conn = await self._stack.enter_async_context(self._db.transaction())
        return self._conn

    async def load(self, game_id: int) -> GameRecord:
        if self._conn is not None:
            record = await _load(self._conn, game_id)
        else:
            async with self._db.reading() as conn:
                record = await _load(conn, game_id)
        if record is None:
            raise GameNotFoundError(game_id)
        return record

    async def create(
        self,
        *,
        kind: str,
        guild_id: int | None,
        channel_id: int,
        status: str,
        state: Mapping[str, Any],
        seats: Sequence[Seat],
        options: Mapping[str, Any],
        turn_timeout: float,
        deadline: float | None,
        remind_at: float | None,
        now: float,
    ) -> GameRecord:
        state_json = _dumps(state)
        conn = await self.writer()
        cur = await conn.execute(
            "INSERT INTO games (kind, guild_id, channel_id, status, options, initial_state, state,"
            " turn_timeout, deadline, remind_at, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (kind, guild_id, channel_id, status, _dumps(options), state_json, state_json,
             turn_timeout, deadline, remind_at, now, now),
        )
        game_id = cur.lastrowid
        assert game_id is not None
        await conn.executemany(
            "INSERT INTO game_players (game_id, seat, user_id, bot) VALUES (?, ?, ?, ?)",
            [(game_id, s.seat, s.user_id, s.bot) for s in seats],
        )
        return await self.load(game_id)

    async def record_move(
        self,
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
    ) -> GameRecord:
        """Append one move and write the new snapshot, guarded by `game.version`."""
        finished_at = now if status == "finished" else None
        conn = await self.writer()
        rows = list(await conn.execute_fetchall(
            "UPDATE games SET state = ?, status = ?, deadline = ?, remind_at = ?, draw_offer = NULL,"
            " finished_at = ?, version = version + 1, move_count = move_count + 1, updated_at = ?"
            " WHERE id = ? AND version = ? RETURNING move_count",
            (_dumps(state), status, deadline, remind_at, finished_at, now, game.id, game.version),
        ))
        if not rows:
            raise StaleVersionError(game.id, game.version)
        ply = int(rows[0][0])
        await conn.execute(
            "INSERT INTO moves (game_id, ply, seat, user_id, action, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (game.id, ply, seat, user_id, action, now),
        )
        if places is not None:
            await conn.executemany(
                "UPDATE game_players SET place = ? WHERE game_id = ? AND seat = ?",
                [(place, game.id, seat_no) for seat_no, place in enumerate(places)],
            )
        return replace(
            game, state=dict(state), status=status, deadline=deadline, remind_at=remind_at, draw_offer=None,
            finished_at=finished_at, version=game.version + 1, move_count=ply, updated_at=now,
            seats=_with_places(game.seats, places),
        )

    async def update(self, game: GameRecord, *, now: float, **changes: Any) -> GameRecord:
        """Change a few columns (status, message id, draw offer, timers), guarded by `game.version`."""
        bad = set(changes) - _UPDATABLE
        if bad:
            raise ValueError(f"cannot update {sorted(bad)}")
        values = [_dumps(v) if c == "state" else v for c, v in changes.items()]
        sets = "".join(f"{c} = ?, " for c in changes)
        conn = await self.writer()
        cur = await conn.execute(
            f"UPDATE games SET {sets}version = version + 1, updated_at = ? WHERE id = ? AND version = ?",
            (*values, now, game.id, game.version),
        )
        if cur.rowcount != 1:
            raise StaleVersionError(game.id, game.version)
        return replace(game, version=game.version + 1, updated_at=now, **changes)


class GameStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[GameTransaction]:
        """Read, decide, then write: everything written in the block commits together at its end, and an
        exception in the block writes nothing."""
        async with AsyncExitStack() as stack:
            yield GameTransaction(self._db, stack)

    async def get(self, game_id: int) -> GameRecord:
        async with self._db.reading() as conn:
            record = await _load(conn, game_id)
        if record is None:
            raise GameNotFoundError(game_id)
        return record

    async def create(self, **fields: Any) -> GameRecord:
        async with self.transaction() as tx:
            return await tx.create(**fields)

    async def record_move(self, game: GameRecord, **fields: Any) -> GameRecord:
        async with self.transaction() as tx:
            return await tx.record_move(game, **fields)

    async def update(self, game: GameRecord, *, now: float, **changes: Any) -> GameRecord:
        async with self.transaction() as tx:
            return await tx.update(game, now=now, **changes)

    async def moves(self, game_id: int) -> list[MoveRow]:
        async with self._db.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT ply, seat, user_id, action, created_at FROM moves WHERE game_id = ? ORDER BY ply",
                (game_id,),
            )
        return [MoveRow(int(r[0]), int(r[1]), r[2], str(r[3]), float(r[4])) for r in rows]

    async def next_timer(self) -> float | None:
        """When the earliest reminder or deadline of a live game falls due."""
        async with self._db.reading() as conn:
            rows = list(await conn.execute_fetchall(
                "SELECT MIN(t) FROM (SELECT MIN(deadline) AS t FROM games WHERE deadline IS NOT NULL"
                " UNION ALL SELECT MIN(remind_at) FROM games WHERE remind_at IS NOT NULL"
                " UNION ALL SELECT MIN(deadline) FROM lobbies WHERE deadline IS NOT NULL)"
            ))
        return float(rows[0][0]) if rows and rows[0][0] is not None else None

    async def history(self, user_id: int, limit: int = 10) -> list[tuple[GameRecord, Seat]]:
        """The user's most recent games (newest first) with their seat in each."""
        async with self._db.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT g.id FROM games g JOIN game_players p ON p.game_id = g.id"
                " WHERE p.user_id = ? AND g.status IN ('active', 'finished') ORDER BY g.created_at DESC, g.id DESC"
                " LIMIT ?", (user_id, limit))
            records = [await _load(conn, int(r[0])) for r in rows]
        out = []
        for record in records:
            assert record is not None
            out.append((record, next(s for s in record.seats if s.user_id == user_id)))
        return out

    async def active_games_of(self, kind: str, user_id: int, place_id: int | None) -> list[int]:
        """Active games of `kind` in which `user_id` sits, played in channel or thread `place_id` (None:
        anywhere, for commands sent by DM); newest first."""
        async with self._db.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id FROM games WHERE kind = ? AND status = 'active'"
                " AND (? IS NULL OR channel_id = ? OR thread_id = ?)"
                " AND EXISTS (SELECT 1 FROM game_players WHERE game_id = games.id AND user_id = ?) ORDER BY id DESC",
                (kind, place_id, place_id, place_id, user_id),
            )
        return [int(r[0]) for r in rows]

    async def active_games_with_bots(self) -> list[int]:
        async with self._db.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id FROM games WHERE status = 'active'"
                " AND EXISTS (SELECT 1 FROM game_players WHERE game_id = games.id AND bot IS NOT NULL) ORDER BY id"
            )
        return [int(r[0]) for r in rows]

    async def active_games_before(self, updated_before: float) -> list[int]:
        """Ids of active games last written before `updated_before` (a process start), most recent first."""
        async with self._db.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id FROM games WHERE status = 'active' AND updated_at < ? ORDER BY updated_at DESC, id DESC",
                (updated_before,),
            )
        return [int(r[0]) for r in rows]

    async def due_lobbies(self, now: float) -> list[int]:
        """Ids of open lobbies whose deadline has passed."""
        async with self._db.reading() as conn:
            rows = await conn.execute_fetchall("SELECT id FROM lobbies WHERE deadline <= ? ORDER BY deadline", (now,))
        return [int(r[0]) for r in rows]

    async def due_timers(self, now: float) -> list[int]:
        """Ids of games with a reminder or deadline at or before `now`, earliest first."""
        async with self._db.reading() as conn:
            rows = await conn.execute_fetchall(
                "SELECT id FROM (SELECT id, deadline AS t FROM games WHERE deadline <= ?"
                " UNION ALL SELECT id, remind_at FROM games WHERE remind_at <= ?) GROUP BY id ORDER BY MIN(t)",
                (now, now),
            )
        return [int(r[0]) for r in rows]


async def _load(conn: aiosqlite.Connection, game_id: int) -> GameRecord | None:
    # One statement (so one trip to aiosqlite's thread) for the game and its seats.
    rows = await conn.execute_fetchall(
        "SELECT id, kind, guild_id, channel_id, message_id, status, options, initial_state, state, version,"
        " move_count, draw_offer, turn_timeout, deadline, remind_at, created_at, updated_at, finished_at, thread_id,"
        " (SELECT json_group_array(json_array(seat, user_id, bot, place))"
        "  FROM (SELECT * FROM game_players WHERE game_id = games.id ORDER BY seat))"
        " FROM games WHERE id = ?",
        (game_id,),
    )
    for row in rows:
        return GameRecord(
            id=int(row[0]), kind=str(row[1]), guild_id=row[2], channel_id=int(row[3]), message_id=row[4],
            status=str(row[5]), options=json.loads(row[6]), initial_state=json.loads(row[7]),
            state=json.loads(row[8]), version=int(row[9]), move_count=int(row[10]), draw_offer=row[11],
            turn_timeout=float(row[12]), deadline=row[13], remind_at=row[14], created_at=float(row[15]),
            updated_at=float(row[16]), finished_at=row[17], thread_id=row[18],
            seats=tuple(Seat(int(s[0]), s[1], s[2], s[3]) for s in json.loads(row[19])),
        )
    return None


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def _with_places(seats: tuple[Seat, ...], places: Sequence[int] | None) -> tuple[Seat, ...]:
    if places is None:
        return seats
    return tuple(Seat(s.seat, s.user_id, s.bot, places[s.seat]) for s in seats)

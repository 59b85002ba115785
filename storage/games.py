"""Games, seats and move logs on either database (`storage.database.Database`), as plain dataclasses."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from storage.database import Connection, Database
from storage.game_cache import RecordCache
from storage.game_writes import MoveWrite, UpdateWrite, dumps, move_writer, update_writer
from storage.records import GameNotFoundError, GameRecord, MoveRow, Seat, StaleVersionError
from storage.sql import Dialect, Done, Plan, Sql, statement

ACTIVE_STATUSES = ("pending", "active")


class GameTransaction:
    """Reads and writes of games that commit together (see `GameStore.transaction`).

    The transaction opens at the first write, not at the first read: a game is read in one short statement (or
    not at all, when this process has its current version in memory: `RecordCache`), the rules decide without
    holding the database, and the writes then run in one transaction. Nothing can slip in between unnoticed,
    because every game write is guarded by the version that was read (and in this process the service also holds
    the game's lock from the read to the commit). A read once the transaction is open is always from the database.
    """

    def __init__(self, db: Database, stack: AsyncExitStack, cache: RecordCache) -> None:
        self._db = db
        self._stack = stack
        self._cache = cache
        self._conn: Connection | None = None
        # Games read or written inside the open transaction: they become the cache's once it commits (not before:
        # until then they may include this transaction's own writes, which a rollback would undo).
        self.seen: dict[int, GameRecord] = {}
        self.writing: list[tuple[int, int]] = []  # (game, version) this transaction commits

    @property
    def is_open(self) -> bool:
        """Whether the write transaction has begun (anything written from now on commits with it)."""
        return self._conn is not None

    async def writer(self, *, read_first: bool = False) -> Connection:
        """The transaction's connection, opening the transaction now if it is not open yet. With `read_first` the
        caller is about to read rows without a version guard that it will write from (ratings, a lobby, a deal):
        SQLite's write transaction then begins at once, so no other process can change them in between."""
        if self._conn is not None:
            if read_first:
                await self._conn.begin_writing()
            return self._conn
        conn: Connection = await self._stack.enter_async_context(self._db.transaction(read_first=read_first))
        self._conn = conn
        return conn

    async def load(self, game_id: int) -> GameRecord:
        """The game: before the transaction opens, as this process last knew it if it is being played (see
        `RecordCache`), else read; inside the open transaction, always read (current until it commits)."""
        if self._conn is None:
            return await _current(self._db, self._cache, game_id)
        # Locked until the commit (PostgreSQL: FOR UPDATE; SQLite's write transaction holds the whole file): what the
        # transaction then writes from this read cannot have been changed by another process in between.
        record = await self._conn.run(_load(self._conn.dialect, game_id, lock=True))
        if record is None:
            raise GameNotFoundError(game_id)
        self.seen[game_id] = record
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
        state_json = dumps(state)
        conn = await self.writer()
        game_id = await conn.run(_insert_game(kind, guild_id, channel_id, status, dumps(options), state_json,
                                              turn_timeout, deadline, remind_at, now, seats))
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
        then: Callable[[], Plan[object]] | None = None,
    ) -> GameRecord:
        """Append one move and write the new snapshot, guarded by `game.version`, then `then`'s statements (one
        trip to the database's thread for all of them)."""
        return await self._write(game, move_writer(
            game, seat=seat, user_id=user_id, action=action, state=state, now=now, status=status, deadline=deadline,
            remind_at=remind_at, places=places, then=then))

    async def update(self, game: GameRecord, *, now: float, **changes: Any) -> GameRecord:
        """Change a few columns (status, message id, draw offer, timers), guarded by `game.version`."""
        return await self._write(game, update_writer(game, now, changes))

    async def _write(self, game: GameRecord, unit: MoveWrite | UpdateWrite) -> GameRecord:
        self._cache.writing(game.id, game.version + 1)  # until the transaction ends (GameStore.transaction)
        self.writing.append((game.id, game.version + 1))
        try:
            record = unit.record(await (await self.writer()).run(unit.plan()))
        except StaleVersionError:
            self._cache.forget(game.id)  # whatever this transaction becomes, that copy is not current
            raise
        self.seen[game.id] = record
        return record


class GameStore:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._cache = RecordCache()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[GameTransaction]:
        """Read, decide, then write: everything written in the block commits together at its end, and an
        exception in the block writes nothing."""
        tx: GameTransaction | None = None
        try:
            async with AsyncExitStack() as stack:
                tx = GameTransaction(self._db, stack, self._cache)
                yield tx
        except BaseException:
            for game_id in tx.seen if tx is not None else ():
                self._cache.forget(game_id)  # rolled back, or a commit that failed: read them afresh next time
            raise
        finally:
            for game_id, version in tx.writing if tx is not None else ():
                self._cache.written(game_id, version)
        for record in tx.seen.values():
            self._cache.remember(record)

    async def get(self, game_id: int) -> GameRecord:
        """The game as stored now (always read)."""
        record = await _read(self._db, game_id)
        self._cache.remember(record)
        return record

    async def current(self, game_id: int) -> GameRecord:
        """The game as this process last wrote or read it while it is being played (no read), else as stored now.
        Another process may have changed it since: every write based on it is guarded by its version."""
        return await _current(self._db, self._cache, game_id)

    async def create(self, **fields: Any) -> GameRecord:
        async with self.transaction() as tx:
            return await tx.create(**fields)

    async def record_move(self, game: GameRecord, **fields: Any) -> GameRecord:
        """`GameTransaction.record_move` on its own, committed together with the other writes waiting at the same
        moment (group commit, `Database.write`); returns once committed."""
        return await self._write(game, move_writer(game, **fields))

    async def update(self, game: GameRecord, *, now: float, **changes: Any) -> GameRecord:
        """`GameTransaction.update` on its own, group-committed like `record_move`."""
        return await self._write(game, update_writer(game, now, changes))

    async def _write(self, game: GameRecord, unit: MoveWrite | UpdateWrite) -> GameRecord:
        self._cache.writing(game.id, game.version + 1)
        try:
            record = unit.record(await self._db.write(unit))
        except StaleVersionError:
            self._cache.forget(game.id)
            raise
        finally:
            self._cache.written(game.id, game.version + 1)
        self._cache.remember(record)
        return record

    def newest_version(self, game_id: int) -> int | None:
        """The newest version of the game this process has or is committing (None: not in memory)."""
        return self._cache.newest(game_id)

    async def moves(self, game_id: int) -> list[MoveRow]:
        done = await self._query(
            "SELECT ply, seat, user_id, action, created_at FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))
        return [MoveRow(int(r[0]), int(r[1]), r[2], str(r[3]), float(r[4])) for r in done.rows]

    async def next_timer(self) -> float | None:
        """When the earliest reminder, deadline or held turn notification of a live game falls due."""
        value = (await self._query(
            "SELECT MIN(t) FROM (SELECT MIN(deadline) AS t FROM games WHERE deadline IS NOT NULL"
            " UNION ALL SELECT MIN(remind_at) FROM games WHERE remind_at IS NOT NULL"
            " UNION ALL SELECT MIN(due_at) FROM held_pings"
            " UNION ALL SELECT MIN(deadline) FROM lobbies WHERE deadline IS NOT NULL) AS due"
        )).value()
        return float(value) if value is not None else None

    async def history(self, user_id: int, limit: int = 10, *, guild_id: int | None = None,
                      places: Collection[int] | None = None, viewer: int | None = None,
                      ) -> list[tuple[GameRecord, Seat]]:
        """The user's most recent games (newest first) with their seat in each; with `guild_id`, only the games
        played on that server; with `places`, only those played in one of these channels (a game's channel, not its
        thread) or in which `viewer` sat too. (The user's seats come from `game_players_by_user`, each game by its
        id: the server and the channel are checked on those few rows, so no index on them is needed.)"""
        where, values = "", []
        if guild_id is not None:
            where, values = " AND g.guild_id = ?", [guild_id]
        if places is not None:
            shown = sorted(set(places))
            either = [f"g.channel_id IN ({','.join('?' * len(shown))})"] if shown else []
            if viewer is not None:
                either.append("EXISTS (SELECT 1 FROM game_players v WHERE v.game_id = g.id AND v.user_id = ?)")
            where += f" AND ({' OR '.join(either) or '1 = 0'})"
            values += [*shown, *(() if viewer is None else (viewer,))]
        dialect = self._db.dialect

        def read() -> Plan[list[GameRecord | None]]:
            done = yield Sql(
                "SELECT g.id FROM games g JOIN game_players p ON p.game_id = g.id"
                f" WHERE p.user_id = ?{where} AND g.status IN ('active', 'finished')"
                " ORDER BY g.created_at DESC, g.id DESC LIMIT ?",
                (user_id, *values, limit))
            records = []
            for row in done.rows:
                records.append((yield from _load(dialect, int(row[0]))))
            return records

        async with self._db.reading() as conn:
            records = await conn.run(read())
        out = []
        for record in records:
            assert record is not None
            out.append((record, next(s for s in record.seats if s.user_id == user_id)))
        return out

    async def active_games_of(self, kind: str, user_id: int, place_id: int | None) -> list[int]:
        """Active games of `kind` in which `user_id` sits, played in channel or thread `place_id` (None:
        anywhere, for commands sent by DM); newest first."""
        anywhere = place_id is None
        done = await self._query(
            "SELECT id FROM games WHERE kind = ? AND status = 'active'"
            " AND (? = 1 OR channel_id = ? OR thread_id = ?)"
            " AND EXISTS (SELECT 1 FROM game_players WHERE game_id = games.id AND user_id = ?) ORDER BY id DESC",
            (kind, int(anywhere), place_id or 0, place_id or 0, user_id),
        )
        return [int(r[0]) for r in done.rows]

    async def others_in(self, place_id: int, but: int, ended_since: float) -> bool:
        """Whether a game other than `but` is waiting or being played in channel or thread `place_id`, or still has
        its ending to post there (ended at or after `ended_since`, or a turn timer's ending owed), or a lobby is
        open there: the place must stay open for them."""
        done = await self._query(
            "SELECT EXISTS (SELECT 1 FROM games WHERE channel_id = ? AND id <> ? AND (status IN ('pending', 'active')"
            " OR finished_at >= ? OR EXISTS (SELECT 1 FROM owed_announcements WHERE game_id = games.id)))"
            " OR EXISTS (SELECT 1 FROM lobbies WHERE deadline IS NOT NULL AND channel_id = ? AND status = 'open')",
            (place_id, but, ended_since, place_id),
        )
        return bool(done.value())

    async def ended_table_with_thread(self, thread_id: int, but: int) -> bool:
        """Whether a game other than `but` that is over has `thread_id` as its own thread (its table talk)."""
        done = await self._query(
            "SELECT EXISTS (SELECT 1 FROM games WHERE thread_id = ? AND id <> ?"
            " AND status NOT IN ('pending', 'active'))",
            (thread_id, but),
        )
        return bool(done.value())

    async def active_games_with_computer_players(self) -> list[int]:
        done = await self._query(
            "SELECT id FROM games WHERE status = 'active'"
            " AND EXISTS (SELECT 1 FROM game_players WHERE game_id = games.id AND bot IS NOT NULL) ORDER BY id"
        )
        return [int(r[0]) for r in done.rows]

    async def due_lobbies(self, now: float) -> list[int]:
        """Ids of open lobbies whose deadline has passed."""
        done = await self._query("SELECT id FROM lobbies WHERE deadline <= ? ORDER BY deadline", (now,))
        return [int(r[0]) for r in done.rows]

    async def due_timers(self, now: float) -> list[int]:
        """Ids of games with a reminder, deadline or held turn notification at or before `now`, earliest first."""
        done = await self._query(
            "SELECT id FROM (SELECT id, deadline AS t FROM games WHERE deadline <= ?"
            " UNION ALL SELECT id, remind_at FROM games WHERE remind_at <= ?"
            " UNION ALL SELECT game_id, due_at FROM held_pings WHERE due_at <= ?) AS due GROUP BY id ORDER BY MIN(t)",
            (now, now, now),
        )
        return [int(r[0]) for r in done.rows]

    async def _query(self, text: str, params: Sequence[Any] = ()) -> Done:
        """One statement outside any transaction."""
        return await self._db.query(statement(text, params))


def _insert_game(kind: str, guild_id: int | None, channel_id: int, status: str, options_json: str, state_json: str,
                 turn_timeout: float, deadline: float | None, remind_at: float | None, now: float,
                 seats: Sequence[Seat]) -> Plan[int]:
    done = yield Sql(
        "INSERT INTO games (kind, guild_id, channel_id, status, options, initial_state, state,"
        " turn_timeout, deadline, remind_at, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        (kind, guild_id, channel_id, status, options_json, state_json, state_json, turn_timeout, deadline, remind_at,
         now, now),
    )
    game_id = int(done.value())
    yield Sql("INSERT INTO game_players (game_id, seat, user_id, bot) VALUES (?, ?, ?, ?)",
              [(game_id, s.seat, s.user_id, s.computer) for s in seats], many=True)
    return game_id


async def _read(db: Database, game_id: int) -> GameRecord:
    async with db.reading() as conn:
        record = await conn.run(_load(db.dialect, game_id))
    if record is None:
        raise GameNotFoundError(game_id)
    return record


async def _current(db: Database, cache: RecordCache, game_id: int) -> GameRecord:
    record = cache.get(game_id)
    if record is None:
        record = await _read(db, game_id)
        cache.remember(record)
    return record


def _load(dialect: Dialect, game_id: int, lock: bool = False) -> Plan[GameRecord | None]:
    # One statement (so one trip to the database) for the game and its seats.
    seats = dialect.json_rows("seat, user_id, bot, place", "game_players WHERE game_id = games.id", "seat")
    done = yield Sql(
        "SELECT id, kind, guild_id, channel_id, message_id, status, options, initial_state, state, version,"
        " move_count, draw_offer, turn_timeout, deadline, remind_at, created_at, updated_at, finished_at, thread_id,"
        f" {seats}, draw_declined FROM games WHERE id = ?{dialect.for_update if lock else ''}",
        (game_id,),
    )
    for row in done.rows:
        return GameRecord(
            id=int(row[0]), kind=str(row[1]), guild_id=row[2], channel_id=int(row[3]), message_id=row[4],
            status=str(row[5]), options=json.loads(row[6]), initial_state=json.loads(row[7]),
            state=json.loads(row[8]), version=int(row[9]), move_count=int(row[10]), draw_offer=row[11],
            turn_timeout=float(row[12]), deadline=row[13], remind_at=row[14], created_at=float(row[15]),
            updated_at=float(row[16]), finished_at=row[17], thread_id=row[18],
            seats=tuple(Seat(int(s[0]), s[1], s[2], s[3]) for s in json.loads(row[19])), draw_declined=row[20],
        )
    return None

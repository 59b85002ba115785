"""A player's history narrowed to one server (issue 14, bug 9): only that server's games, read through the player's
seats (the index on game_players.user_id), never by scanning the games table."""

from __future__ import annotations

from pathlib import Path

from storage import GameRecord, GameStore, Seat
from storage.connection import open_database
from storage.db import SqliteDatabase

PLAYER, OTHER = 10, 11
HOME, AWAY = 1001, 2002


async def _game(store: GameStore, guild_id: int | None, now: float, status: str = "finished") -> int:
    record = await store.create(
        kind="chopsticks", guild_id=guild_id, channel_id=guild_id or 7, status=status, state={"n": 0},
        seats=[Seat(0, PLAYER), Seat(1, OTHER)], options={}, turn_timeout=60.0, deadline=None, remind_at=None, now=now,
    )
    return record.id


async def test_history_on_one_server_leaves_out_every_other_place(database_target: str) -> None:
    db = await open_database(database_target)
    try:
        store = GameStore(db)
        home_old = await _game(store, HOME, 1.0)
        away = await _game(store, AWAY, 2.0)
        in_dms = await _game(store, None, 3.0)
        home_new = await _game(store, HOME, 4.0, status="active")
        await _game(store, HOME, 5.0, status="declined")  # never played: in no history

        def ids(rows: list[tuple[GameRecord, Seat]]) -> list[int]:
            return [record.id for record, _seat in rows]

        assert ids(await store.history(PLAYER)) == [home_new, in_dms, away, home_old]
        assert ids(await store.history(PLAYER, guild_id=HOME)) == [home_new, home_old]
        assert ids(await store.history(PLAYER, guild_id=AWAY)) == [away]
        assert ids(await store.history(PLAYER, limit=1, guild_id=HOME)) == [home_new]
        assert await store.history(PLAYER, guild_id=3003) == []
    finally:
        await db.close()


async def test_history_in_the_channels_a_member_may_view_or_of_games_they_played(database_target: str) -> None:
    """Issue 22, bug 11: asked by someone else, only the games of the channels they may view, and theirs."""
    db = await open_database(database_target)
    try:
        store = GameStore(db)
        open_room, private_room, viewer = 31, 32, 12

        async def game(channel: int, now: float, seats: list[int]) -> int:
            record = await store.create(
                kind="chopsticks", guild_id=HOME, channel_id=channel, status="finished", state={"n": 0},
                seats=[Seat(i, u) for i, u in enumerate(seats)], options={}, turn_timeout=60.0, deadline=None,
                remind_at=None, now=now)
            return record.id

        public = await game(open_room, 1.0, [PLAYER, OTHER])
        hidden = await game(private_room, 2.0, [PLAYER, OTHER])
        shared = await game(private_room, 3.0, [PLAYER, viewer])

        async def ids(places: set[int] | None = None, viewer: int | None = None, limit: int = 10) -> list[int]:
            rows = await store.history(PLAYER, limit, guild_id=HOME, places=places, viewer=viewer)
            return [record.id for record, _seat in rows]

        assert await ids() == [shared, hidden, public]
        assert await ids(places={open_room}, viewer=viewer) == [shared, public]
        assert await ids(places={open_room, private_room}, viewer=viewer) == [shared, hidden, public]
        assert await ids(places=set(), viewer=viewer) == [shared]
        assert await ids(places={open_room}) == [public]
        assert await ids(places=set()) == []
        assert await ids(places={open_room}, viewer=viewer, limit=1) == [shared]
    finally:
        await db.close()


async def test_the_players_seats_index_serves_the_history_of_one_server(tmp_path: Path) -> None:
    """The query history() really sends is planned through the index on a player's seats and the games' primary key:
    no new index on the server is needed, and no scan of every game."""
    db = await SqliteDatabase.open(tmp_path / "bot.sqlite3")
    try:
        store = GameStore(db)
        await _game(store, HOME, 1.0)
        sent: list[str] = []
        async with db.reading() as conn:
            await conn.raw.set_trace_callback(sent.append)  # the statements as SQLite runs them, values bound
        await store.history(PLAYER, guild_id=HOME)
        await store.history(PLAYER, guild_id=HOME, places=range(100, 400), viewer=OTHER)  # as a member asks
        async with db.reading() as conn:
            await conn.raw.set_trace_callback(None)  # type: ignore[arg-type]  # None switches tracing off
            queries = [q for q in sent if "JOIN game_players" in q and "guild_id" in q]
            plans = [[str(row[3]) for row in await conn.raw.execute_fetchall(f"EXPLAIN QUERY PLAN {query}")]
                     for query in queries]
    finally:
        await db.close()
    assert len(plans) == 2
    for plan in plans:
        assert any("game_players_by_user" in step for step in plan), plan
        assert any("INTEGER PRIMARY KEY" in step for step in plan), plan
        assert not any(step.startswith("SCAN") for step in plan), plan

"""Issue 17: the crash test's synchronous reader (tests/tools/peek.py) and its checks read the bot's database the same
on a SQLite file and on PostgreSQL, from inside a running event loop, as the crash tool calls them."""

from __future__ import annotations

from pathlib import Path

from bot.service import GameService, Player
from storage.connection import open_database
from storage.sql import Done, Plan, statement
from tests.tools.crash_checks import rating_problems, read_games, read_results
from tests.tools.crash_promises import draw_stored, move_count, read_facts
from tests.tools.crash_timers import TimerWatch, overdue_timers
from tests.tools.peek import Peek, peek_at

ALICE, BOB = 10**17 + 1, 10**17 + 2  # Discord ids: past 32 bits
GUILD = 10**17 + 3


async def test_peek_reads_what_storage_wrote_with_the_same_python_types(database_target: str) -> None:
    db = await open_database(database_target)  # the migrations run: the bot's own schema
    try:
        await db.run(_insert_setting())
        peek = Peek(database_target)
        try:
            assert peek.exists()
            [(guild, timeout, images, disabled)] = peek.rows(
                "SELECT guild_id, turn_timeout, images, disabled_games FROM server_settings WHERE guild_id = ?",
                (GUILD,))
            assert (guild, timeout, images, disabled) == (GUILD, 4.0, 0, '["sucker"]')
            assert [type(v) for v in (guild, timeout, images, disabled)] == [int, float, int, str]
            assert peek.rows("SELECT guild_id FROM server_settings WHERE guild_id = ?", (GUILD + 1,)) == []
        finally:
            peek.close()
        peek.close()  # closing twice does nothing
    finally:
        await db.close()


async def test_the_crash_checks_read_an_empty_and_a_one_game_database(database_target: str) -> None:
    db = await open_database(database_target)
    try:
        assert read_games(database_target)[:2] == ({}, {})
        assert read_games(database_target)[2].startswith("ok")
        assert rating_problems(read_results(database_target)) == ([], 0)
        assert overdue_timers(database_target, 0.0) == []

        service = GameService(db)
        game = await service.create("chopsticks", guild_id=GUILD, channel_id=1,
                                    players=[Player(ALICE), Player(BOB)], options={"first": 0}, turn_timeout=60)
        watch = TimerWatch(database_target)
        watch.look()
        assert watch.active == {game.id}
        assert overdue_timers(database_target, 0.0) == []
        assert move_count(database_target, game.id) == 0
        await service.act(game.id, ALICE, "AC")
        assert move_count(database_target, game.id) == 1
        assert not draw_stored(database_target, game.id, BOB, 1)
        assert draw_stored(database_target, game.id, BOB, 0)  # a move since: the offer was taken
        await service.resign(game.id, BOB)
        await db.run(_insert_setting())
    finally:
        await db.close()

    games, lobbies, integrity = read_games(database_target)
    assert integrity.startswith("ok") and lobbies == {}
    [(gid, checked)] = games.items()
    assert gid == game.id and checked.problems == []
    assert (checked.kind, checked.status, checked.guild_id, checked.rated) == ("chopsticks", "finished", GUILD, True)
    assert [(r.ply, r.user, r.action) for r in checked.rows] == [(1, ALICE, "AC"), (2, BOB, "resign")]
    assert [s.user_id for s in checked.seats] == [ALICE, BOB] and checked.turn_timeout == 60.0
    assert checked.options["first"] == 0 and isinstance(checked.state, dict)
    assert rating_problems(read_results(database_target)) == ([], 1)
    facts = read_facts(database_target)
    assert facts.settings == {GUILD: {"turn_timeout": 4.0, "images": False, "disabled": ["sucker"]}}
    assert peek_at(database_target) is peek_at(database_target)  # one pool for the run, not one per read


async def test_the_written_mark_moves_with_every_ended_write_of_another_connection(database_target: str) -> None:
    """The fuzzer's change detector (Peek.written): where the mark stays the same, it takes nothing to have changed.
    On PostgreSQL also the case a bare counter would miss: a write that began before a later one ended, and ends after
    the mark was read (its id is then below xmax, in the in-progress list)."""
    db = await open_database(database_target)
    peek = Peek(database_target, keep_open=True)
    try:
        before = peek.written()
        await db.run(_insert_setting())
        after_one = peek.written()
        assert after_one != before
        if peek.postgres:
            import asyncpg

            early, late = await asyncpg.connect(database_target), await asyncpg.connect(database_target)
            try:
                early_write = early.transaction()
                await early_write.start()
                await early.execute("UPDATE server_settings SET images = 1 WHERE guild_id = $1", GUILD)
                await late.execute("INSERT INTO server_settings (guild_id, turn_timeout) VALUES ($1, 5)", GUILD + 1)
                while_early_writes = peek.written()
                assert while_early_writes != after_one
                await early_write.commit()
                assert peek.written() != while_early_writes
            finally:
                await early.close()
                await late.close()
        else:
            await db.run(statement("UPDATE server_settings SET images = 1 WHERE guild_id = ?", (GUILD,)))
            assert peek.written() != after_one
    finally:
        peek.close()
        await db.close()


def test_a_sqlite_file_not_yet_created_is_left_alone(tmp_path: Path) -> None:
    missing = tmp_path / "bot.sqlite3"
    watch = TimerWatch(missing)
    watch.look()
    assert not Peek(missing).exists() and not missing.exists() and watch.active == set()


def _insert_setting() -> Plan[Done]:
    return statement("INSERT INTO server_settings (guild_id, turn_timeout, images, disabled_games) VALUES (?, ?, ?, ?)",
                     (GUILD, 4.0, 0, '["sucker"]'))

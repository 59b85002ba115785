"""Archiving old finished games: stats, ladders and history unchanged, active games untouched, nothing lost."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from bot.archive import main
from bot.service import GameService, Player, ServiceError
from games import replay
from storage.archive import ARCHIVED_AT, ArchiveError, archive, bring_back, moved_tables
from storage.db import SqliteDatabase
from storage.ratings import GLOBAL, RatingStore, count_rated, favourite_opponent
from tests.support.boards import move_buttons, player_to_move
from tests.support.codes import Callback
from tests.support.fakediscord import FakeMessage, FakeUser
from tests.support.world import (
    TabletopRunner,
    World,
)

DAY = 86400.0


def _rows(path: Path, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(path)
    try:
        return [tuple(r) for r in conn.execute(sql, args)]
    finally:
        conn.close()


def _game_rows(path: Path, game_ids: list[int]) -> dict[str, list[tuple[Any, ...]]]:
    """Everything stored about these games, table by table."""
    marks = ",".join("?" * len(game_ids))
    return {
        "games": _rows(path, f"SELECT * FROM games WHERE id IN ({marks}) ORDER BY id", tuple(game_ids)),
        "game_players": _rows(path, f"SELECT * FROM game_players WHERE game_id IN ({marks}) ORDER BY 1, 2",
                              tuple(game_ids)),
        "moves": _rows(path, f"SELECT * FROM moves WHERE game_id IN ({marks}) ORDER BY 1, 2", tuple(game_ids)),
        "deals": _rows(path, f"SELECT * FROM deals WHERE game_id IN ({marks}) ORDER BY 1, 2", tuple(game_ids)),
    }


async def _play(service: GameService, game_id: int, users: list[int], rng: random.Random, plies: int) -> None:
    """Random legal moves, at most `plies` of them."""
    for _ in range(plies):
        game = await service.load(game_id)
        seat = game.state.current_player()
        if game.record.status != "active" or seat is None:
            return
        action = rng.choice(list(game.state.legal_actions(seat)))
        await service.act(game_id, users[seat], action.text())


async def _league(path: Path, clock: list[float]) -> tuple[list[int], list[int], list[int]]:
    """Old rated games (finished, by moves and by resignation), a declined challenge, a Sucker game with
    deals, and games still being played; returns (old over games, recent finished games, active games)."""
    db = await SqliteDatabase.open(path)
    service = GameService(db, clock=lambda: clock[0])
    rng = random.Random(7)
    users = [101, 102, 103, 104]
    old, recent, active = [], [], []
    try:
        for n in range(8):
            a, b = users[n % 4], users[(n + 1 + n // 4) % 4]
            game = await service.create("chopsticks", guild_id=1, channel_id=10 + n % 2, players=[Player(a), Player(b)],
                                        options={"first": 0})
            await _play(service, game.id, [a, b], rng, 400)
            if (await service.load(game.id)).record.status == "active":
                await service.resign(game.id, a)
            old.append(game.id)
        declined = await service.create("chopsticks", guild_id=1, channel_id=10, players=[Player(101), Player(102)],
                                        challenge=True)
        await service.decline(declined.id, 102)
        old.append(declined.id)
        sucker = await service.create("sucker", guild_id=1, channel_id=12,
                                      players=[Player(101), Player(102), Player(103)])
        async with db.transaction() as conn:
            await conn.raw.execute("INSERT INTO deals (game_id, number, author_id, text, created_at)"
                                   " VALUES (?, 1, 101, ?, ?)", (sucker.id, "I never attack you", clock[0]))
            await conn.raw.execute("INSERT INTO deal_acceptances (game_id, number, user_id, created_at)"
                                   " VALUES (?, 1, 102, ?)", (sucker.id, clock[0]))
        await _play(service, sucker.id, [101, 102, 103], rng, 5)
        for seat_user in (101, 102):
            await service.resign(sucker.id, seat_user)
        old.append(sucker.id)
        still = await service.create("chopsticks", guild_id=1, channel_id=10, players=[Player(101), Player(103)],
                                     options={"first": 0})
        await _play(service, still.id, [101, 103], rng, 3)
        active.append(still.id)
        clock[0] += 40 * DAY
        for a, b in ((101, 104), (102, 103)):
            game = await service.create("chopsticks", guild_id=1, channel_id=11, players=[Player(a), Player(b)],
                                        options={"first": 0})
            await _play(service, game.id, [a, b], rng, 2)
            await service.resign(game.id, b)
            recent.append(game.id)
        waiting = await service.create("chopsticks", guild_id=1, channel_id=11, players=[Player(102), Player(104)],
                                       challenge=True)
        active.append(waiting.id)
    finally:
        await db.close()
    return old, recent, active


async def _what_stats_read(path: Path) -> dict[str, Any]:
    """Everything /stats, /history and /leaderboard read, in the form they show it."""
    db = await SqliteDatabase.open(path)
    try:
        service, ratings = GameService(db), RatingStore(db)
        out: dict[str, Any] = {}
        for kind in ("chopsticks", "sucker"):
            for scope in (1, GLOBAL):
                out[f"ladder {kind} {scope}"] = await ratings.ladder(kind, scope, 0, 50)
                out[f"count {kind} {scope}"] = await count_rated(db, kind, scope)
            for user in (101, 102, 103, 104):
                out[f"rival {kind} {user}"] = await favourite_opponent(db, kind, user)
                out[f"rank {kind} {user}"] = await ratings.rank_of(kind, GLOBAL, user)
        for user in (101, 102, 103, 104):
            out[f"history {user}"] = [
                (r.id, r.kind, r.status, r.guild_id, r.channel_id, r.message_id, r.created_at, r.seats, seat)
                for r, seat in await service.store.history(user, limit=50)]
        return out
    finally:
        await db.close()


async def test_archiving_keeps_stats_and_active_games_and_loses_nothing(tmp_path: Path) -> None:
    path, store = tmp_path / "bot.sqlite3", tmp_path / "bot.archive.sqlite3"
    clock = [time.time() - 100 * DAY]
    old, recent, active = await _league(path, clock)
    everything = old + recent + active
    before = _game_rows(path, everything)
    stats_before = await _what_stats_read(path)
    assert stats_before["count chopsticks 1"] == 4 and stats_before["rival chopsticks 101"] is not None

    dry = archive(path, store, older_than_days=30, now=clock[0] + 1, dry_run=True)
    assert dry.games == len(old) and dry.moves == sum(1 for m in before["moves"] if m[0] in old)
    assert dry.rows["deals"] == 1 and dry.rows["deal_acceptances"] == 1
    assert not store.exists() and _game_rows(path, everything) == before

    done = archive(path, store, older_than_days=30, now=clock[0] + 1)
    assert done.games == len(old) and done.moves == dry.moves and done.skipped == []
    after = _game_rows(path, everything)
    # Stats, ladders, rivals and history read exactly what they read before.
    assert await _what_stats_read(path) == stats_before
    # Recent and active games are untouched, row for row.
    for table, rows in before.items():
        keep = [r for r in rows if r[0] not in old]
        assert [r for r in after[table] if r[0] not in old] == keep, table
    # Archived games keep their row (results, places, message) without snapshots or moves.
    assert not any(m[0] in old for m in after["moves"]) and not any(d[0] in old for d in after["deals"])
    assert after["game_players"] == before["game_players"]
    for row in _rows(path, f"SELECT state, initial_state FROM games WHERE id IN ({','.join('?' * len(old))})",
                     tuple(old)):
        assert json.loads(row[0]) == json.loads(row[1]) == {ARCHIVED_AT: clock[0] + 1}
    # The archive holds complete copies: the same rows, and each move log replays to its final snapshot.
    assert _game_rows(store, old) == {t: [r for r in rows if r[0] in old] for t, rows in before.items()}
    for game_id, kind, initial, state in _rows(store, "SELECT id, kind, initial_state, state FROM games"):
        moves = _rows(store, "SELECT seat, action FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))
        assert replay(kind, json.loads(initial), moves).to_dict() == json.loads(state)

    # In the bot, an archived game says so; the others load as before.
    db = await SqliteDatabase.open(path)
    try:
        service = GameService(db)
        with pytest.raises(ServiceError, match="was archived"):
            await service.load(old[0])
        with pytest.raises(ServiceError, match="was archived"):
            await service.act(old[0], 101, "AC")
        assert (await service.load(active[0])).record.status == "active"
    finally:
        await db.close()

    again = archive(path, store, older_than_days=30, now=clock[0] + 2)
    assert again.games == 0 and _game_rows(path, everything) == after

    # Bringing games back restores them exactly (the version moves on: both were writes).
    assert bring_back(path, store, old) == old
    restored = _game_rows(path, everything)
    version = [c[1] for c in _rows(path, "PRAGMA table_info(games)")].index("version")
    assert restored["games"] == [(*r[:version], r[version] + 2, *r[version + 1:]) if r[0] in old else r
                                 for r in before["games"]]
    assert {t: rows for t, rows in restored.items() if t != "games"} == {
        t: rows for t, rows in before.items() if t != "games"}
    assert _game_rows(store, old) == {"games": [], "game_players": [], "moves": [], "deals": []}
    assert await _what_stats_read(path) == stats_before


async def test_archiving_while_the_bot_writes(tmp_path: Path) -> None:
    path, store = tmp_path / "bot.sqlite3", tmp_path / "archive.sqlite3"
    db = await SqliteDatabase.open(path)
    service = GameService(db, clock=lambda: time.time() - 10 * DAY)
    finished = []
    for i in range(60):
        game = await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(i), Player(1000 + i)],
                                    options={"first": 0})
        await service.act(game.id, i, "AC")
        await service.resign(game.id, 1000 + i)
        finished.append(game.id)
    service.clock = time.time

    async def keep_playing() -> int:
        played = 0
        for i in range(40):
            game = await service.create("chopsticks", guild_id=1, channel_id=2,
                                        players=[Player(5000 + i), Player(6000 + i)], options={"first": 0})
            await service.act(game.id, 5000 + i, "AC")
            played += 1
        return played

    writer = asyncio.create_task(keep_playing())
    await asyncio.sleep(0)
    result = await asyncio.to_thread(archive, path, store, older_than_days=1, batch=7)
    assert await writer == 40
    await db.close()
    assert result.games == 60 and result.skipped == []
    assert _rows(path, "SELECT count(*) FROM moves WHERE game_id > 60") == [(40,)]
    assert _rows(store, "SELECT count(*), min(id), max(id) FROM games") == [(60, 1, 60)]


def test_the_tables_that_move_and_a_foreign_archive(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"

    async def make() -> None:
        db = await SqliteDatabase.open(path)
        service = GameService(db, clock=lambda: 1000.0)
        game = await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(1), Player(2)],
                                    options={"first": 0})
        await service.resign(game.id, 1)
        await db.close()

    asyncio.run(make())
    conn = sqlite3.connect(path)
    try:
        tables = moved_tables(conn, "main")
    finally:
        conn.close()
    assert {"moves", "deals", "deal_acceptances"} <= set(tables)
    assert tables.index("deals") < tables.index("deal_acceptances") and "game_players" not in tables
    assert "lobbies" not in tables and "ratings" not in tables

    other = tmp_path / "other.sqlite3"
    other_archive = tmp_path / "other.archive.sqlite3"
    shutil.copy(path, other)
    conn = sqlite3.connect(other)
    conn.execute("UPDATE games SET created_at = 5.0")
    conn.commit()
    conn.close()
    assert archive(other, other_archive, older_than_days=1).games == 1
    bring_back(other, other_archive, [1])
    archive(other, other_archive, older_than_days=1)  # the archive now holds #1 of "other"
    with pytest.raises(ArchiveError, match="another database"):
        archive(path, other_archive, older_than_days=1)


def test_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--database", str(tmp_path / "missing.sqlite3"), "--older-than", "30"]) == 1
    assert "There is no database" in capsys.readouterr().err
    path = tmp_path / "bot.sqlite3"

    async def make() -> None:
        db = await SqliteDatabase.open(path)
        service = GameService(db, clock=lambda: time.time() - 90 * DAY)
        game = await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(1), Player(2)],
                                    options={"first": 0})
        await service.act(game.id, 1, "AC")
        await service.resign(game.id, 2)
        await db.close()

    asyncio.run(make())
    assert main(["--database", str(path), "--older-than", "30", "--dry-run"]) == 0
    assert "would archive 1 games" in capsys.readouterr().out
    assert main(["--database", str(path), "--older-than", "30"]) == 0
    out = capsys.readouterr().out
    assert "archived 1 games" in out and "(2 moves)" in out and (tmp_path / "bot.archive.sqlite3").is_file()
    assert main(["--database", str(path), "--bring-back", "1"]) == 0
    assert "brought back 1 games" in capsys.readouterr().out
    assert main(["--database", str(path), "--bring-back", "1"]) == 1
    assert "is not archived" in capsys.readouterr().err
    assert main(["--database", str(path), "--archive", str(path), "--older-than", "1"]) == 1
    assert "another file" in capsys.readouterr().err


# ----- through the bot ------------------------------------------------------------------------------------------
async def _finished_game(world: World, a: FakeUser, b: FakeUser, moves: int) -> FakeMessage:
    """A rated game between a and b: a challenge, `moves` moves, then the player to move resigns."""
    fake = world.fake
    res = await fake.slash(a, world.channel, "chopsticks", "challenge", options={"opponent": b})
    board = res.message
    assert board is not None
    await fake.click(b, board, board.button("Accept")["custom_id"])
    users = {a.id: a, b.id: b}
    for _ in range(moves):
        await fake.click(users[player_to_move(board) or 0], board, move_buttons(board)[0]["custom_id"])
    mover = users[player_to_move(board) or 0]
    confirm = await fake.click(mover, board, board.button("Resign")["custom_id"])
    assert confirm.message is not None
    await fake.click(mover, confirm.message, confirm.message.buttons()[0]["custom_id"])
    await fake.wait_until(lambda: "resigned" in board.text())
    return board


async def test_stats_leaderboard_history_and_replay_through_the_bot(world: World,
                                                                   sqlite_bots: TabletopRunner) -> None:
    fake, alice, bob, carol = world.fake, world.alice, world.bob, world.carol
    await sqlite_bots.start()
    await _finished_game(world, alice, bob, 3)
    await _finished_game(world, bob, carol, 2)
    await _finished_game(world, carol, alice, 1)
    res = await fake.slash(alice, world.channel, "chopsticks", "challenge", options={"opponent": bob})
    live = res.message
    assert live is not None
    await fake.click(bob, live, live.button("Accept")["custom_id"])
    users = {alice.id: alice, bob.id: bob}
    await fake.click(users[player_to_move(live) or 0], live, move_buttons(live)[0]["custom_id"])

    async def answers() -> list[str]:
        out = []
        for user in (alice, bob, carol):
            for command, options in (("stats", {}), ("history", {}), ("leaderboard", {"game": "chopsticks"}),
                                     ("leaderboard", {"game": "chopsticks", "scope": "global"})):
                reply = await fake.slash(user, world.channel, command, options=options)
                assert reply.message is not None
                out.append(reply.message.text())
        return out

    before = await answers()
    assert any("Favourite opponent" in text for text in before)
    result = await asyncio.to_thread(archive, sqlite_bots.database, sqlite_bots.database.with_name("archive.sqlite3"),
                                     older_than_days=0)  # while the bot runs
    assert result.games == 3
    assert await answers() == before

    archived = await fake.slash(alice, world.channel, "replay", options={"game": 1})
    assert archived.ephemeral and archived.message is not None and "was archived" in archived.message.text()
    playing = await fake.slash(alice, world.channel, "replay", options={"game": 4})
    assert playing.message is not None and "move 1 of 1" in playing.message.text()
    res = await fake.click(users[player_to_move(live) or 0], live, move_buttons(live)[0]["custom_id"])
    assert res.callback_type == Callback.UPDATE_MESSAGE, res.errors
    assert _rows(sqlite_bots.database, "SELECT count(*) FROM moves WHERE game_id = 4") == [(2,)]

"""The bot's record of what each board shows (bot/drawn.py): in memory for the process, written to the database by
`flush`, read back by the next start."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord
import pytest

from bot.drawn import Board, DrawnBoards, board_key
from bot.service import GameService, Player
from storage.connection import open_database
from storage.database import Database
from storage.db import SqliteDatabase
from storage.drawn_boards import DrawnBoardStore
from storage.postgres import PgConnection
from storage.private_boards import LiveBoard, PrivateBoard, PrivateBoardStore


async def test_a_board_that_would_look_the_same_is_recorded_at_the_new_version(database_target: str) -> None:
    db = await open_database(database_target)
    try:
        service = GameService(db)
        game = (await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(1), Player(2)])).game
        drawn = DrawnBoards(DrawnBoardStore(db))
        assert not drawn.current(7, "k", game)  # nothing known: draw it
        drawn.remember(7, "k", game)
        later = replace(game, version=game.version + 3)  # e.g. a reminder: the board looks the same
        assert drawn.current(7, "k", later) and not drawn.current(7, "other", later)
        await drawn.flush()
        assert [(b.message_id, b.version, b.key) for b in await drawn.store.of_active_games()] == [
            (7, later.version, "k")]

        # The next start knows it without drawing anything; a game that is over leaves no record.
        restarted = DrawnBoards(DrawnBoardStore(db))
        await restarted.load()
        assert restarted.get(7) == "k" and restarted.current(7, "k", later)
        restarted.remember(7, "end", replace(later, version=later.version + 1, status="finished"))
        await restarted.flush()
        assert await restarted.store.of_active_games() == []
    finally:
        await db.close()


def test_a_board_without_its_own_key_is_keyed_by_what_it_shows() -> None:
    board = Board("text", discord.Embed(title="Game #1", description="▶ <@1>"), None)
    assert board_key(board) == board_key(Board("text", discord.Embed(title="Game #1", description="▶ <@1>"), None))
    assert board_key(board) != board_key(Board("text", discord.Embed(title="Game #1", description="▶ <@2>"), None))
    assert board_key(board) != board_key(replace(board, image=b"png"))
    assert board_key(replace(board, key="given")) == "given"


async def test_a_process_takes_in_what_another_drew_since_and_doubts_what_landed_behind(database_target: str) -> None:
    """Two processes on one database: `first` drew message 7 as "k"; `second` then drew it as "other" at a
    newer version. When the game comes back to what `first` drew, `first` must edit again (the message shows "other"),
    and a drawing recorded behind a newer one is in doubt until drawn again."""
    db = await open_database(database_target)
    try:
        service = GameService(db)
        game = (await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(1), Player(2)])).game
        first, second = DrawnBoards(DrawnBoardStore(db)), DrawnBoards(DrawnBoardStore(db))
        first.remember(7, "k", game)
        assert not await first.flush(game.id)
        second.remember(7, "other", replace(game, version=game.version + 1))
        assert not await second.flush(game.id)
        back = replace(game, version=game.version + 2)
        await first.refresh(game.id)
        assert not first.current(7, "k", back) and first.current(7, "other", back)

        # `first`'s edit of an older version lands after `second` recorded a newer one: refused, and in doubt.
        first.remember(7, "late", game)
        assert await first.flush(game.id)
        await first.refresh(game.id)  # what `second` recorded does not settle it: the late edit may show
        assert first.get(7) is None and not first.current(7, "other", back)
        first.remember(7, "other", back)
        assert not await first.flush(game.id) and first.current(7, "other", back)
    finally:
        await db.close()


async def _counting(db: Database, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements `db` runs from now on, appended as they go: on SQLite every one SQLite runs on the main connection
    (BEGIN and COMMIT included), on PostgreSQL every one the storage sends (its transactions' BEGIN and COMMIT not)."""
    sent: list[str] = []
    if isinstance(db, SqliteDatabase):
        await db._conn.set_trace_callback(sent.append)
        return sent
    real = PgConnection.execute

    async def counted(self: PgConnection, statement: Any) -> Any:
        sent.append(statement.text)
        return await real(self, statement)

    monkeypatch.setattr(PgConnection, "execute", counted)
    return sent


async def test_a_flush_writes_every_board_of_a_drawing_in_one_statement_that_also_reads_the_version(
        database_target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A drawing's record is one statement however many boards it drew (on SQLite within its BEGIN and COMMIT): the
    version check rides in the upsert, and still finds a board refused or a game already further on."""
    db = await open_database(database_target)
    try:
        service = GameService(db)
        game = (await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(1), Player(2)])).game
        drawn = DrawnBoards(DrawnBoardStore(db))
        sent = await _counting(db, monkeypatch)
        writes = 1 if isinstance(db, SqliteDatabase) else 0  # SQLite's BEGIN and COMMIT, on each side of it
        for message in (7, 8, 9):
            drawn.remember(message, f"k{message}", game)
        assert not await drawn.flush(game.id, game.version)
        assert len(sent) == 1 + 2 * writes, sent

        # The game moved on meanwhile (another process's move): the record says so, still in one statement.
        mover = game.user_at(game.to_decide) if game.to_decide is not None else None
        assert mover is not None
        moved = await service.act(game.id, mover, "AC")
        del sent[:]
        drawn.remember(7, "k7 again", game)
        assert await drawn.flush(game.id, game.version)
        assert len(sent) == 1 + 2 * writes, sent
        assert not await drawn.flush(game.id)  # nothing left to write: nothing sent
        # A board whose newer drawing is recorded is refused, and says so.
        drawn.remember(8, "k8 newer", moved.game)
        drawn.remember(8, "k8 older", game)
        assert await drawn.flush(game.id, moved.game.version)
    finally:
        await db.close()


async def test_a_drawing_takes_its_private_board_rows_with_the_drawn_boards_until_its_flush(
        database_target: str) -> None:
    """The refresh that begins a drawing brings the game's private board rows and latest ephemeral boards, by seat,
    read with its drawn boards; the drawing's flush lets them go (the next drawing reads them again)."""
    db = await open_database(database_target)
    try:
        service = GameService(db)
        game = (await service.create("chopsticks", guild_id=1, channel_id=2, players=[Player(1), Player(2)])).game
        boards = PrivateBoardStore(db)
        await boards.set(game.id, 0, 31, 41, 1.0)
        await boards.set_live(LiveBoard(game.id, 1, 42, "token", 2.0e9))
        drawn = DrawnBoards(DrawnBoardStore(db))
        drawn.remember(7, "k", game)
        await drawn.flush(game.id)
        assert drawn.seats(game.id) is None  # no drawing under way
        await drawn.refresh(game.id)
        assert drawn.seats(game.id) == ({0: PrivateBoard(game.id, 0, 31, 41)},
                                        {1: LiveBoard(game.id, 1, 42, "token", 2.0e9)})
        assert drawn.get(7) == "k"
        await drawn.flush(game.id)
        assert drawn.seats(game.id) is None
    finally:
        await db.close()

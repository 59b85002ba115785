"""The bot's record of what each board shows (bot/drawn.py): in memory for the process, written to the database by
`flush`, read back by the next start."""

from __future__ import annotations

from dataclasses import replace

import discord

from bot.drawn import Board, DrawnBoards, board_key
from bot.service import GameService, Player
from storage.connection import open_database
from storage.drawn_boards import DrawnBoardStore


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

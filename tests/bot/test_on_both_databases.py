"""Issue 17: the real bot, through the offline Discord, on SQLite and on PostgreSQL alike: a whole game by clicks
with a restart in the middle, a turn timer that fires across a restart, a game against the computer player."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from bot.archive import main as archive_main
from bot.backup import main as backup_main
from bot.config import ConfigError, load_settings
from storage.postgres import without_password
from tests.support.boards import human_to_move, move_buttons, player_to_move
from tests.support.chopsticks import accepted_game
from tests.support.codes import Callback
from tests.support.fakediscord import FakeUser
from tests.support.world import (
    TabletopRunner,
    World,
    stored_chopsticks,
)


async def _stored(runner: TabletopRunner, game_id: int) -> tuple[str, list[tuple[int, str]]]:
    status, _state, moves = await stored_chopsticks(runner, game_id)
    return status, moves


def _users(world: World) -> dict[int, FakeUser]:
    return {u.id: u for u in (world.alice, world.bob, world.carol)}


async def test_a_whole_game_with_a_restart_in_the_middle(world: World, bots: TabletopRunner) -> None:
    first = await bots.start()
    board = await accepted_game(world)
    users, rng, moves = _users(world), random.Random(5), 0
    while move_buttons(board):
        if moves == 6:
            await bots.stop(first)
            first = await bots.start()  # a new process on the same database
        mover = player_to_move(board)
        assert mover is not None
        res = await world.fake.click(users[mover], board, rng.choice(move_buttons(board))["custom_id"])
        assert res.callback_type == Callback.UPDATE_MESSAGE, res.errors
        moves += 1
        assert moves < 300
    assert "wins" in board.text() or "Drawn" in board.text()
    status, log = await _stored(bots, 1)
    assert status == "finished" and len(log) == moves


async def test_a_turn_timer_fires_across_a_restart(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start_with(turn_timeout=1.2)
    board = await accepted_game(world)
    await world.fake.wait_until(
        lambda: any("it is your move" in m.content for m in world.fake.channel_messages(world.channel)), timeout=5)
    await bots.stop(bot)  # the forfeit falls due while the bot is down
    await asyncio.sleep(0.6)
    await bots.start_with(turn_timeout=1.2)
    await world.fake.wait_until(lambda: "ran out of time" in board.text(), timeout=5)
    assert board.components == [] and (await _stored(bots, 1))[0] == "finished"


async def test_a_game_against_the_computer_player_plays_to_the_end(world: World, bots: TabletopRunner) -> None:
    """The computer's turns are leased in the database and played off the event loop; the game ends stored."""
    await bots.start()
    res = await world.fake.slash(world.alice, world.channel, "chopsticks", "challenge")
    board = res.message
    assert res.callback_type == Callback.CHANNEL_MESSAGE and board is not None, res.errors
    rng = random.Random(1)
    while await human_to_move(world.fake, board, {world.alice.id}) is not None:
        click = await world.fake.click(world.alice, board, rng.choice(move_buttons(board))["custom_id"])
        assert click.callback_type == Callback.UPDATE_MESSAGE, click.errors
    status, log = await _stored(bots, 1)
    assert status == "finished" and {seat for seat, _ in log} == {0, 1}


def test_database_url_chooses_postgresql_and_is_refused_in_one_line_when_wrong() -> None:
    base = {"DISCORD_TOKEN": "x" * 60}
    settings = load_settings(base | {"DATABASE_URL": "postgresql://bot:secret@db.example/tabletop"}, dotenv=None)
    assert settings.database == "postgresql://bot:secret@db.example/tabletop"
    assert load_settings(base, dotenv=None).database == Path("data/bot.sqlite3")
    for environ, said in (({"DATABASE_URL": "mysql://x"}, "must be a PostgreSQL URL"),
                          ({"DATABASE_URL": "postgresql://x/y", "DATABASE_PATH": "a.sqlite3"}, "not both")):
        with pytest.raises(ConfigError, match=said) as caught:
            load_settings(base | environ, dotenv=None)
        assert "\n" not in str(caught.value)
    assert without_password("postgresql://bot:secret@db.example:5433/tabletop") == \
        "postgresql://bot:***@db.example:5433/tabletop"


def test_the_sqlite_tools_say_they_are_for_sqlite_when_the_bot_uses_postgresql(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", "postgresql://bot@localhost/tabletop")
    for main, argv in ((backup_main, ["save", "x.sqlite3"]), (archive_main, ["--older-than", "30"])):
        assert main(argv) == 2
        said = capsys.readouterr().err
        assert said.startswith("error: this bot's database is PostgreSQL") and "pg_dump" in said
        assert said.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # nothing was made

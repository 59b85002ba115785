"""Two bot processes on one database (a SQLite file, or PostgreSQL: issue 17): every read-modify-write (ratings,
lobbies) locks what it reads until it commits, so neither process can lose the other's update. Each "process" here is
its own connection to the database (the `two` fixture), and for ratings also a real operating-system process."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

import bot.service.ratings
import storage.ratings
from bot.service import GameService, Player, ServiceError
from bot.service.lobbies import LobbyService
from storage.connection import open_database
from storage.database import Database
from storage.ratings import GLOBAL, RatingRow, RatingStore
from storage.sql import Dialect, Plan, Sql
from tests.support import rating_worker
from tests.support.world import stored_rows

ALICE, BOB, CAROL, DAVE = 11, 22, 33, 44
GUILD = 5
ROOT = Path(__file__).resolve().parents[2]


async def _played(service: GameService, opponent: int) -> int:
    """A rated game of alice against `opponent`, one move in, so that a resignation now is a rated result."""
    game = await service.create("chopsticks", guild_id=GUILD, channel_id=1, players=[Player(ALICE), Player(opponent)],
                                options={"first": 0})
    await service.act(game.id, ALICE, "AC")
    return game.id


async def test_a_rating_update_from_another_process_between_read_and_write_is_kept(
    two: tuple[Database, Database], database_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, there = GameService(two[0]), GameService(two[1])
    first, second = await _played(here, BOB), await _played(there, CAROL)
    read = storage.ratings.read_ratings
    loop = asyncio.get_running_loop()
    other: list[Future[Any]] = []

    def read_while_the_other_finishes(kind: str, guild_id: int, users: Iterable[int]) -> Plan[dict[int, RatingRow]]:
        # This process has read alice's ratings (on its database thread, inside the final move's write) and will
        # write them back: the other process finishes its own game of alice's now. Unless this one holds the write
        # lock since its read, that lands in between.
        rows = yield from read(kind, guild_id, users)
        if not other:
            other.append(asyncio.run_coroutine_threadsafe(there.resign(second, CAROL), loop))
            if two[1].dialect is Dialect.POSTGRESQL:
                yield Sql("SELECT pg_sleep(0.5)")  # this plan awaits its statements: the other process runs meanwhile
            else:
                time.sleep(0.5)  # on the database thread, while the event loop runs the other process
        return rows

    monkeypatch.setattr(bot.service.ratings, "read_ratings", read_while_the_other_finishes)
    await here.resign(first, BOB)
    await asyncio.wrap_future(other[0])
    ratings = RatingStore(two[0])
    for scope in (GUILD, GLOBAL):
        alice = await ratings.get("chopsticks", scope, ALICE)
        assert alice is not None and (alice.games, alice.wins) == (2, 2), f"ladder {scope}: {alice}"


def test_two_os_processes_finishing_games_of_one_player_lose_no_rating(database_target: str) -> None:
    path = database_target
    asyncio.run(_migrated(path))
    games = 60
    start_at = time.time() + 1.5  # both are running (imports done) by then
    workers = [subprocess.Popen([sys.executable, "-m", "tests.support.rating_worker", str(path), str(opponent),
                                 str(games), str(start_at)], cwd=ROOT, stderr=subprocess.PIPE, text=True)
               for opponent in (BOB, CAROL)]
    for worker in workers:
        _out, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err
    counts = asyncio.run(_games_counted(path))
    shared = rating_worker.SHARED_PLAYER
    assert counts == {(scope, user): n for scope in (rating_worker.GUILD, GLOBAL)
                      for user, n in ((shared, 2 * games), (BOB, games), (CAROL, games))}


async def _migrated(target: str) -> None:
    db = await open_database(target)
    await db.close()


async def _games_counted(target: str) -> dict[tuple[int, int], int]:
    rows = await stored_rows(target, "SELECT guild_id, user_id, games FROM ratings")
    return {(int(r[0]), int(r[1])): int(r[2]) for r in rows}


async def test_lobby_joins_from_two_processes_at_once_all_get_in(two: tuple[Database, Database]) -> None:
    here, there = LobbyService(GameService(two[0])), LobbyService(GameService(two[1]))
    lobby = await here.open("sucker", guild_id=GUILD, channel_id=1, host_id=ALICE, max_players=6, options={})
    joined = await asyncio.gather(*((here, there)[i % 2].join(lobby.id, user) for i, user in
                                    enumerate((BOB, CAROL, DAVE, 55, 66))), return_exceptions=True)
    assert not [r for r in joined if isinstance(r, BaseException)]
    members = (await there.load(lobby.id)).members
    assert sorted(m.user_id for m in members if m.user_id is not None) == [ALICE, BOB, CAROL, DAVE, 55, 66]
    with pytest.raises(ServiceError, match="full"):
        await here.join(lobby.id, 77)

"""Lobbies over a real SQLite file: joining, leaving, bots, starting, expiry."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.service import GameService, ServiceError
from bot.service.lobbies import LobbyService
from storage.connection import open_database
from tests.support.clock import Clock

HOST, ANN, BEN, CAT = 1, 2, 3, 4


@pytest.fixture
async def lobbies(database_target: str) -> AsyncIterator[LobbyService]:
    db = await open_database(database_target)
    yield LobbyService(GameService(db, clock=Clock(5_000.0)), lobby_timeout=60)
    await db.close()


async def _open(lobbies: LobbyService, max_players: int = 4) -> int:
    lobby = await lobbies.open("chopsticks", guild_id=1, channel_id=2, host_id=HOST, max_players=max_players,
                               options={})
    return lobby.id


async def test_join_leave_bots_and_start_in_join_order(lobbies: LobbyService) -> None:
    lobby_id = await _open(lobbies)
    await lobbies.join(lobby_id, ANN)
    with pytest.raises(ServiceError, match="already in"):
        await lobbies.join(lobby_id, ANN)
    with pytest.raises(ServiceError, match="Only the host"):
        await lobbies.add_computer_player(lobby_id, ANN, "medium")
    await lobbies.add_computer_player(lobby_id, HOST, "medium")
    await lobbies.join(lobby_id, BEN)
    with pytest.raises(ServiceError, match="full"):
        await lobbies.join(lobby_id, CAT)
    await lobbies.leave(lobby_id, BEN)
    lobby = await lobbies.join(lobby_id, CAT)
    assert [(m.user_id, m.bot) for m in lobby.members] == [(HOST, None), (ANN, None), (None, "medium"), (CAT, None)]
    with pytest.raises(ServiceError, match="Only the host"):
        await lobbies.start(lobby_id, CAT)

    lobby, game = await lobbies.start(lobby_id, HOST)
    assert lobby.status == "started" and lobby.game_id == game.id
    assert [s.user_id for s in game.game.seats] == [HOST, ANN, None, CAT]
    assert len(game.public.hands) == 4 and game.game.status == "active"
    with pytest.raises(ServiceError, match="already started"):
        await lobbies.join(lobby_id, BEN)


async def test_a_lobby_needs_two_players_and_closes_when_the_host_leaves(lobbies: LobbyService) -> None:
    lobby_id = await _open(lobbies, max_players=3)
    with pytest.raises(ServiceError, match="At least 2 players"):
        await lobbies.start(lobby_id, HOST)
    lobby = await lobbies.leave(lobby_id, HOST)
    assert lobby.status == "cancelled"
    with pytest.raises(ServiceError, match="closed"):
        await lobbies.join(lobby_id, ANN)


async def test_impossible_rules_are_refused_when_the_lobby_opens(lobbies: LobbyService) -> None:
    with pytest.raises(ServiceError, match="2 to 6 players"):
        await _open(lobbies, max_players=7)
    with pytest.raises(ServiceError, match="hands"):
        await lobbies.open("chopsticks", guild_id=1, channel_id=2, host_id=HOST, max_players=3,
                           options={"hands": 9})


async def test_concurrent_joins_fill_each_seat_once(lobbies: LobbyService) -> None:
    lobby_id = await _open(lobbies, max_players=3)
    results = await asyncio.gather(*(lobbies.join(lobby_id, 100 + i) for i in range(10)), return_exceptions=True)
    assert sum(not isinstance(r, BaseException) for r in results) == 2
    assert len((await lobbies.load(lobby_id)).members) == 3


async def test_an_open_lobby_expires(lobbies: LobbyService) -> None:
    lobby_id = await _open(lobbies)
    assert await lobbies.due() == []
    clock = lobbies.games.clock
    assert isinstance(clock, Clock)
    clock.now += 61
    assert await lobbies.due() == [lobby_id]
    expired = await lobbies.expire(lobby_id)
    assert expired is not None and expired.status == "expired"
    assert await lobbies.due() == []

"""Leases (storage/leases.py) on both backends: one holder at a time until the lease runs out."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from storage.connection import AnyDatabase, open_database, run
from storage.leases import (
    beat,
    bot_turn_key,
    bot_turns_to_take,
    claim,
    holder_of,
    release,
    release_expired,
    renew,
    take,
)
from storage.sql import Plan, Sql


@pytest.fixture
async def db(database_target: str) -> AsyncIterator[AnyDatabase]:
    opened = await open_database(database_target)
    yield opened
    await opened.close()


async def test_one_holder_at_a_time_until_the_lease_runs_out(db: AnyDatabase) -> None:
    async with db.transaction() as conn:
        assert await claim(conn, "k", "a", 10.0, 100.0)
        assert not await claim(conn, "k", "b", 10.0, 105.0)  # a's lease runs until 110
        assert await claim(conn, "k", "a", 10.0, 105.0)  # a renews: now until 115
        assert not await claim(conn, "k", "b", 10.0, 114.0)
        assert await holder_of(conn, "k", 114.0) == "a"
        assert await claim(conn, "k", "b", 10.0, 115.0)  # ran out: b takes it over
        assert not await renew(conn, "k", "a", 10.0, 116.0)
        assert await renew(conn, "k", "b", 10.0, 116.0)
        await release(conn, "k", "a")  # not a's any more: nothing happens
        assert await holder_of(conn, "k", 120.0) == "b"
        await release(conn, "k", "b")
        assert await holder_of(conn, "k", 120.0) is None
        await take(conn, "k", "c", 10.0, 120.0)
        await take(conn, "k", "d", 10.0, 121.0)
        assert await holder_of(conn, "k", 121.0) == "d"
        await release_expired(conn, "k", 125.0)
        assert await holder_of(conn, "k", 125.0) == "d"
        await release_expired(conn, "k", 131.0)
        assert await holder_of(conn, "k", 100.0) is None


async def test_bot_turns_to_take_are_the_unleased_and_the_expired(db: AnyDatabase) -> None:
    now = 1000.0
    async with db.transaction() as conn:
        for game_id, deadline, bot in ((1, None, "easy"), (2, None, "easy"), (3, 5000.0, None), (4, 5000.0, "easy"),
                                       (5, 5000.0, "easy")):
            await run(conn, _game(game_id, deadline, bot))
        assert await claim(conn, bot_turn_key(2), "alive", 30.0, now)  # driven
        assert await claim(conn, bot_turn_key(4), "killed", 30.0, now - 60)  # its driver died during the setup
    assert await db.query(bot_turns_to_take(now)) == [1, 4]


def _game(game_id: int, deadline: float | None, bot: str | None) -> Plan[None]:
    """An active game whose seat 0 is a bot (or a person), with a deadline or none."""
    yield Sql("INSERT INTO games (id, kind, channel_id, status, initial_state, state, deadline, created_at, updated_at)"
              " VALUES (?, 'chopsticks', 1, 'active', '{}', '{}', ?, 0, 0)", (game_id, deadline))
    yield Sql("INSERT INTO game_players (game_id, seat, user_id, bot) VALUES (?, 0, ?, ?)",
              (game_id, None if bot else 7, bot))


async def test_a_dead_process_lets_go_of_everything_it_held_however_long_its_leases_were(db: AnyDatabase) -> None:
    """A process renews its process lease every few seconds (its heartbeat); once that runs out, its other leases are
    free, though they were to run for minutes. Until then they are its own."""
    async with db.transaction() as conn:
        await beat(conn, "a", 10.0, 100.0)  # alive until 110
        assert await claim(conn, "work", "a", 300.0, 100.0)
        assert await claim(conn, bot_turn_key(7), "a", 300.0, 100.0)
        assert not await claim(conn, "work", "b", 300.0, 109.0)
        assert await holder_of(conn, "work", 109.0) == "a"
        await beat(conn, "a", 10.0, 108.0)  # renewed: alive until 118
        assert not await claim(conn, "work", "b", 300.0, 117.0)
        assert await run(conn, bot_turns_to_take(117.0)) == []
        # a stops beating (killed): from 118 all it held is free
        assert await holder_of(conn, "work", 118.0) is None
        assert await run(conn, bot_turns_to_take(118.0)) == [7]
        assert await claim(conn, "work", "b", 300.0, 118.0)
        assert await holder_of(conn, "work", 119.0) == "b"
        await release_expired(conn, bot_turn_key(7), 118.0)
        assert await holder_of(conn, bot_turn_key(7), 100.0) is None  # gone, not merely expired


async def test_a_holder_without_a_heartbeat_keeps_its_lease_until_it_runs_out(db: AnyDatabase) -> None:
    """Another process's heartbeat says nothing about a holder that never beat (a service without the bot's loop)."""
    async with db.transaction() as conn:
        await beat(conn, "b", 1.0, 100.0)
        assert await claim(conn, "work", "a", 300.0, 100.0)
        assert not await claim(conn, "work", "b", 300.0, 200.0)
        assert await holder_of(conn, "work", 200.0) == "a"
        assert await claim(conn, "work", "b", 300.0, 400.0)

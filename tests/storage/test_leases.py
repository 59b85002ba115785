"""Leases (storage/leases.py) on both backends: one holder at a time until the lease runs out by the database's clock
(leases of a fraction of a second that really run out), and a new token at every claim, which only the latest holder
still holds (the fence)."""

from __future__ import annotations

import asyncio

from storage.database import Database
from storage.leases import (
    beat,
    claim,
    computer_turn_key,
    computer_turns_to_take,
    holder_of,
    holds,
    keeps,
    release,
    release_expired,
    renew,
    take,
)
from storage.sql import Plan, Sql

SHORT = 0.3  # seconds: a lease the tests wait out


async def test_one_holder_at_a_time_until_the_lease_runs_out(db: Database) -> None:
    async with db.transaction() as conn:
        first = await claim(conn, "k", "a", SHORT)
        assert first is not None
        assert await claim(conn, "k", "b", SHORT) is None  # a's lease runs
        renewed = await claim(conn, "k", "a", SHORT)  # a renews: a new token, and its claim runs from now
        assert renewed is not None and renewed > first
        assert await holds(conn, "k", "a", renewed) and not await holds(conn, "k", "a", first)
        assert await holder_of(conn, "k") == "a"
    await asyncio.sleep(SHORT + 0.05)
    async with db.transaction() as conn:
        assert await holder_of(conn, "k") is None
        assert not await holds(conn, "k", "a", renewed)  # ran out: a's fence no longer holds ...
        taken = await claim(conn, "k", "b", 10.0)  # ... and b takes it over
        assert taken is not None and taken > renewed
        assert not await holds(conn, "k", "a", renewed) and await holds(conn, "k", "b", taken)
        assert not await renew(conn, "k", "a", 10.0)
        assert await renew(conn, "k", "b", 10.0)
        await release(conn, "k", "a")  # not a's any more: nothing happens
        assert await holder_of(conn, "k") == "b"
        await release(conn, "k", "b")
        assert await holder_of(conn, "k") is None
        await take(conn, "k", "c", 10.0)
        await take(conn, "k", "d", SHORT)
        assert await holder_of(conn, "k") == "d"
        await release_expired(conn, "k")
        assert await holder_of(conn, "k") == "d"
    await asyncio.sleep(SHORT + 0.05)
    async with db.transaction() as conn:
        await release_expired(conn, "k")
        assert await holder_of(conn, "k") is None
        assert await claim(conn, "k", "e", -1.0) is not None  # a lease of a negative length: run out already
        assert await holder_of(conn, "k") is None


async def test_a_token_is_never_given_twice(db: Database) -> None:
    """A lease let go of and claimed again by the same holder gets a new token: a task of that holder still holding
    the old one (paused while the work was done and the lease let go) no longer passes the fence."""
    tokens = []
    for _ in range(3):
        async with db.transaction() as conn:
            token = await claim(conn, "k", "a", 10.0)
            assert token is not None
            tokens.append(token)
            await release(conn, "k", "a")
    async with db.transaction() as conn:
        tokens.append(await take(conn, "k", "a", 10.0))
        assert [await holds(conn, "k", "a", t) for t in tokens] == [False, False, False, True]
    assert tokens == sorted(set(tokens))


async def test_the_fence_inside_a_write_is_kept_only_by_the_latest_claim(db: Database) -> None:
    async with db.transaction() as conn:
        old = await claim(conn, "k", "a", -1.0)  # a's claim ran out while it was paused
        assert old is not None
        assert not await keeps(conn, "k", "a", old)
        new = await claim(conn, "k", "b", 10.0)  # another process took it over
        assert new is not None
        assert not await keeps(conn, "k", "a", old) and await keeps(conn, "k", "b", new)


async def test_computer_turns_to_take_are_the_unleased_and_the_expired(db: Database) -> None:
    async with db.transaction() as conn:
        for game_id, deadline, bot in ((1, None, "easy"), (2, None, "easy"), (3, 5000.0, None), (4, 5000.0, "easy"),
                                       (5, 5000.0, "easy")):
            await conn.run(_game(game_id, deadline, bot))
        assert await claim(conn, computer_turn_key(2), "alive", 30.0)  # driven
        assert await claim(conn, computer_turn_key(4), "killed", -60.0)  # its driver died during the setup, long ago
    assert await db.query(computer_turns_to_take(db.dialect)) == [1, 4]


def _game(game_id: int, deadline: float | None, bot: str | None) -> Plan[None]:
    """An active game whose seat 0 is a bot (or a person), with a deadline or none."""
    yield Sql("INSERT INTO games (id, kind, channel_id, status, initial_state, state, deadline, created_at, updated_at)"
              " VALUES (?, 'chopsticks', 1, 'active', '{}', '{}', ?, 0, 0)", (game_id, deadline))
    yield Sql("INSERT INTO game_players (game_id, seat, user_id, bot) VALUES (?, 0, ?, ?)",
              (game_id, None if bot else 7, bot))


async def test_a_dead_process_lets_go_of_everything_it_held_however_long_its_leases_were(db: Database) -> None:
    """A process renews its process lease every few seconds (its heartbeat); once that runs out, its other leases are
    free, though they were to run for minutes. Until then they are its own."""
    async with db.transaction() as conn:
        await beat(conn, "a", SHORT)
        work = await claim(conn, "work", "a", 300.0)
        assert work is not None
        assert await claim(conn, computer_turn_key(7), "a", 300.0)
        assert await claim(conn, "work", "b", 300.0) is None
        assert await holder_of(conn, "work") == "a" and await holds(conn, "work", "a", work)
    await asyncio.sleep(SHORT / 2)
    async with db.transaction() as conn:
        await beat(conn, "a", SHORT)  # renewed: alive for SHORT from now
    await asyncio.sleep(SHORT / 2 + 0.05)  # past the first beat, not the second
    async with db.transaction() as conn:
        assert await claim(conn, "work", "b", 300.0) is None
        assert await conn.run(computer_turns_to_take(conn.dialect)) == []
    await asyncio.sleep(SHORT / 2 + 0.05)  # a stopped beating (killed, paused): now all it held is free
    async with db.transaction() as conn:
        assert await holder_of(conn, "work") is None and not await holds(conn, "work", "a", work)
        assert await conn.run(computer_turns_to_take(conn.dialect)) == [7]
        assert await claim(conn, "work", "b", 300.0)
        assert await holder_of(conn, "work") == "b"
        await release_expired(conn, computer_turn_key(7))
        await beat(conn, "a", 10.0)  # a wakes up and beats again: what it held is gone, or another's
        assert await holder_of(conn, computer_turn_key(7)) is None  # gone, not merely expired
        assert not await holds(conn, "work", "a", work)


async def test_a_holder_without_a_heartbeat_keeps_its_lease_until_it_runs_out(db: Database) -> None:
    """Another process's heartbeat says nothing about a holder that never beat (a service without the bot's loop)."""
    async with db.transaction() as conn:
        await beat(conn, "b", -1.0)  # b's heartbeat ran out
        assert await claim(conn, "work", "a", SHORT)
        assert await claim(conn, "work", "b", 300.0) is None
        assert await holder_of(conn, "work") == "a"
    await asyncio.sleep(SHORT + 0.05)
    async with db.transaction() as conn:
        await beat(conn, "b", 10.0)
        assert await claim(conn, "work", "b", 300.0)

"""Issue 17: stopping a bot on PostgreSQL while its queries wait for new connections logs nothing at ERROR.

A query that needs a new pooled connection and is cancelled at the wrong moment (asyncpg's socket just opened, the
server not yet answered) used to leave a failed future behind that nobody awaited: asyncio logged "Future exception
was never retrieved: ConnectionDoesNotExistError('connection was closed in the middle of operation')" at ERROR, now
and then at a clean stop (storage/postgres.py, WholeConnects). Each round opens the database, starts queries enough
to open new connections, cancels them after a few turns of the event loop (every moment of a connect, over the
rounds) and closes the database."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

from storage.connection import open_database
from storage.sql import select

ROUNDS = 40  # before the fix: about 2 such reports a round
QUERIES = 8


async def test_queries_cancelled_while_connecting_leave_no_failed_future_behind(postgres_url: str) -> None:
    reports: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    handler = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: reports.append(context))
    try:
        for turns in range(ROUNDS):
            db = await open_database(postgres_url)
            queries = [asyncio.ensure_future(db.query(select("SELECT pg_sleep(0.01)"))) for _ in range(QUERIES)]
            for _ in range(turns % 6):
                await asyncio.sleep(0)
            for query in queries:
                query.cancel()
            await asyncio.gather(*queries, return_exceptions=True)
            await db.close()
            gc.collect()  # asyncio reports a failed future nobody retrieved when it is collected
        await asyncio.sleep(0.1)
        gc.collect()
    finally:
        loop.set_exception_handler(handler)
    assert [f"{c.get('message')}: {c.get('exception')!r}" for c in reports] == []
    assert await _other_connections(postgres_url) == 0  # a connect whose caller was gone closed what it opened


async def _other_connections(url: str, wait: float = 5.0) -> int:
    """How many connections to the database are left besides this one (the server sees a closed one go soon)."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        deadline = loop_time() + wait
        while True:
            count = int(await conn.fetchval("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                            " AND pid <> pg_backend_pid()"))
            if count == 0 or loop_time() > deadline:
                return count
            await asyncio.sleep(0.05)
    finally:
        await conn.close()


def loop_time() -> float:
    return asyncio.get_running_loop().time()

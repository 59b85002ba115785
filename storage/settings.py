"""Small key/value facts the bot keeps between runs."""

from __future__ import annotations

from storage.connection import AnyDatabase
from storage.leases import claim, release
from storage.sql import select, statement


class BotStateStore:
    def __init__(self, db: AnyDatabase) -> None:
        self._db = db

    async def get(self, key: str) -> str | None:
        rows = await self._db.query(select("SELECT value FROM bot_state WHERE key = ?", (key,)))
        return str(rows[0][0]) if rows else None

    async def set(self, key: str, value: str) -> None:
        await self._db.run(statement(
            "INSERT INTO bot_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value)))

    async def claim(self, lease: str, holder: str, seconds: float, now: float) -> bool:
        """Hold the lease `lease` (storage/leases.py): work about these facts that one process at a time does."""
        async with self._db.transaction() as conn:
            return await claim(conn, lease, holder, seconds, now)

    async def release(self, lease: str, holder: str) -> None:
        async with self._db.transaction() as conn:
            await release(conn, lease, holder)

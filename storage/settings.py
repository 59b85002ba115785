"""Small key/value facts the bot keeps between runs."""

from __future__ import annotations

from storage.db import Database
from storage.leases import claim, release


class BotStateStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, key: str) -> str | None:
        async with self._db.reading() as conn, conn.execute(
            "SELECT value FROM bot_state WHERE key = ?", (key,)
        ) as cur:
            row = await cur.fetchone()
        return str(row[0]) if row else None

    async def set(self, key: str, value: str) -> None:
        async with self._db.transaction() as conn:
            await conn.execute(
                "INSERT INTO bot_state (key, value) VALUES (?, ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    async def claim(self, lease: str, holder: str, seconds: float, now: float) -> bool:
        """Hold the lease `lease` (storage/leases.py): work about these facts that one process at a time does."""
        async with self._db.transaction() as conn:
            return await claim(conn, lease, holder, seconds, now)

    async def release(self, lease: str, holder: str) -> None:
        async with self._db.transaction() as conn:
            await release(conn, lease, holder)

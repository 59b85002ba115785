"""Small key/value facts the bot keeps between runs."""

from __future__ import annotations

from storage.database import Store
from storage.sql import select, statement


class BotStateStore(Store):
    async def get(self, key: str) -> str | None:
        rows = await self._db.query(select("SELECT value FROM bot_state WHERE key = ?", (key,)))
        return str(rows[0][0]) if rows else None

    async def set(self, key: str, value: str) -> None:
        await self._db.run(statement(
            "INSERT INTO bot_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value)))

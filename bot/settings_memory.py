"""Server settings as this process last read them (`RememberedSettings`): every drawing of a board asks whether the
server wants pictures, several times per move, and every public message asks its language.

A server's settings are read at most once per `LANGUAGE_MEMORY` seconds (bot/i18n.py): one window for everything
another process sharing the database may change, since a server's language is one of these settings and is read
through here. A change made with /settings in this process shows at once (it goes through here).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from bot import i18n
from storage.database import Database
from storage.server_settings import ServerSettings, ServerSettingsStore


class RememberedSettings(ServerSettingsStore):
    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self._known: dict[int, tuple[ServerSettings, float]] = {}  # guild id -> its settings, when read
        self._changes = 0  # changes begun here: a read that overlapped one is not remembered (it may be older)

    async def get(self, guild_id: int) -> ServerSettings:
        known = self._known.get(guild_id)
        if known is not None and time.monotonic() - known[1] < i18n.LANGUAGE_MEMORY:
            return known[0]
        changes, read_at = self._changes, time.monotonic()
        settings = await super().get(guild_id)
        if changes == self._changes:
            self._known[guild_id] = settings, read_at
        return settings

    async def change(self, guild_id: int, edit: Callable[[ServerSettings], ServerSettings]) -> ServerSettings:
        self._changes += 1
        self._known.pop(guild_id, None)
        try:
            settings = await super().change(guild_id, edit)
        finally:
            self._changes += 1
            self._known.pop(guild_id, None)
        return settings

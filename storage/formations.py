"""Formations a player saved, by name, per game kind. They are the player's own secret: nothing here is
ever shown to anyone but `user_id`."""

from __future__ import annotations

from dataclasses import dataclass

from storage.database import Store
from storage.sql import READ_FIRST, Plan, Sql

MAX_PER_USER = 25  # what one select menu can offer
MAX_NAME = 40


class FormationError(ValueError):
    """A refused save or a missing formation; the message is fit to show the player."""


@dataclass(frozen=True)
class SavedFormation:
    name: str
    setup: str
    created_at: float


class FormationStore(Store):
    async def save(self, user_id: int, kind: str, name: str, setup: str, now: float) -> SavedFormation:
        """Save under `name`, replacing a formation of that name; at most MAX_PER_USER per game."""
        name = " ".join(name.split())
        if not name or len(name) > MAX_NAME:
            raise FormationError(f"A formation name has 1 to {MAX_NAME} characters.")
        # The count is read inside the write transaction, or two saves (from two processes) could both see room
        # for one more and store MAX_PER_USER + 1.
        def save() -> Plan[SavedFormation]:
            yield READ_FIRST
            done = yield Sql("SELECT count(*), sum(CASE WHEN name = ? THEN 1 ELSE 0 END) FROM saved_formations"
                             " WHERE user_id = ? AND kind = ?", (name, user_id, kind))
            count, same = int(done.rows[0][0]), int(done.rows[0][1] or 0)
            if count >= MAX_PER_USER and not same:
                raise FormationError(f"You have {MAX_PER_USER} saved formations; delete one to save another.")
            yield Sql("INSERT INTO saved_formations (user_id, kind, name, setup, created_at) VALUES (?, ?, ?, ?, ?)"
                      " ON CONFLICT (user_id, kind, name) DO UPDATE SET setup = excluded.setup,"
                      " created_at = excluded.created_at", (user_id, kind, name, setup, now))
            return SavedFormation(name, setup, now)

        return await self._db.run(save())

    async def list(self, user_id: int, kind: str) -> list[SavedFormation]:
        def read() -> Plan[list[SavedFormation]]:
            done = yield Sql("SELECT name, setup, created_at FROM saved_formations WHERE user_id = ? AND kind = ?"
                             " ORDER BY lower(name), name", (user_id, kind))
            return [SavedFormation(str(r[0]), str(r[1]), float(r[2])) for r in done.rows]

        return await self._db.query(read())

    async def load(self, user_id: int, kind: str, name: str) -> SavedFormation:
        for formation in await self.list(user_id, kind):
            if formation.name.casefold() == " ".join(name.split()).casefold():
                return formation
        raise FormationError(f"You have no saved formation called {name!r}.")

    async def delete(self, user_id: int, kind: str, name: str) -> None:
        wanted = " ".join(name.split()).casefold()
        # Found and deleted in one write transaction: the name found is the one deleted, whatever else happens.
        def delete() -> Plan[None]:
            yield READ_FIRST
            done = yield Sql("SELECT name FROM saved_formations WHERE user_id = ? AND kind = ?", (user_id, kind))
            found = next((str(r[0]) for r in done.rows if str(r[0]).casefold() == wanted), None)
            if found is None:
                raise FormationError(f"You have no saved formation called {name!r}.")
            yield Sql("DELETE FROM saved_formations WHERE user_id = ? AND kind = ? AND name = ?",
                      (user_id, kind, found))

        await self._db.run(delete())

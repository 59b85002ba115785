"""Losing a race on purpose: another process writes a game right after this process has read it, before the write
this process bases on that read, through the real storage API on a connection of its own."""

from __future__ import annotations

import asyncio

import pytest

from storage import GameRecord, GameStore, GameTransaction, StaleVersionError
from storage.database import Database


class Interloper:
    """Armed for a game, bumps its version from a second connection just after the next read of it here.

    The read here is followed by a pause of up to `patience` seconds for that write. A writer that read the game
    inside its own write transaction keeps the interloper waiting on the database's lock until it has committed
    (SQLite's write lock, PostgreSQL's FOR UPDATE; the interloper then loses instead); any other writer finds the game
    changed under it."""

    def __init__(self, other: Database, monkeypatch: pytest.MonkeyPatch, patience: float = 1.0) -> None:
        self._store = GameStore(other)
        self._patience = patience
        self._armed: dict[int, int] = {}  # game id -> reads of it to let pass first
        self._late: list[asyncio.Task[bool]] = []
        self.landed: list[bool] = []  # per interference: whether it got in between the read and the write
        real_load = GameTransaction.load

        async def load_then_interfere(tx: GameTransaction, game_id: int) -> GameRecord:
            record = await real_load(tx, game_id)
            if self._armed.get(game_id, 0) > 0:
                self._armed[game_id] -= 1
            elif game_id in self._armed:
                del self._armed[game_id]
                bump = asyncio.create_task(self._bump(record))
                done, _pending = await asyncio.wait({bump}, timeout=self._patience)
                self.landed.append(bool(done) and bump.result())
                if not done:
                    self._late.append(bump)
            return record

        monkeypatch.setattr(GameTransaction, "load", load_then_interfere)

    def arm(self, game_id: int, skip: int = 0) -> None:
        """Interfere after the next read of `game_id` but the first `skip` ones."""
        self._armed[game_id] = skip

    async def settle(self) -> list[bool]:
        """Wait for interferences still held back by a write lock; whether each of them got its write in."""
        return list(await asyncio.gather(*self._late))

    async def _bump(self, record: GameRecord) -> bool:
        try:
            await self._store.update(record, now=record.updated_at)
        except StaleVersionError:
            return False  # the write it raced committed first: it is the interloper that lost
        return True

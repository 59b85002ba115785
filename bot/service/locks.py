"""One asyncio.Lock per key (a game id), created on demand and dropped when nobody holds or awaits it."""

from __future__ import annotations

import asyncio
from types import TracebackType


class KeyedLocks:
    def __init__(self) -> None:
        self._locks: dict[int, tuple[asyncio.Lock, list[int]]] = {}

    def hold(self, key: int) -> _Held:
        """`async with locks.hold(key):` the lock of `key` (a plain class rather than a generator-based context
        manager: every move takes one, and this costs a fraction of that)."""
        return _Held(self._locks, key)


class _Held:
    __slots__ = ("_entry", "_key", "_locks")

    def __init__(self, locks: dict[int, tuple[asyncio.Lock, list[int]]], key: int) -> None:
        self._locks = locks
        self._key = key

    async def __aenter__(self) -> None:
        entry = self._locks.get(self._key)
        if entry is None:
            entry = self._locks[self._key] = (asyncio.Lock(), [0])
        entry[1][0] += 1
        self._entry = entry
        try:
            await entry[0].acquire()
        except BaseException:
            self._drop()
            raise

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        self._entry[0].release()
        self._drop()

    def _drop(self) -> None:
        users = self._entry[1]
        users[0] -= 1
        if users[0] == 0:
            del self._locks[self._key]

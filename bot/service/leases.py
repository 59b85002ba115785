"""This process's leases (storage/leases.py): one process at a time drives a game's computer players or does a piece
of one-off work (a post, a DM, syncing the commands), and a process that finds it no longer holds its lease does not
do the work's side effect."""

from __future__ import annotations

from storage import GameStore
from storage.database import Database
from storage.leases import claim, holding, release, release_all, release_expired

WORK_LEASE = 120.0  # how long a process may hold one-off work (`hold`): a bound on a post or a DM, never reached


class Leases:
    """The leases this process (`holder`) holds."""

    def __init__(self, db: Database, store: GameStore, holder: str) -> None:
        self._db = db
        self._store = store
        self._holder = holder  # this process, in the leases it holds

    async def hold(self, key: str, seconds: float = WORK_LEASE) -> int | None:
        """Claim a piece of work (storage/leases.py) for this process, for at most `seconds`: its token, or None while
        another live process holds it. Held until `let_go_of(key)`, or until this process dies; right before the work's
        side effect, ask `still_holds(key, token)`."""
        async with self._store.transaction() as tx:
            return await claim(await tx.writer(), key, self._holder, seconds)

    async def still_holds(self, key: str, token: int) -> bool:
        """The fence (storage/leases.py `holds`): whether this process still holds `key` with the token its claim
        gave, one read. False: another process took the work over (this one was paused, or its lease ran out), and
        the side effect must not happen here."""
        return await self._db.query(holding(self._db.dialect, key, self._holder, token))

    async def let_go_of(self, key: str) -> None:
        """Free this process's lease of `key`, for whoever asks next."""
        async with self._store.transaction() as tx:
            await release(await tx.writer(), key, self._holder)

    async def let_go_of_expired(self, key: str) -> None:
        """Free the lease of `key` if it ran out (a dead process's, whichever process it was)."""
        async with self._store.transaction() as tx:
            await release_expired(await tx.writer(), key)

    async def let_go(self) -> None:
        """At a clean stop, once timers and computer turns have stopped: free every lease of this process."""
        async with self._store.transaction() as tx:
            await release_all(await tx.writer(), self._holder)

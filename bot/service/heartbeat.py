"""This process's heartbeat in the leases table (storage/leases.py): while it beats, the leases it holds are its own
however long they run; once it stops (the process was killed, its machine lost), every lease it held is free within
`PROCESS_TTL`, and the other processes take its computer turns and owed announcements over.

The first beat is written before the process claims anything (`start`), so no claim of a live process ever looks like
a dead one's. Whether a beat has lapsed is decided by the database's clock (storage/leases.py), so a process whose own
clock runs ahead takes no live process for dead. A process paused for longer than `PROCESS_TTL` (a long GC, SIGSTOP)
has lost its leases when it wakes: what it was about to do is fenced off (storage/leases.py `holds`).
"""

from __future__ import annotations

import logging

from bot.service.games import GameService
from bot.service.tasks import Background, repeatedly
from storage.leases import beat

log = logging.getLogger(__name__)

PROCESS_TTL = 10.0  # seconds a process counts as alive after its last beat: how soon its work is taken over
BEAT_EVERY = 3.0  # seconds between beats: a few may be late (a busy event loop, a slow database) without a takeover


class Heartbeat:
    def __init__(self, service: GameService) -> None:
        self._service = service
        self._task = Background("heartbeat")

    async def beat(self) -> None:
        service = self._service
        async with service.store.transaction() as tx:
            await beat(await tx.writer(), service.holder, PROCESS_TTL)

    async def start(self) -> None:
        """Beat once now, then every `BEAT_EVERY` seconds until stopped."""
        await self.beat()
        # A beat that fails is a warning: the next may get through; past PROCESS_TTL others take the work over.
        self._task.start(lambda: repeatedly(BEAT_EVERY, self.beat, "this process's heartbeat could not be written",
                                            level=logging.WARNING))

    async def stop(self) -> None:
        await self._task.stop()

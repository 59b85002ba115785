"""Settings changed at the same moment, over a real SQLite file: every change is one read-modify-write inside one
write transaction, so changes of different fields all survive, in one process and across two."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from storage.connection import open_database
from storage.notifications import NotificationStore, NotifyMode
from storage.server_settings import ServerSettings, ServerSettingsStore

GUILD = 7
KINDS = ("chopsticks", "generals", "sucker", "nim", "go", "chess")


def _changes(store: ServerSettingsStore) -> list[Callable[[], Awaitable[ServerSettings]]]:
    """Many admins at once, each changing something different."""
    return [
        lambda: store.update(GUILD, turn_timeout=7200.0),
        lambda: store.update(GUILD, images=False),
        lambda: store.update(GUILD, threads=False),
        lambda: store.update(GUILD, channel_id=555),
        *(lambda kind=kind: store.switch_game(GUILD, kind, False) for kind in KINDS),
    ]


def _all_kept(settings: ServerSettings) -> bool:
    return (settings.turn_timeout, settings.images, settings.threads, settings.channel_id,
            settings.disabled_games) == (7200.0, False, False, 555, frozenset(KINDS))


async def test_simultaneous_changes_in_one_process_are_all_kept(database_target: str) -> None:
    db = await open_database(database_target)
    try:
        store = ServerSettingsStore(db)
        await asyncio.gather(*(change() for change in _changes(store)))
        assert _all_kept(await store.get(GUILD))
        # Switching games back on at the same moment: each switch of one game leaves the others as they are.
        await asyncio.gather(*(store.switch_game(GUILD, kind, True) for kind in KINDS[:3]))
        assert (await store.get(GUILD)).disabled_games == frozenset(KINDS[3:])
    finally:
        await db.close()


async def test_simultaneous_changes_from_two_processes_are_all_kept(database_target: str) -> None:
    first = await open_database(database_target)
    second = await open_database(database_target)
    try:
        stores = ServerSettingsStore(first), ServerSettingsStore(second)
        changes = [*_changes(stores[0]), *_changes(stores[1])]
        # Interleaved: the two connections' changes alternate.
        await asyncio.gather(*(change() for pair in zip(changes[::2], changes[1::2], strict=True) for change in pair))
        assert _all_kept(await stores[0].get(GUILD)) and _all_kept(await stores[1].get(GUILD))
    finally:
        await first.close()
        await second.close()


async def test_notification_modes_set_at_once_are_all_kept(database_target: str) -> None:
    first = await open_database(database_target)
    second = await open_database(database_target)
    try:
        stores = NotificationStore(first), NotificationStore(second)
        modes = {user: (NotifyMode.DM, NotifyMode.OFF)[user % 2] for user in range(1, 21)}
        await asyncio.gather(*(stores[user % 2].set_mode(user, mode, 1.0) for user, mode in modes.items()))
        assert {user: await stores[0].mode(user) for user in modes} == modes
    finally:
        await first.close()
        await second.close()

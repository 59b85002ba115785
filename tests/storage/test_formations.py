"""Saved formations over a real SQLite file: per user and game, replace by name, a limit, delete."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest

from games.generals.setup import compact, random_setup
from storage.connection import open_database
from storage.formations import MAX_PER_USER, FormationError, FormationStore

ALICE, BOB = 1, 2


@pytest.fixture
async def store(database_target: str) -> AsyncIterator[FormationStore]:
    db = await open_database(database_target)
    yield FormationStore(db)
    await db.close()


async def test_formations_are_private_replaced_by_name_and_deleted(store: FormationStore) -> None:
    grid = random_setup(random.Random(1), 0)
    await store.save(ALICE, "generals", "Fortress  one", compact(grid), now=1.0)
    await store.save(ALICE, "generals", "blitz", "x", now=2.0)
    await store.save(ALICE, "generals", "blitz", "y", now=3.0)  # same name: replaced
    assert [(f.name, f.setup) for f in await store.list(ALICE, "generals")] == [("blitz", "y"),
                                                                                ("Fortress one", compact(grid))]
    assert await store.list(BOB, "generals") == []
    assert await store.list(ALICE, "chopsticks") == []
    loaded = await store.load(ALICE, "generals", "fortress ONE")
    assert loaded.setup == compact(grid)
    await store.delete(ALICE, "generals", "BLITZ")
    assert [f.name for f in await store.list(ALICE, "generals")] == ["Fortress one"]
    with pytest.raises(FormationError, match="no saved formation"):
        await store.delete(ALICE, "generals", "blitz")


async def test_names_and_the_limit_are_enforced(store: FormationStore) -> None:
    with pytest.raises(FormationError, match="1 to"):
        await store.save(ALICE, "generals", "   ", "x", now=1.0)
    for i in range(MAX_PER_USER):
        await store.save(ALICE, "generals", f"f{i:02}", "x", now=1.0)
    with pytest.raises(FormationError, match="delete one"):
        await store.save(ALICE, "generals", "one too many", "x", now=1.0)
    await store.save(ALICE, "generals", "f00", "replaced", now=2.0)  # replacing stays possible at the limit
    assert (await store.load(ALICE, "generals", "f00")).setup == "replaced"


async def test_the_limit_holds_when_two_processes_save_at_once(database_target: str) -> None:
    # Two connections to one file, as two bot processes have, each saving the formation that would be the last one
    # allowed: the count is read inside the write transaction, so exactly one of them fits.
    first = await open_database(database_target)
    second = await open_database(database_target)
    try:
        stores = FormationStore(first), FormationStore(second)
        for i in range(MAX_PER_USER - 1):
            await stores[0].save(ALICE, "generals", f"f{i}", "x", now=float(i))
        saved = await asyncio.gather(*(stores[i].save(ALICE, "generals", f"last {i}", "x", now=99.0) for i in (0, 1)),
                                     return_exceptions=True)
        assert sum(isinstance(r, FormationError) for r in saved) == 1, saved
        assert len(await stores[1].list(ALICE, "generals")) == MAX_PER_USER
        # Deleting the same formation from both at once: one deletes it, the other is told it is gone.
        gone = await asyncio.gather(*(stores[i].delete(ALICE, "generals", "F0") for i in (0, 1)),
                                    return_exceptions=True)
        assert sum(isinstance(r, FormationError) for r in gone) == 1, gone
        assert len(await stores[0].list(ALICE, "generals")) == MAX_PER_USER - 1
    finally:
        await first.close()
        await second.close()

"""Saved formations over a real SQLite file: per user and game, replace by name, a limit, delete."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from games.generals.setup import compact, random_setup
from storage import Database
from storage.formations import MAX_PER_USER, FormationError, FormationStore

ALICE, BOB = 1, 2


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[FormationStore]:
    db = await Database.open(tmp_path / "bot.sqlite3")
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

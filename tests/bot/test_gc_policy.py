"""`python -m bot` sets garbage collection for quick answers once it has logged in (bot/gc_policy.py): the cycles
every interaction leaves behind die young instead of piling up for full collections that stop the event loop."""

from __future__ import annotations

import re
from pathlib import Path

from bot.gc_policy import YOUNG_GENERATION
from tests.support.world import World
from tests.tools.discord_load import bot_process


async def test_the_bot_process_freezes_its_start_up_objects_and_widens_the_young_generation(
    world: World, tmp_path: Path
) -> None:
    log = tmp_path / "bot.log"
    async with bot_process(world.fake, tmp_path / "bot.sqlite3", log):
        pass
    lines = [line for line in log.read_text(errors="replace").splitlines() if "garbage collection:" in line]
    assert len(lines) == 1, lines
    match = re.search(r"(\d+) start-up objects set aside, young generation of (\d+) allocations", lines[0])
    assert match is not None
    frozen, young = int(match[1]), int(match[2])
    assert young == YOUNG_GENERATION == 10_000 and frozen > 10_000  # modules, classes, the command tree, the cogs

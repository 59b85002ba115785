"""Issue 7, point 3: hostile input, through the fuzzer of tests/tools/fuzz.py against the real bot.

A shorter run than `python -m tests.tools.fuzz --interactions 10000`; set FUZZ_INTERACTIONS and FUZZ_SEED to run
longer or another sequence. On both databases (issue 17): what "changes nothing" means is compared row by row.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.fakediscord import FakeDiscord
from tests.support.interactions import CARRIER_TEXT
from tests.support.world import VALIDATOR, TabletopRunner
from tests.tools.fuzz import build_world, command_paths, fuzz
from tests.tools.fuzz_time import BOT_SETTINGS

INTERACTIONS = int(os.environ.get("FUZZ_INTERACTIONS", "600"))
SEED = int(os.environ.get("FUZZ_SEED", "7"))


async def test_hostile_input_is_refused_explained_and_changes_nothing(
    restore_discord_urls: None, database_target: str, tmp_path: Path
) -> None:
    fake = FakeDiscord(validator=VALIDATOR, check_responses=False)
    await fake.start()
    try:
        async with TabletopRunner.on(fake, database_target, tmp_path) as runner:
            guilds, channels, users = await build_world(fake)
            bot = await runner.start_with(**BOT_SETTINGS)
            figures = await fuzz(fake, bot, database_target, guilds, channels, users, INTERACTIONS, SEED)
    finally:
        await fake.close()

    # 0 unanswered, 0 unhandled exceptions, 0 state changes or other effects from invalid input, every refusal
    # ephemeral and explained, no token anywhere, every request within Discord's API description.
    assert figures.problems() == {}, figures.report()
    assert figures.interactions == INTERACTIONS
    assert figures.refusals >= figures.by_expect["refuse"] > INTERACTIONS // 2
    if VALIDATOR is not None:
        assert fake.requests and all(r.validated for r in fake.requests)

    # It reached every command the bot registered and every kind of component it posted.
    assert command_paths(fake.registered_commands()) <= set(figures.commands), figures.report()
    posted = {custom_id.split(":")[0] for m in fake.messages.values()
              if m.author_id == fake.bot_user.id and m.content != CARRIER_TEXT for custom_id in m.custom_ids()}
    assert posted <= set(figures.components), figures.report()
    kinds = {family.removeprefix("sweep ").split("/")[0] for family in figures.by_family}
    assert {"slash", "autocomplete", "component", "modal", "burst", "target"} <= kinds, figures.report()

    # Issue 14, point 11: the clock moved, so reminders and forfeits fired and games ended during the run; bursts of
    # concurrent clicks each applied one action; the engine judged what valid-by-chance input did; finished games
    # and players out of a game were targets (all of it within `problems()` above).
    assert figures.time.jumps > 0 and figures.time.fired["forfeit"] > 0 and figures.time.fired["reminder"] > 0
    assert figures.time.games_finished > 0 and figures.time.games_started > 0, figures.report()
    assert figures.checks.bursts > 0 and figures.checks.burst_applied > 0, figures.report()
    assert figures.checks.verdicts["applied"] > 0, figures.report()
    assert figures.checks.targets["finished"] > 0 and figures.checks.targets["out"] > 0, figures.report()

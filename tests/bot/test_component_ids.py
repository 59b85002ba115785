"""Custom ids and the component classes that answer them.

discord.py hands a click to every dynamic item whose template matches the custom id in full, so no two registered
templates may be able to match one id.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

from bot.client import TabletopBot
from tests.support.regex_overlap import common_match
from tests.support.world import TabletopRunner, World


def registered(bot: TabletopBot) -> dict[re.Pattern[str], type[Any]]:
    """Every dynamic item class the bot dispatches clicks to, by its template."""
    return dict(bot._connection._view_store._dynamic_items)


def test_the_overlap_check_finds_a_common_id_and_only_a_real_one() -> None:
    """One template answering every verb next to one answering a single verb: both would take that verb's clicks."""
    old = r"gg:(?P<game>[0-9]{1,19}):(?P<verb>accept|decline|resign|resign\-yes)"
    witness = common_match(old, r"gg:(?P<game>[0-9]{1,19}):resign\-yes")
    assert witness is not None and re.fullmatch(old, witness) and witness.endswith(":resign-yes")
    assert common_match(r"gg:[0-9]{1,19}:resign", r"gg:[0-9]{1,19}:resign\-yes") is None
    assert common_match(r"sk:[0-9]{1,19}:[0-9]{1,7}:[a-z0-9:._-]{1,60}", r"skr:[0-9]{1,19}:resign") is None
    assert common_match(r"a(b|c)*d{2,}", r"a[^b]+d") == "add"  # the shortest: the walk is breadth first
    assert common_match(r"a(b|c)+d{2,}", r"a[^b]+d") == "acdd"


async def test_no_two_registered_templates_match_one_custom_id(world: World, bots: TabletopRunner) -> None:
    bot = await bots.start()
    items = registered(bot)
    assert len(items) > 20, items
    for (first, one), (second, other) in combinations(items.items(), 2):
        witness = common_match(first.pattern, second.pattern)
        assert witness is None, f"{one.__name__} and {other.__name__} both match {witness!r}"

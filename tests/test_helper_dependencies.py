"""A presenter's helpers are given what they use, and do not reach their siblings through it.

A helper that writes `self.presenter.service.clock()` or `self.presenter.setup_tools.saved_names(...)` depends on the
whole presenter (and so, through its imports, on every sibling the presenter builds), although it uses one part of
it: it cannot be built, read or tested without them all. Each helper gets the parts it uses in its constructor
instead (bot/games/generals/play.py `Play`, setup.py `SetupTools`, delivery.py `PrivateBoards`).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def reaches_through(parent: str, source: str) -> list[int]:
    """The lines of `source` that reach a part of a part of `self.<parent>` (`self.presenter.bot.redraw`)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Attribute) and node.value.value.attr == parent
                and isinstance(node.value.value.value, ast.Name) and node.value.value.value.id == "self"):
            lines.append(node.lineno)
    return sorted(set(lines))


def test_no_helper_reaches_a_sibling_through_its_presenter() -> None:
    found = [f"{path.relative_to(ROOT)}:{line}"
             for path in sorted((ROOT / "bot").rglob("*.py"))
             for line in reaches_through("presenter", path.read_text(encoding="utf-8"))]
    assert not found, "give the helper what it uses in its constructor instead:\n" + "\n".join(found)


def test_the_check_finds_a_reach() -> None:
    source = "class Play:\n    async def move(self):\n        await self.presenter.bot.redraw(1)\n" \
             "        self.presenter.own_view(None, 1)\n        self.service.clock()\n"
    assert reaches_through("presenter", source) == [3]

"""The Discord layer is unable to reach what a player may not see.

`lint-imports` (contracts in pyproject.toml, run by .ci/run) checks which modules it may import; this test checks
the two ways round that an import contract cannot see: using an omniscient object the service handed out, and
importing a state class through a package that re-exports it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# The Discord layer: everything in bot/ except the service package and the two offline admin tools.
DISCORD_LAYER = sorted(p for p in (ROOT / "bot").rglob("*.py")
                       if "service" not in p.relative_to(ROOT / "bot").parts[:1]
                       and p.name not in ("archive.py", "backup.py"))
# Attribute names that only the omniscient side has: an engine state, a stored snapshot.
FORBIDDEN_ATTRIBUTES = {"state", "initial_state"}
# What the service offers only to its own package: the omniscient game, and the raw store of snapshots.
SERVICE_INTERNALS = {"load", "store"}


def _problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("games"):
            for alias in node.names:
                if alias.name.endswith("State") or alias.name in ("game_class", "replay", "computer_player"):
                    found.append(f"{path.name}:{node.lineno} imports {alias.name} from {node.module}")
        if not isinstance(node, ast.Attribute):
            continue
        owner = node.value.attr if isinstance(node.value, ast.Attribute) else getattr(node.value, "id", "")
        if node.attr in FORBIDDEN_ATTRIBUTES or (node.attr in SERVICE_INTERNALS and owner in ("service", "_service")):
            found.append(f"{path.name}:{node.lineno} uses .{node.attr} (of {owner or 'something'})")
    return found


def test_the_discord_layer_is_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in DISCORD_LAYER}
    assert {"bot/client.py", "bot/presenter.py", "bot/games/generals/__init__.py"} <= names
    assert not any(name.startswith("bot/service/") for name in names)


@pytest.mark.parametrize("path", DISCORD_LAYER, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_discord_layer_never_touches_an_engine_state(path: Path) -> None:
    assert _problems(path) == []


def test_the_check_would_catch_a_leak(tmp_path: Path) -> None:
    leaky = tmp_path / "leaky.py"
    leaky.write_text("from games.generals import GeneralsState\n"
                     "async def f(service, game_id):\n"
                     "    game = await service.load(game_id)\n"
                     "    return game.state.view_for(1)\n")
    assert len(_problems(leaky)) == 3

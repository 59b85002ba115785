"""Fixtures are chosen by name, never by an import: each lives in a conftest.py or in the test module that uses it.

A fixture defined in a helper module is registered in every test module that imports it, and under its
``name=`` it can silently replace a conftest fixture there (a module asking for ``bots`` got a SQLite-only bot).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _fixtures(path: Path) -> list[tuple[str, bool]]:
    """The fixtures `path` defines: each function's name, and whether its decorator gives it another name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            call = decorator if isinstance(decorator, ast.Call) else None
            target = call.func if call is not None else decorator
            if isinstance(target, ast.Attribute) and target.attr == "fixture":
                renamed = call is not None and any(k.arg == "name" for k in call.keywords)
                found.append((node.name, renamed))
    return found


def test_no_helper_module_defines_a_fixture() -> None:
    helpers = [p for p in TESTS.rglob("*.py") if p.name != "conftest.py" and not p.name.startswith("test_")]
    defined = {str(p.relative_to(TESTS)): names for p in helpers if (names := _fixtures(p))}
    assert defined == {}


def test_every_fixture_goes_by_its_function_name() -> None:
    renamed = [f"{p.relative_to(TESTS)}: {name}" for p in TESTS.rglob("*.py") for name, other in _fixtures(p) if other]
    assert renamed == []

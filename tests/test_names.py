"""The words of the README's "Words the code keeps to", checked where a name can say the wrong one.

A "view" is what one audience may know of a game; a message's buttons and menus (a `discord.ui.View`) are its
"controls". So no name containing "view" may hold a `discord.ui.View`: a function returning one, a parameter, field or
variable annotated with one, or a variable assigned a new one. And the pure rules in games/ know nothing of Discord:
no name there speaks of a channel (a spectator sees the public view).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("bot", "games", "storage", "tests/support")



def _is_ui_view(node: ast.expr | None) -> bool:
    """Whether an annotation or a call names `discord.ui.View` (alone or in a union / Optional)."""
    if node is None:
        return False
    return any(isinstance(part, ast.Attribute) and part.attr == "View" and ast.unparse(part.value) == "discord.ui"
               for part in ast.walk(node))


def _ui_views_named(path: Path) -> Iterator[tuple[int, str]]:
    """(line, name) of every name in `path` that holds a `discord.ui.View`."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if _is_ui_view(node.returns):
                yield node.lineno, node.name
            arguments = node.args
            for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
                if _is_ui_view(arg.annotation):
                    yield arg.lineno, arg.arg
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and _is_ui_view(node.annotation):
            yield node.lineno, node.target.id
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _is_ui_view(node.value.func):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    yield node.lineno, target.id


def _files(*folders: str) -> Iterator[tuple[str, Path]]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path


def test_no_name_calls_a_discord_ui_view_a_view() -> None:
    wrong = [f"{where}:{line}: {name}" for where, path in _files(*SCANNED) for line, name in _ui_views_named(path)
             if "view" in name.lower()]
    assert wrong == [], "a discord.ui.View is 'controls', never a view:\n" + "\n".join(wrong)


def test_the_rules_name_no_channel() -> None:
    wrong = []
    for where, path in _files("games"):
        for node in ast.walk(ast.parse(path.read_text(), where)):
            name = getattr(node, "name", None) or getattr(node, "id", None) or getattr(node, "arg", None)
            if isinstance(name, str) and "channel" in name.lower():
                wrong.append(f"{where}:{getattr(node, 'lineno', '?')}: {name}")
    assert wrong == [], "games/ knows no Discord; a spectator sees the public view:\n" + "\n".join(wrong)

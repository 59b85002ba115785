"""No import circle between the files of one folder in bot/, games/ and storage/, imports under TYPE_CHECKING included.

Two files of one folder that import each other, directly or round a longer circle, cannot be read, tested or moved
one without the other. An import made only for type hints (under `if TYPE_CHECKING:`) ties them just as much, so it
counts here. `lint-imports` cannot check this: whether it sees those imports is one setting for all its contracts
(`exclude_type_checking_imports` in pyproject.toml), and the layering contracts leave them out. So this test builds
the graph itself with grimp, the import linter's graph library, and names each circle with one importing line for
each of its imports.

A folder's files are its modules and its subpackages: an import from anywhere inside `bot/games/generals/` into
`bot/games/chopsticks/` is an import between the two siblings `generals` and `chopsticks` of `bot/games/`. An import of
the folder's own package (`import games` in games/registry.py, to list its subpackages) is not one of a sibling.
"""

from __future__ import annotations

import textwrap
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "games", "storage")

Edge = tuple[str, str]  # (importing sibling, imported sibling), full module names
TYPES_ONLY = "  (under TYPE_CHECKING)"


@dataclass(frozen=True)
class Circle:
    """Siblings of one folder that all reach each other through imports, with one importing line per import."""

    folder: str
    files: tuple[str, ...]  # sorted full names
    imports: Mapping[Edge, str]  # every import between two of the files -> where one such import is written

    def describe(self) -> str:
        short = [name.rsplit(".", 1)[1] for name in _shortest_circle(self.files, self.imports)]
        lines = [f"{self.folder}: {' -> '.join([*short, short[0]])}"
                 + (f" (one of the circles among {len(self.files)} files that all reach each other)"
                    if len(short) < len(self.files) else "")]
        lines += [f"    {edge[0].rsplit('.', 1)[1]} -> {edge[1].rsplit('.', 1)[1]}: {where}"
                  for edge, where in sorted(self.imports.items())]
        return "\n".join(lines)


def import_circles(packages: Iterable[str], root: Path) -> list[Circle]:
    """Every circle of imports between siblings of one folder in `packages`, type-checking imports included."""
    packages = tuple(packages)
    graph = grimp.build_graph(*packages, exclude_type_checking_imports=False, cache_dir=None)
    at_run_time = grimp.build_graph(*packages, exclude_type_checking_imports=True, cache_dir=None)
    imports: dict[str, dict[Edge, str]] = defaultdict(dict)  # by folder
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            edge = _siblings(importer, imported)
            if edge is None:
                continue
            folder = edge[0].rpartition(".")[0]
            only_for_types = not at_run_time.direct_import_exists(importer=importer, imported=imported)
            if edge in imports[folder] and (only_for_types or not imports[folder][edge].endswith(TYPES_ONLY)):
                continue  # one line per import, one made at run time where there is one
            line = graph.get_import_details(importer=importer, imported=imported)[0]
            imports[folder][edge] = (f"{_path(importer, root)}:{line['line_number']} {line['line_contents']}"
                                     + (TYPES_ONLY if only_for_types else ""))
    circles = []
    for folder, edges in sorted(imports.items()):
        for group in _strongly_connected(edges):
            inside = {edge: where for edge, where in edges.items() if edge[0] in group and edge[1] in group}
            circles.append(Circle(folder, tuple(sorted(group)), inside))
    return circles


def _siblings(importer: str, imported: str) -> Edge | None:
    """The two children of one folder that contain `importer` and `imported`, if they are in different ones."""
    a, b = importer.split("."), imported.split(".")
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    if common == 0 or common >= min(len(a), len(b)):  # different roots, or one is (inside) the other's package
        return None
    return ".".join(a[:common + 1]), ".".join(b[:common + 1])


def _path(module: str, root: Path) -> str:
    plain = root / (module.replace(".", "/") + ".py")
    return (plain if plain.exists() else root / module.replace(".", "/") / "__init__.py").relative_to(root).as_posix()


def _strongly_connected(edges: Iterable[Edge]) -> list[set[str]]:
    """The groups of two or more nodes that all reach each other (Tarjan's algorithm), in a stable order."""
    successors: dict[str, list[str]] = defaultdict(list)
    for a, b in sorted(edges):
        successors[a].append(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in successors[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for node in sorted(successors):
        if node not in index:
            visit(node)
    return sorted(groups, key=sorted)


def _shortest_circle(files: tuple[str, ...], edges: Iterable[Edge]) -> list[str]:
    """The shortest way from the first file back to itself (breadth first), to show one circle of a group."""
    successors: dict[str, list[str]] = defaultdict(list)
    for a, b in sorted(edges):
        successors[a].append(b)
    start = files[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in successors[node]:
                if nxt == start:
                    way = [node]
                    while way[-1] != start:
                        way.append(came_from[way[-1]])
                    return way[::-1]
                if nxt not in came_from:
                    came_from[nxt] = node
                    following.append(nxt)
        frontier = following
    raise AssertionError(f"{start} is in no circle")  # a strongly connected group always has one


def test_no_import_circle_between_files_of_one_folder() -> None:
    circles = import_circles(PACKAGES, ROOT)
    if circles:
        pytest.fail("files of one folder import each other; break each circle (move what both need to a module both "
                    "import, or pass it in):\n\n" + "\n\n".join(c.describe() for c in circles), pytrace=False)


def _write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_the_check_names_each_circle_and_its_imports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A circle closed only by a type hint is found, like one between two subpackages; a one-way import is not."""
    _write(tmp_path, {
        "circled/__init__.py": "",
        "circled/engine.py": "from circled.views import View\n",
        "circled/views.py": """\
            from typing import TYPE_CHECKING

            if TYPE_CHECKING:
                from circled.engine import State
            """,
        "circled/helpers.py": "import circled.views\n",
        "circled/red/__init__.py": "",
        "circled/red/paint.py": "from circled.blue.brush import Brush\n",
        "circled/blue/__init__.py": "",
        "circled/blue/brush.py": "from circled.red import paint\n",
    })
    monkeypatch.syspath_prepend(str(tmp_path))

    circles = import_circles(["circled"], tmp_path)

    assert [c.describe() for c in circles] == [
        "circled: blue -> red -> blue\n"
        "    blue -> red: circled/blue/brush.py:1 from circled.red import paint\n"
        "    red -> blue: circled/red/paint.py:1 from circled.blue.brush import Brush",
        "circled: engine -> views -> engine\n"
        "    engine -> views: circled/engine.py:1 from circled.views import View\n"
        "    views -> engine: circled/views.py:4 from circled.engine import State" + TYPES_ONLY,
    ]

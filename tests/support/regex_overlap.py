"""Whether two regular expressions can both match one whole string, answered exactly from their automata.

discord.py hands a click to every dynamic item whose template matches the custom id in full, so two templates that
could both match one id would run two handlers for one click. `common_match` builds each pattern's automaton
(from Python's own parse of it) and walks both together over every kind of character; it returns a string both match
in full, or None when no string can. It covers what templates are written with: literals, character classes and
ranges, `.`, groups, alternatives and bounded or unbounded repeats. Anything else (anchors, lookarounds, flags,
`\\d`-style categories) is refused rather than guessed.
"""

from __future__ import annotations

import importlib
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any

_parser: Any = importlib.import_module("re._parser")  # the parser `re` itself uses (its old name is deprecated)
_MAXREPEAT: Any = importlib.import_module("re._constants").MAXREPEAT
_END = 0x110000  # one past the last code point
Ranges = tuple[tuple[int, int], ...]  # inclusive code point ranges


@dataclass
class _Automaton:
    """A nondeterministic automaton: per state, the states reached without reading, and those reached by reading a
    character of some ranges."""

    empty: list[list[int]] = field(default_factory=list)
    reads: list[list[tuple[Ranges, int]]] = field(default_factory=list)
    accept: int = 0

    def state(self) -> int:
        self.empty.append([])
        self.reads.append([])
        return len(self.empty) - 1

    def closure(self, states: set[int]) -> frozenset[int]:
        found, todo = set(states), list(states)
        while todo:
            for nxt in self.empty[todo.pop()]:
                if nxt not in found:
                    found.add(nxt)
                    todo.append(nxt)
        return frozenset(found)

    def step(self, states: frozenset[int], char: int) -> frozenset[int]:
        return self.closure({to for s in states for ranges, to in self.reads[s]
                             if any(lo <= char <= hi for lo, hi in ranges)})

    def bounds(self) -> set[int]:
        """Where the character ranges it reads begin and end: between two of these, every character is alike."""
        return {b for steps in self.reads for ranges, _to in steps for lo, hi in ranges for b in (lo, hi + 1)}


def _complement(ranges: Ranges) -> Ranges:
    out, start = [], 0
    for lo, hi in sorted(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = max(start, hi + 1)
    if start < _END:
        out.append((start, _END - 1))
    return tuple(out)


def _class_ranges(items: list[tuple[Any, Any]]) -> Ranges:
    negate, ranges = False, []
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            ranges.append((arg, arg))
        elif name == "RANGE":
            ranges.append((arg[0], arg[1]))
        else:
            raise NotImplementedError(f"{name} in a character class")
    return _complement(tuple(ranges)) if negate else tuple(ranges)


def _build(automaton: _Automaton, items: Any, start: int) -> int:
    """Add the states reading `items` (a parsed sequence) from `start`; returns the state after them."""
    for op, arg in items:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
            if name == "IN":
                ranges = _class_ranges(arg)
            else:
                one: Ranges = ((10, 10),) if name == "ANY" else ((arg, arg),)  # `.` reads all but a line break
                ranges = one if name == "LITERAL" else _complement(one)
            end = automaton.state()
            automaton.reads[start].append((ranges, end))
            start = end
        elif name == "SUBPATTERN":
            _group, add_flags, del_flags, inner = arg
            if add_flags or del_flags:
                raise NotImplementedError("inline flags")
            start = _build(automaton, inner, start)
        elif name == "BRANCH":
            end = automaton.state()
            for alternative in arg[1]:
                automaton.empty[_build(automaton, alternative, start)].append(end)
            start = end
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):  # lazy or greedy: the same strings match in full
            least, most, inner = arg
            for _ in range(least):
                start = _build(automaton, inner, start)
            if most is _MAXREPEAT:
                loop = automaton.state()
                automaton.empty[start].append(loop)
                automaton.empty[_build(automaton, inner, loop)].append(loop)
                start = loop
            else:
                end = automaton.state()
                automaton.empty[start].append(end)
                for _ in range(most - least):
                    start = _build(automaton, inner, start)
                    automaton.empty[start].append(end)
                start = end
        else:
            raise NotImplementedError(f"{name} in a template")
    return start


def automaton(pattern: str) -> _Automaton:
    """The automaton of strings `pattern` matches in full."""
    parsed = _parser.parse(pattern)
    if parsed.state.flags & ~re.UNICODE:
        raise NotImplementedError(f"flags of {pattern!r}")
    built = _Automaton()
    start = built.state()
    built.accept = _build(built, parsed, start)
    return built


def common_match(first: str, second: str) -> str | None:
    """A string both patterns match in full, or None when there is none."""
    a, b = automaton(first), automaton(second)
    bounds = sorted(a.bounds() | b.bounds() | {0, _END})
    chars = bounds[:-1]  # one character of each stretch that every range of both contains whole or not at all
    begin = (a.closure({0}), b.closure({0}))
    came_from: dict[tuple[frozenset[int], frozenset[int]], tuple[Any, int] | None] = {begin: None}
    todo = deque([begin])
    while todo:
        pair = todo.popleft()
        if a.accept in pair[0] and b.accept in pair[1]:
            text: list[str] = []
            back = came_from[pair]
            while back is not None:
                text.append(chr(back[1]))
                back = came_from[back[0]]
            return "".join(reversed(text))
        for char in chars:
            left = a.step(pair[0], char)
            right = b.step(pair[1], char) if left else frozenset()
            if left and right and (left, right) not in came_from:
                came_from[(left, right)] = (pair, char)
                todo.append((left, right))
    return None

"""The actions of Game of the Generals and their stable texts (move log, custom ids, replays).

- `e3-e4`: a piece steps one square; onto an enemy piece it is a challenge.
- `setup:<grid>`: replace the player's hidden draft with a whole setup (compact grid, see setup.py).
- `swap:a1-b2`: exchange the contents of two squares of the draft.
- `ready`: lock the draft in.

`setup:` and `swap:` texts are secret until the game is over; show others `public_log_text(text)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from games.base import Action, IllegalMoveError
from games.generals.setup import Grid, compact, parse_grid
from games.generals.squares import parse_square, square_name
from games.text import Text


@dataclass(frozen=True)
class Move(Action):
    """One piece steps one square; onto an enemy piece it is a challenge. Text: `e3-e4`."""

    src: int
    dst: int

    def text(self) -> str:
        return f"{square_name(self.src)}-{square_name(self.dst)}"


@dataclass(frozen=True)
class Deploy(Action):
    """Replace the player's draft with a whole setup. Text: `setup:` and the compact grid."""

    grid: Grid
    # The side the grid's rank labels named, if it had labels; checked against the player on apply.
    labelled_side: int | None = field(default=None, compare=False, repr=False)

    def text(self) -> str:
        return "setup:" + compact(self.grid)


@dataclass(frozen=True)
class Swap(Action):
    """Exchange the contents of two squares of the player's draft. Text: `swap:a1-b2`."""

    a: int
    b: int

    def text(self) -> str:
        return f"swap:{square_name(self.a)}-{square_name(self.b)}"


@dataclass(frozen=True)
class Ready(Action):
    """Lock the draft; play starts when both players are ready. Text: `ready`."""

    def text(self) -> str:
        return "ready"


def parse_action_text(text: str) -> Action:
    """The action a text names (case and spacing are forgiven); IllegalMoveError says how to write it."""
    raw = text.strip()
    lowered = raw.lower()
    if lowered == "ready":
        return Ready()
    if lowered.startswith("setup:"):
        grid, side = parse_grid(raw[len("setup:"):])
        return Deploy(grid, side)
    if lowered.startswith("swap:"):
        a, b = _two_squares(lowered[len("swap:"):], Text("A swap is written like swap:a1-b2."))
        return Swap(a, b)
    src, dst = _two_squares(lowered, Text("{text} is not a move: write it like e3-e4 (from-to).", text=repr(raw)))
    return Move(src, dst)


def public_log_text(text: str) -> str:
    """A move-log text as others may see it: setup texts carry ranks, so they become `setup`."""
    lowered = text.strip().lower()
    return "setup" if lowered.startswith(("setup:", "swap:")) else text


def _two_squares(text: str, usage: Text) -> tuple[int, int]:
    parts = text.replace("-", " ").split()
    if len(parts) == 1 and len(parts[0]) == 4:
        parts = [parts[0][:2], parts[0][2:]]
    if len(parts) != 2:
        raise IllegalMoveError(usage)
    squares = []
    for part in parts:
        sq = parse_square(part)
        if sq is None:
            raise IllegalMoveError(Text("{text} is not a square: files run a-i and ranks 1-8, like e3.",
                                        text=repr(part)))
        squares.append(sq)
    return squares[0], squares[1]

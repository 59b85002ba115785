"""The board's squares, 9 files by 8 ranks: integers 0..71 (a1 = 0, b1 = 1, ..., i8 = 71), their names, neighbours."""

from __future__ import annotations

FILES = "abcdefghi"
WIDTH, HEIGHT = 9, 8
SQUARES = range(WIDTH * HEIGHT)
SIDES = (0, 1)  # seat 0 is side A (white, ranks 1-3), seat 1 is side B (black, ranks 6-8)
SIDE_NAMES = ("A", "B")


def square(file: int, rank: int) -> int:
    """The square on `file` (0 = a) and `rank` (1..8)."""
    return (rank - 1) * WIDTH + file


def file_of(sq: int) -> int:
    return sq % WIDTH


def rank_of(sq: int) -> int:
    """The rank 1..8 of a square."""
    return sq // WIDTH + 1


NAMES: tuple[str, ...] = tuple(f"{FILES[sq % WIDTH]}{sq // WIDTH + 1}" for sq in SQUARES)
_BY_NAME = {name: sq for sq, name in enumerate(NAMES)}


def square_name(sq: int) -> str:
    return NAMES[sq]


def parse_square(text: str) -> int | None:
    """The square a name like `e3` means (case-insensitive), or None."""
    return _BY_NAME.get(text.strip().lower())


def _neighbours(sq: int) -> tuple[int, ...]:
    f, r = file_of(sq), rank_of(sq)
    steps = ((0, 1), (0, -1), (-1, 0), (1, 0))
    return tuple(square(f + df, r + dr) for df, dr in steps if 0 <= f + df < WIDTH and 1 <= r + dr <= HEIGHT)


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(sq) for sq in SQUARES)


def home_ranks(side: int) -> tuple[int, int, int]:
    """The three ranks a side deploys on, from the top of a white-oriented diagram down."""
    return (3, 2, 1) if side == 0 else (8, 7, 6)


def home_squares(side: int) -> tuple[int, ...]:
    """The 27 deployment squares in grid order: top row first, files a to i."""
    return tuple(square(f, r) for r in home_ranks(side) for f in range(WIDTH))


def back_rank(side: int) -> int:
    """The rank a side's own Flag defends (its home edge)."""
    return 1 if side == 0 else HEIGHT


def target_rank(side: int) -> int:
    """The enemy's back rank, where this side's Flag wins."""
    return back_rank(1 - side)


def distance(a: int, b: int) -> int:
    """Orthogonal steps between two squares on an empty board."""
    return abs(file_of(a) - file_of(b)) + abs(rank_of(a) - rank_of(b))


def advance(side: int, sq: int) -> int:
    """How many ranks a square lies ahead of the side's back rank (0..7)."""
    return rank_of(sq) - 1 if side == 0 else HEIGHT - rank_of(sq)

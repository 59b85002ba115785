"""Deployments: the text grid (import/export), validation with exact reasons, random setups and formations.

A setup is a `Grid`: the 27 deployment squares of one side in a fixed absolute order, the order of a
white-oriented diagram (top row first, files a to i). For side A the rows are ranks 3, 2, 1; for side B
they are ranks 8, 7, 6. Each cell holds a Rank or None (empty).

Text forms (both are accepted wherever a setup is read):
- compact, used in the move log: rows separated by `/`, cells by `,`, `.` for empty, e.g.
  `5G,4G,3G,2G,1G,COL,LTC,MAJ,CPT/1LT,2LT,SGT,PVT,PVT,PVT,PVT,PVT,PVT/SPY,SPY,FLG,.,.,.,.,.,.`
- the human-editable grid (`format_grid`): one line per rank with an optional rank label in front, cells
  separated by spaces, an optional `a b c ... i` header line; `|` and `,` count as spaces. Labels, when
  given, decide which row is which rank; without labels the top line is the highest rank.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from games.base import IllegalMoveError
from games.generals.pieces import ABBREVIATIONS, PIECE_LIST, Rank, parse_rank
from games.generals.rules import Settings
from games.generals.squares import FILES, WIDTH, home_ranks, home_squares, square_name
from games.text import Plural, Text, TextIn

Grid = tuple[Rank | None, ...]
ROWS = 3
CELLS = ROWS * WIDTH
EMPTY_MARKS = frozenset({".", "-", "--", "_", "..", "·"})
FORMATIONS = ("balanced", "flag-fortress", "blitz", "random")
# How a grid's refusals name it: a player's setup (3 rows), or a whole board (8 rows, for tests and puzzles).
SETUP_GRID = TextIn("grid", "setup")
BOARD_GRID = TextIn("grid", "board")


class SetupError(IllegalMoveError):
    """A setup that cannot be deployed; the message says exactly why."""


# ----- text ------------------------------------------------------------------------------------------------
def compact(grid: Grid) -> str:
    """The one-line form of a setup used in `setup:` actions."""
    return "/".join(",".join(_token(c) for c in grid[r * WIDTH:(r + 1) * WIDTH]) for r in range(ROWS))


def format_grid(grid: Grid, side: int) -> str:
    """The human-editable grid: a file header, then one labelled line per rank, top rank first."""
    lines = ["    " + "   ".join(FILES)]
    for row, rank in enumerate(home_ranks(side)):
        cells = grid[row * WIDTH:(row + 1) * WIDTH]
        lines.append(f"{rank} | " + " ".join(f"{_token(c):<3}" for c in cells).rstrip())
    return "\n".join(lines)


def _token(cell: Rank | None) -> str:
    return "." if cell is None else ABBREVIATIONS[cell]


def split_rows(text: str, rows: int, what: Text) -> tuple[list[list[str]], list[int] | None]:
    """Tokenised rows of a grid text and their rank labels (None when unlabelled); shape errors refused. `what`
    names the grid in the refusals (`SETUP_GRID`, `BOARD_GRID`)."""
    lines = [line for line in text.replace("/", "\n").splitlines() if line.strip()]
    token_rows = [line.replace("|", " ").replace(",", " ").split() for line in lines]
    token_rows = [r for r in token_rows if not all(len(t) == 1 and t.lower() in FILES for t in r)]
    labels: list[int] = []
    body: list[list[str]] = []
    for tokens in token_rows:
        label, cells = _strip_label(tokens)
        if label is not None:
            labels.append(label)
        body.append(cells)
    if labels and len(labels) != len(body):
        raise SetupError(Text("Label every row of the {what} with its rank, or none of them.", what=what))
    if len(body) != rows:
        raise SetupError(Text("A {what} is {rows} rows of {width} squares; this one has {count} row(s).", what=what,
                              rows=rows, width=WIDTH, count=len(body)))
    for number, cells in enumerate(body, start=1):
        if len(cells) != WIDTH:
            raise SetupError(Text("Row {number} of the {what} has {count} squares; each row has {width} "
                                  "(write . for an empty square).", number=number, what=what, count=len(cells),
                                  width=WIDTH))
    if len(set(labels)) != len(labels):
        raise SetupError(Text("A rank is labelled twice in the {what}.", what=what))
    return body, labels or None


def _strip_label(tokens: list[str]) -> tuple[int | None, list[str]]:
    """Take a leading (and an optional matching trailing) rank label off a row's tokens."""
    first = tokens[0].rstrip(":") if tokens else ""
    if len(tokens) > WIDTH and first.isdigit() and len(first) == 1:
        cells = tokens[1:]
        if len(cells) > WIDTH and cells[-1] == first:
            cells = cells[:-1]
        return int(first), cells
    return None, tokens


def parse_cell(token: str, where: Text) -> Rank | None:
    """A grid cell: a piece abbreviation or an empty mark."""
    if token in EMPTY_MARKS:
        return None
    rank = parse_rank(token)
    if rank is None:
        raise SetupError(Text("{token} ({where}) is not a piece: write one of {pieces}, or . for an empty square.",
                              token=repr(token), where=where, pieces=PIECE_LIST))
    return rank


def parse_grid(text: str, side: int | None = None) -> tuple[Grid, int | None]:
    """A grid from its text, and the side its rank labels name (None if unlabelled); the army is not checked.

    With `side` given, labels must be that side's ranks.
    """
    body, labels = split_rows(text, ROWS, SETUP_GRID)
    labelled_side = None
    if labels is not None:
        for candidate in (0, 1):
            if sorted(labels) == sorted(home_ranks(candidate)):
                labelled_side = candidate
        if labelled_side is None:
            raise SetupError(Text("The rows are labelled {labels}; a setup uses ranks 1-3 (side A) or 6-8 (side B).",
                                  labels=", ".join(map(str, labels))))
        if side is not None and labelled_side != side:
            raise SetupError(Text("The rows are labelled {labels}, but your ranks are {ranks}.",
                                  labels=", ".join(map(str, labels)), ranks=", ".join(map(str, home_ranks(side)))))
        order = sorted(range(ROWS), key=lambda i: -labels[i])
        body = [body[i] for i in order]
    cells: list[Rank | None] = []
    for row, tokens in enumerate(body, start=1):
        for col, token in enumerate(tokens):
            cells.append(parse_cell(token, Text("row {row}, file {file}", row=row, file=FILES[col])))
    return tuple(cells), labelled_side


def import_grid(text: str, side: int, settings: Settings | None = None) -> Grid:
    """A checked setup for `side` from its grid text; SetupError says exactly what is wrong."""
    grid, _ = parse_grid(text, side)
    validate(grid, (settings or Settings()).army)
    return grid


# ----- checks -------------------------------------------------------------------------------------------
def validate(grid: Grid, army: Sequence[Rank]) -> None:
    """Refuse a setup that is not exactly the army on the 27 squares, naming every difference."""
    if len(grid) != CELLS:
        raise SetupError(Text("A setup covers {cells} squares, not {count}.", cells=CELLS, count=len(grid)))
    have = Counter(c for c in grid if c is not None)
    need = Counter(army)
    if have == need:
        return
    surplus = [f"{have[r] - need[r]} {ABBREVIATIONS[r]}" for r in sorted(have, reverse=True) if have[r] > need[r]]
    missing = [f"{need[r] - have[r]} {ABBREVIATIONS[r]}" for r in sorted(need, reverse=True) if have[r] < need[r]]
    too_many = Text("too many: {pieces}", pieces=", ".join(surplus))
    lacking = Text("missing: {pieces}", pieces=", ".join(missing))
    problems = (Text("{too_many}; {missing}", too_many=too_many, missing=lacking) if surplus and missing
                else too_many if surplus else lacking)
    raise SetupError(Plural("The army is {count} piece ({army}); this setup has {placed} — {problems}.",
                            "The army is {count} pieces ({army}); this setup has {placed} — {problems}.",
                            len(army), army=army_text(army), placed=sum(have.values()), problems=problems))


def army_text(army: Sequence[Rank]) -> str:
    counts = Counter(army)
    return " ".join(ABBREVIATIONS[r] + (f" x{counts[r]}" if counts[r] > 1 else "")
                    for r in sorted(counts, reverse=True))


def swap(grid: Grid, side: int, a: int, b: int) -> Grid:
    """The setup with the contents of squares `a` and `b` exchanged (both must be the side's squares)."""
    squares = home_squares(side)
    for sq in (a, b):
        if sq not in squares:
            raise SetupError(Text("You deploy on ranks {low}-{high}; swap squares there.",
                                  low=min(home_ranks(side)), high=max(home_ranks(side))))
    i, j = squares.index(a), squares.index(b)
    if i == j:
        raise SetupError(Text("Swap two different squares."))
    if grid[i] is None and grid[j] is None:
        raise SetupError(Text("Both squares are empty; there is nothing to swap."))
    cells = list(grid)
    cells[i], cells[j] = cells[j], cells[i]
    return tuple(cells)


def as_owner_sees_it(grid: Grid, side: int) -> Grid:
    """A setup as its owner sees it (front row first, their left first), or back again: the grid itself for
    side A, turned half a circle for side B. A formation saved this way loads the same way round on either
    side; the mapping is its own inverse."""
    return grid if side == 0 else tuple(reversed(grid))


def deployment(grid: Grid, side: int) -> dict[int, Rank]:
    """Square -> rank for a side's setup."""
    return {sq: cell for sq, cell in zip(home_squares(side), grid, strict=True) if cell is not None}


def grid_from_squares(placed: Mapping[str, Rank], side: int) -> Grid:
    """The grid of a side's pieces given by square name, e.g. a view's own pieces (for `format_grid`)."""
    by_name = {square_name(sq): i for i, sq in enumerate(home_squares(side))}
    cells: list[Rank | None] = [None] * CELLS
    for name, rank in placed.items():
        if name not in by_name:
            raise SetupError(Text("{square} is not one of your deployment squares.", square=name))
        cells[by_name[name]] = rank
    return tuple(cells)


# ----- generated setups ------------------------------------------------------------------------------------
def random_setup(rng: random.Random, side: int, settings: Settings | None = None) -> Grid:
    """A uniformly random deployment of the army on the side's 27 squares."""
    army = (settings or Settings()).army
    cells: list[Rank | None] = [*army, *[None] * (CELLS - len(army))]
    rng.shuffle(cells)
    return tuple(cells)


def formation(name: str, rng: random.Random, side: int, settings: Settings | None = None) -> Grid:
    """A named formation for `side`, varied by `rng` (a fixed layout would be an open book)."""
    army = (settings or Settings()).army
    if name == "random":
        return random_setup(rng, side, settings)
    builder = _BUILDERS.get(name)
    if builder is None:
        raise SetupError(Text("There is no formation {name}; choose from {names}.", name=repr(name),
                              names=", ".join(FORMATIONS)))
    cells = builder(_Layout(rng, army))
    grid = _to_grid(side, cells)
    validate(grid, army)
    return grid


Cell = tuple[int, int]  # (row counted from the side's front row 0..2, column from the side's left 0..8)


class _Layout:
    """A formation under construction in the player's own perspective."""

    def __init__(self, rng: random.Random, army: Sequence[Rank]) -> None:
        self.rng = rng
        self.pool = Counter(army)
        self.cells: dict[Cell, Rank] = {}

    def put(self, cell: Cell, *choices: Rank) -> None:
        """Place the first still-available rank of `choices` on `cell` (if on the board and free)."""
        row, col = cell
        if not (0 <= row < ROWS and 0 <= col < WIDTH) or cell in self.cells:
            return
        for rank in choices:
            if self.pool[rank]:
                self.cells[cell] = rank
                self.pool[rank] -= 1
                return

    def fill(self, preference: Callable[[Cell], float]) -> dict[Cell, Rank]:
        """Place the rest at random, filling the most preferred free cells first (the rest stay empty)."""
        free = [(r, c) for r in range(ROWS) for c in range(WIDTH) if (r, c) not in self.cells]
        free.sort(key=lambda cell: preference(cell) + self.rng.random())
        rest = list(self.pool.elements())
        self.rng.shuffle(rest)
        for cell, rank in zip(free, rest, strict=False):
            self.cells[cell] = rank
        self.pool.clear()
        return self.cells


_STRONG = (Rank.GENERAL_3, Rank.GENERAL_2, Rank.GENERAL_1, Rank.COLONEL, Rank.LIEUTENANT_COLONEL, Rank.MAJOR)


def _balanced(lay: _Layout) -> dict[Cell, Rank]:
    """Flag on the back row away from the edges, flanked by Privates with a strong piece in front of it."""
    col = lay.rng.randrange(1, WIDTH - 1)
    lay.put((2, col), Rank.FLAG)
    lay.put((2, col - 1), Rank.PRIVATE, Rank.SERGEANT)
    lay.put((2, col + 1), Rank.PRIVATE, Rank.SERGEANT)
    lay.put((1, col), *lay.rng.sample(_STRONG, len(_STRONG)))
    for rank in (Rank.GENERAL_5, Rank.GENERAL_4, Rank.SPY):
        lay.put((0, lay.rng.choice([c for c in range(WIDTH) if (0, c) not in lay.cells])), rank)
    return lay.fill(lambda cell: 0.4 * (cell[0] == 2))


def _flag_fortress(lay: _Layout) -> dict[Cell, Rank]:
    """Flag in a back corner walled in on every side; the empty squares go to the front row."""
    col = lay.rng.choice([0, 1, WIDTH - 2, WIDTH - 1])
    lay.put((2, col), Rank.FLAG)
    wall = [(2, col - 1), (2, col + 1), (1, col), (1, col - 1), (1, col + 1)]
    lay.rng.shuffle(wall)
    guards = [(Rank.PRIVATE,), (Rank.SPY,), (Rank.GENERAL_4, Rank.GENERAL_3), (Rank.PRIVATE, Rank.SERGEANT),
              (Rank.COLONEL, Rank.MAJOR)]
    for cell, choices in zip(wall, guards, strict=True):
        lay.put(cell, *choices)
    return lay.fill(lambda cell: 0.8 * (2 - cell[0]))


def _blitz(lay: _Layout) -> dict[Cell, Rank]:
    """Every General and a Spy in the front row; Flag in the back centre among Privates; gaps at the back."""
    front = list(range(WIDTH))
    lay.rng.shuffle(front)
    for col, rank in zip(front, (Rank.GENERAL_5, Rank.GENERAL_4, Rank.GENERAL_3, Rank.GENERAL_2, Rank.GENERAL_1,
                                 Rank.SPY, Rank.COLONEL), strict=False):
        lay.put((0, col), rank, Rank.LIEUTENANT_COLONEL, Rank.MAJOR)
    col = lay.rng.randrange(2, WIDTH - 2)
    lay.put((2, col), Rank.FLAG)
    lay.put((2, col - 1), Rank.PRIVATE, Rank.SERGEANT)
    lay.put((2, col + 1), Rank.PRIVATE, Rank.SERGEANT)
    lay.put((1, col), Rank.PRIVATE, Rank.SPY, Rank.CAPTAIN)
    return lay.fill(lambda cell: 0.9 * (cell[0] == 2))


_BUILDERS: dict[str, Callable[[_Layout], dict[Cell, Rank]]] = {
    "balanced": _balanced, "flag-fortress": _flag_fortress, "blitz": _blitz,
}


def _to_grid(side: int, cells: dict[Cell, Rank]) -> Grid:
    """Turn player-perspective cells into the absolute grid (side B looks down the board from rank 8)."""
    grid: list[Rank | None] = [None] * CELLS
    for (row, col), rank in cells.items():
        grid_row, file = (row, col) if side == 0 else (ROWS - 1 - row, WIDTH - 1 - col)
        grid[grid_row * WIDTH + file] = rank
    return tuple(grid)

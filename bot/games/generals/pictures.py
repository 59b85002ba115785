"""Game of the Generals boards as PNG images and as monospace text, drawn only from views.

Nothing here sees the omniscient state: a `PlayerView` carries the viewer's own ranks and deductions, a
`PublicView` carries squares without ranks, and both carry the whole board (`reveal`) once the game is over.
The same view always gives the same bytes. The picture is a plain Salpakan board with white (side A) and
black (side B) pieces bearing their insignia (insignia.py); a piece the viewer cannot see is a blank tile, and one
the viewer knows something about bears a number, which the key under the board says in words ("1: Spy or
Colonel+"). Every text is at least TEXT_MIN px (font size), readable on a phone; the header and the footer take as
many lines as their texts need, so nothing is ever cut.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from PIL import Image, ImageDraw

from bot import workers
from bot.games.generals.canvas import FixedPalette, centred, drawable, measure, text_line, wrap
from bot.games.generals.encode import png
from bot.games.generals.insignia import (
    FLAG_COLOURS,
    INK,
    TILE,
    TILE_COLOURS,
    TILE_EDGE,
    TILE_EDGES,
    blank_tile,
    piece_mark,
    rank_tile,
)
from bot.games.generals.words import SIDE_NAMES, counted, deduction_words, rank_name, reason_words
from bot.i18n import SOURCE, Say
from games.base import Outcome
from games.generals.pieces import ABBREVIATIONS, Rank, Result
from games.generals.squares import FILES, HEIGHT, WIDTH, parse_square
from games.generals.views import PLAY, SETUP, LastMove, PlayerView, PublicView, RevealedPiece
from games.text import Plural, Text, TextIn

__all__ = ["SIDE_NAMES", "picture", "reachable", "render_player_board", "render_public_board", "text_board"]

log = logging.getLogger(__name__)

Colour = tuple[int, int, int]

# Discord shows an embed's picture 360-550 px wide on a phone: every text is at least TEXT_MIN px (font size) on
# this 694 px wide image (4 % of its width), so it stays readable once shrunk.
CELL = 70  # px per square
MARGIN = 32  # px for the file letters and rank numbers around the grid
TEXT_MIN = 28  # px: the smallest font size anywhere on the picture
LINE = 36  # px from one header or footer line to the next
HEADER = 2 * LINE + 10  # px for the status and last-move lines above the grid: at least two lines, more if needed
FOOTER = 2 * LINE + 8  # px for the lost pieces and the key under the grid: at least two lines, more if needed
TEXT_X = 12  # px from the left edge to the header's and the footer's lines
TILE_PAD = 3  # px between a piece and the edge of its square
GRID_W, GRID_H = WIDTH * CELL, HEIGHT * CELL
IMAGE_W = GRID_W + 2 * MARGIN
BAND_H = GRID_H + 2 * MARGIN  # the grid with its coordinates
IMAGE_H = HEADER + BAND_H + FOOTER  # the picture with two lines above and two below the grid (the usual)
SHADES = 1  # palette shades at each anti-aliased edge: more look no smoother on a phone, and deflate worse
PNG_LEVEL = 7  # zlib level: the smallest files this machine deflates within the time a picture may take
SIZE_BUDGET = 20 * 1024  # bytes per picture: the bands of a larger one are deflated again, harder
LINE_BUDGET = 1024  # bytes more for each line of text beyond two above and two below the grid: text is never cut

BACKGROUND: Colour = (38, 42, 48)
LABEL: Colour = (235, 235, 235)
DETAIL: Colour = (236, 214, 150)
SQUARE_FILL: Colour = (176, 160, 122)  # every square in one plain colour, as on a Salpakan board: no chequerboard
GRID: Colour = (112, 98, 68)
MIDLINE: Colour = (62, 52, 34)
HIGHLIGHT_FROM: Colour = (240, 214, 80)
HIGHLIGHT_TO: Colour = (255, 140, 40)
CHALLENGE: Colour = (222, 62, 48)  # the square of the last move when it was a challenge
SELECTED: Colour = (20, 110, 255)  # a piece the player has picked and not moved yet, and where it can go
PICK_EDGE: Colour = (10, 18, 48)  # the dark rim of those marks: they show on a white tile, a black one, a bare square
HINT: tuple[Colour, Colour] = ((36, 52, 150), (255, 204, 110))  # deductions on a hidden white or black tile
NO_BREAK = "\u00a0"
UNKNOWN = TextIn("pieces", "unknown")  # a lost enemy piece the viewer knows nothing about


# ----- the board as the renderer sees it ----------------------------------------------------------------------------
@dataclass(frozen=True)
class _Cell:
    seat: int  # the side the piece belongs to
    rank: Rank | None  # None for a piece whose rank the viewer does not know
    text: str  # the rank abbreviation, or '' for a hidden piece
    hint: str  # the number of what the viewer has deduced about a hidden piece in the key ('' if nothing)


@dataclass(frozen=True)
class _Board:
    bottom: int  # the side whose home edge is drawn at the bottom
    cells: dict[int, _Cell]
    src: int | None
    dst: int | None
    challenge: int | None  # the square of the latest challenge (the last move's `dst`, or an earlier one)
    title: str
    status: str
    detail: str
    lost: str
    notes: tuple[str, ...]  # deductions about enemy pieces, for the text board
    footer: tuple[str, ...]  # the lost pieces, for the picture
    language: str = SOURCE  # what the texts above are written in (the picture draws them with a font for it)
    key: tuple[str, ...] = ()  # what the numbers on hidden pieces mean ("1: Spy or Col.+"), for the picture
    selected: int | None = None  # the square of the piece the player has picked
    reach: frozenset[int] = frozenset()  # where that piece can go


def _player_board(view: PlayerView, language: str, selected: str | None = None) -> _Board:
    say = Say(language)
    seat, enemy = view.seat, 1 - view.seat
    cells: dict[int, _Cell] = {}
    notes: list[str] = []
    key: dict[str, str] = {}  # what is known, in words, and its number on the pieces
    if view.reveal is not None:
        cells = _revealed(view.reveal.pieces)
    else:
        for own in view.own:
            cells[_sq(own.square)] = _Cell(seat, own.rank, ABBREVIATIONS[own.rank], "")
        files, ranks = _grid_order(seat)
        order = {(r - 1) * WIDTH + f: i for i, (r, f) in enumerate((r, f) for r in ranks for f in files)}
        # Numbered as the viewer reads the board, top left to bottom right: pieces known alike share a number.
        for piece in sorted(view.enemy, key=lambda p: order[_sq(p.square)]):
            known = sorted(piece.possible)
            if len(known) == 1:
                cells[_sq(piece.square)] = _Cell(enemy, known[0], ABBREVIATIONS[known[0]], "")
                notes.append(say(Text("{square}: {deduction}", square=piece.square, deduction=known[0].title)))
                continue
            words = deduction_words(piece.possible, view.settings, short=True)
            number = key.setdefault(say(words), str(len(key) + 1)) if words is not None else ""
            cells[_sq(piece.square)] = _Cell(enemy, None, "", number)
            if words is not None:
                notes.append(say(Text("{square}: {deduction}", square=piece.square,
                                      deduction=deduction_words(piece.possible, view.settings))))
    title = say(Text("Game of the Generals - you are side {side}", side=SIDE_NAMES[seat]))
    yours = _listed([rank_name(r, short=True) for r in view.own_lost], say)
    theirs = _listed([rank_name(next(iter(k)), short=True) if len(k) == 1
                      else deduction_words(k, view.settings, short=True) or UNKNOWN for k in view.enemy_lost], say)
    lost: Text | str = Text("Lost: you {mine}, opponent {theirs}", mine=view.lost[seat], theirs=view.lost[enemy])
    if yours:
        lost = Text("{lost} | yours: {pieces}", lost=lost, pieces=yours)
    if theirs:
        lost = Text("{lost} | theirs: {pieces}", lost=lost, pieces=theirs)
    footer: tuple[str, ...] = (
        say(Text("You lost {count}: {pieces}", count=view.lost[seat], pieces=yours) if yours
            else Text("You lost {count}", count=view.lost[seat])),
        say(Text("Opponent lost {count}: {pieces}", count=view.lost[enemy], pieces=theirs) if theirs
            else Text("Opponent lost {count}", count=view.lost[enemy])))
    if view.reveal is not None:
        lost = _revealed_lost(view.reveal.lost, say)
        footer = tuple(lost.split(" | "))
    status = _status(view.phase, view.to_move, view.ply, view.ready, view.outcome, seat, say)
    src, dst = _last_squares(view.last)
    picked = None if selected is None else parse_square(selected)
    return _Board(seat, cells, src, dst, _challenged(view.challenge), title, status,
                  _last_text(view.last, seat, say), say(lost), tuple(notes), footer, language,
                  tuple(say(Text("{number}: {deduction}", number=n, deduction=w)) for w, n in key.items()),
                  picked, reachable(view, selected))


def reachable(view: PlayerView, selected: str | None) -> frozenset[int]:
    """The squares the picked piece on `selected` can move to now (none outside play or off the player's turn)."""
    if selected is None or view.phase != PLAY or view.to_move != view.seat:
        return frozenset()
    out = set()
    for text in view.legal:
        src, sep, dst = text.partition("-")
        if sep and src == selected and (sq := parse_square(dst)) is not None:
            out.add(sq)
    return frozenset(out)


def _listed(names: list[Text], say: Say) -> str:
    """Piece names as a list, repeats counted: "Private x2, Major" (a multiplication sign); a line of the picture
    breaks between names only (no-break spaces inside them)."""
    return ", ".join(say(name).replace(" ", NO_BREAK) for name in counted(names))


def _public_board(view: PublicView, language: str) -> _Board:
    say = Say(language)
    if view.reveal is not None:
        cells = _revealed(view.reveal.pieces)
        lost = _revealed_lost(view.reveal.lost, say)
    else:
        cells = {_sq(p.square): _Cell(p.seat, None, "", "") for p in view.pieces}
        lost = say(Text("Lost: {a} {lost_a}, {b} {lost_b}", a=SIDE_NAMES[0], lost_a=view.lost[0], b=SIDE_NAMES[1],
                        lost_b=view.lost[1]))
    status = _status(view.phase, view.to_move, view.ply, view.ready, view.outcome, None, say)
    src, dst = _last_squares(view.last)
    return _Board(0, cells, src, dst, _challenged(view.challenge), say(Text("Game of the Generals")), status,
                  _last_text(view.last, None, say), lost, (), tuple(lost.split(" | ")), language)


def _revealed(pieces: Iterable[RevealedPiece]) -> dict[int, _Cell]:
    return {_sq(p.square): _Cell(p.seat, p.rank, ABBREVIATIONS[p.rank], "") for p in pieces}


def _revealed_lost(lost: tuple[tuple[Rank, ...], tuple[Rank, ...]], say: Say) -> str:
    return " | ".join(say(Text("{side} lost: {pieces}", side=SIDE_NAMES[s],
                               pieces=_listed([rank_name(r, short=True) for r in lost[s]], say)
                               or TextIn("pieces", "none")))
                      for s in (0, 1))


def _sq(name: str) -> int:
    sq = parse_square(name)
    if sq is None:
        raise ValueError(f"{name!r} is not a square")
    return sq


def _last_squares(last: LastMove | None) -> tuple[int | None, int | None]:
    if last is None or last.kind != "move":
        return None, None
    src = parse_square(last.src) if last.src else None
    dst = parse_square(last.dst) if last.dst else None
    return src, dst


def _challenged(challenge: LastMove | None) -> int | None:
    """The square the latest challenge took place on."""
    if challenge is None or challenge.kind != "move" or challenge.dst is None:
        return None
    return parse_square(challenge.dst)


def _side(seat: int, viewer: int | None) -> Text:
    """Who did something, as the picture's viewer says it (the channel: by side)."""
    if viewer is None:
        return Text("Side {side}", side=SIDE_NAMES[seat])
    return TextIn("who", "You") if seat == viewer else TextIn("who", "Opponent")


# The arbiter's rulings and the other actions, as the picture's last line names them.
RULINGS = {Result.ATTACKER: TextIn("ruling", "attacker won"), Result.DEFENDER: TextIn("ruling", "defender won"),
           Result.BOTH: TextIn("ruling", "both eliminated")}
ACTIONS = {"setup": TextIn("action", "setup"), "swap": TextIn("action", "swap"), "ready": TextIn("action", "ready"),
           "resign": TextIn("action", "resign"), "timeout": TextIn("action", "timeout"),
           "draw-agreed": TextIn("action", "draw-agreed")}


def _status(phase: str, to_move: int | None, ply: int, ready: tuple[bool, bool], outcome: Outcome | None,
            viewer: int | None, say: Say) -> str:
    if outcome is not None:
        winner = outcome.winners[0]
        result = (Text("Draw") if outcome.is_draw else
                  Text("Side {side} won", side=SIDE_NAMES[winner]) if viewer is None else
                  Text("You won") if winner == viewer else Text("Opponent won"))
        return say(Plural("Game over after {count} move: {result} ({why})",
                          "Game over after {count} moves: {result} ({why})", ply, result=result,
                          why=reason_words(outcome.reason)))
    if phase == SETUP:
        marks = [Text("{side} ready", side=SIDE_NAMES[s]) if ready[s] else Text("{side} deploying", side=SIDE_NAMES[s])
                 for s in (0, 1)]
        return say(Text("Setup: {a}, {b}", a=marks[0], b=marks[1]))
    if to_move is None:
        return say(Text("Move {number}", number=ply + 1))
    if viewer is None:
        return say(Text("Move {number}: Side {side} to move", number=ply + 1, side=SIDE_NAMES[to_move]))
    if to_move == viewer:
        return say(Text("Move {number}: your move", number=ply + 1))
    return say(Text("Move {number}: Opponent to move", number=ply + 1))


def _last_text(last: LastMove | None, viewer: int | None, say: Say) -> str:
    if last is None:
        return ""
    who = _side(last.seat, viewer)
    if last.kind != "move":
        return say(Text("Last: {who} - {action}", who=who, action=ACTIONS.get(last.kind, last.kind)))
    text = Text("Last: {who} {move}", who=who, move=f"{last.src}-{last.dst}")
    if last.challenge is not None:
        text = Text("{last}, challenge: {ruling}", last=text, ruling=RULINGS[last.challenge])
    # Ranks in words here, as in every sentence ("your Spy"); abbreviations are for the board's squares.
    if last.your_rank is not None and last.their_rank is not None:
        text = Text("{last} (your {yours} vs {theirs})", last=text, yours=rank_name(last.your_rank, short=True),
                    theirs=rank_name(last.their_rank, short=True))
    elif last.your_rank is not None:
        text = Text("{last} (your {yours})", last=text, yours=rank_name(last.your_rank, short=True))
    elif last.their_rank is not None:
        text = Text("{last} (their {theirs})", last=text, theirs=rank_name(last.their_rank, short=True))
    return say(text)


def _grid_order(bottom: int) -> tuple[list[int], list[int]]:
    """Files left to right and ranks top to bottom as the side `bottom` sees them."""
    files = list(range(WIDTH))
    ranks = list(range(HEIGHT, 0, -1))
    if bottom == 1:
        files.reverse()
        ranks.reverse()
    return files, ranks


# ----- PNG ---------------------------------------------------------------------------------------------------------
def _lines(parts: Iterable[tuple[str, Colour]], language: str) -> tuple[tuple[str, Colour], ...]:
    """The parts' texts in lines that fit the picture's width, each part starting a line: nothing is cut."""
    return tuple((line, colour) for text, colour in parts if text
                 for line in wrap(text, TEXT_MIN, IMAGE_W - 2 * TEXT_X, 99, language))


def _packed(entries: Iterable[str], colour: Colour, language: str) -> tuple[tuple[str, Colour], ...]:
    """Short entries (the key) side by side while they fit a line, a wide gap between them; a long one wraps."""
    width, gap = IMAGE_W - 2 * TEXT_X, "   "
    out: list[tuple[str, Colour]] = []
    line = ""
    for entry in entries:
        joined = f"{line}{gap}{entry}" if line else entry
        if measure(joined, TEXT_MIN, language) <= width:
            line = joined
            continue
        if line:
            out.append((line, colour))
        *whole, line = wrap(entry, TEXT_MIN, width, 99, language)
        out += [(text, colour) for text in whole]
    if line:
        out.append((line, colour))
    return tuple(out)


@lru_cache(maxsize=32)  # about 55 KB each
def _strip(lines: tuple[tuple[str, Colour], ...], minimum: int, y: int, language: str = SOURCE) -> Image.Image:
    """A full-width band of text lines (the header or the footer) in `language`, in the palette, at least `minimum`
    lines high. Kept a while: the footer (lost pieces) seldom changes, and the channel's board and a player's are
    drawn after the same move."""
    band = Image.new("RGB", (IMAGE_W, max(minimum, len(lines)) * LINE + y + 4), BACKGROUND)
    for i, (text, colour) in enumerate(lines):
        text_line(band, TEXT_X, y + i * LINE, text, TEXT_MIN, colour, language)
    return PALETTE.convert(band, (BACKGROUND, LABEL, DETAIL))


@cache
def _empty_grid(bottom: int) -> Image.Image:
    """The plain grid and its coordinates as side `bottom` sees them, on the background, in the palette: drawn
    once, then copied."""
    image = Image.new("RGB", (IMAGE_W, BAND_H), BACKGROUND)
    draw = ImageDraw.Draw(image)
    top, left = MARGIN, MARGIN
    files, ranks = _grid_order(bottom)
    for col, f in enumerate(files):
        x = left + col * CELL + CELL // 2
        centred(draw, x, top - MARGIN // 2, FILES[f], TEXT_MIN, LABEL)
        centred(draw, x, top + GRID_H + MARGIN // 2, FILES[f], TEXT_MIN, LABEL)
    for row, r in enumerate(ranks):
        y = top + row * CELL + CELL // 2
        centred(draw, left - MARGIN // 2, y, str(r), TEXT_MIN, LABEL)
        centred(draw, left + GRID_W + MARGIN // 2, y, str(r), TEXT_MIN, LABEL)
    draw.rectangle((left, top, left + GRID_W - 1, top + GRID_H - 1), fill=SQUARE_FILL)
    return PALETTE.convert(image, (BACKGROUND, LABEL, SQUARE_FILL))


def _png(board: _Board) -> bytes:
    """The picture, put together from parts already in the palette (the empty grid, one cached square per
    piece and background, the text bands): nothing of the whole picture is quantized."""
    header = _strip(_lines(((board.status, LABEL), (board.detail, DETAIL)), board.language), 2, 6, board.language)
    footer = _strip(_lines(((line, LABEL) for line in board.footer), board.language)
                    + _packed(board.key, DETAIL, board.language), 2, 4, board.language)
    image = PALETTE.new((IMAGE_W, header.height + BAND_H + footer.height), BACKGROUND)
    image.paste(header, (0, 0))
    image.paste(_empty_grid(board.bottom), (0, header.height))
    image.paste(footer, (0, header.height + BAND_H))
    draw = ImageDraw.Draw(image)
    top, left = header.height + MARGIN, MARGIN
    files, ranks = _grid_order(board.bottom)
    # Later entries win a square: a challenge's red over the last move's colour.
    marks = {board.src: HIGHLIGHT_FROM, board.dst: HIGHLIGHT_TO, board.challenge: CHALLENGE}
    for row, r in enumerate(ranks):
        for col, f in enumerate(files):
            sq = (r - 1) * WIDTH + f
            x0, y0 = left + col * CELL, top + row * CELL
            mark = marks.get(sq)
            cell = board.cells.get(sq)
            if cell is not None:
                image.paste(_square(cell, mark or SQUARE_FILL), (x0, y0))
                if mark is not None:  # a frame over the tile's edge: the mark shows around a piece too
                    draw.rectangle((x0, y0, x0 + CELL - 1, y0 + CELL - 1), outline=PALETTE.index(mark),
                                   width=TILE_PAD + 3)
            elif mark is not None:
                draw.rectangle((x0, y0, x0 + CELL - 1, y0 + CELL - 1), fill=PALETTE.index(mark))
            if sq in board.reach:
                if cell is None:
                    image.paste(_dot(mark or SQUARE_FILL), (x0, y0))
                else:  # a challenge: the corners of the enemy piece's square
                    _corners(draw, x0, y0)
    for i in range(1, WIDTH):
        draw.line((left + i * CELL, top, left + i * CELL, top + GRID_H - 1), fill=PALETTE.index(GRID), width=2)
    for i in range(1, HEIGHT):
        draw.line((left, top + i * CELL, left + GRID_W - 1, top + i * CELL), fill=PALETTE.index(GRID), width=2)
    # The line between the two halves (ranks 4 and 5), where the armies meet.
    mid = top + 4 * CELL
    draw.line((left, mid, left + GRID_W - 1, mid), fill=PALETTE.index(MIDLINE), width=4)
    draw.rectangle((left - 2, top - 2, left + GRID_W + 1, top + GRID_H + 1), outline=PALETTE.index(MIDLINE),
                   width=3)
    if board.selected is not None:  # thick, blue in a dark rim, over the grid: it shows on any tile and square
        col, row = files.index(board.selected % WIDTH), ranks.index(board.selected // WIDTH + 1)
        x0, y0 = left + col * CELL, top + row * CELL
        draw.rectangle((x0 - 1, y0 - 1, x0 + CELL, y0 + CELL), outline=PALETTE.index(PICK_EDGE), width=PICK_W)
        draw.rectangle((x0 + 2, y0 + 2, x0 + CELL - 3, y0 + CELL - 3), outline=PALETTE.index(SELECTED),
                       width=PICK_W - 5)
    return png(image, PNG_LEVEL, size_budget(image.height))


def size_budget(height: int) -> int:
    """The most bytes a picture `height` px high should take: SIZE_BUDGET, and a little more for each text
    line a long header or footer needed."""
    return SIZE_BUDGET + LINE_BUDGET * max(0, (height - IMAGE_H) // LINE)


PICK_W = 10  # px: the frame of the picked piece
DOT = 13  # px: the radius of the dot on an empty square the picked piece can move to
CORNER = 20  # px: the sides of the corner marks on an enemy piece the picked piece can challenge


@lru_cache(maxsize=8)
def _dot(background: Colour) -> Image.Image:
    """An empty square the picked piece can move to: a blue dot with a dark rim, anti-aliased, in the palette."""
    big = CELL * 4
    image = Image.new("RGB", (big, big), background)
    draw = ImageDraw.Draw(image)
    c, r = big // 2, DOT * 4
    draw.ellipse((c - r, c - r, c + r, c + r), fill=PICK_EDGE)
    draw.ellipse((c - r + 12, c - r + 12, c + r - 12, c + r - 12), fill=SELECTED)
    return PALETTE.convert(image.resize((CELL, CELL), Image.Resampling.BOX), (background, PICK_EDGE, SELECTED))


def _corners(draw: ImageDraw.ImageDraw, x0: int, y0: int) -> None:
    """Four blue corners with a dark rim over a square: the picked piece can challenge the piece on it."""
    x1, y1 = x0 + CELL - 1, y0 + CELL - 1
    for cx, cy, dx, dy in ((x0, y0, 1, 1), (x1, y0, -1, 1), (x0, y1, 1, -1), (x1, y1, -1, -1)):
        draw.polygon([(cx, cy), (cx + dx * CORNER, cy), (cx, cy + dy * CORNER)], fill=PALETTE.index(PICK_EDGE))
        inner = CORNER - 7
        draw.polygon([(cx + dx, cy + dy), (cx + dx * inner, cy + dy), (cx + dx, cy + dy * inner)],
                     fill=PALETTE.index(SELECTED))


# The flat colours are exact in the palette; the shades are for the edges where two of them meet, anti-aliased:
# text on the background, a tile's rim on its square (plain or marked), deductions on a hidden tile.
MARKS = (HIGHLIGHT_FROM, HIGHLIGHT_TO, CHALLENGE, SELECTED)
PALETTE = FixedPalette(
    flat=(BACKGROUND, LABEL, DETAIL, SQUARE_FILL, GRID, MIDLINE, *MARKS, PICK_EDGE, *HINT, *TILE_COLOURS),
    edges=((LABEL, BACKGROUND), (DETAIL, BACKGROUND), *TILE_EDGES, *((HINT[s], TILE[s]) for s in (0, 1)),
           *((TILE_EDGE[s], square) for s in (0, 1) for square in (SQUARE_FILL, *MARKS)), (SELECTED, PICK_EDGE),
           *((PICK_EDGE, square) for square in (SQUARE_FILL, *MARKS))),
    shades=SHADES,
)


@lru_cache(maxsize=1024)
def _square(cell: _Cell, background: Colour) -> Image.Image:
    """One square with its piece on `background` (`SQUARE_FILL`, or a mark), in the palette: drawn once, then pasted.
    The cells a game can show are few (ranks, sides, deductions), so the cache holds them all."""
    image = Image.new("RGB", (CELL, CELL), background)
    size = CELL - 2 * TILE_PAD
    tile = blank_tile(size, cell.seat) if cell.rank is None else rank_tile(size, cell.seat, cell.rank)
    image.paste(tile, (TILE_PAD, TILE_PAD), tile)
    if cell.rank is None and cell.hint:
        label = piece_mark(cell.hint)
        left, top = (CELL - label.width) // 2, (CELL - label.height) // 2
        image.paste(HINT[cell.seat], (left, top, left + label.width, top + label.height), label)
    seat = cell.seat
    flag = FLAG_COLOURS if cell.rank == Rank.FLAG else ()
    return PALETTE.convert(image, (background, TILE[seat], TILE_EDGE[seat], INK[seat], HINT[seat], *flag))


def render_player_board(view: PlayerView, selected: str | None = None, *, language: str = SOURCE) -> bytes:
    """The board as `view.seat` sees it, from that side, with its texts in `language`: a PNG; `selected` is the
    square of a piece the player has picked, marked with the squares it can go to."""
    return _png(_player_board(view, drawable(language), selected))


def render_public_board(view: PublicView, *, language: str = SOURCE) -> bytes:
    """The board as the channel sees it, side A at the bottom, with its texts in `language`: a PNG."""
    return _png(_public_board(view, drawable(language)))


# ----- text ----------------------------------------------------------------------------------------------------------
TEXT_LIMIT = 1900
# The grid's width in characters: 28. On a 360 px phone Discord's message column is about 270 px wide, an embed's
# border and padding and the code block's own padding leave about 225 px, and its monospace font takes 7.2 to 7.8
# px a character: 29 to 31 characters fit before a line wraps (and wrapping breaks the columns). So every square is
# 3 characters, a mark and a 2-character code, and only the grid goes in the code block; the words around it are
# prose, which wraps as it likes.
TEXT_COLUMNS = 1 + 3 * WIDTH
# Two characters a rank on the text board (the 3-character abbreviations would make it 37 wide); the key under the
# grid names each in words.
TEXT_CODES: dict[Rank, str] = {
    Rank.GENERAL_5: "5G", Rank.GENERAL_4: "4G", Rank.GENERAL_3: "3G", Rank.GENERAL_2: "2G", Rank.GENERAL_1: "1G",
    Rank.COLONEL: "CO", Rank.LIEUTENANT_COLONEL: "LC", Rank.MAJOR: "MJ", Rank.CAPTAIN: "CP",
    Rank.FIRST_LIEUTENANT: "1L", Rank.SECOND_LIEUTENANT: "2L", Rank.SERGEANT: "SG", Rank.PRIVATE: "PV",
    Rank.SPY: "SP", Rank.FLAG: "FL",
}
HIDDEN_CODES = ("A?", "B?")  # a piece whose rank the reader does not know, by side
# The text board's key: its capitals and lower case stand for the white and black tiles of the picture.
TEXT_LEGEND = Text("{a} in CAPITALS, {b} in lower case; `A?`/`B?`: rank hidden; `*`: last move", a=SIDE_NAMES[0],
                   b=SIDE_NAMES[1])


def text_board(view: PlayerView | PublicView, language: str = SOURCE) -> str:
    """The board as text, for an embed when pictures are off (at most 1900 characters), with the same information as
    the picture, its words in `language`: the grid in a code block 28 characters wide (it fits a phone), the words
    around it as prose.

    Side A's pieces are in capitals and side B's in lower case, two characters each (`MJ`, `pv`); a hidden piece
    shows as `A?` or `B?`; the last move's two squares have a `*` right before them, in the gap that every square
    keeps for it, so the columns never move.
    """
    board = _player_board(view, language) if isinstance(view, PlayerView) else _public_board(view, language)
    say = Say(language)
    files, ranks = _grid_order(board.bottom)
    edge = " " + "".join(f"  {FILES[f]}" for f in files)
    grid = [edge]
    for r in ranks:
        row = []
        for f in files:
            sq = (r - 1) * WIDTH + f
            cell = board.cells.get(sq)
            if cell is None:
                content = " ."
            elif cell.rank is not None and cell.text:
                code = TEXT_CODES[cell.rank]
                content = code if cell.seat == 0 else code.lower()
            else:
                content = HIDDEN_CODES[cell.seat]
            row.append(("*" if sq in (board.src, board.dst) else " ") + content)
        grid.append(f"{r}" + "".join(row))
        if r == (5 if board.bottom == 0 else 4):
            grid.append(" " + "-" * (3 * WIDTH))
    grid.append(edge)
    lines = [board.title, board.status]
    if board.detail:
        lines.append(board.detail)
    lines += ["```", *grid, "```", say(TEXT_LEGEND)]
    if any(cell.rank is not None for cell in board.cells.values()):  # the codes of the ranks shown, in words
        lines.append(", ".join(f"`{TEXT_CODES[rank]}` {say(rank.title)}" for rank in sorted(Rank, reverse=True)))
    if board.notes:
        lines.append(say(Text("Known: {notes}", notes=", ".join(board.notes))))
    if board.lost:
        lines.append(board.lost)
    text = "\n".join(lines)
    if len(text) > TEXT_LIMIT:  # cut in the prose after the grid, never inside the code block
        text = text[: TEXT_LIMIT - 3] + "..."
    return text


async def picture(view: PlayerView | PublicView, images: bool, selected: str | None = None, *,
                  language: str) -> tuple[bytes | None, str | None]:
    """The PNG (drawn in a worker process: the event loop never waits for it), or the text board when pictures are
    off, with its texts in `language` (the language of the message it goes with); `selected` marks the square of a
    piece the player has picked (their own board only)."""
    if not images:
        return None, text_board(view, language)
    try:
        if isinstance(view, PlayerView):
            return await workers.draw(render_player_board, view, selected, language=language), None
        return await workers.draw(render_public_board, view, language=language), None
    except Exception:  # a picture is a nicety: the text board carries the same information
        log.exception("could not draw a board picture; sending the text board")
        return None, text_board(view, language)

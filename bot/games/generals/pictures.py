"""Game of the Generals boards as PNG images and as monospace text, drawn only from views.

Nothing here sees the omniscient state: a `PlayerView` carries the viewer's own ranks and deductions, a
`PublicView` carries squares without ranks, and both carry the whole board (`reveal`) once the game is over.
The same view always gives the same bytes.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw, ImageFont

from games.base import EndReason, Outcome
from games.generals.board import FILES, HEIGHT, WIDTH, parse_square
from games.generals.pieces import ABBREVIATIONS, Rank
from games.generals.rules import Settings
from games.generals.views import SETUP, LastMove, PlayerView, PublicView, RevealedPiece

__all__ = ["SIDE_NAMES", "knowledge_label", "picture", "render_player_board", "render_public_board", "text_board"]

log = logging.getLogger(__name__)

Colour = tuple[int, int, int]

CELL = 68  # px per square
MARGIN = 30  # px for the file letters and rank numbers around the board
HEADER = 54  # px for the status lines above the board
FOOTER = 24  # px for the lost-pieces line under the board
BOARD_W, BOARD_H = WIDTH * CELL, HEIGHT * CELL
IMAGE_W = BOARD_W + 2 * MARGIN
IMAGE_H = HEADER + BOARD_H + 2 * MARGIN + FOOTER

BACKGROUND: Colour = (38, 42, 48)
LABEL: Colour = (225, 225, 225)
SQUARE_LIGHT: Colour = (196, 178, 132)
SQUARE_DARK: Colour = (181, 160, 112)
GRID: Colour = (120, 104, 70)
MIDLINE: Colour = (70, 58, 36)
HIGHLIGHT_FROM: Colour = (240, 214, 80)
HIGHLIGHT_TO: Colour = (255, 140, 40)
# Side A is white, side B is black (rules page); the tiles keep a coloured rim so the two never blur.
TILE: tuple[Colour, Colour] = ((246, 243, 232), (34, 36, 44))
TILE_RIM: tuple[Colour, Colour] = ((40, 90, 200), (200, 40, 40))
TILE_TEXT: tuple[Colour, Colour] = ((20, 20, 24), (245, 245, 245))
TILE_HINT: tuple[Colour, Colour] = ((70, 70, 150), (255, 200, 120))
SIDE_NAMES = ("A (white)", "B (black)")  # how every board, picture and text names the two sides
# The text board's key: its capitals and lower case stand for the white and black tiles of the picture.
LEGEND = f"{SIDE_NAMES[0]} in CAPITALS, {SIDE_NAMES[1]} in lower case; (A)/(B): rank hidden; * last move"


# ----- public helpers ---------------------------------------------------------------------------------------------
def knowledge_label(possible: frozenset[Rank], settings: Settings, ascii_only: bool = False) -> str:
    """A short text for what a viewer has deduced about an enemy piece ('' when nothing beyond the army).

    The ranks an army has are ordered by value (Flag, Spy, Private, ... 5★ General); a run of consecutive
    ranks reads `≥MAJ`, `≤CPT` or `SGT-MAJ`, several runs are joined by `/`.
    """
    army = sorted(set(settings.army))
    known = sorted(r for r in possible if r in army)
    if not known or len(known) == len(army):
        return ""
    if set(army) - set(known) == {Rank.FLAG}:
        # Under show-flag every other piece is known not to be the Flag from the start: no news.
        return "" if settings.show_flag else ("not FLG" if ascii_only else "≠FLG")
    ge, le = (">=", "<=") if ascii_only else ("≥", "≤")
    runs: list[list[Rank]] = []
    for rank in known:
        if runs and army.index(rank) == army.index(runs[-1][-1]) + 1:
            runs[-1].append(rank)
        else:
            runs.append([rank])
    parts = []
    for run in reversed(runs):  # high ranks first
        low, high = run[0], run[-1]
        if low == high:
            parts.append(ABBREVIATIONS[low])
        elif high == army[-1]:
            parts.append(ge + ABBREVIATIONS[low])
        elif low == army[0]:
            parts.append(le + ABBREVIATIONS[high])
        else:
            parts.append(f"{ABBREVIATIONS[low]}-{ABBREVIATIONS[high]}")
    return "/".join(parts)


# ----- the board as the renderer sees it ----------------------------------------------------------------------------
@dataclass(frozen=True)
class _Cell:
    seat: int  # the side the piece belongs to
    text: str  # the rank abbreviation, or '' for a hidden piece
    hint: str  # what the viewer has deduced about a hidden piece ('' if nothing)
    hint_ascii: str


@dataclass(frozen=True)
class _Board:
    bottom: int  # the side whose home edge is drawn at the bottom
    cells: dict[int, _Cell]
    src: int | None
    dst: int | None
    title: str
    status: str
    detail: str
    lost: str
    notes: tuple[str, ...]  # deductions about enemy pieces, for the text board


def _player_board(view: PlayerView) -> _Board:
    seat, enemy = view.seat, 1 - view.seat
    cells: dict[int, _Cell] = {}
    notes: list[str] = []
    if view.reveal is not None:
        cells = _revealed(view.reveal.pieces)
    else:
        for own in view.own:
            cells[_sq(own.square)] = _Cell(seat, ABBREVIATIONS[own.rank], "", "")
        for piece in view.enemy:
            known = sorted(piece.possible)
            if len(known) == 1:
                cells[_sq(piece.square)] = _Cell(enemy, ABBREVIATIONS[known[0]], "", "")
                notes.append(f"{piece.square} {ABBREVIATIONS[known[0]]}")
                continue
            hint = knowledge_label(piece.possible, view.settings)
            cells[_sq(piece.square)] = _Cell(enemy, "", hint, knowledge_label(piece.possible, view.settings, True))
            if hint:
                notes.append(f"{piece.square} {hint}")
    title = f"Game of the Generals - you are side {SIDE_NAMES[seat]}"
    lost = f"Lost: you {view.lost[seat]}, opponent {view.lost[enemy]}"
    if view.own_lost:
        lost += " | yours: " + " ".join(ABBREVIATIONS[r] for r in view.own_lost)
    theirs = [knowledge_label(k, view.settings, True) or "?" for k in view.enemy_lost]
    if theirs:
        lost += " | theirs: " + " ".join(theirs)
    if view.reveal is not None:
        lost = _revealed_lost(view.reveal.lost)
    status = _status(view.phase, view.to_move, view.ply, view.ready, view.outcome, seat)
    src, dst = _last_squares(view.last)
    return _Board(seat, cells, src, dst, title, status, _last_text(view.last, seat), lost, tuple(notes))


def _public_board(view: PublicView) -> _Board:
    if view.reveal is not None:
        cells = _revealed(view.reveal.pieces)
        lost = _revealed_lost(view.reveal.lost)
    else:
        cells = {_sq(p.square): _Cell(p.seat, "", "", "") for p in view.pieces}
        lost = f"Lost: {SIDE_NAMES[0]} {view.lost[0]}, {SIDE_NAMES[1]} {view.lost[1]}"
    status = _status(view.phase, view.to_move, view.ply, view.ready, view.outcome, None)
    src, dst = _last_squares(view.last)
    return _Board(0, cells, src, dst, "Game of the Generals", status, _last_text(view.last, None), lost, ())


def _revealed(pieces: Iterable[RevealedPiece]) -> dict[int, _Cell]:
    return {_sq(p.square): _Cell(p.seat, ABBREVIATIONS[p.rank], "", "") for p in pieces}


def _revealed_lost(lost: tuple[tuple[Rank, ...], tuple[Rank, ...]]) -> str:
    return " | ".join(f"{SIDE_NAMES[s]} lost: " + (" ".join(ABBREVIATIONS[r] for r in lost[s]) or "none")
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


def _side(seat: int, viewer: int | None) -> str:
    if viewer is None:
        return f"Side {SIDE_NAMES[seat]}"
    return "You" if seat == viewer else "Opponent"


# How a game of the Generals can end, in words (shared with the embeds in board.py).
REASONS = {EndReason.FLAG_CAPTURED: "the Flag was captured", EndReason.FLAG_HOME: "the Flag reached the far side",
           EndReason.NO_CHALLENGE_DRAW: "too many moves without a challenge", EndReason.RESIGN: "resignation",
           EndReason.TIMEOUT: "time ran out", EndReason.DRAW_AGREED: "agreement"}


def _status(phase: str, to_move: int | None, ply: int, ready: tuple[bool, bool], outcome: Outcome | None,
            viewer: int | None) -> str:
    if outcome is not None:
        winners = outcome.winners
        result = "Draw" if outcome.is_draw else f"{_side(winners[0], viewer)} won"
        why = REASONS.get(outcome.reason, outcome.reason.value)
        return f"Game over after {ply} move{'' if ply == 1 else 's'}: {result} ({why})"
    if phase == SETUP:
        marks = ", ".join(f"{SIDE_NAMES[s]} {'ready' if ready[s] else 'deploying'}" for s in (0, 1))
        return f"Setup: {marks}"
    mover = "-" if to_move is None else _side(to_move, viewer)
    verb = "to move" if mover != "You" else "to move (your turn)"
    return f"Move {ply + 1}: {mover} {verb}" if to_move is not None else f"Move {ply + 1}"


def _last_text(last: LastMove | None, viewer: int | None) -> str:
    if last is None:
        return ""
    who = _side(last.seat, viewer)
    if last.kind != "move":
        return f"Last: {who} - {last.kind}"
    text = f"Last: {who} {last.src}-{last.dst}"
    if last.challenge is not None:
        text += f", challenge: {last.challenge.value}"
    if last.your_rank is not None:
        text += f" (your {ABBREVIATIONS[last.your_rank]}"
        text += f" vs {ABBREVIATIONS[last.their_rank]})" if last.their_rank is not None else ")"
    elif last.their_rank is not None:
        text += f" (their {ABBREVIATIONS[last.their_rank]})"
    return text


def _grid_order(bottom: int) -> tuple[list[int], list[int]]:
    """Files left to right and ranks top to bottom as the side `bottom` sees them."""
    files = list(range(WIDTH))
    ranks = list(range(HEIGHT, 0, -1))
    if bottom == 1:
        files.reverse()
        ranks.reverse()
    return files, ranks


# ----- PNG ---------------------------------------------------------------------------------------------------------
@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _centred(draw: ImageDraw.ImageDraw, x: float, y: float, text: str, size: int, fill: Colour) -> None:
    draw.text((x, y), text, font=_font(size), fill=fill, anchor="mm")


def _fit(text: str, size: int, width: int) -> int:
    """The largest font size up to `size` at which `text` fits in `width` px."""
    while size > 8 and _font(size).getlength(text) > width:
        size -= 1
    return size


def _png(board: _Board) -> bytes:
    image = Image.new("RGB", (IMAGE_W, IMAGE_H), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, 6), board.title, font=_font(16), fill=LABEL)
    draw.text((MARGIN, 24), board.status, font=_font(_fit(board.status, 14, BOARD_W)), fill=LABEL)
    if board.detail:
        draw.text((MARGIN, 39), board.detail, font=_font(_fit(board.detail, 13, BOARD_W)), fill=(200, 200, 160))
    top, left = HEADER + MARGIN, MARGIN
    files, ranks = _grid_order(board.bottom)
    for col, f in enumerate(files):
        x = left + col * CELL + CELL // 2
        _centred(draw, x, top - MARGIN // 2, FILES[f], 18, LABEL)
        _centred(draw, x, top + BOARD_H + MARGIN // 2, FILES[f], 18, LABEL)
    for row, r in enumerate(ranks):
        y = top + row * CELL + CELL // 2
        _centred(draw, left - MARGIN // 2, y, str(r), 18, LABEL)
        _centred(draw, left + BOARD_W + MARGIN // 2, y, str(r), 18, LABEL)
    for row, r in enumerate(ranks):
        for col, f in enumerate(files):
            sq = (r - 1) * WIDTH + f
            x0, y0 = left + col * CELL, top + row * CELL
            fill = SQUARE_LIGHT if (f + r) % 2 else SQUARE_DARK
            if sq == board.src:
                fill = HIGHLIGHT_FROM
            elif sq == board.dst:
                fill = HIGHLIGHT_TO
            draw.rectangle((x0, y0, x0 + CELL - 1, y0 + CELL - 1), fill=fill, outline=GRID)
            cell = board.cells.get(sq)
            if cell is not None:
                _tile(draw, x0, y0, cell)
    # The line between the two halves (ranks 4 and 5), where the armies meet.
    mid = top + 4 * CELL
    draw.line((left, mid, left + BOARD_W - 1, mid), fill=MIDLINE, width=3)
    draw.rectangle((left - 1, top - 1, left + BOARD_W, top + BOARD_H), outline=MIDLINE, width=2)
    if board.lost:
        draw.text((MARGIN, top + BOARD_H + MARGIN), board.lost, font=_font(_fit(board.lost, 13, BOARD_W)),
                  fill=LABEL)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=6)
    return out.getvalue()


def _tile(draw: ImageDraw.ImageDraw, x0: int, y0: int, cell: _Cell) -> None:
    pad = 7
    box = (x0 + pad, y0 + pad, x0 + CELL - 1 - pad, y0 + CELL - 1 - pad)
    draw.rounded_rectangle(box, radius=8, fill=TILE[cell.seat], outline=TILE_RIM[cell.seat], width=3)
    cx, cy = x0 + CELL / 2, y0 + CELL / 2
    inner = CELL - 2 * pad - 8
    if cell.text:
        _centred(draw, cx, cy, cell.text, _fit(cell.text, 20, inner), TILE_TEXT[cell.seat])
    elif cell.hint_ascii:
        lines = cell.hint_ascii.split("/")
        if len(lines) > 3:
            lines = [*lines[:2], "..."]
        size = min(_fit(line, 13, inner) for line in lines)
        step = size + 1
        y = cy - step * (len(lines) - 1) / 2
        for line in lines:
            _centred(draw, cx, y, line, size, TILE_HINT[cell.seat])
            y += step


def render_player_board(view: PlayerView) -> bytes:
    """The board as `view.seat` sees it, from that side: a PNG."""
    return _png(_player_board(view))


def render_public_board(view: PublicView) -> bytes:
    """The board as the channel sees it, side A at the bottom: a PNG."""
    return _png(_public_board(view))


# ----- text ----------------------------------------------------------------------------------------------------------
TEXT_LIMIT = 1900


def text_board(view: PlayerView | PublicView) -> str:
    """A monospace board for a code block (at most 1900 characters) with the same information as the image.

    Side A's pieces are in capitals and side B's in lower case; a hidden piece shows as `(A)` or `(B)`;
    the last move's squares are marked with `*`.
    """
    board = _player_board(view) if isinstance(view, PlayerView) else _public_board(view)
    files, ranks = _grid_order(board.bottom)
    edge = "    " + "".join(f"  {FILES[f]}  " for f in files)
    lines = [board.title, board.status]
    if board.detail:
        lines.append(board.detail)
    lines.append(edge)
    for r in ranks:
        row = []
        for f in files:
            sq = (r - 1) * WIDTH + f
            cell = board.cells.get(sq)
            if cell is None:
                content = " . "
            elif cell.text:
                content = f"{cell.text:^3}" if cell.seat == 0 else f"{cell.text.lower():^3}"
            else:
                content = f"({'AB'[cell.seat]})"
            mark = "*" if sq in (board.src, board.dst) else " "
            row.append(f"{mark}{content} ")
        lines.append(f"{r:>2}  " + "".join(row) + f"  {r}")
        if r == (5 if board.bottom == 0 else 4):
            lines.append("    " + "-" * (5 * WIDTH))
    lines.append(edge)
    lines.append(LEGEND)
    if board.notes:
        lines.append("Known: " + ", ".join(board.notes))
    if board.lost:
        lines.append(board.lost)
    text = "\n".join(lines)
    if len(text) > TEXT_LIMIT:
        text = text[: TEXT_LIMIT - 3] + "..."
    return text


async def picture(view: PlayerView | PublicView, images: bool) -> tuple[bytes | None, str | None]:
    """The PNG (drawn in a worker thread, off the event loop), or the text board when pictures are off."""
    if not images:
        return None, text_board(view)
    try:
        if isinstance(view, PlayerView):
            return await asyncio.to_thread(render_player_board, view), None
        return await asyncio.to_thread(render_public_board, view), None
    except Exception:  # a picture is a nicety: the text board carries the same information
        log.exception("could not draw a board picture; sending the text board")
        return None, text_board(view)

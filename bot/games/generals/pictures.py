"""Game of the Generals boards as PNG images and as monospace text, drawn only from views.

Nothing here sees the omniscient state: a `PlayerView` carries the viewer's own ranks and deductions, a
`PublicView` carries squares without ranks, and both carry the whole board (`reveal`) once the game is over.
The same view always gives the same bytes. The picture is a plain Salpakan board with white (side A) and black
(side B) pieces bearing their insignia (insignia.py); a piece the viewer cannot see is a blank tile, with what
the viewer has deduced about it written on it. Every text is at least TEXT_MIN px, readable on a phone.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from PIL import Image, ImageDraw

from bot.games.generals.canvas import centred, font, paletted, tally, wrap
from bot.games.generals.insignia import INK, TILE, blank_tile, deduction_label, rank_tile
from games.base import EndReason, Outcome
from games.generals.board import FILES, HEIGHT, WIDTH, parse_square
from games.generals.pieces import ABBREVIATIONS, Rank
from games.generals.rules import Settings
from games.generals.views import SETUP, LastMove, PlayerView, PublicView, RevealedPiece

__all__ = ["SIDE_NAMES", "knowledge_label", "picture", "render_player_board", "render_public_board", "text_board"]

log = logging.getLogger(__name__)

Colour = tuple[int, int, int]

# Discord shows an embed's picture 400-550 px wide on a phone: every text is at least TEXT_MIN px on this
# ~700 px wide image (4 % of its width), so it stays readable once shrunk.
CELL = 70  # px per square
MARGIN = 32  # px for the file letters and rank numbers around the board
TEXT_MIN = 28  # px: the smallest text anywhere on the picture
LINE = 36  # px from one header or footer line to the next
HEADER = 2 * LINE + 10  # px for the status and last-move lines above the board
FOOTER = 2 * LINE + 8  # px for the lost-pieces lines under the board
TILE_PAD = 3  # px between a piece and the edge of its square
BOARD_W, BOARD_H = WIDTH * CELL, HEIGHT * CELL
IMAGE_W = BOARD_W + 2 * MARGIN
IMAGE_H = HEADER + BOARD_H + 2 * MARGIN + FOOTER

BACKGROUND: Colour = (38, 42, 48)
LABEL: Colour = (235, 235, 235)
DETAIL: Colour = (236, 214, 150)
BOARD: Colour = (176, 160, 122)  # one plain colour, as a Salpakan board: no chequerboard
GRID: Colour = (112, 98, 68)
MIDLINE: Colour = (62, 52, 34)
HIGHLIGHT_FROM: Colour = (240, 214, 80)
HIGHLIGHT_TO: Colour = (255, 140, 40)
CHALLENGE: Colour = (222, 62, 48)  # the square of the last move when it was a challenge
SELECTED: Colour = (96, 196, 255)  # a piece the player has picked and not moved yet
HINT: tuple[Colour, Colour] = ((36, 52, 150), (255, 204, 110))  # deductions on a hidden white or black tile
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
    rank: Rank | None  # None for a piece whose rank the viewer does not know
    text: str  # the rank abbreviation, or '' for a hidden piece
    hint: str  # what the viewer has deduced about a hidden piece ('' if nothing)
    hint_ascii: str


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
    footer: tuple[str, ...]  # the lost pieces in at most two lines, for the picture


def _player_board(view: PlayerView) -> _Board:
    seat, enemy = view.seat, 1 - view.seat
    cells: dict[int, _Cell] = {}
    notes: list[str] = []
    if view.reveal is not None:
        cells = _revealed(view.reveal.pieces)
    else:
        for own in view.own:
            cells[_sq(own.square)] = _Cell(seat, own.rank, ABBREVIATIONS[own.rank], "", "")
        for piece in view.enemy:
            known = sorted(piece.possible)
            if len(known) == 1:
                cells[_sq(piece.square)] = _Cell(enemy, known[0], ABBREVIATIONS[known[0]], "", "")
                notes.append(f"{piece.square} {ABBREVIATIONS[known[0]]}")
                continue
            hint = knowledge_label(piece.possible, view.settings)
            ascii_hint = knowledge_label(piece.possible, view.settings, True)
            cells[_sq(piece.square)] = _Cell(enemy, None, "", hint, ascii_hint)
            if hint:
                notes.append(f"{piece.square} {hint}")
    title = f"Game of the Generals - you are side {SIDE_NAMES[seat]}"
    lost = f"Lost: you {view.lost[seat]}, opponent {view.lost[enemy]}"
    if view.own_lost:
        lost += " | yours: " + " ".join(ABBREVIATIONS[r] for r in view.own_lost)
    theirs = [knowledge_label(k, view.settings, True) or "?" for k in view.enemy_lost]
    if theirs:
        lost += " | theirs: " + " ".join(theirs)
    yours = [ABBREVIATIONS[r] for r in view.own_lost]
    footer: tuple[str, ...] = (f"You lost {view.lost[seat]}" + (": " if yours else "") + " ".join(yours),
                               f"Opponent lost {view.lost[enemy]}" + (": " if theirs else "") + " ".join(theirs))
    if view.reveal is not None:
        lost = _revealed_lost(view.reveal.lost)
        footer = tuple(lost.split(" | "))
    status = _status(view.phase, view.to_move, view.ply, view.ready, view.outcome, seat)
    src, dst = _last_squares(view.last)
    return _Board(seat, cells, src, dst, _challenged(view.challenge), title, status, _last_text(view.last, seat),
                  lost, tuple(notes), footer)


def _public_board(view: PublicView) -> _Board:
    if view.reveal is not None:
        cells = _revealed(view.reveal.pieces)
        lost = _revealed_lost(view.reveal.lost)
    else:
        cells = {_sq(p.square): _Cell(p.seat, None, "", "", "") for p in view.pieces}
        lost = f"Lost: {SIDE_NAMES[0]} {view.lost[0]}, {SIDE_NAMES[1]} {view.lost[1]}"
    status = _status(view.phase, view.to_move, view.ply, view.ready, view.outcome, None)
    src, dst = _last_squares(view.last)
    return _Board(0, cells, src, dst, _challenged(view.challenge), "Game of the Generals", status,
                  _last_text(view.last, None), lost, (), tuple(lost.split(" | ")))


def _revealed(pieces: Iterable[RevealedPiece]) -> dict[int, _Cell]:
    return {_sq(p.square): _Cell(p.seat, p.rank, ABBREVIATIONS[p.rank], "", "") for p in pieces}


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


def _challenged(challenge: LastMove | None) -> int | None:
    """The square the latest challenge took place on."""
    if challenge is None or challenge.kind != "move" or challenge.dst is None:
        return None
    return parse_square(challenge.dst)


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
def _text_block(draw: ImageDraw.ImageDraw, y: int, parts: Iterable[tuple[str, Colour]], share: bool) -> None:
    """Up to two lines at TEXT_MIN px from `y`, each part starting a line. A part wraps onto the next line when
    that is free; with `share`, a long first part never hides the second (each gets a line), without it the
    first part comes first."""
    shown = [(text, colour) for text, colour in parts if text][:2]
    room = 2
    for i, (text, colour) in enumerate(shown):
        if room == 0:
            break
        for line in wrap(text, TEXT_MIN, IMAGE_W - 2 * 12, room - (len(shown) - 1 - i) if share else room):
            draw.text((12, y), line, font=font(TEXT_MIN), fill=colour)
            y += LINE
            room -= 1


@cache
def _empty_board(bottom: int) -> Image.Image:
    """The background, the plain board and its coordinates as side `bottom` sees them: drawn once, then copied."""
    image = Image.new("RGB", (IMAGE_W, IMAGE_H), BACKGROUND)
    draw = ImageDraw.Draw(image)
    top, left = HEADER + MARGIN, MARGIN
    files, ranks = _grid_order(bottom)
    for col, f in enumerate(files):
        x = left + col * CELL + CELL // 2
        centred(draw, x, top - MARGIN // 2, FILES[f], TEXT_MIN, LABEL)
        centred(draw, x, top + BOARD_H + MARGIN // 2, FILES[f], TEXT_MIN, LABEL)
    for row, r in enumerate(ranks):
        y = top + row * CELL + CELL // 2
        centred(draw, left - MARGIN // 2, y, str(r), TEXT_MIN, LABEL)
        centred(draw, left + BOARD_W + MARGIN // 2, y, str(r), TEXT_MIN, LABEL)
    draw.rectangle((left, top, left + BOARD_W - 1, top + BOARD_H - 1), fill=BOARD)
    return image


def _png(board: _Board, selected: int | None = None) -> bytes:
    image = _empty_board(board.bottom).copy()
    draw = ImageDraw.Draw(image)
    _text_block(draw, 6, ((board.status, LABEL), (board.detail, DETAIL)), share=False)
    top, left = HEADER + MARGIN, MARGIN
    files, ranks = _grid_order(board.bottom)
    # Later entries win a square: a challenge's red over the last move's colour, the player's pick over all.
    marks = {board.src: HIGHLIGHT_FROM, board.dst: HIGHLIGHT_TO, board.challenge: CHALLENGE, selected: SELECTED}
    for row, r in enumerate(ranks):
        for col, f in enumerate(files):
            sq = (r - 1) * WIDTH + f
            x0, y0 = left + col * CELL, top + row * CELL
            mark = marks.get(sq)
            if mark is not None:
                draw.rectangle((x0, y0, x0 + CELL - 1, y0 + CELL - 1), fill=mark)
            cell = board.cells.get(sq)
            if cell is not None:
                _piece(image, x0, y0, cell)
                if mark is not None:  # a frame over the tile's edge: the mark shows around a piece too
                    draw.rectangle((x0, y0, x0 + CELL - 1, y0 + CELL - 1), outline=mark, width=TILE_PAD + 3)
    for i in range(1, WIDTH):
        draw.line((left + i * CELL, top, left + i * CELL, top + BOARD_H - 1), fill=GRID, width=2)
    for i in range(1, HEIGHT):
        draw.line((left, top + i * CELL, left + BOARD_W - 1, top + i * CELL), fill=GRID, width=2)
    # The line between the two halves (ranks 4 and 5), where the armies meet.
    mid = top + 4 * CELL
    draw.line((left, mid, left + BOARD_W - 1, mid), fill=MIDLINE, width=4)
    draw.rectangle((left - 2, top - 2, left + BOARD_W + 1, top + BOARD_H + 1), outline=MIDLINE, width=3)
    _text_block(draw, top + BOARD_H + MARGIN + 4, ((tally(line), LABEL) for line in board.footer), share=True)
    out = io.BytesIO()
    paletted(image, EXACT).save(out, format="PNG", optimize=False, compress_level=4)
    return out.getvalue()


# The flat colours of the picture, kept exact through its palette.
EXACT = (BACKGROUND, LABEL, DETAIL, BOARD, GRID, MIDLINE, HIGHLIGHT_FROM, HIGHLIGHT_TO, CHALLENGE, SELECTED, *TILE,
          *INK, *HINT)


def _piece(image: Image.Image, x0: int, y0: int, cell: _Cell) -> None:
    size = CELL - 2 * TILE_PAD
    tile = blank_tile(size, cell.seat) if cell.rank is None else rank_tile(size, cell.seat, cell.rank)
    image.paste(tile, (x0 + TILE_PAD, y0 + TILE_PAD), tile)
    if cell.rank is None and cell.hint:
        label = deduction_label(cell.hint, cell.hint_ascii, size - 8)
        left, top = x0 + (CELL - label.width) // 2, y0 + (CELL - label.height) // 2
        image.paste(HINT[cell.seat], (left, top, left + label.width, top + label.height), label)


def render_player_board(view: PlayerView, selected: str | None = None) -> bytes:
    """The board as `view.seat` sees it, from that side: a PNG; `selected` is a square to mark as picked."""
    return _png(_player_board(view), None if selected is None else parse_square(selected))


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


async def picture(view: PlayerView | PublicView, images: bool,
                  selected: str | None = None) -> tuple[bytes | None, str | None]:
    """The PNG (drawn in a worker thread, off the event loop), or the text board when pictures are off;
    `selected` marks the square of a piece the player has picked (their own board only)."""
    if not images:
        return None, text_board(view)
    try:
        if isinstance(view, PlayerView):
            return await asyncio.to_thread(render_player_board, view, selected), None
        return await asyncio.to_thread(render_public_board, view), None
    except Exception:  # a picture is a nicety: the text board carries the same information
        log.exception("could not draw a board picture; sending the text board")
        return None, text_board(view)

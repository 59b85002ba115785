"""Game of the Generals pieces as small pictures: a white or black tile bearing its rank's insignia.

The insignia follow the Philippine Army's, as on a Salpakan set: five to one stars for the generals, three to
one seven-ray Magdalo suns for the field officers, three to one Magdalo triangles for the company officers,
chevrons for the sergeant (three) and the private (one), a pair of eyes for the spy and the flag of the
Philippines for the flag. Each tile is drawn once per process at four times its size and scaled down, so the
shapes are smooth and every board only pastes finished tiles (fast, and the same bytes every time).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

from PIL import Image, ImageDraw

from bot.games.generals.canvas import bold
from games.generals.pieces import Rank

__all__ = ["FLAG_COLOURS", "INK", "TILE", "TILE_COLOURS", "TILE_EDGE", "TILE_EDGES", "blank_tile", "piece_mark",
           "rank_tile"]

Colour = tuple[int, int, int]
Point = tuple[float, float]

# Side A plays white pieces, side B black ones (rules page); the insignia are printed in the other colour.
TILE: tuple[Colour, Colour] = ((246, 244, 236), (28, 29, 33))
TILE_EDGE: tuple[Colour, Colour] = ((90, 88, 80), (0, 0, 0))
INK: tuple[Colour, Colour] = ((24, 24, 28), (240, 238, 228))
FLAG_BLUE: Colour = (0, 56, 168)
FLAG_RED: Colour = (206, 17, 38)
FLAG_WHITE: Colour = (255, 255, 255)
FLAG_SUN: Colour = (252, 209, 22)
# Every flat colour of a tile, and the pairs that meet at an anti-aliased edge inside one (for the picture's palette).
FLAG_COLOURS = (FLAG_BLUE, FLAG_RED, FLAG_WHITE, FLAG_SUN)
TILE_COLOURS = (*TILE, *TILE_EDGE, *INK, *FLAG_COLOURS)
TILE_EDGES: tuple[tuple[Colour, Colour], ...] = (
    *((INK[s], TILE[s]) for s in (0, 1)), *((TILE_EDGE[s], TILE[s]) for s in (0, 1)),
    (FLAG_BLUE, FLAG_RED), (FLAG_WHITE, FLAG_BLUE), (FLAG_WHITE, FLAG_RED), (FLAG_SUN, FLAG_WHITE),
    *((INK[s], flag) for s in (0, 1) for flag in (FLAG_BLUE, FLAG_RED, FLAG_WHITE)),
)

SCALE = 4  # tiles are drawn this many times larger, then scaled down: smooth edges without per-shape anti-aliasing


def _star(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, ink: Colour) -> None:
    points = []
    for i in range(10):
        radius = r if i % 2 == 0 else r * 0.40
        angle = -math.pi / 2 + i * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    draw.polygon(points, fill=ink)


def _sun(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, ink: Colour, paper: Colour) -> None:
    """The Magdalo sun: a disc ringed by seven pointed rays, with an eye of the tile's colour at its centre."""
    for i in range(7):
        angle = -math.pi / 2 + i * 2 * math.pi / 7
        half = math.pi / 9
        base = r * 0.52
        draw.polygon([(cx + base * math.cos(angle - half), cy + base * math.sin(angle - half)),
                      (cx + r * math.cos(angle), cy + r * math.sin(angle)),
                      (cx + base * math.cos(angle + half), cy + base * math.sin(angle + half))], fill=ink)
    disc = r * 0.56
    draw.ellipse((cx - disc, cy - disc, cx + disc, cy + disc), fill=ink)
    hole = r * 0.22
    draw.ellipse((cx - hole, cy - hole, cx + hole, cy + hole), fill=paper)


def _triangle(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, ink: Colour, paper: Colour) -> None:
    """The Magdalo triangle: an equilateral triangle with a smaller one (the emblem, simplified) inside."""
    def corners(radius: float) -> list[Point]:
        return [(cx + radius * math.cos(a), cy + radius * 0.15 + radius * math.sin(a))
                for a in (-math.pi / 2, math.pi / 6, 5 * math.pi / 6)]
    draw.polygon(corners(r), fill=ink)
    draw.polygon(corners(r * 0.62), fill=paper)
    draw.polygon(corners(r * 0.30), fill=ink)


def _chevron(draw: ImageDraw.ImageDraw, cx: float, cy: float, w: float, thick: float, ink: Colour) -> None:
    """A chevron pointing up, as the enlisted ranks wear them."""
    h = w * 0.42
    top, bottom = cy - h / 2, cy + h / 2
    draw.polygon([(cx - w / 2, bottom), (cx, top), (cx + w / 2, bottom), (cx + w / 2, bottom + thick),
                  (cx, top + thick * 1.15), (cx - w / 2, bottom + thick)], fill=ink)


def _eye(draw: ImageDraw.ImageDraw, cx: float, cy: float, w: float, ink: Colour, paper: Colour) -> None:
    """An almond eye with its iris and pupil."""
    h = w * 0.62
    outline = []
    for i in range(41):  # the two lids: arcs of a sine, meeting at the corners of the eye
        t = i / 40
        outline.append((cx - w / 2 + w * t, cy - h / 2 * math.sin(math.pi * t)))
    for i in range(41):
        t = 1 - i / 40
        outline.append((cx - w / 2 + w * t, cy + h / 2 * math.sin(math.pi * t)))
    draw.polygon(outline, fill=ink)
    inner = [(cx + (x - cx) * 0.80, cy + (y - cy) * 0.72) for x, y in outline]
    draw.polygon(inner, fill=paper)
    iris = h * 0.34
    draw.ellipse((cx - iris, cy - iris, cx + iris, cy + iris), fill=ink)
    pupil = iris * 0.38
    draw.ellipse((cx - pupil - iris * 0.25, cy - pupil - iris * 0.25, cx + pupil - iris * 0.25,
                  cy + pupil - iris * 0.25), fill=paper)


def _flag(draw: ImageDraw.ImageDraw, s: float, ink: Colour) -> None:
    """The flag of the Philippines on a staff: blue over red, a white triangle at the hoist with the sun."""
    left, top, right, bottom = 0.30 * s, 0.24 * s, 0.84 * s, 0.60 * s
    staff = 0.035 * s
    draw.rectangle((left - 2 * staff, 0.18 * s, left - staff, 0.86 * s), fill=ink)
    draw.rectangle((left - 2 * staff - staff, 0.84 * s, left + staff, 0.88 * s), fill=ink)
    middle = (top + bottom) / 2
    draw.rectangle((left, top, right, middle), fill=FLAG_BLUE)
    draw.rectangle((left, middle, right, bottom), fill=FLAG_RED)
    tip = left + (bottom - top) * 0.87
    draw.polygon([(left, top), (tip, middle), (left, bottom)], fill=FLAG_WHITE)
    draw.line([(left, top), (tip, middle), (left, bottom)], fill=ink, width=max(1, round(0.012 * s)))
    sun = 0.045 * s
    sx = left + (tip - left) * 0.36
    draw.ellipse((sx - sun, middle - sun, sx + sun, middle + sun), fill=FLAG_SUN)
    draw.rectangle((left, top, right, bottom), outline=ink, width=max(1, round(0.012 * s)))


# Where n equal emblems sit on a tile (fractions of its side) and how large they are: one big in the middle,
# two side by side, three as a triangle, four in a square, five as three over two.
_LAYOUTS: dict[int, tuple[float, tuple[Point, ...]]] = {
    1: (0.34, ((0.5, 0.5),)),
    2: (0.22, ((0.28, 0.5), (0.72, 0.5))),
    3: (0.20, ((0.5, 0.29), (0.28, 0.70), (0.72, 0.70))),
    4: (0.18, ((0.30, 0.30), (0.70, 0.30), (0.30, 0.70), (0.70, 0.70))),
    5: (0.155, ((0.19, 0.33), (0.5, 0.33), (0.81, 0.33), (0.33, 0.69), (0.67, 0.69))),
}

_STARS = {Rank.GENERAL_5: 5, Rank.GENERAL_4: 4, Rank.GENERAL_3: 3, Rank.GENERAL_2: 2, Rank.GENERAL_1: 1}
_SUNS = {Rank.COLONEL: 3, Rank.LIEUTENANT_COLONEL: 2, Rank.MAJOR: 1}
_TRIANGLES = {Rank.CAPTAIN: 3, Rank.FIRST_LIEUTENANT: 2, Rank.SECOND_LIEUTENANT: 1}


def _emblems(count: int, s: float, emblem: Callable[[float, float, float], None]) -> None:
    size, spots = _LAYOUTS[count]
    for x, y in spots:
        emblem(x * s, y * s, size * s)


def _insignia(draw: ImageDraw.ImageDraw, rank: Rank, s: float, ink: Colour, paper: Colour) -> None:
    if rank in _STARS:
        _emblems(_STARS[rank], s, lambda x, y, r: _star(draw, x, y, r, ink))
    elif rank in _SUNS:
        _emblems(_SUNS[rank], s, lambda x, y, r: _sun(draw, x, y, r * 0.95, ink, paper))
    elif rank in _TRIANGLES:
        _emblems(_TRIANGLES[rank], s, lambda x, y, r: _triangle(draw, x, y, r, ink, paper))
    elif rank == Rank.SERGEANT:
        for y in (0.30, 0.48, 0.66):
            _chevron(draw, 0.5 * s, y * s, 0.56 * s, 0.085 * s, ink)
    elif rank == Rank.PRIVATE:
        _chevron(draw, 0.5 * s, 0.46 * s, 0.62 * s, 0.11 * s, ink)
    elif rank == Rank.SPY:
        _eye(draw, 0.27 * s, 0.52 * s, 0.41 * s, ink, paper)
        _eye(draw, 0.73 * s, 0.52 * s, 0.41 * s, ink, paper)
    else:
        _flag(draw, s, ink)


def _tile(size: int, seat: int, rank: Rank | None) -> Image.Image:
    big = size * SCALE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    rim = max(1, round(big * 0.035))
    draw.rounded_rectangle((0, 0, big - 1, big - 1), radius=round(big * 0.12), fill=TILE[seat],
                           outline=TILE_EDGE[seat], width=rim)
    if rank is not None:
        _insignia(draw, rank, big, INK[seat], TILE[seat])
    # BOX averages each SCALE x SCALE block: the exact coverage, without the ringing of sharper filters (each ring
    # is one more colour on every edge, which the picture's palette and its PNG pay for).
    return image.resize((size, size), Image.Resampling.BOX)


@cache
def rank_tile(size: int, seat: int, rank: Rank) -> Image.Image:
    """A `size` px square RGBA tile of side `seat` showing `rank`'s insignia (drawn once per process)."""
    return _tile(size, seat, rank)


@cache
def blank_tile(size: int, seat: int) -> Image.Image:
    """A tile of side `seat` with its face turned away: no insignia."""
    return _tile(size, seat, None)


# ----- the mark on a hidden piece ------------------------------------------------------------------------------
MARK_SIZE = 36  # px: the number on a hidden piece that points to what is known of it (the picture's key says what)


@cache
def piece_mark(text: str) -> Image.Image:
    """The number on a hidden piece the viewer knows something about, as a mask (bold, `MARK_SIZE` px)."""
    face = bold(MARK_SIZE)
    left, top, right, bottom = face.getbbox(text)
    mask = Image.new("L", (int(right - left) + 2, int(bottom - top) + 2), 0)
    ImageDraw.Draw(mask).text((1 - left, 1 - top), text, font=face, fill=255)
    return mask

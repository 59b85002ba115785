"""The legend of the Game of the Generals pictures (the **Ranks** button): every rank's insignia with its name in the
reader's language, strongest first, and a key to the colours and marks a board picture uses.

Drawn with the same tiles (insignia.py), fonts and palette (pictures.py) as the boards, so the insignia look exactly
as they do on a board; it depends only on the language, so each process draws it once per language.
"""

from __future__ import annotations

from functools import cache

from PIL import Image, ImageDraw

from bot.games.generals.canvas import drawable, measure, text_line, wrap
from bot.games.generals.encode import png
from bot.games.generals.insignia import TILE, blank_tile, piece_mark, rank_tile
from bot.games.generals.pictures import (
    BACKGROUND,
    CHALLENGE,
    DETAIL,
    HIGHLIGHT_FROM,
    HIGHLIGHT_TO,
    HINT,
    IMAGE_W,
    LABEL,
    PALETTE,
    PICK_EDGE,
    PNG_LEVEL,
    SELECTED,
    SQUARE_FILL,
    TEXT_MIN,
    TEXT_X,
)
from bot.i18n import SOURCE, Say
from games.generals.pieces import Rank
from games.text import Text

__all__ = ["LEGEND_NAME", "legend_lines", "render_legend"]

LEGEND_NAME = "ranks.png"  # the legend's attachment
TILE_SIZE = 60  # px: a piece in the legend (64 on a board)
ROW = 72  # px from one rank to the next
NAME_LINE = 31  # px between the two lines of a long rank name
COLUMN = IMAGE_W // 2
STRONGEST_FIRST = sorted(Rank, reverse=True)
SWATCH = 44  # px: a colour of the key


def legend_lines() -> list[Text]:
    """What the picture cannot say: how a challenge is decided."""
    return [Text("A challenge eliminates the lower rank; equal ranks eliminate each other."),
            Text("The Spy eliminates every officer, Sergeant and up, but a Private eliminates the Spy."),
            Text("Any piece captures the Flag, and wins the game.")]


def render_legend(language: str = SOURCE) -> bytes:
    """The legend as a PNG with its texts in `language` (the same bytes every time for a language)."""
    return _legend(drawable(language))


@cache
def _legend(language: str) -> bytes:
    say = Say(language)
    names = [_name_lines(say(rank.title), language) for rank in STRONGEST_FIRST]
    per_column = (len(STRONGEST_FIRST) + 1) // 2
    key = [(HIGHLIGHT_FROM, Text("Last move: where the piece came from")),
           (HIGHLIGHT_TO, Text("Last move: where it went")),
           (CHALLENGE, Text("The latest challenge")),
           (SELECTED, Text("Your picked piece")),
           (SQUARE_FILL, Text("Where it can go (corners: a challenge)")),
           (TILE[1], Text("A hidden piece you know something about: the key under the board says what"))]
    key_lines = [wrap(say(text), TEXT_MIN, IMAGE_W - 2 * TEXT_X - SWATCH - 16, 99, language) for _, text in key]
    title = wrap(say(Text("Ranks, strongest first")), TEXT_MIN, IMAGE_W - 2 * TEXT_X, 99, language)
    top = 10 + len(title) * 36 + 6
    ranks_h = per_column * ROW
    key_top = top + ranks_h + 20
    key_title = wrap(say(Text("Colours and marks on the board")), TEXT_MIN, IMAGE_W - 2 * TEXT_X, 99, language)
    height = key_top + len(key_title) * 36 + sum(max(SWATCH + 12, len(lines) * 36 + 8) for lines in key_lines) + 8
    image = Image.new("RGB", (IMAGE_W, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(title):
        text_line(image, TEXT_X, 10 + i * 36, line, TEXT_MIN, LABEL, language)
    for i, (rank, lines) in enumerate(zip(STRONGEST_FIRST, names, strict=True)):
        x, y = (i // per_column) * COLUMN + TEXT_X, top + (i % per_column) * ROW
        tile = rank_tile(TILE_SIZE, 0, rank)
        image.paste(tile, (x, y + (ROW - TILE_SIZE) // 2), tile)
        first = y + (ROW - len(lines) * NAME_LINE) // 2 - 4
        for j, line in enumerate(lines):
            text_line(image, x + TILE_SIZE + 12, first + j * NAME_LINE, line, TEXT_MIN, LABEL, language)
    y = key_top
    for line in key_title:
        text_line(image, TEXT_X, y, line, TEXT_MIN, DETAIL, language)
        y += 36
    for (colour, _), lines in zip(key, key_lines, strict=True):
        box = (TEXT_X, y + 4, TEXT_X + SWATCH - 1, y + 4 + SWATCH - 1)
        _swatch(image, draw, box, colour)
        for j, line in enumerate(lines):
            text_line(image, TEXT_X + SWATCH + 16, y + 8 + j * 36, line, TEXT_MIN, LABEL, language)
        y += max(SWATCH + 12, len(lines) * 36 + 8)
    return png(PALETTE.convert(image), PNG_LEVEL)


def _swatch(image: Image.Image, draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int],
            colour: tuple[int, ...]) -> None:
    """One entry's sample, drawn as the board draws it."""
    left, top, right, bottom = box
    if colour == SELECTED:  # the picked piece's frame
        draw.rectangle(box, fill=TILE[0], outline=PICK_EDGE, width=3)
        draw.rectangle((left + 3, top + 3, right - 3, bottom - 3), outline=SELECTED, width=5)
    elif colour == SQUARE_FILL:  # a dot where the picked piece can go
        draw.rectangle(box, fill=SQUARE_FILL)
        c, r = (left + right) // 2, 11
        draw.ellipse((c - r, (top + bottom) // 2 - r, c + r, (top + bottom) // 2 + r), fill=PICK_EDGE)
        draw.ellipse((c - r + 3, (top + bottom) // 2 - r + 3, c + r - 3, (top + bottom) // 2 + r - 3), fill=SELECTED)
    elif colour == TILE[1]:  # a hidden piece with a number
        tile = blank_tile(SWATCH, 1)
        image.paste(tile, (left, top), tile)
        mark = piece_mark("1")
        x, y = left + (SWATCH - mark.width) // 2, top + (SWATCH - mark.height) // 2
        image.paste(HINT[1], (x, y, x + mark.width, y + mark.height), mark)
    else:
        draw.rectangle(box, fill=colour)


def _name_lines(name: str, language: str) -> list[str]:
    """A rank's name in one line, or two where it is too long for its column."""
    width = COLUMN - TEXT_X - TILE_SIZE - 20
    return [name] if measure(name, TEXT_MIN, language) <= width else wrap(name, TEXT_MIN, width, 2, language)

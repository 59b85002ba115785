"""Drawing helpers for the board pictures: the font, text that wraps and tallies, the fixed palette and the PNG."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterable
from functools import cache
from itertools import groupby
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.i18n import SOURCE

__all__ = ["FixedPalette", "centred", "drawable", "font", "png", "tally", "wrap"]

Colour = tuple[int, int, int]
Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
log = logging.getLogger(__name__)

# Pillow's own font (Aileron) has Latin letters only: a language written in other letters (Russian) is drawn in
# DejaVu Sans, which most systems have (Debian and Ubuntu: fonts-dejavu-core). Where it is missing, pictures keep
# their texts in English (`drawable`) rather than show empty boxes.
LATIN_LANGUAGES = frozenset({SOURCE})
UNICODE_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/dejavu/DejaVuSans.ttf",
                 "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf")


@cache
def _unicode_font() -> str | None:
    """The path of a font with Cyrillic letters on this system, if any."""
    found = next((path for path in UNICODE_FONTS if Path(path).is_file()), None)
    if found is None:
        log.warning("no DejaVu Sans font found (%s): board pictures are drawn with English texts",
                    ", ".join(UNICODE_FONTS))
    return found


def drawable(language: str) -> str:
    """The language a picture's texts are drawn in: `language`, or English when no font here has its letters."""
    return language if language in LATIN_LANGUAGES or _unicode_font() is not None else SOURCE


@cache
def font(size: int, language: str = SOURCE) -> Font:
    """The face for texts in `language` (the same font file everywhere, so the same bytes for the same text)."""
    path = None if language in LATIN_LANGUAGES else _unicode_font()
    return ImageFont.truetype(path, size) if path is not None else ImageFont.load_default(size=size)


def wrap(text: str, size: int, width: int, max_lines: int, language: str = SOURCE) -> list[str]:
    """`text` in lines of at most `width` px, broken between words; an ellipsis ends what does not fit."""
    face = font(size, language)
    lines: list[str] = []
    for word in text.split(" "):
        if lines and face.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        while lines[-1] and face.getlength(lines[-1] + "…") > width:
            lines[-1] = lines[-1][:-1]
        lines[-1] += "…"
    return lines


class FixedPalette:
    """Every picture's colours, chosen in advance: the flat colours exactly, and a few shades between each pair of
    colours that meet at an anti-aliased edge (text on the background, ink on a tile, a tile's rim on its square).

    One palette for every part of every picture means a part is converted once, cached, and pasted as palette
    indices: no picture is quantized as a whole (that was most of the time a picture took). Few shades per edge
    also keep the PNG small, and a fixed palette gives the same bytes for the same picture in any process."""

    def __init__(self, flat: Iterable[Colour], edges: Iterable[tuple[Colour, Colour]], shades: int) -> None:
        colours = list(flat)
        for ink, paper in edges:
            for step in range(1, shades + 1):
                share = step / (shades + 1)
                red, green, blue = (round(i * share + p * (1 - share)) for i, p in zip(ink, paper, strict=True))
                colours.append((red, green, blue))
        self.colours: tuple[Colour, ...] = tuple(dict.fromkeys(colours))
        if len(self.colours) > 256:
            raise ValueError(f"a PNG palette holds 256 colours, not {len(self.colours)}")
        self._carrier = Image.new("P", (1, 1))
        self._carrier.putpalette([value for colour in self.colours for value in colour])

    def index(self, colour: Colour) -> int:
        """The palette index of one of the flat colours (to draw with on a converted image)."""
        return self.colours.index(colour)

    def convert(self, image: Image.Image) -> Image.Image:
        """An RGB image in this palette: each pixel becomes the nearest colour (the flat colours stay exact)."""
        return image.quantize(palette=self._carrier, dither=Image.Dither.NONE)

    def new(self, size: tuple[int, int], colour: Colour) -> Image.Image:
        """A blank image in this palette."""
        image = Image.new("P", size, self.index(colour))
        image.putpalette(self._carrier.getpalette() or [])
        return image


def png(image: Image.Image, level: int) -> bytes:
    """`image` (in a palette) as PNG bytes, deflated at `level`."""
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False, compress_level=level)
    return out.getvalue()


def tally(text: str) -> str:
    """`PVT PVT PVT` as `PVT x3`, so that lists of lost pieces fit a line of the picture."""
    runs = [(word, len(list(group))) for word, group in groupby(text.split(" "))]
    return " ".join(word if count == 1 else f"{word} x{count}" for word, count in runs)


def centred(draw: ImageDraw.ImageDraw, x: float, y: float, text: str, size: int, fill: Colour) -> None:
    draw.text((x, y), text, font=font(size), fill=fill, anchor="mm")

"""Drawing helpers for the board pictures: the font, text that wraps and tallies, the fixed palette and the PNG."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.i18n import SOURCE

__all__ = ["FixedPalette", "bold", "centred", "drawable", "font", "loaded_sizes", "measure", "text_line", "wrap"]

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


# Pillow's own font lacks a few signs our texts use: it draws these instead.
PILLOW_SPELLING = str.maketrans({"\N{MULTIPLICATION SIGN}": "x", "\N{EN DASH}": "-", "\N{EM DASH}": "-", "★": "*",
                                 "≥": ">=", "≤": "<="})


def drawable(language: str) -> str:
    """The language a picture's texts are drawn in: `language`, or English when no font here has its letters."""
    return language if language in LATIN_LANGUAGES or _unicode_font() is not None else SOURCE


# A bold condensed face for the marks on pieces; where the system lacks it, Pillow's own font draws them.
BOLD_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf"
_LOADED: set[tuple[str, int]] = set()


def _face(path: str | None, size: int) -> Font:
    """Every face a picture draws with is loaded here, so the sizes in use are known (`loaded_sizes`)."""
    _LOADED.add((path or "Pillow's own", size))
    if path is not None:
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            pass
    return ImageFont.load_default(size=size)


def loaded_sizes() -> frozenset[int]:
    """The font sizes (px, the em) of every face loaded for pictures in this process so far."""
    return frozenset(size for _, size in _LOADED)


@cache
def font(size: int, language: str = SOURCE) -> Font:
    """The face for texts in `language` (the same font file everywhere, so the same bytes for the same text)."""
    return _face(None if language in LATIN_LANGUAGES else _unicode_font(), size)


@cache
def bold(size: int) -> Font:
    """The bold condensed face of the marks on pieces (digits: any font has them)."""
    return _face(BOLD_FONT, size)


def measure(text: str, size: int, language: str = SOURCE) -> float:
    """How wide `text_line` draws `text`, in px."""
    space = font(size, language).getlength(" ")
    words = text.split(" ")
    return sum(_word(word, size, language)[3] for word in words if word) + space * (len(words) - 1)


def wrap(text: str, size: int, width: int, max_lines: int, language: str = SOURCE) -> list[str]:
    """`text` in lines of at most `width` px, broken between words; an ellipsis ends what does not fit. Lines are
    measured as `text_line` draws them: word by word, from the words' cached advances (measuring whole lines
    again and again was a good part of the time a new header took)."""
    face = font(size, language)
    space = face.getlength(" ")
    lines: list[str] = []
    line: list[str] = []
    used = 0.0
    for word in text.split(" "):
        advance = _word(word, size, language)[3] if word else 0.0
        if line and used + space + advance <= width:
            line.append(word)
            used += space + advance
        else:
            if line:
                lines.append(" ".join(line))
            line, used = [word], advance
    lines.append(" ".join(line))
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
        self._edges = tuple(edges)
        self._shades = shades
        for ink, paper in self._edges:
            colours += self._between(ink, paper)
        self.colours: tuple[Colour, ...] = tuple(dict.fromkeys(colours))
        if len(self.colours) > 256:
            raise ValueError(f"a PNG palette holds 256 colours, not {len(self.colours)}")
        self._carrier = Image.new("P", (1, 1))
        self._carrier.putpalette([value for colour in self.colours for value in colour])
        self._parts: dict[tuple[Colour, ...], tuple[Image.Image, bytes]] = {}

    def _between(self, ink: Colour, paper: Colour) -> list[Colour]:
        """The shades of an anti-aliased edge of `ink` on `paper`."""
        shades = []
        for step in range(1, self._shades + 1):
            share = step / (self._shades + 1)
            red, green, blue = (round(i * share + p * (1 - share)) for i, p in zip(ink, paper, strict=True))
            shades.append((red, green, blue))
        return shades

    def index(self, colour: Colour) -> int:
        """The palette index of one of the flat colours (to draw with on a converted image)."""
        return self.colours.index(colour)

    def convert(self, image: Image.Image, colours: Iterable[Colour] | None = None) -> Image.Image:
        """An RGB image in this palette: each pixel becomes the nearest colour (the flat colours stay exact).

        With `colours` (the flat colours the image was drawn with), only those and the shades of the edges between
        them are candidates: with few shades per edge, a pixel of a grey rim three quarters over a white tile is
        otherwise nearer some unrelated colour (a yellow) than to either grey, and shows as a coloured fringe."""
        if colours is None:
            return image.quantize(palette=self._carrier, dither=Image.Dither.NONE)
        carrier, to_global = self._part(tuple(colours))
        local = image.quantize(palette=carrier, dither=Image.Dither.NONE)
        out = Image.frombytes("P", image.size, local.tobytes().translate(to_global))
        out.putpalette(self._carrier.getpalette() or [])
        return out

    def _part(self, flat: tuple[Colour, ...]) -> tuple[Image.Image, bytes]:
        """A palette of `flat` and the shades between them, and the table from its indices to this palette's."""
        if flat not in self._parts:
            allowed = set(flat)
            colours = list(flat) + [shade for ink, paper in self._edges if ink in allowed and paper in allowed
                                    for shade in self._between(ink, paper)]
            colours = list(dict.fromkeys(colours))
            # Every one of the 256 entries is an allowed colour (the first one again): no stray black to match.
            padded = colours + [colours[0]] * (256 - len(colours))
            carrier = Image.new("P", (1, 1))
            carrier.putpalette([value for colour in padded for value in colour])
            self._parts[flat] = carrier, bytes(self.colours.index(colour) for colour in padded)
        return self._parts[flat]

    def new(self, size: tuple[int, int], colour: Colour) -> Image.Image:
        """A blank image in this palette."""
        image = Image.new("P", size, self.index(colour))
        image.putpalette(self._carrier.getpalette() or [])
        return image


@lru_cache(maxsize=4096)  # a few KB each; the words of a game's texts come back move after move
def _word(word: str, size: int, language: str) -> tuple[Image.Image, int, int, float]:
    """`word` rasterised once as a mask: the mask, where it sits from the pen, and how far the pen moves. A no-break
    space inside it (which keeps a line from breaking there) is drawn as a space: not every font has its glyph."""
    face = font(size, language)
    word = word.replace("\u00a0", " ")
    if language in LATIN_LANGUAGES or _unicode_font() is None:
        word = word.translate(PILLOW_SPELLING)
    left, top, right, bottom = (int(edge) for edge in face.getbbox(word))
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
    ImageDraw.Draw(mask).text((-left, -top), word, font=face, fill=255)
    return mask, left, top, face.getlength(word)


def text_line(image: Image.Image, x: float, y: int, text: str, size: int, fill: Colour,
              language: str = SOURCE) -> None:
    """`text` on `image` from (`x`, `y`) as `ImageDraw.text` draws it, word by word from a cache: rasterising
    glyphs was most of the time a new header or footer took, and its words (Move, Last:, PVT...) recur."""
    space = font(size, language).getlength(" ")
    for word in text.split(" "):
        advance = 0.0
        if word:
            mask, left, top, advance = _word(word, size, language)
            image.paste(fill, (round(x) + left, y + top), mask)
        x += advance + space


def centred(draw: ImageDraw.ImageDraw, x: float, y: float, text: str, size: int, fill: Colour,
            language: str = SOURCE) -> None:
    draw.text((x, y), text, font=font(size, language), fill=fill, anchor="mm")

"""Drawing helpers for the board pictures: the font, text that wraps and tallies, and the palette encoding."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from itertools import groupby

from PIL import Image, ImageDraw, ImageFont

__all__ = ["centred", "font", "paletted", "tally", "wrap"]

Colour = tuple[int, int, int]


@cache
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)  # Pillow's own font: the same everywhere, so the same bytes


def wrap(text: str, size: int, width: int, max_lines: int) -> list[str]:
    """`text` in lines of at most `width` px, broken between words; an ellipsis ends what does not fit."""
    face = font(size)
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


def paletted(image: Image.Image, exact: Iterable[Colour]) -> Image.Image:
    """`image` with a palette of 128 colours: encoding is most of the time a picture takes, and a palette image
    encodes several times faster than RGB, at a third of the size. The octree averages each bucket; the buckets
    of the flat colours (`exact`) are set back to those colours exactly, which moves an anti-aliased edge pixel
    by a unit or two at most."""
    paletted = image.quantize(colors=128, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    palette = paletted.getpalette() or []
    entries = list(zip(palette[0::3], palette[1::3], palette[2::3], strict=True))
    claimed: set[int] = set()
    for red, green, blue in exact:
        distances = [abs(r - red) + abs(g - green) + abs(b - blue) for r, g, b in entries]
        distance = min(distances)
        index = distances.index(distance)
        if distance <= 9 and index not in claimed:  # only a colour the picture really has
            claimed.add(index)
            palette[3 * index:3 * index + 3] = (red, green, blue)
    paletted.putpalette(palette)
    return paletted


def tally(text: str) -> str:
    """`PVT PVT PVT` as `PVT x3`, so that lists of lost pieces fit a line of the picture."""
    runs = [(word, len(list(group))) for word, group in groupby(text.split(" "))]
    return " ".join(word if count == 1 else f"{word} x{count}" for word, count in runs)


def centred(draw: ImageDraw.ImageDraw, x: float, y: float, text: str, size: int, fill: Colour) -> None:
    draw.text((x, y), text, font=font(size), fill=fill, anchor="mm")

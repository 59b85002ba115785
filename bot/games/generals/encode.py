"""Palette pictures as PNG bytes within a size budget, the same bytes for the same picture in any process.

The rows are deflated as one stream flushed to a byte boundary after every BAND_ROWS rows, so each band's bytes
can be replaced by the same rows deflated on their own by a compressor primed with the 32 KiB before them (all
that deflate can refer back to): the result is still one valid zlib stream. So when a picture comes out over its
budget (a finished game, every insignia of both armies shown), only some bands are deflated again, harder, the
smallest (quickest) first, until it fits: the extra time goes to the few pictures that need it, and the bytes
depend only on the picture.
"""

from __future__ import annotations

import struct
import zlib

from PIL import Image

__all__ = ["BAND_ROWS", "png"]

BAND_ROWS = 70  # rows per separately deflated band: about the 32 KiB deflate can look back on a 700 px picture
WINDOW = 32 * 1024  # deflate's window: the most a band's compressor is primed with
MEM_LEVEL = 8  # zlib's default: its larger hash (9) found nothing more here and took longer
SIGNATURE = b"\x89PNG\r\n\x1a\n"
FILTER_NONE = b"\x00"  # PNG filter per row: none (for palette indices, the other filters only add noise)


def png(image: Image.Image, level: int, budget: int | None = None, harder: int = 8) -> bytes:
    """`image` (mode P) as PNG bytes deflated at `level`; over `budget` bytes, bands are deflated again at
    `harder`, the smallest (quickest) first, until the picture fits or none is left."""
    if image.mode != "P":
        raise ValueError(f"a palette picture is expected, not mode {image.mode}")
    width, height = image.size
    raw = image.tobytes()
    data = b"".join(FILTER_NONE + raw[y * width:(y + 1) * width] for y in range(height))
    stride = width + 1
    starts = list(range(0, height, BAND_ROWS))
    spans = [(top * stride, min(height, top + BAND_ROWS) * stride) for top in starts]
    last = len(spans) - 1
    # One compressor for the whole picture, flushed to a byte boundary after each band: each band's bytes can
    # then be swapped for the same rows deflated again on their own (primed with what came before).
    whole = zlib.compressobj(level, zlib.DEFLATED, -15, MEM_LEVEL, zlib.Z_DEFAULT_STRATEGY)
    bands = [whole.compress(data[start:end]) + whole.flush(zlib.Z_FINISH if i == last else zlib.Z_SYNC_FLUSH)
             for i, (start, end) in enumerate(spans)]
    palette = bytes((image.getpalette() or [])[: 3 * 256])
    header = SIGNATURE + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
    header += _chunk(b"PLTE", palette)
    overhead = len(header) + 12 + 2 + 4 + 12  # the IDAT chunk's frame, zlib's header and checksum, IEND
    if budget is not None and overhead + sum(map(len, bands)) > budget:
        # Full bands only: the short last one has too little in it to gain what deflating it again costs.
        full = [i for i, (start, end) in enumerate(spans) if end - start == BAND_ROWS * stride]
        for i in sorted(full, key=lambda b: (len(bands[b]), b)):
            bands[i] = min(bands[i], _deflate(data, *spans[i], harder, i == last), key=len)
            if overhead + sum(map(len, bands)) <= budget:
                break
    stream = b"\x78\xda" + b"".join(bands) + struct.pack(">I", zlib.adler32(data))
    return header + _chunk(b"IDAT", stream) + _chunk(b"IEND", b"")


def _deflate(data: bytes, start: int, end: int, level: int, final: bool) -> bytes:
    """Raw deflate of `data[start:end]`, able to refer back into the rows before it; it ends on a byte
    boundary (sync flush) so that the next band's bytes follow it, or with the final block."""
    primer = data[max(0, start - WINDOW):start]
    if primer:
        compressor = zlib.compressobj(level, zlib.DEFLATED, -15, MEM_LEVEL, zlib.Z_DEFAULT_STRATEGY, zdict=primer)
    else:
        compressor = zlib.compressobj(level, zlib.DEFLATED, -15, MEM_LEVEL, zlib.Z_DEFAULT_STRATEGY)
    return compressor.compress(data[start:end]) + compressor.flush(zlib.Z_FINISH if final else zlib.Z_SYNC_FLUSH)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

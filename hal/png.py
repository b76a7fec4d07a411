"""A minimal PNG writer for frames, so that snapshots of the panel need no imaging library.

Each LED becomes a `scale` x `scale` cell; with `dots` it is drawn as a round dot on black like a
real LED seen from the front, otherwise as a filled square. The image is 8-bit RGB, unfiltered,
zlib-compressed: every PNG reader accepts that.
"""

from __future__ import annotations

import os
import struct
import tempfile
import zlib

from hal.frame import Frame

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# A dot's diameter as a share of its cell, leaving a dark gap between LEDs.
DOT_DIAMETER = 0.8


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _cell_spans(scale: int, dots: bool) -> list[tuple[int, int]]:
    """For each pixel row of a cell, the [start, end) columns the LED colour covers."""
    if not dots:
        return [(0, scale)] * scale
    centre = scale / 2
    radius = scale * DOT_DIAMETER / 2
    spans = []
    for row in range(scale):
        dy = row + 0.5 - centre
        if abs(dy) >= radius:
            spans.append((0, 0))
            continue
        half = (radius * radius - dy * dy) ** 0.5
        start = max(0, round(centre - half))
        spans.append((start, min(scale, scale - start)))
    return spans


def encode_png(frame: Frame, scale: int = 20, dots: bool = True) -> bytes:
    """The frame as PNG file bytes, each LED `scale` pixels square."""
    if isinstance(scale, bool) or not isinstance(scale, int) or scale <= 0:
        raise ValueError(f"a PNG scale must be a whole number above 0, not {scale!r}")
    pixels = bytes(frame.pixels)
    spans = _cell_spans(scale, dots)
    scanlines = []
    for y in range(frame.height):
        row = pixels[y * frame.width * 3 : (y + 1) * frame.width * 3]
        colours = [row[i : i + 3] for i in range(0, len(row), 3)]
        drawn: dict[tuple[int, int], bytes] = {}
        for span in spans:
            line = drawn.get(span)
            if line is None:
                start, end = span
                before, lit, after = b"\0\0\0" * start, end - start, b"\0\0\0" * (scale - end)
                # Filter type 0 (None) starts every scanline.
                line = drawn[span] = b"\0" + b"".join(before + rgb * lit + after for rgb in colours)
            scanlines.append(line)
    header = struct.pack(">IIBBBBB", frame.width * scale, frame.height * scale, 8, 2, 0, 0, 0)
    return (
        SIGNATURE
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(b"".join(scanlines), 6))
        + _chunk(b"IEND", b"")
    )


def write_png(path: str, frame: Frame, scale: int = 20, dots: bool = True) -> None:
    """Write the frame to `path` atomically, so a viewer watching the file never reads half of it."""
    data = encode_png(frame, scale, dots)
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".panel-", suffix=".png")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise

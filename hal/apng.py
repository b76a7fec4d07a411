"""An APNG written as its pictures come, one in memory at a time, byte for byte as Pillow writes it.

Pillow's APNG writer (PngImagePlugin `_write_multiple_frames`) keeps a copy of every picture
until the end, since the file starts with the number of frames and a frame's delay grows when
the next picture is the same: a long game's video took 0.2 MB a frame (450 MB for a 10-player
game). This writer makes the same decisions in the same order, keeping only the last picture
(what the next is compared with) and the last frame's compressed data (its delay may still
grow), and fills in the frame count at the end (the file is seekable). Each frame's pixels are
compressed by Pillow itself: the IDAT data of the (cropped) picture saved alone as a PNG is what
Pillow writes in that frame's IDAT or fdAT chunks, so the bytes are Pillow's.

Pillow's defaults are kept: RGB pictures, disposal OP_NONE, blend OP_SOURCE, no default image,
and an identical picture adds its time to the frame before it (while the delay still fits).
A single frame makes a plain PNG, as Pillow's does.
"""

from __future__ import annotations

import io
import struct
import zlib
from fractions import Fraction
from typing import BinaryIO, Iterable, NamedTuple, Sequence

from PIL import Image, ImageChops

MAGIC = b"\x89PNG\r\n\x1a\n"
OP_NONE, OP_SOURCE = 0, 0  # dispose_op and blend_op: leave the canvas, replace the region


class Pending(NamedTuple):
    """A frame whose chunks wait for its final delay: where it goes, and its compressed data."""

    box: tuple[int, int, int, int]
    milliseconds: int
    data: list[bytes]  # the IDAT payloads of the frame's region saved alone


def write(out: BinaryIO, pictures: Iterable[Image.Image], milliseconds: Sequence[int], loop: int = 0) -> None:
    """The RGB `pictures`, each shown for its `milliseconds`, as an APNG looping `loop` times
    (0: for ever) written to `out`."""
    chunks = _Chunks(out)
    previous: Image.Image | None = None
    pending: Pending | None = None
    frames = 0
    counted_at = None  # where the frame count goes, once there is a second frame
    for picture, shown in zip(pictures, milliseconds, strict=True):
        if picture.mode != "RGB":
            raise ValueError(f"an APNG frame here is RGB, not {picture.mode}")
        if previous is None:
            out.write(MAGIC)
            chunks.put(b"IHDR", struct.pack(">IIBBBBB", *picture.size, 8, 2, 0, 0, 0))
            pending = Pending((0, 0, *picture.size), shown, _idat_payloads(picture))
            previous = picture
            continue
        # Where the pictures differ: Pillow's writer compares RGB copies (9.x) or RGBA copies with
        # getbbox(alpha_only=False) (10 and later, where alpha_only came); of RGB pictures both
        # give this box, which Bookworm's Pillow 9.4 can compute too.
        box = ImageChops.subtract_modulo(picture, previous).getbbox()
        if not box and _delay(pending.milliseconds + shown).numerator <= 65535:
            pending = pending._replace(milliseconds=pending.milliseconds + shown)  # the same picture
            continue
        if counted_at is None:
            counted_at = out.tell()
            chunks.put(b"acTL", struct.pack(">II", 0, loop))  # the count is filled in at the end
        chunks.frame(pending, first=frames == 0)
        frames += 1
        box = box or (0, 0, *picture.size)
        pending = Pending(box, shown, _idat_payloads(picture.crop(box)))
        previous = picture
    if pending is None:
        raise ValueError("an animation needs at least one frame")
    if counted_at is None:  # one frame: a plain PNG
        for data in pending.data:
            chunks.put(b"IDAT", data)
    else:
        chunks.frame(pending, first=False)
        frames += 1
    chunks.put(b"IEND", b"")
    if counted_at is not None:
        end = out.tell()
        out.seek(counted_at)
        chunks.put(b"acTL", struct.pack(">II", frames, loop))
        out.seek(end)


def _delay(milliseconds: int) -> Fraction:
    """A frame's delay as fcTL holds it (numerator and denominator under 65536), as Pillow makes it."""
    return Fraction(milliseconds / 1000).limit_denominator(65535)


def _idat_payloads(picture: Image.Image) -> list[bytes]:
    """The data of each IDAT chunk of `picture` saved alone as a PNG by Pillow."""
    saved = io.BytesIO()
    picture.save(saved, format="PNG")
    data, at, payloads = saved.getvalue(), len(MAGIC), []
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        if kind == b"IDAT":
            payloads.append(data[at + 8 : at + 8 + length])
        at += 12 + length
    return payloads


class _Chunks:
    """PNG chunks (length, type, data, CRC) on `out`, and the APNG sequence numbers."""

    def __init__(self, out: BinaryIO) -> None:
        self.out, self.sequence = out, 0

    def put(self, kind: bytes, data: bytes) -> None:
        self.out.write(struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind))))

    def frame(self, frame: Pending, first: bool) -> None:
        """fcTL, then the data: IDAT for the first frame (as a plain PNG reader shows it), fdAT after."""
        delay = _delay(frame.milliseconds)
        if delay.numerator > 65535:
            raise ValueError("cannot write duration")
        x0, y0, x1, y1 = frame.box
        self.put(b"fcTL", struct.pack(">IIIIIHHBB", self.sequence, x1 - x0, y1 - y0, x0, y0,
                                      delay.numerator, delay.denominator, OP_NONE, OP_SOURCE))
        self.sequence += 1
        for data in frame.data:
            if first:
                self.put(b"IDAT", data)
            else:
                self.put(b"fdAT", struct.pack(">I", self.sequence) + data)
                self.sequence += 1

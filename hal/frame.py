"""The logical picture: a W x H grid of 8-bit sRGB colours, independent of any LED wiring.

A frame is a flat bytearray (row-major, 3 bytes a pixel) so that the output stage can run
whole-buffer operations (`bytes.translate`, `sum`) at C speed instead of per-pixel Python.
"""

from __future__ import annotations

RGB = tuple[int, int, int]
BLACK: RGB = (0, 0, 0)


class Frame:
    __slots__ = ("width", "height", "pixels")

    def __init__(self, width: int, height: int, pixels: bytearray | None = None):
        if width <= 0 or height <= 0:
            raise ValueError(f"a frame needs a positive size, not {width}x{height}")
        self.width = width
        self.height = height
        size = width * height * 3
        if pixels is None:
            pixels = bytearray(size)
        elif len(pixels) != size:
            raise ValueError(f"{len(pixels)} bytes do not make a {width}x{height} RGB frame")
        self.pixels = pixels

    def set(self, x: int, y: int, rgb: RGB) -> None:
        i = (y * self.width + x) * 3
        self.pixels[i : i + 3] = bytes(rgb)

    def get(self, x: int, y: int) -> RGB:
        i = (y * self.width + x) * 3
        p = self.pixels
        return (p[i], p[i + 1], p[i + 2])

    def fill(self, rgb: RGB) -> None:
        self.pixels[:] = bytes(rgb) * (self.width * self.height)

    def copy(self) -> Frame:
        return Frame(self.width, self.height, bytearray(self.pixels))

    def rows(self) -> list[list[list[int]]]:
        """Rows of [r, g, b] lists: the JSON form of `render --json`."""
        p = self.pixels
        w = self.width
        return [
            [[p[i], p[i + 1], p[i + 2]] for i in range(y * w * 3, (y + 1) * w * 3, 3)]
            for y in range(self.height)
        ]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Frame)
            and self.width == other.width
            and self.height == other.height
            and self.pixels == other.pixels
        )

    def __repr__(self) -> str:
        return f"Frame({self.width}x{self.height})"

"""Pictures of the panel through Pillow: a frame as an image of round LEDs on black, as PNG bytes,
or written to a file atomically.

Each LED becomes a `scale` x `scale` cell; with `dots` it is drawn as a round dot on black like a
real LED seen from the front, otherwise as a filled square. Colours are the frame's bytes exactly
(RGB, 8 bits, no palette and no colour management), so a picture can be checked pixel by pixel.
"""

from __future__ import annotations

import io
import os
import tempfile
from functools import lru_cache

from PIL import Image, ImageChops

from hal.frame import Frame

# A dot's diameter as a share of its cell, leaving a dark gap between LEDs.
DOT_DIAMETER = 0.8


@lru_cache(maxsize=8)
def _dot_mask(scale: int, width: int, height: int) -> Image.Image:
    """White dots on black, one per cell, for the whole picture: multiplied with the colours."""
    centre, radius = scale / 2, scale * DOT_DIAMETER / 2
    lit = bytes(255 if (x + 0.5 - centre) ** 2 + (y + 0.5 - centre) ** 2 < radius ** 2 else 0
                for y in range(scale) for x in range(scale) for _ in range(3))
    cell = Image.frombytes("RGB", (scale, scale), lit)
    mask = Image.new("RGB", (width * scale, height * scale))
    for y in range(height):
        for x in range(width):
            mask.paste(cell, (x * scale, y * scale))
    return mask


def frame_image(frame: Frame, scale: int = 20, dots: bool = True) -> Image.Image:
    """The frame as an RGB image, each LED `scale` pixels square."""
    if isinstance(scale, bool) or not isinstance(scale, int) or scale <= 0:
        raise ValueError(f"a picture's scale must be a whole number above 0, not {scale!r}")
    image = Image.frombytes("RGB", (frame.width, frame.height), bytes(frame.pixels))
    image = image.resize((frame.width * scale, frame.height * scale), Image.Resampling.NEAREST)
    if dots:
        image = ImageChops.multiply(image, _dot_mask(scale, frame.width, frame.height))
    return image


def encode_png(frame: Frame, scale: int = 20, dots: bool = True) -> bytes:
    """The frame as PNG file bytes."""
    out = io.BytesIO()
    frame_image(frame, scale, dots).save(out, format="PNG")
    return out.getvalue()


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

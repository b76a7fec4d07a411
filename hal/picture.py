"""Pictures of the panel through Pillow: a frame as an image of round LEDs on black, as PNG bytes,
or written to a file atomically; a sequence of frames as an animation (APNG or lossless WebP).

Each LED becomes a `scale` x `scale` cell; with `dots` it is drawn as a round dot on black like a
real LED seen from the front, otherwise as a filled square. Colours are the frame's bytes exactly
(RGB, 8 bits, no palette and no colour management), so a picture can be checked pixel by pixel.
Animations are APNG or lossless WebP for the same reason: GIF keeps 256 colours and the board
has 480.
"""

from __future__ import annotations

import io
import os
import tempfile
from functools import lru_cache
from typing import BinaryIO, Callable, Sequence

from PIL import Image, ImageChops

from hal import apng
from hal.frame import Frame

# A dot's diameter as a share of its cell, leaving a dark gap between LEDs.
DOT_DIAMETER = 0.8
# Animation formats by file suffix, and Pillow's options for an exact, endlessly looping file.
ANIMATION_FORMATS = {".png": "PNG", ".apng": "PNG", ".webp": "WEBP"}
_ANIMATION_OPTIONS = {"PNG": {}, "WEBP": {"lossless": True, "quality": 100, "method": 1}}


class AnimationFormatError(ValueError):
    """An animation file name whose format cannot hold the board's colours exactly."""


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


def animation_format(path: str) -> str:
    """The Pillow format for an animation written to `path`, by its suffix."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in ANIMATION_FORMATS:
        raise AnimationFormatError(
            f"{path}: an animation must be .png (APNG) or .webp (lossless WebP), the formats that "
            f"keep every colour exactly (GIF keeps only 256, and the board has 480)")
    return ANIMATION_FORMATS[suffix]


def encode_animation(frames: Sequence[tuple[Frame, int]], format_name: str, scale: int = 10,
                     dots: bool = True) -> bytes:
    """The (frame, milliseconds shown) pairs as an endlessly looping animation's file bytes in
    `format_name` ("PNG" for APNG, or "WEBP")."""
    out = io.BytesIO()
    write_animation(out, frames, format_name, scale, dots)
    return out.getvalue()


def write_animation(out: BinaryIO, frames: Sequence[tuple[Frame, int]], format_name: str, scale: int = 10,
                    dots: bool = True) -> None:
    """Write the animation to `out` (a seekable binary file), one picture in memory at a time:
    the bytes Pillow's own writer makes of the same pictures (`save_all`), without the copy of
    every picture it keeps until the end (0.2 MB a frame at the default scale)."""
    if not frames:
        raise ValueError("an animation needs at least one frame")
    if format_name == "PNG":
        apng.write(out, (frame_image(frame, scale, dots) for frame, _ in frames), [ms for _, ms in frames])
        return
    first = frame_image(frames[0][0], scale, dots)
    first.save(out, format=format_name, save_all=True,
               append_images=[_Pictures(frames, scale, dots)] if len(frames) > 1 else [],
               duration=[milliseconds for _, milliseconds in frames], loop=0, **_ANIMATION_OPTIONS[format_name])


class _Pictures(Image.Image):
    """The frames after the first as one multi-frame image whose picture is made as Pillow's
    writer seeks to it (Pillow takes multi-frame images among `append_images`, reading each
    through `n_frames` and `seek`), so only the picture being encoded is in memory."""

    def __init__(self, frames: Sequence[tuple[Frame, int]], scale: int, dots: bool):
        super().__init__()
        self._frames, self._scale, self._dots = frames, scale, dots
        self.n_frames = len(frames) - 1
        self._index = -1
        self.seek(0)

    def seek(self, index: int) -> None:
        if index != self._index:
            if not 0 <= index < self.n_frames:
                raise EOFError(f"no frame {index}")
            picture = frame_image(self._frames[index + 1][0], self._scale, self._dots)
            vars(self).update(vars(picture))  # its pixels, mode and size (whatever Pillow calls them)
            self._index = index

    def tell(self) -> int:
        return self._index


def write_png(path: str, frame: Frame, scale: int = 20, dots: bool = True) -> None:
    """Write the frame to `path` atomically, so a viewer watching the file never reads half of it."""
    write_atomic(path, encode_png(frame, scale, dots))


def write_atomic(path: str, data: bytes | Callable[[BinaryIO], None]) -> None:
    """Write `data` (or what `data(file)` writes) to `path` through a temporary file beside it
    and a rename."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".panel-", suffix=os.path.splitext(path)[1])
    try:
        os.fchmod(fd, 0o644)  # a picture is for anyone to look at (mkstemp makes it owner-only)
        with os.fdopen(fd, "w+b") as file:
            if callable(data):
                data(file)
            else:
                file.write(data)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise

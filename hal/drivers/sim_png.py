"""A driver that keeps a PNG picture of the panel up to date: for a browser or an image viewer that
reloads the file, or for snapshots attached to a bug report."""

from __future__ import annotations

import os

from hal.drivers.base import Driver, DriverError
from hal.frame import Frame
from hal.picture import write_png

DEFAULT_PATH = "hues-panel.png"


class PngDriver(Driver):
    def __init__(self, width: int, height: int, path: str = DEFAULT_PATH, scale: int = 20,
                 dots: bool = True):
        if scale <= 0:
            raise DriverError(f"sim-png scale must be 1 or more, not {scale}")
        directory = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(directory):
            raise DriverError(f"sim-png cannot write {path}: there is no folder {directory}")
        self.width = width
        self.height = height
        self.path = path
        self.scale = scale
        self.dots = dots
        self.written = 0

    def show(self, leds: bytes, frame: Frame) -> None:
        self._write(frame)

    def clear(self) -> None:
        self._write(Frame(self.width, self.height))

    def close(self) -> None:
        """Nothing to release: the last picture stays on disk."""

    def _write(self, frame: Frame) -> None:
        try:
            write_png(self.path, frame, self.scale, self.dots)
        except OSError as error:
            raise DriverError(f"sim-png cannot write {self.path}: {error.strerror}") from error
        self.written += 1

"""A driver that only remembers what it was shown: for CI, tests and scripted runs without a screen."""

from __future__ import annotations

from collections import deque

from hal.drivers.base import Driver, DriverError
from hal.frame import Frame

DEFAULT_HISTORY = 100


class HeadlessDriver(Driver):
    """Keeps the last frame and drive bytes, a count of frames shown and the latest `history` frames."""

    def __init__(self, width: int, height: int, history: int = DEFAULT_HISTORY):
        if history < 0:
            raise DriverError(f"sim-headless history must be 0 or more frames, not {history}")
        self.width = width
        self.height = height
        self.last_frame = Frame(width, height)
        self.last_leds = bytes(width * height * 3)
        self.shown = 0
        self.history: deque[Frame] = deque(maxlen=history)
        self.closed = False

    def show(self, leds: bytes, frame: Frame) -> None:
        self.last_frame = frame.copy()
        self.last_leds = bytes(leds)
        self.shown += 1
        self.history.append(self.last_frame)

    def clear(self) -> None:
        self.last_frame = Frame(self.width, self.height)
        self.last_leds = bytes(self.width * self.height * 3)

    def close(self) -> None:
        self.closed = True

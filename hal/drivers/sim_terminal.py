"""The LED panel drawn in a terminal with 24-bit colour, for playing on a laptop.

Each LED is a round dot on a black background, as the panel looks in a dark room; the board's
coordinates run along the edges (column numbers 1..30 written downwards as tens over units, row
letters A..P on the left) so that players can name cells as on the printed board. Columns past
the board (the status columns) and rows past P have no label. Every frame is redrawn in place
from the top-left corner so the picture does not scroll.
"""

from __future__ import annotations

import sys
from typing import TextIO

from hal.drivers.base import Driver
from hal.frame import Frame

BOARD_COLUMNS = 30
ROW_LETTERS = "ABCDEFGHIJKLMNOP"
DOT = "\u25cf"

ESC = "\x1b["
HOME = ESC + "H"
CLEAR_SCREEN = ESC + "2J"
CLEAR_TO_END_OF_LINE = ESC + "K"
HIDE_CURSOR = ESC + "?25l"
SHOW_CURSOR = ESC + "?25h"
RESET = ESC + "0m"
BLACK_BACKGROUND = ESC + "40m"
HEADER_LINES = 2
# Distinct colours whose escape sequences are kept; the board has 480, animations add some more.
DOT_CACHE_SIZE = 4096


def column_labels(width: int) -> tuple[str, str]:
    """Two header lines: tens digits over units digits of the board column numbers, one per dot."""
    numbers = [x + 1 if x < BOARD_COLUMNS else None for x in range(width)]
    tens = "".join(" " if n is None or n < 10 else str(n // 10) for n in numbers)
    units = "".join(" " if n is None else str(n % 10) for n in numbers)
    # Each LED takes two characters (dot and space); the row labels take two more on the left.
    return "  " + " ".join(tens), "  " + " ".join(units)


class TerminalDriver(Driver):
    def __init__(self, width: int, height: int, stream: TextIO | None = None):
        self.width = width
        self.height = height
        self.stream = stream if stream is not None else sys.stdout
        self.status = ""
        self._header = "".join(line + CLEAR_TO_END_OF_LINE + "\n" for line in column_labels(width))
        self._row_labels = [
            (ROW_LETTERS[y] if y < len(ROW_LETTERS) else " ") + " " for y in range(height)
        ]
        self._dots: dict[bytes, str] = {}
        self._running = False

    def show(self, leds: bytes, frame: Frame) -> None:
        self._draw(frame)

    def clear(self) -> None:
        self._draw(Frame(self.width, self.height))

    def status_line(self, text: str) -> None:
        """Show one line of text under the panel (hints such as "pass to red, others look away")."""
        self.status = text
        if self._running:
            self.stream.write(f"{ESC}{HEADER_LINES + self.height + 1};1H{RESET}{text}{CLEAR_TO_END_OF_LINE}")
            self.stream.flush()

    def close(self) -> None:
        if self._running:
            self.stream.write(RESET + SHOW_CURSOR + "\n")
            self.stream.flush()
            self._running = False

    def _draw(self, frame: Frame) -> None:
        parts = [HOME, self._header]
        if not self._running:
            parts[0:0] = [HIDE_CURSOR, CLEAR_SCREEN]
            self._running = True
        pixels = bytes(frame.pixels)
        row_bytes = frame.width * 3
        for y, label in enumerate(self._row_labels):
            parts.append(label + BLACK_BACKGROUND)
            start = y * row_bytes
            parts.extend(self._dot(pixels[i : i + 3]) for i in range(start, start + row_bytes, 3))
            parts.append(RESET + CLEAR_TO_END_OF_LINE + "\n")
        parts.append(self.status + CLEAR_TO_END_OF_LINE)
        self.stream.write("".join(parts))
        self.stream.flush()

    def _dot(self, rgb: bytes) -> str:
        dots = self._dots
        dot = dots.get(rgb)
        if dot is None:
            if len(dots) >= DOT_CACHE_SIZE:
                dots.clear()
            dot = dots[rgb] = f"{ESC}38;2;{rgb[0]};{rgb[1]};{rgb[2]}m{DOT} "
        return dot

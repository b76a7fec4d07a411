"""The LED panel drawn in a terminal with 24-bit colour, for playing on a laptop.

Each LED is a round dot on a black background, as the panel looks in a dark room; the board's
coordinates run along the edges (column numbers 1..30 written downwards as tens over units, row
letters A..P on the left) so that players can name cells as on the printed board. Columns past
the board (the status columns) and rows past P have no label. Every frame is redrawn in place
from the top-left corner so the picture does not scroll.

Under the panel are three lines: the status (what the panel asks for, wrapped onto two lines)
and a message line (the store's warnings, routed here by the simulator so that they never
scribble over the board). All are cut to the terminal's width and every line ends clearing the rest of it, and the screen
below is cleared, so no text of an earlier frame stays. A terminal too small for the panel gets
one line saying what size it needs instead of a broken picture; a resize redraws everything.
"""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import threading
from typing import Callable, TextIO

from hal.drivers.base import Driver
from hal.frame import Frame

BOARD_COLUMNS = 30
ROW_LETTERS = "ABCDEFGHIJKLMNOP"
DOT = "\u25cf"

ESC = "\x1b["
HOME = ESC + "H"
CLEAR_SCREEN = ESC + "2J"
CLEAR_TO_END_OF_LINE = ESC + "K"
CLEAR_BELOW = ESC + "J"
HIDE_CURSOR = ESC + "?25l"
SHOW_CURSOR = ESC + "?25h"
RESET = ESC + "0m"
BLACK_BACKGROUND = ESC + "40m"
HEADER_LINES = 2
STATUS_LINES = 2  # a hint may wrap onto a second line
FOOTER_LINES = STATUS_LINES + 1  # the status lines and the message line
# Distinct colours whose escape sequences are kept; the board has 480, animations add some more.
DOT_CACHE_SIZE = 4096


def column_labels(width: int) -> tuple[str, str]:
    """Two header lines: tens digits over units digits of the board column numbers, one per dot."""
    numbers = [x + 1 if x < BOARD_COLUMNS else None for x in range(width)]
    tens = "".join(" " if n is None or n < 10 else str(n // 10) for n in numbers)
    units = "".join(" " if n is None else str(n % 10) for n in numbers)
    # Each LED takes two characters (dot and space); the row labels take two more on the left.
    return "  " + " ".join(tens), "  " + " ".join(units)


def terminal_size(stream: TextIO) -> Callable[[], tuple[int, int] | None]:
    """(columns, lines) of the terminal `stream` writes to, or None when it is not one."""

    def size() -> tuple[int, int] | None:
        try:
            columns, lines = os.get_terminal_size(stream.fileno())
        except (AttributeError, OSError, ValueError):
            return None
        return columns, lines

    return size


class TerminalDriver(Driver):
    def __init__(self, width: int, height: int, stream: TextIO | None = None,
                 size: Callable[[], tuple[int, int] | None] | None = None):
        self.width = width
        self.height = height
        self.stream = stream if stream is not None else sys.stdout
        self.size = size if size is not None else terminal_size(self.stream)
        self.status = ""
        self.message = ""
        self._header = "".join(line + CLEAR_TO_END_OF_LINE + "\n" for line in column_labels(width))
        self._row_labels = [
            (ROW_LETTERS[y] if y < len(ROW_LETTERS) else " ") + " " for y in range(height)
        ]
        self._dots: dict[bytes, str] = {}
        self._running = False
        self._drawn_size: tuple[int, int] | None = None
        self._last = Frame(width, height)
        self._previous_winch = None  # SIGWINCH's handler before ours, while we draw on a terminal
        self._drawing = False  # inside _draw or _write_line: a resize waits for its end
        self._resized = False

    @property
    def needed(self) -> tuple[int, int]:
        """(columns, lines) the panel, its labels and the two lines under it take."""
        return 2 + 2 * self.width, HEADER_LINES + self.height + FOOTER_LINES

    def show(self, leds: bytes, frame: Frame) -> None:
        self._draw(frame)

    def clear(self) -> None:
        self._draw(Frame(self.width, self.height))

    def status_line(self, text: str) -> None:
        """Show one line of text under the panel (hints such as "pass to red, others look away")."""
        self.status = text
        for i, line in enumerate(self._status_lines()):
            self._write_line(1 + i, line)

    def message_line(self, text: str) -> None:
        """Show a message (a store warning) on the line under the status."""
        self.message = text
        self._write_line(1 + STATUS_LINES, text)

    def on_resize(self, *_: object) -> None:
        """The window changed size (SIGWINCH): draw the last frame again, all of it, at once,
        even on a still screen that sends no new frame.

        Python runs the handler between any two bytecodes of the main thread, also in the middle
        of a drawing (a nested write is a RuntimeError of the buffered stream, "reentrant call"),
        so a resize that comes while the driver draws is only noted, and drawn once that drawing
        ends: a storm of signals costs at most one drawing each, never one inside another."""
        self._resized = True
        if not self._drawing:
            self._draw_resized()

    def _draw_resized(self) -> None:
        while self._resized and self._running:
            self._resized = False
            self._draw(self._last)

    def close(self) -> None:
        if self._previous_winch is not None:
            signal.signal(signal.SIGWINCH, self._previous_winch)
            self._previous_winch = None
        if self._running:
            self.stream.write(RESET + SHOW_CURSOR + "\n")
            self.stream.flush()
            self._running = False

    def _watch_resizes(self) -> None:
        """On a real terminal, from the main thread (where Python runs signal handlers)."""
        if (self.size() is not None and hasattr(signal, "SIGWINCH")
                and threading.current_thread() is threading.main_thread()):
            self._previous_winch = signal.signal(signal.SIGWINCH, self.on_resize)

    def _status_lines(self) -> list[str]:
        """The status wrapped at words onto STATUS_LINES lines of the terminal's width (the
        last one cut), always that many lines so a shorter hint clears a longer one."""
        width = max(1, (self._drawn_size or (10**6, 0))[0] - 1)
        lines = textwrap.wrap(self.status, width) or [""]
        lines = lines[:STATUS_LINES] + [""] * (STATUS_LINES - len(lines))
        return [line[:width] for line in lines]

    def _fit(self, text: str) -> str:
        size = self._drawn_size
        return text if size is None else text[: max(0, size[0] - 1)]

    def _write_line(self, below: int, text: str) -> None:
        with _Drawing(self):
            self._write_line_now(below, text)

    def _write_line_now(self, below: int, text: str) -> None:
        if self._running and self._fits(self._drawn_size):
            row = HEADER_LINES + self.height + below
            self.stream.write(f"{ESC}{row};1H{RESET}{self._fit(text)}{CLEAR_TO_END_OF_LINE}")
            self.stream.flush()
        elif self._running:
            self._draw_now(self._last)

    def _fits(self, size: tuple[int, int] | None) -> bool:
        columns, lines = self.needed
        return size is None or (size[0] >= columns and size[1] >= lines)

    def _draw(self, frame: Frame) -> None:
        with _Drawing(self):
            self._draw_now(frame)

    def _draw_now(self, frame: Frame) -> None:
        self._last = frame
        size = self.size()
        parts = [HOME]
        if not self._running or size != self._drawn_size:
            parts = [HIDE_CURSOR, RESET, CLEAR_SCREEN, HOME]  # first frame, or a resize: all anew
            if not self._running:
                self._watch_resizes()
            self._running, self._drawn_size = True, size
        if not self._fits(size):
            columns, lines = self.needed
            parts.append(f"The terminal is {size[0]}x{size[1]}; the simulator needs at least "
                         f"{columns}x{lines}: make the window larger.")  # wraps in a narrow one
            parts.append(CLEAR_TO_END_OF_LINE + CLEAR_BELOW)
            self.stream.write("".join(parts))
            self.stream.flush()
            return
        parts.append(self._header)
        pixels = bytes(frame.pixels)
        row_bytes = frame.width * 3
        for y, label in enumerate(self._row_labels):
            parts.append(label + BLACK_BACKGROUND)
            start = y * row_bytes
            parts.extend(self._dot(pixels[i : i + 3]) for i in range(start, start + row_bytes, 3))
            parts.append(RESET + CLEAR_TO_END_OF_LINE + "\n")
        parts.extend(line + CLEAR_TO_END_OF_LINE + "\n" for line in self._status_lines())
        parts.append(self._fit(self.message) + CLEAR_TO_END_OF_LINE + CLEAR_BELOW)
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


class _Drawing:
    """While a TerminalDriver draws: a resize signalled meanwhile is drawn when it ends."""

    def __init__(self, driver: TerminalDriver):
        self.driver = driver

    def __enter__(self) -> None:
        self.outer = self.driver._drawing
        self.driver._drawing = True

    def __exit__(self, *exc_info: object) -> None:
        self.driver._drawing = self.outer
        if not self.outer and exc_info[0] is None:
            self.driver._draw_resized()

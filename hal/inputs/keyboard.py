"""The laptop keyboard as the console's buttons, for the terminal simulator.

The terminal is put in cbreak mode (keys arrive one by one, unechoed) and read without blocking
from `poll`, so no thread is needed. Two more of the terminal's own key meanings are turned off
while the simulator runs, and restored with the rest: flow control (IXON), with which Ctrl-S
stopped all output until Ctrl-Q, so the simulator froze at its next drawing; and the keys that
send signals (ISIG): Ctrl-\\ sent SIGQUIT, which killed the simulator with the panel still drawn,
the cursor hidden and the terminal left in cbreak mode. Ctrl-C and Ctrl-\\ now arrive as keys
and both mean q (asked first mid-game), and Ctrl-Z does not suspend the simulator, which would
hand the shell a terminal in cbreak mode. Terminals report no key-up, so
every key becomes a press immediately followed by a release; a held key repeats through the
terminal's own key repeat.

An arrow key arrives as ESC [ A (or ESC O A), but the Esc key alone sends a bare ESC, so an ESC
at the end of a read may be the start of an arrow still on its way: it is held back for
`ESC_DELAY_S` before it counts as Esc (b), like curses' ESCDELAY.

Whatever happens, the terminal must come back usable: `close()` (also run by the context manager
on exceptions and Ctrl-C) restores the saved settings, is idempotent and makes one `tcsetattr`
call, so the app may also register it with `atexit` or call it from a signal handler.
"""

from __future__ import annotations

import errno
import os
import queue
import select
import sys
import termios
import tty
from typing import IO

from hal.inputs.events import PRESS, QUIT, RELEASE, InputEvent

ESC = 0x1B
ESC_DELAY_S = 0.05
POLL_S = 1 / 60  # a terminal cannot wake the loop: it is read this often (the simulator, not the box)

KEYS: dict[int, str] = {
    **{ord(c): "up" for c in "wW"},
    **{ord(c): "left" for c in "aA"},
    **{ord(c): "down" for c in "sS"},
    **{ord(c): "right" for c in "dD"},
    ord("\r"): "a",
    ord("\n"): "a",
    ord(" "): "a",
    0x7F: "b",  # Backspace on most terminals (DEL)
    0x08: "b",  # Backspace on some (Ctrl-H)
    ESC: "b",
    ord("\t"): "start",
    ord("q"): QUIT,
    ord("Q"): QUIT,
    0x03: QUIT,  # Ctrl-C (ISIG is off: no SIGINT)
    0x1C: QUIT,  # Ctrl-\ (no SIGQUIT)
}

# Final byte of the cursor-key sequences ESC [ A .. D and ESC O A .. D (also with modifiers,
# e.g. ESC [ 1 ; 5 A for Ctrl-Up).
ARROWS: dict[int, str] = {ord("A"): "up", ord("B"): "down", ord("C"): "right", ord("D"): "left"}

_CSI = ord("[")
_SS3 = ord("O")


def _sequence_end(data: bytes, start: int) -> int | None:
    """End of the escape sequence at data[start] (an ESC), or None if data stops inside it.

    A bare ESC followed by anything other than '[' or 'O' is the Esc key on its own: end start+1.
    """
    n = len(data)
    if start + 1 >= n:
        return None
    kind = data[start + 1]
    if kind == _SS3:
        return start + 3 if start + 2 < n else None
    if kind != _CSI:
        return start + 1
    # CSI: parameter and intermediate bytes 0x20..0x3F, then one final byte 0x40..0x7E.
    i = start + 2
    while i < n and 0x20 <= data[i] <= 0x3F:
        i += 1
    if i >= n:
        return None
    if not 0x40 <= data[i] <= 0x7E:  # malformed: the Esc key, then plain bytes
        return start + 1
    return i + 1


def _scan(data: bytes, final: bool) -> tuple[list[str], bytes]:
    names: list[str] = []
    i = 0
    n = len(data)
    while i < n:
        byte = data[i]
        if byte != ESC:
            name = KEYS.get(byte)
            if name is not None:
                names.append(name)
            i += 1
            continue
        end = _sequence_end(data, i)
        if end is None:
            if not final:
                return names, data[i:]
            end = i + 1  # cut off for good: the Esc key, and the rest as plain bytes
        if end == i + 1:
            names.append("b")
        else:
            name = ARROWS.get(data[end - 1])
            if name is not None:
                names.append(name)
        i = end
    return names, b""


def split_keys(data: bytes) -> tuple[list[str], bytes]:
    """The button names of the complete keys in `data`, and the unfinished escape sequence
    left at its end (empty if none), to be read again with the bytes that follow."""
    return _scan(data, final=False)


def decode_keys(data: bytes) -> list[str]:
    """The button names of every key in `data`; unmapped keys and escape sequences are skipped.

    An escape sequence cut off at the end counts as the Esc key followed by its plain bytes
    (ESC alone is b): use this once no more bytes are coming.
    """
    return _scan(data, final=True)[0]


class TerminalError(OSError):
    """The keyboard cannot be read because the input is not a terminal."""


class KeyboardInput:
    """Keys of the terminal on `stream` (standard input by default) as input events."""

    def __init__(self, events: queue.SimpleQueue, stream: IO | None = None):
        stream = sys.stdin if stream is None else stream
        if stream is None or not os.isatty(stream.fileno()):  # sys.stdin is None when fd 0 was closed
            raise TerminalError(
                "the terminal simulator reads keys, but standard input is not a terminal"
            )
        self._fd = stream.fileno()
        self._events = events
        self._saved: list | None = None
        self._pending = b""
        self._pending_since = 0.0
        self._ended = False

    def open(self) -> None:
        """Switch the terminal to cbreak mode, saving its settings for `close`."""
        if self._saved is None:
            self._saved = termios.tcgetattr(self._fd)
            mode = termios.tcgetattr(self._fd)
            mode[tty.IFLAG] &= ~termios.IXON  # Ctrl-S and Ctrl-Q are keys, not flow control
            mode[tty.LFLAG] &= ~(termios.ECHO | termios.ICANON | termios.ISIG)  # cbreak, and no signal keys
            mode[tty.CC][termios.VMIN] = 1
            mode[tty.CC][termios.VTIME] = 0
            termios.tcsetattr(self._fd, termios.TCSAFLUSH, mode)

    def close(self) -> None:
        """Restore the terminal settings saved by `open` (idempotent, safe in a signal handler)."""
        saved, self._saved = self._saved, None
        if saved is None:
            return
        try:
            termios.tcsetattr(self._fd, termios.TCSADRAIN, saved)
        except termios.error as error:
            if error.args[0] != errno.EIO:  # EIO: the terminal is gone, nothing left to restore
                raise

    def __enter__(self) -> KeyboardInput:
        self.open()
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _read_available(self) -> tuple[bytes, bool]:
        """The bytes waiting on the terminal (read without blocking) and whether it went away."""
        chunks = []
        while select.select([self._fd], [], [], 0)[0]:
            try:
                chunk = os.read(self._fd, 1024)
            except OSError as error:  # a pty whose other end closed reports EIO
                if error.errno != errno.EIO:
                    raise
                chunk = b""
            if not chunk:
                return b"".join(chunks), True
            chunks.append(chunk)
        return b"".join(chunks), False

    def next_poll(self, now: float) -> float:
        return now + POLL_S

    def poll(self, now: float) -> None:
        """Queue a press and a release, stamped `now`, for every key typed since the last poll.

        When the terminal goes away (end of input), queue a quit once so the app stops.
        """
        if self._ended:
            return
        data, self._ended = self._read_available()
        if self._ended:
            names = decode_keys(self._pending + data) + [QUIT]
            self._pending = b""
        else:
            names, rest = split_keys(self._pending + data)
            if rest and data:  # a new or longer unfinished sequence: its wait starts now
                self._pending_since = now
            if rest and now - self._pending_since >= ESC_DELAY_S:
                names += decode_keys(rest)
                rest = b""
            self._pending = rest
        for name in names:
            self._events.put(InputEvent(name, PRESS, now))
            self._events.put(InputEvent(name, RELEASE, now))

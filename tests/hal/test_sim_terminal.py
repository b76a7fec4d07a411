"""The terminal simulator read back as a terminal shows it: a small emulator of the few escape
sequences the driver writes (cursor home and moves, erase line and below, clear) keeps a screen
of characters, so stale text, a resize and a too-small window are judged on what a player sees
(issue 10, goal 9)."""

from __future__ import annotations

import io
import logging
import re

from console.commands.session import terminal_messages
from hal.drivers.sim_terminal import TerminalDriver
from hal.frame import Frame

SEQUENCE = re.compile(r"\x1b\[([0-9;?]*)([A-Za-z])")


class Screen:
    """A terminal of `columns` x `lines` characters that wraps like a real one."""

    def __init__(self, columns: int, lines: int):
        self.columns, self.lines = columns, lines
        self.rows = [[" "] * columns for _ in range(lines)]
        self.x = self.y = 0

    def feed(self, text: str) -> None:
        pos = 0
        for match in SEQUENCE.finditer(text):
            self._plain(text[pos : match.start()])
            self._escape(match.group(1), match.group(2))
            pos = match.end()
        self._plain(text[pos:])

    def _plain(self, text: str) -> None:
        for char in text:
            if char == "\n":
                self.x, self.y = 0, min(self.lines - 1, self.y + 1)
                continue
            if self.x >= self.columns:  # wrap
                self.x, self.y = 0, min(self.lines - 1, self.y + 1)
            self.rows[self.y][self.x] = char
            self.x += 1

    def _escape(self, args: str, final: str) -> None:
        if final == "H":
            row, _, col = args.partition(";")
            self.y, self.x = int(row or 1) - 1, int(col or 1) - 1
        elif final == "K":
            self.rows[self.y][self.x :] = [" "] * (self.columns - self.x)
        elif final == "J":
            if args == "2":
                self.rows = [[" "] * self.columns for _ in range(self.lines)]
            else:
                self.rows[self.y][self.x :] = [" "] * (self.columns - self.x)
                for y in range(self.y + 1, self.lines):
                    self.rows[y] = [" "] * self.columns

    def text(self) -> list[str]:
        return ["".join(row).rstrip() for row in self.rows]


class Terminal:
    def __init__(self, columns: int, lines: int):
        self.stream = io.StringIO()
        self.size = (columns, lines)
        self.screen = Screen(columns, lines)
        self.driver = TerminalDriver(32, 16, self.stream, size=lambda: self.size)

    def resize(self, columns: int, lines: int) -> None:
        self.size = (columns, lines)
        self.screen.columns, self.screen.lines = columns, lines
        self.screen.rows = [(row + [" "] * columns)[:columns] for row in self.screen.rows][:lines]
        self.screen.rows += [[" "] * columns for _ in range(lines - len(self.screen.rows))]

    def show(self, frame: Frame | None = None) -> list[str]:
        self.driver.show(b"", frame or Frame(32, 16))
        return self.flush()

    def flush(self) -> list[str]:
        self.screen.feed(self.stream.getvalue())
        self.stream.seek(0)
        self.stream.truncate()
        return self.screen.text()


def test_the_panel_needs_66_by_20_and_says_so_in_a_smaller_terminal():
    term = Terminal(50, 15)
    assert term.driver.needed == (66, 21)
    shown = term.show()
    assert "".join(shown).replace(" ", "") == "Theterminalis50x15;thesimulatorneedsatleast66x21:makethewindowlarger."


def test_a_resize_redraws_everything_and_a_too_small_window_comes_back_whole():
    term = Terminal(80, 24)
    full = term.show()
    assert full[2].startswith("A ") and full[17].startswith("P ")
    term.resize(40, 10)
    small = term.show()
    assert "needsatleast66x21" in "".join(small).replace(" ", "") and not any(small[3:])
    term.resize(100, 30)
    again = term.show()
    assert again[:18] == full[:18] and not any(again[20:])


def test_a_resize_on_a_still_screen_redraws_without_a_new_frame():
    term = Terminal(80, 24)
    full = term.show()
    term.resize(40, 10)
    term.driver.on_resize()  # what SIGWINCH calls
    assert "needsatleast66x21" in "".join(term.flush()).replace(" ", "")
    term.resize(90, 25)
    term.driver.on_resize()
    assert term.flush()[:18] == full[:18]


def test_a_resize_signalled_during_a_drawing_is_drawn_after_it_not_inside_it():
    """Python runs the SIGWINCH handler between any two bytecodes, also inside a write: a nested
    drawing was a RuntimeError of the buffered stream ("reentrant call") and killed the simulator."""
    term = Terminal(80, 24)
    full = term.show()
    writes, inside = [], []

    class SignalMidWrite(io.StringIO):
        def write(self, text):
            inside.append(True)
            if len(writes) < 3:  # three signals, each in the middle of a write
                term.resize(90 + len(writes), 25)
                term.driver.on_resize()
            writes.append(len(inside))
            inside.pop()
            return super().write(text)

    term.stream = term.driver.stream = SignalMidWrite()
    term.driver.status_line("a hint")
    assert max(writes) == 1  # never a write inside a write
    assert term.size == (92, 25) and term.flush()[:18] == full[:18]  # the last size, drawn whole


def test_no_text_of_an_earlier_frame_or_status_stays_on_screen():
    term = Terminal(80, 24)
    term.driver.status_line("word " * 60)  # three lines' worth: wrapped onto two, then cut
    shown = term.show()
    assert shown[18].startswith("word word") and shown[19].startswith("word word") and not any(shown[20:])
    assert max(len(line) for line in shown) < 80  # nothing written into the last column: no wrap
    term.driver.status_line("short")
    shown = term.flush()
    assert shown[18] == "short" and not any(shown[19:])
    assert all(line.startswith(("A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N",
                                "O", "P")) for line in shown[2:18])


def test_store_messages_go_to_the_message_line_not_over_the_board():
    term = Terminal(80, 24)
    board = term.show()
    stderr = io.StringIO()
    root = logging.getLogger()
    printing = logging.StreamHandler(stderr)  # the command line's own handler, printing to the terminal
    root.addHandler(printing)
    try:
        with terminal_messages(term.driver):
            logging.getLogger("console.store.games").warning("game store redis://x is unreachable\x1b[2J")
        assert printing in root.handlers
    finally:
        root.removeHandler(printing)
    shown = term.flush()
    assert shown[20] == "game store redis://x is unreachable\\x1b[2J"  # escaped: one line, no escape
    assert shown[:18] == board[:18] and stderr.getvalue() == ""


def test_ctrl_c_in_the_simulator_is_the_quit_key_which_asks_first_mid_game():
    import os
    import signal

    from console.commands.session import closing_app
    from hal.inputs.events import QUIT, EventQueue

    class App:
        events, running, sources, closed = EventQueue(), True, [], False

        def close(self):
            self.closed = True

    app = App()
    before = signal.getsignal(signal.SIGINT)  # SIG_IGN under a shell's `&`, else Python's own
    with closing_app(app, interrupt_is_quit=True):
        os.kill(os.getpid(), signal.SIGINT)
        events = app.events.drain()
    assert [e.button for e in events] == [QUIT] and app.closed
    assert signal.getsignal(signal.SIGINT) is before  # given back as it was found

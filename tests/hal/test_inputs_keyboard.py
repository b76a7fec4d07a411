"""Key decoding (pure) and the terminal's raw mode on a pseudo-terminal (os.openpty)."""

from __future__ import annotations

import os
import queue
import termios

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hal.inputs.events import InputEvent
from hal.inputs.keyboard import ESC_DELAY_S, KeyboardInput, TerminalError, decode_keys, split_keys

# Every way a key reaches us, with the button it means.
ENCODINGS = {
    b"\x1b[A": "up",
    b"\x1b[B": "down",
    b"\x1b[C": "right",
    b"\x1b[D": "left",
    b"\x1bOA": "up",
    b"\x1bOD": "left",
    b"\x1b[1;5C": "right",  # Ctrl-Right
    b"w": "up",
    b"A": "left",
    b"s": "down",
    b"d": "right",
    b"\n": "a",
    b"\r": "a",
    b" ": "a",
    b"\x7f": "b",
    b"\x08": "b",
    b"\x1b": "b",
    b"\t": "start",
    b"q": "quit",
}
IGNORED = [b"x", b"1", b"\x1b[3~", b"\x1b[15~", b"\x1b[200~", "é".encode(), b"\x04"]


class Events:
    def __init__(self):
        self.queue = queue.SimpleQueue()

    def drain(self) -> list[InputEvent]:
        out = []
        while not self.queue.empty():
            out.append(self.queue.get_nowait())
        return out


@pytest.mark.parametrize("data, button", ENCODINGS.items())
def test_each_key_decodes_to_its_button(data, button):
    assert decode_keys(data) == [button]


@pytest.mark.parametrize("data", IGNORED)
def test_unmapped_keys_and_sequences_are_skipped(data):
    assert decode_keys(data) == []
    assert decode_keys(data + b"\t") == ["start"]


@pytest.mark.parametrize(
    "data, names",
    [
        (b"\x1b\x1b", ["b", "b"]),
        (b"\x1b\x1b[A", ["b", "up"]),
        (b"\x1bw", ["b", "up"]),  # Esc then w (or Alt-w): both keys count
        (b"\x1b[", ["b"]),  # cut off for good: the Esc key and a '[' nobody maps
        (b"\x1b[1;5", ["b"]),
        (b"\x1bO", ["b"]),
        (b"\x1b[\n", ["b", "a"]),  # malformed: the newline is not swallowed
        (b"wasd\n", ["up", "left", "down", "right", "a"]),
    ],
)
def test_escape_corner_cases(data, names):
    assert decode_keys(data) == names


@pytest.mark.parametrize(
    "data, names, rest",
    [
        (b"\x1b", [], b"\x1b"),
        (b"\x1b[", [], b"\x1b["),
        (b"\x1b[1;5", [], b"\x1b[1;5"),
        (b"\x1bO", [], b"\x1bO"),
        (b"w\x1b[", ["up"], b"\x1b["),
        (b"\x1b[A\x1b", ["up"], b"\x1b"),
        (b"\x1b[A", ["up"], b""),
        (b"\x1bx", ["b"], b""),
    ],
)
def test_split_keeps_an_unfinished_sequence_for_the_next_read(data, names, rest):
    assert split_keys(data) == (names, rest)


keys = st.lists(st.sampled_from(sorted(ENCODINGS)), max_size=30)


@given(keys)
def test_any_run_of_keys_decodes_to_their_buttons(encoded):
    assert decode_keys(b"".join(encoded)) == [ENCODINGS[k] for k in encoded]


@given(keys, st.lists(st.integers(0, 200), max_size=8))
def test_reads_split_anywhere_decode_like_one_read(encoded, cuts):
    """However the bytes are chopped into reads, carrying the unfinished tail gives the same keys"""
    data = b"".join(encoded)
    names, pending, last = [], b"", 0
    for cut in sorted(c % (len(data) + 1) for c in cuts) + [len(data)]:
        got, pending = split_keys(pending + data[last:cut])
        names += got
        last = cut
    assert names + decode_keys(pending) == [ENCODINGS[k] for k in encoded]


# --- the terminal, on a pty ---------------------------------------------------------------


@pytest.fixture
def pty():
    master, slave = os.openpty()
    stream = os.fdopen(slave, "rb", buffering=0)
    yield master, stream
    stream.close()
    try:
        os.close(master)
    except OSError:
        pass  # a test closed it


def cbreak(fd: int) -> bool:
    lflag = termios.tcgetattr(fd)[3]
    return not lflag & (termios.ICANON | termios.ECHO)


def test_cbreak_inside_and_restored_after(pty):
    master, stream = pty
    before = termios.tcgetattr(stream.fileno())
    assert not cbreak(stream.fileno())
    assert before[0] & termios.IXON and before[3] & termios.ISIG  # a terminal's defaults
    with KeyboardInput(Events().queue, stream=stream):
        assert cbreak(stream.fileno())
        iflag, _, _, lflag = termios.tcgetattr(stream.fileno())[:4]
        assert not iflag & termios.IXON  # Ctrl-S does not stop the output
        assert not lflag & termios.ISIG  # Ctrl-C, Ctrl-\ and Ctrl-Z are keys, not signals
    assert termios.tcgetattr(stream.fileno()) == before


def test_ctrl_c_and_ctrl_backslash_are_q_and_ctrl_s_q_z_nothing():
    assert decode_keys(b"\x03\x1c") == ["quit", "quit"]
    assert decode_keys(b"\x13\x11\x1a") == []


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyboardInterrupt()])
def test_terminal_restored_when_the_app_fails_or_is_interrupted(pty, error):
    master, stream = pty
    before = termios.tcgetattr(stream.fileno())
    with pytest.raises(type(error)):
        with KeyboardInput(Events().queue, stream=stream):
            raise error
    assert termios.tcgetattr(stream.fileno()) == before


def test_close_is_idempotent_and_open_works_again(pty):
    master, stream = pty
    before = termios.tcgetattr(stream.fileno())
    keyboard = KeyboardInput(Events().queue, stream=stream)
    keyboard.close()  # never opened: nothing to restore
    keyboard.open()
    keyboard.open()  # a second open must not save the cbreak settings as the originals
    keyboard.close()
    keyboard.close()
    assert termios.tcgetattr(stream.fileno()) == before
    keyboard.open()
    assert cbreak(stream.fileno())
    keyboard.close()
    assert termios.tcgetattr(stream.fileno()) == before


def test_keys_become_press_release_pairs_stamped_now(pty):
    master, stream = pty
    events = Events()
    with KeyboardInput(events.queue, stream=stream) as keyboard:
        keyboard.poll(0.5)
        assert events.drain() == []
        os.write(master, b"\x1b[C\tq")
        keyboard.poll(1.0)
    assert events.drain() == [
        InputEvent("right", "press", 1.0),
        InputEvent("right", "release", 1.0),
        InputEvent("start", "press", 1.0),
        InputEvent("start", "release", 1.0),
        InputEvent("quit", "press", 1.0),
        InputEvent("quit", "release", 1.0),
    ]


def test_a_lone_esc_waits_for_the_rest_of_an_arrow_then_counts_as_b(pty):
    master, stream = pty
    events = Events()
    with KeyboardInput(events.queue, stream=stream) as keyboard:
        os.write(master, b"\x1b")
        keyboard.poll(2.0)
        keyboard.poll(2.0 + ESC_DELAY_S / 2)
        assert events.drain() == []
        os.write(master, b"[")  # the arrow is still arriving: its wait starts again
        keyboard.poll(2.0 + ESC_DELAY_S * 0.9)
        keyboard.poll(2.0 + ESC_DELAY_S * 1.5)
        assert events.drain() == []
        os.write(master, b"A")
        keyboard.poll(2.0 + ESC_DELAY_S * 1.8)
        assert [(e.button, e.kind) for e in events.drain()] == [("up", "press"), ("up", "release")]
        os.write(master, b"\x1b")
        keyboard.poll(3.0)
        keyboard.poll(3.0 + ESC_DELAY_S * 0.9)
        assert events.drain() == []
        keyboard.poll(3.1)
        assert events.drain() == [InputEvent("b", "press", 3.1), InputEvent("b", "release", 3.1)]


def test_a_terminal_that_goes_away_asks_to_quit_once(pty):
    master, stream = pty
    events = Events()
    with KeyboardInput(events.queue, stream=stream) as keyboard:
        os.write(master, b"\x1b")
        keyboard.poll(1.0)
        os.close(master)
        keyboard.poll(1.01)
        keyboard.poll(1.02)
    assert [e.button for e in events.drain()] == ["b", "b", "quit", "quit"]


def test_not_a_terminal_is_a_clear_error():
    read, write = os.pipe()
    try:
        with os.fdopen(read, "rb", buffering=0) as stream:
            with pytest.raises(TerminalError, match="not a terminal"):
                KeyboardInput(queue.SimpleQueue(), stream=stream)
    finally:
        os.close(write)

"""The box's buttons as the container stage presses them (tests/box/machine.py, `Presses`): a tap
must not depend on when this machine runs the pressing thread again. If the release waited for
that thread, a loaded machine that ran it 350 ms late made the console auto-repeat the direction
(CI's power cuts saw a pawn placed one cell to the right of the plan)."""

from __future__ import annotations

import errno
import os
import threading

from tests.box import machine
from tests.box.machine import Presses


def test_a_tap_is_whole_before_the_pressing_thread_runs_again(tmp_path, monkeypatch):
    fifo = tmp_path / "presses"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    never = threading.Event()
    monkeypatch.setattr(machine.time, "sleep", lambda seconds: never.wait())  # a thread never run again
    presses = Presses(fifo, {"right": 22})
    pressing = threading.Thread(target=presses.tap, args=("right",), daemon=True)
    pressing.start()
    try:
        got = b""
        for _ in range(200):
            pressing.join(0.01)
            got += _read(reader)
            if got.count(b"\n") >= 2:
                break
        assert got == b"22 0\n22 1\n", got
    finally:
        never.set()
        pressing.join(5)
        presses.reset()
        os.close(reader)


def test_a_reset_while_a_tap_is_pressed_ends_the_pressing(tmp_path):
    """A power cut: the box's reader is gone and `reset` drops the descriptor; the pressing
    thread's next tap finds no reader (ENXIO) instead of writing to whatever took the number."""
    fifo = tmp_path / "presses"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    presses = Presses(fifo, {"a": 5})
    presses.tap("a")
    os.close(reader)
    presses.reset()
    try:
        presses.tap("a")
    except OSError as error:
        assert error.errno == errno.ENXIO  # the FIFO has no reader
    else:
        raise AssertionError("a tap with no reader went somewhere")


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except BlockingIOError:
        return b""

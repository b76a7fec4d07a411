"""The box's buttons as the container stage presses them (tests/box/machine.py, `Presses`): a tap
must not depend on when this machine runs the pressing thread again. If the release waited for
that thread, a loaded machine that ran it 350 ms late made the console auto-repeat the direction
(CI's power cuts saw a pawn placed one cell to the right of the plan)."""

from __future__ import annotations

import errno
import os
import threading

import pytest

from tests.box import machine
from tests.box.machine import Presses


def test_a_tap_is_whole_before_the_pressing_thread_runs_again(tmp_path, monkeypatch):
    path, reader = _fifo(tmp_path)
    never = threading.Event()
    monkeypatch.setattr(machine.time, "sleep", lambda seconds: never.wait())  # a thread never run again
    presses = Presses(path, {"right": 22})
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


def test_a_tap_after_a_power_cut_finds_no_reader(tmp_path):
    """A power cut: the box's reader is gone and `reset` drops the descriptor; the pressing
    thread's next tap fails (ENXIO, which ends it) instead of pressing into the next boot."""
    path, reader = _fifo(tmp_path)
    presses = Presses(path, {"a": 5})
    presses.tap("a")
    assert _read(reader) == b"5 0\n5 1\n"
    os.close(reader)
    presses.reset()
    with pytest.raises(OSError) as raised:
        presses.tap("a")
    assert raised.value.errno == errno.ENXIO  # the FIFO has no reader


def _fifo(tmp_path) -> tuple:
    """A FIFO and its reader, held open as the box's pin factory holds it: (path, reader's fd)."""
    path = tmp_path / "presses"
    os.mkfifo(path)
    return path, os.open(path, os.O_RDONLY | os.O_NONBLOCK)


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except BlockingIOError:
        return b""

"""The terminal simulator on a real pseudo-terminal (issue 21, Input): the command runs in its own
session with the pty as its controlling terminal, as in a terminal window, so the kernel's line
discipline is the real one: a window resize sends SIGWINCH, Ctrl-S is flow control while IXON is
on, Ctrl-\\ sends SIGQUIT while ISIG is on.

- 200 SIGWINCH in a second hung it for good (the loop's wait on the event queue never returned).
- Ctrl-S froze it: flow control stopped its output, and the next drawing blocked.
- Ctrl-\\ killed it with the panel still drawn and the terminal left in cbreak mode.

Every wait has a bound (BOUND_S) only so that a regression fails instead of hanging the suite;
nothing is timed."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time

import pytest

from hal.drivers.sim_terminal import HOME, SHOW_CURSOR
from tests.commands.test_cli import ROOT

BOUND_S = 30
FIRST_FRAME = b"Press Start"  # the idle screen's status line
DARK_DOT = b"38;2;0;0;0m"


def set_size(fd: int, columns: int, lines: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))


class Simulator:
    """`hues-console sim` on a pty; `leader` is the terminal window's side of it."""

    def __init__(self, tmp_path):
        config = tmp_path / "console.yaml"
        config.write_text("store:\n  url: memory://\n")
        self.leader, follower = os.openpty()
        set_size(follower, 100, 40)
        self.before = termios.tcgetattr(follower)
        self.follower = follower
        self.output = bytearray()

        def controlling_terminal():  # what a terminal window does for its shell
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        self.process = subprocess.Popen(
            [sys.executable, "-m", "console.commands.main", "sim", "--config", str(config)], cwd=ROOT,
            stdin=follower, stdout=follower, stderr=follower, preexec_fn=controlling_terminal,
            env={key: value for key, value in os.environ.items() if key != "HUES_DEBUG"})

    def read_until(self, wanted: bytes) -> None:
        """Read what the simulator draws until `wanted` is in it (after what was read before)."""
        start = len(self.output)
        deadline = time.monotonic() + BOUND_S
        while wanted not in self.output[start:]:
            assert time.monotonic() < deadline, f"{wanted!r} never came: {bytes(self.output[-300:])!r}"
            self.read(0.1)

    def read(self, wait_s: float = 0.0) -> None:
        if select.select([self.leader], [], [], wait_s)[0]:
            try:
                self.output += os.read(self.leader, 1 << 16)
            except OSError:  # EIO: every follower fd is closed
                pass

    def type(self, keys: bytes) -> None:
        os.write(self.leader, keys)

    def exit_status(self) -> int:
        """Wait for the simulator to end, reading its output meanwhile so that it never blocks."""
        deadline = time.monotonic() + BOUND_S
        while self.process.poll() is None:
            assert time.monotonic() < deadline, f"the simulator did not end: {bytes(self.output[-300:])!r}"
            self.read(0.05)
        self.read()
        return self.process.returncode

    def last_picture(self) -> bytes:
        """What the last drawing from the top left put on the terminal."""
        return bytes(self.output[self.output.rindex(HOME.encode()):])

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(BOUND_S)
        os.close(self.leader)
        os.close(self.follower)


@pytest.fixture
def sim(tmp_path):
    simulator = Simulator(tmp_path)
    try:
        simulator.read_until(FIRST_FRAME)
        yield simulator
    finally:
        simulator.close()


def assert_ended_cleanly(sim: Simulator) -> None:
    """The panel cleared (every dot dark), the cursor back, the terminal's settings restored."""
    picture = sim.last_picture()
    assert picture.count(b"\xe2\x97\x8f") == 32 * 16 and picture.count(DARK_DOT) == 32 * 16
    assert picture.endswith((SHOW_CURSOR + "\n").encode().replace(b"\n", b"\r\n"))
    assert termios.tcgetattr(sim.follower) == sim.before


def test_a_storm_of_resizes_and_sigwinch_does_not_hang_it(sim):
    for n in range(200):
        set_size(sim.follower, 100 + n % 7, 40 + n % 3)  # the kernel sends SIGWINCH to the simulator
        sim.process.send_signal(signal.SIGWINCH)  # and one more of its own
        sim.read(0.005)  # about 200 a second, as a window dragged to a new size sends them
    set_size(sim.follower, 90, 30)
    sim.read_until(b"\x1b[2J")  # the last size drawn anew
    sim.type(b"q")
    assert sim.exit_status() == 0
    assert_ended_cleanly(sim)


def test_ctrl_s_does_not_freeze_it_and_flow_control_comes_back_after(sim):
    running = termios.tcgetattr(sim.follower)
    assert not running[0] & termios.IXON and sim.before[0] & termios.IXON
    sim.type(b"\x13")  # Ctrl-S: with IXON on, the terminal stops taking output here
    sim.type(b"\t")  # Start: the set-up screen, a new drawing that must get through
    sim.read_until(b"\x1b[H")
    sim.type(b"\x11q")  # Ctrl-Q, then q: set-up is left without a question
    assert sim.exit_status() == 0
    assert_ended_cleanly(sim)


@pytest.mark.parametrize("key", [b"\x1c", b"\x03"], ids=["Ctrl-\\", "Ctrl-C"])
def test_ctrl_backslash_and_ctrl_c_end_it_like_q(sim, key):
    assert not termios.tcgetattr(sim.follower)[3] & termios.ISIG
    sim.type(key)
    assert sim.exit_status() == 0
    assert_ended_cleanly(sim)


@pytest.mark.parametrize("signum", [signal.SIGQUIT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_to_end_it_clears_the_panel_and_restores_the_terminal(sim, signum):
    sim.process.send_signal(signum)
    assert sim.exit_status() == 0
    assert_ended_cleanly(sim)

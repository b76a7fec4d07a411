"""The event queue the app loop blocks on between frames: woken by a put from any thread or from
a signal handler, and never stuck past its timeout when signals interrupt the wait (CPython
3.11's SimpleQueue.get(timeout=) waited for ever after a signal at its deadline: the terminal
simulator hung under a storm of SIGWINCH, issue 21)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading

from hal.inputs.events import PRESS, EventQueue, InputEvent
from tests.commands.test_cli import ROOT

BOUND_S = 60  # a sanity bound on the child, not a timing assertion
EVENT = InputEvent("a", PRESS, 0.0)


def test_a_put_from_another_thread_ends_the_wait():
    events = EventQueue()
    threading.Timer(0.01, events.put, (EVENT,)).start()
    assert events.wait(BOUND_S)
    assert events.drain() == [EVENT]


def test_a_wait_with_nothing_put_ends_empty():
    events = EventQueue()
    assert not events.wait(0.001)
    assert events.drain() == []
    events.put(EVENT)
    assert events.wait(0) and events.drain() == [EVENT] and not events.wait(0)


def test_a_put_from_a_signal_handler_ends_the_wait():
    events = EventQueue()
    previous = signal.signal(signal.SIGALRM, lambda *_: events.put(EVENT))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        assert events.wait(BOUND_S)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert events.drain() == [EVENT]


def test_signals_interrupting_the_waits_never_make_one_endless():
    """Thousands of short waits under a timer firing faster than they end: with the old queue a
    signal soon lands at a deadline, and that wait never returns (the child is killed at BOUND_S)."""
    child = textwrap.dedent("""
        import signal
        from hal.inputs.events import EventQueue
        signal.signal(signal.SIGALRM, lambda *_: None)
        signal.setitimer(signal.ITIMER_REAL, 0.0003, 0.0003)
        events = EventQueue()
        for _ in range(3000):
            assert not events.wait(0.0005)
        signal.setitimer(signal.ITIMER_REAL, 0)
        print("done")
    """)
    done = subprocess.run([sys.executable, "-c", child], cwd=ROOT, capture_output=True, text=True, timeout=BOUND_S)
    assert (done.returncode, done.stdout) == (0, "done\n"), done.stderr

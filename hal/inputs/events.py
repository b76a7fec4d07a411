"""The vocabulary every input source speaks, so the console never knows where a press came from.

A GPIO button, a terminal key and a line of an input script all become the same `InputEvent`;
the console's controller reads only these.
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass

DIRECTIONS = ("up", "down", "left", "right")
BUTTONS = DIRECTIONS + ("a", "b", "start")

# Not a button on the box: the terminal simulator's way (the q key) to ask the app to stop.
QUIT = "quit"

PRESS = "press"
REPEAT = "repeat"
RELEASE = "release"
KINDS = (PRESS, REPEAT, RELEASE)


@dataclass(frozen=True, slots=True)
class InputEvent:
    """One thing a player did, stamped on the clock of the source that saw it.

    `button` is one of BUTTONS (or QUIT from the keyboard); `kind` is "press", "repeat" (a held
    direction stepping again) or "release".
    """

    button: str
    kind: str
    time: float

    def __post_init__(self) -> None:
        if self.button not in BUTTONS and self.button != QUIT:
            raise ValueError(f"no button is called {self.button!r}")
        if self.kind not in KINDS:
            raise ValueError(f"an input event is a press, repeat or release, not {self.kind!r}")


class InputConfigError(ValueError):
    """The input wiring or timing settings cannot work (unknown button, pin used twice, ...)."""


_WAKE = object()  # on the queue: not an event, only a reason for the loop to look now


class EventQueue:
    """The thread-safe queue input sources put events on, which the app loop can also block on
    between frames: a press from a GPIO callback wakes the loop at once instead of waiting for
    the next frame. Sources only ever call `put`, so a plain `queue.SimpleQueue` serves them too.

    The events are in a SimpleQueue, whose `put` is reentrant: a signal handler (Ctrl-C as q) may
    call it while the main thread is inside the queue. The loop does not block in the queue's
    `get(timeout=)`, though: in CPython 3.11 a signal that interrupts that wait at its deadline
    turns the time left, now negative, into -1, an endless wait (Modules/_queuemodule.c,
    simplequeue_get: "microseconds = _PyTime_AsMicroseconds(timeout...)" after PY_LOCK_INTR),
    and the terminal simulator's loop hung for good under a storm of SIGWINCH. It blocks on a
    lock instead, which `put` releases; Lock.acquire(timeout=) recomputes its deadline after a
    signal and gives up when it has passed (Modules/_threadmodule.c, acquire_timed)."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[InputEvent] = queue.SimpleQueue()
        self._wake = threading.Lock()  # held while nothing was put since the last wait
        self._wake.acquire()

    def put(self, event: InputEvent) -> None:
        """Queue `event` and wake the loop; never blocks, so a signal handler may call it."""
        self._queue.put(event)
        try:
            self._wake.release()
        except RuntimeError:  # released already: the loop is woken anyway
            pass

    def wake(self) -> None:
        """Wake a loop blocked in `wait` without an event (to stop it); safe in a signal handler
        (SimpleQueue.put is reentrant)."""
        self.put(_WAKE)  # type: ignore[arg-type]  # filtered out by `drain`

    def wait(self, timeout: float) -> bool:
        """Block up to `timeout` seconds until an event is waiting; True when one is (False may
        also come early, after an event that a `drain` took already)."""
        if self._queue.empty():
            self._wake.acquire(timeout=min(max(0.0, timeout), threading.TIMEOUT_MAX))
        return not self._queue.empty()

    def drain(self) -> list[InputEvent]:
        """Every waiting event, oldest first, without blocking. The loop asks every tick, nearly
        always of an empty queue: that answer costs no exception (a raised and caught
        queue.Empty was a tenth of a still screen's tick)."""
        if self._queue.empty():
            return []
        events = []
        while True:
            try:
                events.append(self._queue.get_nowait())
            except queue.Empty:
                return [event for event in events if event is not _WAKE]

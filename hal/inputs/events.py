"""The vocabulary every input source speaks, so the console never knows where a press came from.

A GPIO button, a terminal key and a line of an input script all become the same `InputEvent`;
the console's controller reads only these.
"""

from __future__ import annotations

import queue
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
    the next frame. Sources only ever call `put`, so a plain `queue.SimpleQueue` serves them too."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[InputEvent] = queue.SimpleQueue()
        self._taken: list[InputEvent] = []  # taken while waiting, handed out first by `drain`

    def put(self, event: InputEvent) -> None:
        self._queue.put(event)

    def wake(self) -> None:
        """Wake a loop blocked in `wait` without an event (to stop it); safe in a signal handler
        (SimpleQueue.put is reentrant)."""
        self._queue.put(_WAKE)

    def wait(self, timeout: float) -> bool:
        """Block up to `timeout` seconds until an event is waiting; True when one is."""
        if self._taken:
            return True
        try:
            self._taken.append(self._queue.get(timeout=timeout))
        except queue.Empty:
            return False
        return True

    def drain(self) -> list[InputEvent]:
        """Every waiting event, oldest first, without blocking."""
        events, self._taken = self._taken, []
        while True:
            try:
                events.append(self._queue.get_nowait())
            except queue.Empty:
                return [event for event in events if event is not _WAKE]

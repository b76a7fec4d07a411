"""Auto-repeat for held directions, so a held joystick walks the cursor like a held arrow key.

Pure: the caller passes the time in, so the GPIO source, the input-script player and the tests
all run it on their own clock (real, virtual or fake) and nothing here sleeps or reads a clock.

Timing: the first repeat falls due `delay_s` after the press, then one every `1 / rate_hz`,
on a fixed grid counted from the press (a late poll does not shift the later repeats). Each
repeat event carries the time it fell due, not the time it was polled.

Catch-up cap: if the loop polls late, the repeats that fell due meanwhile are emitted, but at
most `MAX_CATCH_UP` a button per `due()` call; older missed ones are dropped. A frame that runs
a little late (a garbage collection, a slow store write) still moves the cursor as far as the
hold lasted, while a loop that stalled for a second does not fling it across the board.
"""

from __future__ import annotations

import math

from hal.inputs.events import DIRECTIONS, REPEAT, InputConfigError, InputEvent

MAX_CATCH_UP = 2


class AutoRepeat:
    """Which directions are held since when, and which repeats each of them owes."""

    __slots__ = ("delay_s", "period_s", "_pressed_at", "_next_step")

    def __init__(self, delay_s: float = 0.35, rate_hz: float = 12.0):
        if not (math.isfinite(delay_s) and delay_s > 0):
            raise InputConfigError(f"auto-repeat delay must be above 0 s, not {delay_s!r}")
        if not (math.isfinite(rate_hz) and rate_hz > 0):
            raise InputConfigError(f"auto-repeat rate must be above 0 Hz, not {rate_hz!r}")
        self.delay_s = float(delay_s)
        self.period_s = 1.0 / rate_hz
        self._pressed_at: dict[str, float] = {}
        # For each held direction, the index k of its next repeat, due at
        # pressed_at + delay_s + k * period_s (an integer grid, so no drift from summing).
        self._next_step: dict[str, int] = {}

    def press(self, button: str, now: float) -> None:
        """Start the hold of a direction; other buttons do not repeat and are not tracked."""
        if button in DIRECTIONS:
            self._pressed_at[button] = now
            self._next_step[button] = 0

    def release(self, button: str, now: float) -> None:
        """Forget the hold; `now` is accepted for symmetry with `press` and is not needed."""
        self._pressed_at.pop(button, None)
        self._next_step.pop(button, None)

    def _due_time(self, button: str, step: int) -> float:
        return self._pressed_at[button] + self.delay_s + step * self.period_s

    def next_due(self) -> float:
        """When the next repeat falls due (inf: no direction is held)."""
        return min((self._due_time(b, step) for b, step in self._next_step.items()), default=math.inf)

    def due(self, now: float) -> list[InputEvent]:
        """The repeats that fell due by `now`, oldest first (at most MAX_CATCH_UP a button)."""
        events: list[InputEvent] = []
        for button, step in self._next_step.items():
            if self._due_time(button, step) > now:
                continue
            # Index of the last repeat due by now (the float quotient may be off by one either way).
            last = max(step, math.floor((now - self._due_time(button, 0)) / self.period_s))
            while self._due_time(button, last) > now:
                last -= 1
            while self._due_time(button, last + 1) <= now:
                last += 1
            first = max(step, last - MAX_CATCH_UP + 1)
            events.extend(
                InputEvent(button, REPEAT, self._due_time(button, k))
                for k in range(first, last + 1)
            )
            self._next_step[button] = last + 1
        events.sort(key=lambda event: event.time)
        return events

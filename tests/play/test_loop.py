"""The real-time loop on a virtual clock: time-driven ticks come at most `fps` a second after a
short burst, whatever the app asks, and an input is taken at once."""

from __future__ import annotations

import math

import pytest

from console.play.loop import TICKS_AT_ONCE, run_realtime


class VirtualQueue:
    """The app's queue on a virtual clock: a wait moves the clock, an input put at a time ends the
    wait that reaches it."""

    def __init__(self, clock: list[float], inputs: list[float]) -> None:
        self.clock, self.inputs = clock, sorted(inputs)

    def wait(self, seconds: float) -> bool:
        until = self.clock[0] + seconds
        if self.inputs and self.inputs[0] <= until:
            self.clock[0] = max(self.clock[0], self.inputs.pop(0))
            return True
        self.clock[0] = until
        return False


class Asking:
    """An app whose every tick asks for another `after` seconds later (0: at once, as a screen that
    would change all the time)."""

    def __init__(self, clock: list[float], after: float, end: float, inputs: list[float] = ()) -> None:
        self.clock, self.after, self.end = clock, after, end
        self.events = VirtualQueue(clock, list(inputs))
        self.ticks: list[float] = []
        self.running = True

    def start(self, now: float) -> None:
        pass

    def tick(self, now: float) -> float:
        self.ticks.append(now)
        if now >= self.end:
            self.running = False
        return now + self.after


@pytest.mark.parametrize("fps", [10, 60])
def test_time_driven_ticks_come_at_most_fps_a_second_after_a_short_burst(fps):
    clock = [0.0]
    app = Asking(clock, 0.0, end=5.0)
    run_realtime(app, fps, clock=lambda: clock[0])
    for start in range(5):
        within = [t for t in app.ticks if start <= t < start + 1]
        assert len(within) <= fps + TICKS_AT_ONCE + (start == 0)  # the first tick is the start's
    assert len(app.ticks) >= 5 * fps - 1  # and as many as that: the loop does not starve


def test_an_input_is_taken_at_once_and_a_still_screen_waits_for_it():
    clock = [0.0]
    app = Asking(clock, math.inf, end=3.0, inputs=[0.5, 1.25, 3.0])
    run_realtime(app, 60, clock=lambda: clock[0])
    assert app.ticks == [0.0, 0.5, 1.25, 3.0]

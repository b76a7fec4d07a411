"""The loops around an app: in real time (the console, the wiring check) and on a virtual clock
(input scripts, the tests).

An app offers `tick(now) -> due`, `start(now)`, `running` and `events` (the queue its inputs come
on). In real time the loop sleeps on that queue until the tick's `due` or an input, whichever
comes first: the console's ticks ask for the next moment the frame can change, so a still screen
costs nothing; the wiring check's for the next frame.
"""

from __future__ import annotations

import gc
import math
import time
from typing import Any, Callable

from console.play.bucket import Bucket

TICKS_AT_ONCE = 3  # two edges close together are both on time


def run_realtime(app: Any, fps: float, clock=time.monotonic, start: bool = True,
                 started: Callable[[], None] | None = None) -> None:
    """Tick when something can change and sleep in between: at once when an input arrives (a
    press is on the panel at once), else at the time the last tick asked for (a blink edge, a
    timer). Time-driven ticks come at most `fps` a second on average, a short burst let through
    (two edges close together are both on time). `start=False` for an app whose state the caller
    has set up already. `app.events.wait(seconds)` is the only way it waits, so a test that gives
    the app a queue on a virtual clock runs this loop in virtual time. `started` is called once,
    after the first tick (the first frame is out): the console's is `freeze_start_up`."""
    pace = Bucket(TICKS_AT_ONCE, fps, -math.inf)  # time-driven ticks: a short burst, then `fps` a second
    now = clock()
    if start:
        app.start(now)
    while app.running:
        due = app.tick(now)
        if due < math.inf:  # a time-driven tick: paced
            due += pace.wait(due)
        if started is not None:
            started()
            started = None
        while app.running:
            now = clock()
            if now >= due:
                pace.take(due)
                break
            if app.events.wait(due - now):
                now = clock()
                break


def freeze_start_up() -> None:
    """Leave what the start made out of every later garbage collection: collect once, then
    freeze what is left (`gc.freeze`). Python's full collection walks every object it tracks,
    and a started console tracks some 53,000 made once (modules, the configuration, the
    palette, the caches, the web companion): a full collection took 10-39 ms here with them,
    0.01 ms frozen (`hues-console bench`). On a Pi Zero 2 W that is a third of a second of a
    stalled panel and late taps whenever a collection comes round. For the console's own
    process only: a test process freezing its objects would never collect the garbage cycles
    its later tests leave."""
    gc.collect()
    gc.freeze()


def run_virtual(app: Any, fps: float, done: Callable[[], bool], settle_s: float = 1.0,
                limit_s: float = 24 * 3600) -> float:
    """Tick on a virtual clock as fast as the CPU allows until `done()`, then `settle_s` more
    seconds of frames (so the last input's effect is on the panel). Returns the final time."""
    period = 1.0 / fps
    frame = 0
    app.start(0.0)
    end = None
    while app.running:
        now = frame * period
        app.tick(now)
        if end is None and done():
            end = now + settle_s
        if (end is not None and now >= end) or now >= limit_s:
            break
        frame += 1
    return frame * period

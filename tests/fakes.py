"""Stand-ins shared by several test modules."""

from __future__ import annotations

from concurrent.futures import Executor, Future


class FakeClock:
    """A clock that only moves when told to (wall clock, monotonic clock and sleep in one)."""

    def __init__(self, start: float = 0.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class InlineThinker(Executor):
    """An executor that does the work at once, in the caller's thread: the computer players'
    moves worked out within the tick that asks for them, so a game on a virtual clock is the
    same every run (the console's own thinker is a thread, `play.computers`)."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # handed over as a thread's would be: the future holds it
            future.set_exception(exc)
        return future

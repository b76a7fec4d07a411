"""Stand-ins shared by several test modules."""

from __future__ import annotations


class FakeClock:
    """A clock that only moves when told to (wall clock, monotonic clock and sleep in one)."""

    def __init__(self, start: float = 0.0):
        self.now = start

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

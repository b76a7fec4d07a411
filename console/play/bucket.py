"""A token bucket on an injected clock: the one rate limit of the console, for the loop's
time-driven ticks (`loop.run_realtime`) and the web's limits (the wrong-code budgets, each
page's pacing, the replays' throttle)."""

from __future__ import annotations

ROUNDING = 1e-9  # a token short by less: there (who waited `wait` may go, whatever the rounding)


class Bucket:
    """`capacity` tokens at once, `per_s` more a second, on the clock its callers read."""

    def __init__(self, capacity: float, per_s: float, now: float) -> None:
        self.capacity, self.per_s, self._level, self._at = capacity, per_s, float(capacity), now

    def level(self, now: float) -> float:
        """The tokens there at `now` (below 0: owed, see `reserve`); a time before the latest asked
        about is counted as that one."""
        if now > self._at:
            self._level = min(self.capacity, self._level + (now - self._at) * self.per_s)
            self._at = now
        return self._level

    def wait(self, now: float) -> float:
        """Seconds until one token is there (0: now)."""
        short = 1 - self.level(now)
        return short / self.per_s if short > ROUNDING else 0.0

    def take(self, now: float) -> None:
        """One token, if one is there: an empty bucket stays empty."""
        self._level = max(0.0, self.level(now) - 1)

    def reserve(self, now: float) -> float:
        """One token, owed if none is there: the seconds until it is (after those owed before)."""
        wait = self.wait(now)
        self._level -= 1
        return wait

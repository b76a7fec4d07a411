"""The time a frame is drawn for, and how long what is drawn then stays the same.

The panel should cost nothing while its picture holds still, so the app loop sleeps until the
next moment the frame can change instead of drawing 60 times a second. That moment comes from
the renderer itself: every choice a screen makes from the time (is the pawn lit, which page of
scores, has the reveal moved on) is asked of a `Moment`, which answers it and notes the first
later time at which the answer is different. The earliest of those is when the frame can next
change (`render.render_timed`); nothing else in the view reads the clock.

A change time is exact on the float clock: the very expression that decides is evaluated near
the time the arithmetic predicts, one unit in the last place at a time (bisecting, should the
prediction be off), so the frame drawn at any time in [t, until) is the frame drawn at t, and
the frame at `until` already shows the change. Answers that hold for ever (a still menu) leave
`until` at infinity.
"""

from __future__ import annotations

import math
from typing import Callable, TypeVar

T = TypeVar("T")
_NUDGES = 8  # ulps tried on either side of a predicted change before bisecting


class Moment:
    """`t`, the time drawn for, and `until`, the earliest change noted so far."""

    __slots__ = ("t", "until")

    def __init__(self, t: float) -> None:
        self.t = t
        self.until = math.inf

    def holds(self, value: Callable[[float], T], guess: float) -> T:
        """value(t), noting when it first differs after t; `guess` is the predicted time of that
        change (inf: never), at or a few ulps around it."""
        now = value(self.t)
        change = first_change(value, self.t, now, guess)
        if change < self.until:
            self.until = change
        return now

    def blink(self, hz: float, duty: float = 0.5, since: float = 0.0) -> bool:
        """True in the first `duty` part of each period of a `hz` blink started at `since`."""
        phase = ((self.t - since) * hz) % 1.0
        guess = self.t + ((duty - phase) if phase < duty else (1.0 - phase)) / hz
        return self.holds(lambda t: ((t - since) * hz) % 1.0 < duty, guess)

    def whole(self, x: Callable[[float], float], per_s: float) -> int:
        """int(x(t)) for an x that grows `per_s` a second: a step count (a page, a wave step)."""
        now = x(self.t)
        return self.holds(lambda t: int(x(t)), self.t + (math.floor(now) + 1 - now) / per_s)

    def within(self, start: float, length: float) -> bool:
        """Whether 0 <= t - start < length: a flicker that starts at `start`."""
        guess = start if self.t < start else start + length if self.t - start < length else math.inf
        return self.holds(lambda t: 0 <= t - start < length, guess)

    def stage(self, value: Callable[[float], T], *edges: float) -> T:
        """value(t) for a value that changes only at (or just after) the times `edges`."""
        return self.holds(value, min((e for e in edges if e >= self.t), default=math.inf))


def first_change(value: Callable[[float], T], t: float, now: T, guess: float) -> float:
    """The first float after `t` at which value() is not `now`, searched from `guess`; a time
    where it is still `now` (an early wake-up, never a late one) when the guess is far too soon;
    inf when the guess is."""
    if guess == math.inf:
        return math.inf
    x = guess if guess > t else math.nextafter(t, math.inf)
    for _ in range(_NUDGES):
        if value(x) != now:
            break
        x = math.nextafter(x, math.inf)
    else:
        return x  # still unchanged: wake then and look again
    low = t  # value(low) == now, value(x) != now: walk (then bisect) back to the first change
    for _ in range(_NUDGES):
        before = math.nextafter(x, -math.inf)
        if before <= low or value(before) == now:
            return x
        x = before
    while True:
        middle = low + (x - low) / 2
        if middle <= low or middle >= x:
            return x
        if value(middle) == now:
            low = middle
        else:
            x = middle


class Reel:
    """Pictures drawn ahead: from `t`, up to `count` of them one after another, each with the
    time it lasts until, so a screen that changes by itself is drawn in a batch and only looked
    up at each change.

    On the box a wake-up costs more than the drawing it does: after a sleep the caches are cold,
    and a frame drawn then takes many times as long as one drawn straight after another. `draw(t) -> (picture, until)` must be exact as `render_timed` is (the
    picture holds for [t, until)), so each picture is the one drawing at its time would give.
    None is drawn at or after `end` (a time the caller must look again itself)."""

    __slots__ = ("starts", "untils", "pictures", "_at")

    def __init__(self, draw: Callable[[float], tuple[T, float]], t: float, count: int,
                 end: float = math.inf) -> None:
        self.starts: list[float] = []
        self.untils: list[float] = []
        self.pictures: list[T] = []
        self._at = 0
        while True:
            picture, until = draw(t)
            self.starts.append(t)
            self.untils.append(min(until, end))
            self.pictures.append(picture)
            if until >= end or len(self.pictures) >= count:
                return
            t = until

    def __len__(self) -> int:
        return len(self.pictures)

    def at(self, t: float) -> tuple[T, float] | None:
        """The picture at `t` and the time it lasts until; None outside the reel."""
        i = self._at
        if t < self.starts[i]:
            if t < self.starts[0]:
                return None
            i = 0
        untils = self.untils
        while t >= untils[i]:
            i += 1
            if i == len(untils):
                return None
        self._at = i
        return self.pictures[i], untils[i]

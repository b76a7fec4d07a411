"""How long a button has been held, whether it sends a release or not.

A GPIO button (and an input script) sends a press and, later, a release. A terminal sends no key
release at all: the keyboard input queues each key as a press with its release at the same
moment, and a held key comes back as more presses through the terminal's key repeat (after a
delay of 250-660 ms on common desktops, then 25-30 a second). So a release stamped with its
press's own time does not end a hold; the hold ends when no press follows within
`KEY_REPEAT_GAP_S`. The console's host menu and power-off hold and the wiring check's finish
hold all count through this, so they work from a keyboard as from the box.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from hal.inputs.events import RELEASE

KEY_REPEAT_GAP_S = 0.75  # longer than a terminal's key-repeat delay


@dataclass
class Hold:
    since: float | None = None  # when the hold began; None: not held
    last: float = 0.0  # the latest press (or key repeat)
    released: bool = False  # a terminal's instant release: held while presses keep coming

    def event(self, kind: str, time: float) -> None:
        """A press, repeat or release of the button, stamped `time`."""
        if kind != RELEASE:
            if self.since is None:
                self.since = time
            self.last, self.released = time, False
        elif time > self.last:
            self.since = None  # a real release
        else:
            self.released = True

    def seconds(self, now: float) -> float:
        """How long the button has been held at `now`; 0 when it is not."""
        if self.since is None:
            return 0.0
        if not self.released:
            return now - self.since
        if now - self.last > KEY_REPEAT_GAP_S:
            self.since = None
            return 0.0
        return self.last - self.since  # a terminal: as long as the key repeats came


class ConsoleHolds:
    """The console's two holds: Start, which opens the host menu once per hold after `menu_s`
    (where a menu may open), and the shutdown button (it may be Start too), whose hold counts
    towards power-off over `shutdown_s` (where the box can power off: the red bar's progress)."""

    def __init__(self, shutdown_button: str, shutdown_s: float, menu_s: float) -> None:
        self._holds = {"start": Hold(), shutdown_button: Hold()}  # one, when they are the same
        self.shutdown_button, self.shutdown_s, self.menu_s = shutdown_button, shutdown_s, menu_s
        self._menu_opened = False  # this Start hold has opened the host menu already

    def event(self, button: str, kind: str, time: float) -> None:
        hold = self._holds.get(button)
        if hold is not None:
            hold.event(kind, time)

    def held(self) -> bool:
        """Whether a button counts as held (a hold ends in `Hold.seconds`, so this may say so
        until the next look at it)."""
        return any(hold.since is not None for hold in self._holds.values())

    def at(self, now: float, menu_may_open: Callable[[], bool], can_power_off: bool) -> tuple[bool, float]:
        """Whether the host menu opens now, and the power-off progress from 0 to 1."""
        if not self.held():
            self._menu_opened = False
            return False, 0.0
        held, opens = self._holds["start"].seconds(now), False
        if held == 0:
            self._menu_opened = False
        elif held >= self.menu_s and not self._menu_opened and menu_may_open():
            self._menu_opened = opens = True
        held = self._holds[self.shutdown_button].seconds(now)
        return opens, min(1.0, held / self.shutdown_s) if held and can_power_off else 0.0

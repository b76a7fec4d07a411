"""The hand-over point between the app loop (its own thread) and the web server (an asyncio loop
in another thread): the loop publishes each new state and frame, subscribers are woken.

Publishing must never slow the panel, so it only stores references to immutable snapshots and
schedules one wake-up on each server loop that has subscribers (one self-pipe write however many
phones are connected, none while one is still pending), which then wakes its subscribers; no
message is built in the app's thread. A burst of changes wakes a subscriber once and it reads the
latest snapshot: a phone is never fed stale states, and a slow phone cannot make the queue grow.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Callable, NamedTuple

from console.game.rules import GameState
from console.view.ui import Ui
from hal.frame import Frame


class Snapshot(NamedTuple):
    """What the panel stood at: the game, the UI state and the app's time. `version` grows by one
    per published change, so a subscriber knows what it has already sent. (A tuple: made at every
    change, a phone's tap too, where a frozen dataclass sets each field through object.__setattr__.)"""

    version: int
    game: GameState | None
    ui: Ui
    time: float


class Hub:
    """Latest state and frame, and who wants to hear of the next ones."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # key -> (loop, wake, wants states, wants frames)
        self._subscribers: dict[int, tuple[asyncio.AbstractEventLoop, Callable[[], None], bool, bool]] = {}
        # kind -> loop -> its subscribers' wakes for that kind, in the order they subscribed: worked
        # out when someone (un)subscribes, not at each publish
        self._wakes: dict[str, dict[asyncio.AbstractEventLoop, tuple[Callable[[], None], ...]]] = {
            "states": {}, "frames": {}}
        self._next_id = 0
        self._pending: dict[asyncio.AbstractEventLoop, set[str]] = {}  # loop -> kinds published since woken
        self.snapshot = Snapshot(0, None, Ui(), 0.0)
        self.frame: Frame | None = None  # the last frame pushed to the panel; never mutated after
        self.frame_version = 0
        self.frame_snapshot = self.snapshot  # the state `frame` was drawn from (published just before it)
        self.frame_time = 0.0  # and the app's time it was drawn at

    # --- the app loop's side ---------------------------------------------------------------

    def publish_state(self, game: GameState | None, ui: Ui, now: float) -> None:
        with self._lock:
            self.snapshot = Snapshot(self.snapshot.version + 1, game, ui, now)
        self._wake("states")

    def publish_frame(self, frame: Frame, now: float = 0.0) -> None:
        with self._lock:
            self.frame, self.frame_snapshot, self.frame_time = frame, self.snapshot, now
            self.frame_version += 1
        self._wake("frames")

    # --- the server's side -----------------------------------------------------------------

    def shown(self) -> tuple[Frame | None, Snapshot, float]:
        """The last frame, the state it was drawn from and when, read together."""
        with self._lock:
            return self.frame, self.frame_snapshot, self.frame_time

    def subscribe(self, wake: Callable[[], None], loop: asyncio.AbstractEventLoop | None = None, *,
                  states: bool = True, frames: bool = True) -> Callable[[], None]:
        """Call `wake()` on `loop` (the running one by default) after each published state
        and/or frame (phones want states only: frames change with every blink); returns the
        function that unsubscribes."""
        loop = loop or asyncio.get_running_loop()
        with self._lock:
            key = self._next_id
            self._next_id += 1
            self._subscribers[key] = (loop, wake, states, frames)
            self._group_wakes()

        def unsubscribe() -> None:
            with self._lock:
                if self._subscribers.pop(key, None) is not None:
                    self._group_wakes()

        return unsubscribe

    def _group_wakes(self) -> None:
        """Under the lock: `_wakes` from `_subscribers`."""
        for kind, wanted in (("states", 2), ("frames", 3)):
            by_loop: dict[asyncio.AbstractEventLoop, list[Callable[[], None]]] = {}
            for subscriber in self._subscribers.values():
                if subscriber[wanted]:
                    by_loop.setdefault(subscriber[0], []).append(subscriber[1])
            self._wakes[kind] = {loop: tuple(wakes) for loop, wakes in by_loop.items()}

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subscribers)

    def _wake(self, kind: str) -> None:
        """One call into each loop with subscribers for `kind` (states or frames), unless one is
        on its way there already."""
        schedule = []
        with self._lock:
            for loop in self._wakes[kind]:
                pending = self._pending.get(loop)
                if pending is None:
                    self._pending[loop] = {kind}
                    schedule.append(loop)
                else:
                    pending.add(kind)
        for loop in schedule:
            try:
                loop.call_soon_threadsafe(self._wake_subscribers, loop)
            except RuntimeError:  # that loop is closed: the server is stopping
                with self._lock:
                    self._pending.pop(loop, None)

    def _wake_subscribers(self, loop: asyncio.AbstractEventLoop) -> None:
        """In `loop`'s thread: wake its subscribers for what was published since it was called."""
        with self._lock:
            kinds = self._pending.pop(loop, ())
            wakes = dict.fromkeys(wake for kind in kinds for wake in self._wakes[kind].get(loop, ()))  # once each
        for wake in wakes:
            wake()


def changed_event() -> tuple[asyncio.Event, Callable[[], None]]:
    """An asyncio.Event and the wake function that sets it: the usual way to wait on a Hub."""
    event = asyncio.Event()
    return event, event.set


__all__ = ["Hub", "Snapshot", "changed_event"]

"""The frame loop's questions to the store (the brightness kept, the last games, a game to resume,
the attract loop's record), answered off the loop's thread.

A read of Redis can wait for seconds (a stalled SD card, a Redis loading its data): asked on the
loop's thread it froze the panel, and at start it hid the stored game. So each question goes to
the store's writer thread (`store.later`), and its answer is handed to its handler on the loop's
thread once it is there: a `Chore` on the event queue wakes the loop for it.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future, wait
from typing import Any, Callable

from console.play.remote import Chore

log = logging.getLogger("hues-console")


class StoreAnswers:
    """Questions in flight, one per name; `settle` hands each arrived answer to its handler."""

    def __init__(self, store: Any, events: Any):
        self.store = store
        self.events = events
        self._pending: dict[str, tuple[Future, Callable[[Any], None]]] = {}

    def ask(self, name: str, question: Callable[[Any], Any], handler: Callable[[Any], None]) -> None:
        """Ask `question(store)` unless `name` is asked already; `handler(answer)` runs in the
        loop's thread (at once when the store answered at once: the memory store)."""
        if name in self._pending:
            return
        future = self.store.later(question)
        self._pending[name] = (future, handler)
        if future.done():
            self.settle()
        else:
            future.add_done_callback(lambda _: self.events.put(Chore(lambda store: self.settle())))

    def asking(self, name: str) -> bool:
        return name in self._pending

    def wait(self, timeout_s: float) -> None:
        """Wait up to `timeout_s` for the questions in flight, then settle those answered (at start:
        a healthy Redis answers in milliseconds, and the first frame is then the right one)."""
        wait([future for future, _ in self._pending.values()], timeout=timeout_s)
        self.settle()

    def settle(self) -> None:
        for name, (future, handler) in list(self._pending.items()):
            if not future.done():
                continue
            del self._pending[name]
            if future.cancelled():
                continue
            error = future.exception()
            if error is not None:
                log.warning("the game store could not answer (%s: %s)", name, error)
                continue
            handler(future.result())

"""Keeping the seats in the store without the panel's loop waiting for it.

A seat taken or left is a setting in the store, and a setting is journalled (an fsync) before it
is acknowledged. Done on the app loop's thread, as a `Chore`, seat churn from six connections made
the panel's frame gaps 107 to 280 ms. So the seats are written from a thread of their own, and
only the latest list is: a burst of takes and leaves is one write, and writes are at least
`every_s` apart, so a guest who takes and leaves as fast as the server reads them costs the disk a
few writes a second, whatever the number of connections.

The store is made for this: its writes hold its own lock (`JournalledWriter._record`), which the
loop takes only for a move's own write; at worst a move waits for one seat write.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from console.web.seats import SEATS_SETTING

log = logging.getLogger("hues-console")
WRITE_EVERY_S = 0.2


class SeatWriter:
    """`save(seats)` returns at once; a thread writes the latest seats given to `store`."""

    def __init__(self, store: Any, every_s: float = WRITE_EVERY_S) -> None:
        self.store, self.every_s = store, every_s
        self._changed = threading.Condition()
        self._latest: list | None = None
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hues-seats", daemon=True)
        self._thread.start()

    def save(self, seats: list) -> None:
        with self._changed:
            self._latest = seats
            self._changed.notify()

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._latest is not None or self._closing.is_set())
                seats, self._latest = self._latest, None
            if seats is not None:
                try:
                    self.store.set_setting(SEATS_SETTING, seats)
                except Exception:  # the thread must outlive a bug: the next change is written again
                    log.exception("the phones' seats could not be kept in the store")
            if self._closing.is_set() and self._latest is None:
                return
            self._closing.wait(self.every_s)

    def close(self, timeout_s: float = 2.0) -> None:
        """Write what is still waiting, then stop the thread."""
        with self._changed:
            self._closing.set()
            self._changed.notify()
        self._thread.join(timeout_s)

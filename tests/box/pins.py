"""The buttons of the box in the container: a gpiozero pin factory whose pins a FIFO drives.

There are no GPIO lines in the container, so the console's `lgpio` factory has nothing to open.
This is gpiozero's own `MockFactory` (gpiozero/pins/mock.py: MockPin.drive_low()/drive_high()
change the pin's state and call the edge callbacks, bounce time included, as lgpio's alert thread
calls them on a Pi), with one thread that reads lines "PIN LEVEL" (BCM number, 0 or 1) from the
FIFO $HUES_BOX_PRESSES and drives those pins: a button wired to ground with the pull-up on reads 0
while pressed. The test drives it from outside the container (tests/box/machine.py, `Presses`).

The container's Python finds it as the pin factory `box-fifo` through the entry point the stage
writes beside it (gpiozero looks $GPIOZERO_PIN_FACTORY up in the group gpiozero_pin_factories).
"""

from __future__ import annotations

import os
import threading
import time

from gpiozero.pins.mock import MockFactory

FIFO = "/run/hues-box/presses"
EDGE_S = 0.03
ENTRY_POINTS = "[gpiozero_pin_factories]\nbox-fifo = hues_box_pins:FifoFactory\n"


class FifoFactory(MockFactory):
    def __init__(self):
        super().__init__()
        threading.Thread(target=self._read, args=(os.environ.get("HUES_BOX_PRESSES", FIFO),),
                         name="box-presses", daemon=True).start()

    def _read(self, path: str) -> None:
        last: dict[int, float] = {}
        while True:
            with open(path, encoding="ascii") as fifo:  # waits for the test to open it
                for line in fifo:
                    pin, level = map(int, line.split())
                    # A tap comes as its two edges in one line pair: they are driven EDGE_S apart,
                    # as a real contact would move (lgpio's 20 ms debounce on a Pi would drop a
                    # closer one), so the hold is timed here, not by the test's thread.
                    wait = last.get(pin, 0.0) + EDGE_S - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                    last[pin] = time.monotonic()
                    mock = self.pin(pin)
                    if level == 0:
                        mock.drive_low()
                    else:
                        mock.drive_high()

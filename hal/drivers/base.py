"""The one interface every LED or simulator driver offers the app loop.

A driver gets both forms of each frame: `leds`, the chain-ordered drive bytes that real LEDs are
sent, and `frame`, the logical picture they came from, which is what a simulator should show
(the light a person sees, without brightness, gamma or the current limiter).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from hal.frame import Frame
from hal.light import LINEAR, LightResponse


class DriverError(RuntimeError):
    """A driver that cannot start or keep running; the message says what is likely wrong."""


class Driver(ABC):
    # What the bytes written become on the LEDs; the output stage writes for it (hal/light.py).
    light_response: LightResponse = LINEAR
    # A driver whose LEDs are on a receiver of their own (the network drivers) is also the app's
    # link to it: one of its sources (`poll`, `next_poll`, `close`: the keep-alive), `answering`
    # and `watch(wake)` (hal/drivers/network.py). None for LEDs wired to this computer.
    link = None

    @abstractmethod
    def show(self, leds: bytes, frame: Frame) -> None:
        """Display one frame: `leds` are chain-ordered drive bytes (3 an LED), `frame` the logical picture."""

    @abstractmethod
    def clear(self) -> None:
        """Turn every LED off."""

    @abstractmethod
    def close(self) -> None:
        """Release the device; the driver is not used afterwards. Calling it twice is harmless."""


class ChainDriver(Driver):
    """A driver for a real LED chain: a frame, the clear and the clear at close all go out through
    one `_send(leds)`, and closing turns the LEDs off once (a second close does nothing)."""

    led_count: int
    _closed = False

    def show(self, leds: bytes, frame: Frame) -> None:
        self._send(leds)

    def clear(self) -> None:
        self._send(bytes(self.led_count * 3))

    def close(self) -> None:
        if not self._closed:
            self.clear()
            self._closed = True

    @abstractmethod
    def _send(self, leds: bytes) -> None:
        """Put chain-ordered drive bytes (3 an LED) on the LEDs."""

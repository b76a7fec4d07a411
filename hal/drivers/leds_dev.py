"""WS2812 LEDs on a Raspberry Pi 5 through the kernel's ws2812-pio driver (`/dev/leds0`).

The Pi 5's RP1 chip cannot run rpi-ws281x; the `dtoverlay=ws2812-pio,gpio=18,num_leds=512`
overlay instead gives a character device that takes a whole frame in one write, 4 bytes an LED
in R, G, B, W order (W ignored for RGB strips). That driver applies its own gamma, so the output
stage feeding this one must be built with apply_gamma=False.

Each frame is written as `cat frame > /dev/leds0` would: open, one write, close. The device's
documented use is one whole frame per open, and a kept-open handle whose file position moves on
after the first frame is exactly what must not happen at a party; an open costs microseconds.
"""

from __future__ import annotations

import os

from hal.drivers.base import Driver, DriverError
from hal.frame import Frame

DEFAULT_DEVICE = "/dev/leds0"


def is_pi5_family(model: str) -> bool:
    """A Pi 5, Pi 500 or Compute Module 5 (RP1 chip): leds-dev, not rpi-ws281x. The installer
    (scripts/install-pi) applies the same rule to the same /proc/device-tree/model text."""
    return "Raspberry Pi 5" in model or "Compute Module 5" in model


class LedsDevDriver(Driver):
    applies_own_gamma = True

    def __init__(self, led_count: int, device: str = DEFAULT_DEVICE):
        self.device = device
        self.led_count = led_count
        self._closed = False
        try:
            os.close(os.open(device, os.O_WRONLY))  # say now, not mid-game, if it cannot be opened
        except FileNotFoundError as error:
            raise DriverError(
                f"there is no {device}: add dtoverlay=ws2812-pio,gpio=18,num_leds={led_count} "
                f"to /boot/firmware/config.txt and reboot (Raspberry Pi 5 only)"
            ) from error
        except PermissionError as error:
            raise DriverError(
                f"no permission to write {device}: run hues-console as root or add a udev rule for it"
            ) from error
        except OSError as error:
            raise DriverError(f"cannot open {device}: {error.strerror}") from error
        # R, G and B are copied in with stride-4 slices; W stays 0.
        self._words = bytearray(led_count * 4)

    def show(self, leds: bytes, frame: Frame) -> None:
        self._write(leds)

    def clear(self) -> None:
        self._write(bytes(self.led_count * 3))

    def close(self) -> None:
        if not self._closed:
            self.clear()
            self._closed = True

    def _write(self, leds: bytes) -> None:
        words = self._words
        words[0::4] = leds[0::3]
        words[1::4] = leds[1::3]
        words[2::4] = leds[2::3]
        try:
            fd = os.open(self.device, os.O_WRONLY)
            try:
                written = os.write(fd, words)
            finally:
                os.close(fd)
        except OSError as error:
            raise DriverError(f"writing the LEDs to {self.device} failed: {error.strerror}") from error
        if written != len(words):
            raise DriverError(
                f"{self.device} took {written // 4} of {self.led_count} LEDs: set "
                f"num_leds={self.led_count} on the ws2812-pio overlay"
            )

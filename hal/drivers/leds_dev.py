"""WS2812 LEDs on a Raspberry Pi 5 through the kernel's ws2812-pio driver (`/dev/leds0`).

The Pi 5's RP1 chip cannot run rpi-ws281x; the `dtoverlay=ws2812-pio,gpio=18,num_leds=512`
overlay instead gives a character device that takes a whole frame in one write, 4 bytes an LED
in R, G, B, W order (W ignored for RGB strips). That driver applies its own gamma, so the output
stage feeding this one must be built with apply_gamma=False.
"""

from __future__ import annotations

import os

from hal.drivers.base import Driver, DriverError
from hal.frame import Frame

DEFAULT_DEVICE = "/dev/leds0"


class LedsDevDriver(Driver):
    applies_own_gamma = True

    def __init__(self, led_count: int, device: str = DEFAULT_DEVICE):
        self.device = device
        self.led_count = led_count
        try:
            self._fd = os.open(device, os.O_WRONLY)
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
        if self._fd is not None:
            self.clear()
            os.close(self._fd)
            self._fd = None

    def _write(self, leds: bytes) -> None:
        words = self._words
        words[0::4] = leds[0::3]
        words[1::4] = leds[1::3]
        words[2::4] = leds[2::3]
        try:
            written = os.pwrite(self._fd, words, 0)
        except OSError as error:
            raise DriverError(f"writing the LEDs to {self.device} failed: {error.strerror}") from error
        if written != len(words):
            raise DriverError(
                f"{self.device} took {written // 4} of {self.led_count} LEDs: set "
                f"num_leds={self.led_count} on the ws2812-pio overlay"
            )

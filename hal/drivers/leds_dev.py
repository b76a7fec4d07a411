"""WS2812 LEDs on a Raspberry Pi 5 through the kernel's ws2812-pio driver (`/dev/leds0`).

The Pi 5's RP1 chip cannot run rpi-ws281x; the `dtoverlay=ws2812-pio,gpio=18,num_leds=512`
overlay instead gives a character device that takes a whole frame in one write, 4 bytes an LED
in R, G, B, W order (W ignored for RGB strips).

What the kernel does with the bytes, as raspberrypi/linux drivers/misc/ws2812-pio-rp1.c says:
- every byte goes through `ws2812_gamma[(val * brightness) / 255]`, a table of
  `GammaE=255*(res/255).^(1/.45)` (its comment; the table is exactly the floor of that), so the
  light an LED gets is not the byte written. `KERNEL_GAMMA` is that table, and the output stage
  writes the byte whose light it wants;
- a write of exactly 1 byte at offset 0 sets that `brightness` (default 255, or the overlay's
  `brightness=` parameter). The driver sets it to 255 once when it opens the device, so the
  table above is the whole story whatever the overlay line says, and our brightness setting
  means the same light as on a Pi 4 (the kernel's brightness is applied *before* its gamma:
  its 128 gives 21 % light, not 50 %);
- a write longer than `num_leds` * 4 bytes fails with EFBIG, one past the end of the buffer
  with ENOSPC (a short write never happens), so either means the overlay's `num_leds` is too
  small for the panel;
- a write that does not fill the whole buffer is shown only 50 ms later (`HZ / 20`, the rest
  blanked), so when the overlay's `num_leds` (read from its device-tree node) is larger than the
  panel, each frame is padded with dark LEDs to the whole buffer and shown at once;
- the file position moves on with each write, so each frame is written as `cat frame >
  /dev/leds0` would: open, one write, close (an open costs microseconds).

udev creates /dev/leds0 some time after boot. A device not there yet is waited for a while
(`wait_s`) before it counts as a configuration error; a device that is there but that the
service's device list refuses (EPERM: the unit started before udev made it, so systemd left it
out of DeviceAllow=) is a `DeviceNotReadyError`: a restart of the service fixes it.
"""

from __future__ import annotations

import errno
import glob
import math
import os
import time
from collections.abc import Callable

from hal.drivers.base import ChainDriver, DriverError
from hal.light import LightResponse

DEFAULT_DEVICE = "/dev/leds0"
BYTES_PER_LED = 4
FULL_BRIGHTNESS = b"\xff"  # the kernel driver's 1-byte brightness write
DEVICE_WAIT_S = 30.0
DEVICE_TREE = "/proc/device-tree"
DEVICE_POLL_S = 0.5

KERNEL_GAMMA = LightResponse(
    "ws2812-pio gamma",
    bytes(math.floor(255 * (byte / 255) ** (1 / 0.45)) for byte in range(256)),
)


class DeviceNotReadyError(DriverError):
    """The LED device exists but this process may not open it yet: restarting the service fixes it."""


def overlay_num_leds(device_tree: str = DEVICE_TREE) -> int | None:
    """The `num_leds` of the one ws2812-pio overlay: its node's `rpi,num-leds`, one big-endian
    32-bit cell (ws2812-pio-overlay.dts); None without exactly one such node."""
    paths = glob.glob(os.path.join(glob.escape(device_tree), "ws2812_pio@*", "rpi,num-leds"))
    if len(paths) != 1:
        return None
    try:
        with open(paths[0], "rb") as file:
            cell = file.read(8)
    except OSError:
        return None
    return int.from_bytes(cell, "big") if len(cell) == 4 else None


def is_pi5_family(model: str) -> bool:
    """A Pi 5, Pi 500 or Compute Module 5 (RP1 chip): leds-dev, not rpi-ws281x. The installer
    (scripts/install-pi) applies the same rule to the same /proc/device-tree/model text."""
    return "Raspberry Pi 5" in model or "Compute Module 5" in model


class LedsDevDriver(ChainDriver):
    """`files` has os.open, os.write and os.close's signatures (os itself on a Pi; tests pass a
    stand-in that behaves like the kernel driver); `clock` and `sleep` time the wait for the device."""

    light_response = KERNEL_GAMMA

    def __init__(self, led_count: int, device: str = DEFAULT_DEVICE, *, num_leds: int | None = None,
                 files=os, wait_s: float = DEVICE_WAIT_S, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.device = device
        self.led_count = led_count
        self.num_leds = num_leds  # the overlay's, when known
        self._files = files
        # R, G and B are copied in with stride-4 slices; W and any padding LEDs stay 0.
        self._words = bytearray(max(led_count, num_leds or 0) * BYTES_PER_LED)
        deadline = clock() + wait_s
        while True:
            try:
                self._write_bytes(FULL_BRIGHTNESS)  # say now, not mid-game, if it cannot be opened
                return
            except FileNotFoundError as error:
                if clock() >= deadline:
                    raise DriverError(
                        f"there is no {device} (waited {wait_s:g} s): add dtoverlay=ws2812-pio,"
                        f"gpio=18,num_leds={led_count} to /boot/firmware/config.txt and reboot "
                        f"(Raspberry Pi 5 only)"
                    ) from error
                sleep(DEVICE_POLL_S)
            except PermissionError as error:
                if error.errno == errno.EPERM:
                    raise DeviceNotReadyError(
                        f"{device} appeared after the service started, so systemd does not let it "
                        f"open it: the service restarts to pick it up"
                    ) from error
                raise DriverError(
                    f"no permission to write {device}: the installer's udev rule gives it to the "
                    f"gpio group (run sudo ./scripts/install-pi again), or run hues-console as root"
                ) from error
            except OSError as error:
                raise self._write_error(error) from error

    def _send(self, leds: bytes) -> None:
        words = self._words
        end = self.led_count * BYTES_PER_LED
        words[0:end:4] = leds[0::3]
        words[1:end:4] = leds[1::3]
        words[2:end:4] = leds[2::3]
        try:
            self._write_bytes(words)
        except OSError as error:
            raise self._write_error(error) from error

    def _write_bytes(self, data: bytes) -> None:
        files = self._files
        fd = files.open(self.device, os.O_WRONLY)
        try:
            files.write(fd, data)
        finally:
            files.close(fd)

    def _write_error(self, error: OSError) -> DriverError:
        if error.errno in (errno.EFBIG, errno.ENOSPC):
            overlay = f" (num_leds={self.num_leds})" if self.num_leds else ""
            return DriverError(
                f"{self.device}{overlay} holds fewer LEDs than the panel's {self.led_count}: set "
                f"num_leds={self.led_count} on the dtoverlay=ws2812-pio line in "
                f"/boot/firmware/config.txt and reboot"
            )
        return DriverError(f"writing the LEDs to {self.device} failed: {error.strerror}")

"""A stand-in for the Pi 5's /dev/leds0 that behaves as raspberrypi/linux
drivers/misc/ws2812-pio-rp1.c says (ws2812_pio_rp1_write, ws2812_apply_gamma, rgbw_u32):

- a 1-byte write at offset 0 sets the brightness (the probe's default is 255);
- any other write copies into a `num_leds` * 4 byte buffer at the file position and moves the
  position on; past the end the copy is cut short and the write fails with EFBIG (more than the
  buffer) or ENOSPC (past its end), so there is no short write;
- what the LEDs then get is each byte through `ws2812_gamma[(val * brightness) / 255]`, except
  that a 0 byte, or a brightness of 0, passes the byte through unchanged; bytes past the end of
  the last write are zeros.

It offers os.open / os.write / os.close for the one path it stands in for, which is how
LedsDevDriver is given it.
"""

from __future__ import annotations

import errno
import os

from hal.drivers.leds_dev import KERNEL_GAMMA

PIXEL_BYTES = 4


class Ws2812PioStandIn:
    def __init__(self, path: str, num_leds: int, brightness: int = 255):
        self.path = path
        self.num_leds = num_leds
        self.brightness = brightness
        self.present = True        # False: udev has not made the device yet (ENOENT)
        self.refused = False       # True: the service's device list leaves it out (EPERM)
        self.pixbuf = bytearray(num_leds * PIXEL_BYTES)
        self.write_end = 0
        self.frames = 0            # buffers sent to the LEDs
        self.delayed = 0           # frames sent only 50 ms later (the write left the buffer short)
        self._positions: dict[int, int] = {}
        self._next_fd = 100

    # --- os.open / os.write / os.close ---------------------------------------------------------

    def open(self, path: str, flags: int) -> int:
        if path != self.path or not self.present:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
        if self.refused:
            raise PermissionError(errno.EPERM, os.strerror(errno.EPERM), path)
        fd = self._next_fd
        self._next_fd += 1
        self._positions[fd] = 0
        return fd

    def write(self, fd: int, data: bytes) -> int:
        pos = self._positions[fd]
        size = len(self.pixbuf)
        if pos > size:
            raise OSError(errno.EFBIG, os.strerror(errno.EFBIG))
        err = 0
        count = len(data)
        if count > size:
            err, count = errno.EFBIG, size
        if pos + count > size:
            err = err or errno.ENOSPC
            count = size - pos
        if pos == 0 and count == 1:
            self.brightness = data[0]
        else:
            self.pixbuf[pos:pos + count] = data[:count]
            pos += count
            self.write_end = pos
        self._positions[fd] = pos
        self.frames += 1  # the deferred work sends the buffer: at once when it is full, else in HZ / 20
        self.delayed += count != 1 and self.write_end != size
        if err:
            raise OSError(err, os.strerror(err))
        return count

    def close(self, fd: int) -> None:
        del self._positions[fd]

    # --- what the LEDs get ---------------------------------------------------------------------

    def _gamma(self, value: int) -> int:
        if not value or not self.brightness:
            return value
        return KERNEL_GAMMA.table[(value * self.brightness) // 255]

    def light(self) -> bytes:
        """R, G, B per LED as the PIO sends them, after the kernel's brightness and gamma."""
        buffer = bytes(self.pixbuf[:self.write_end]).ljust(len(self.pixbuf), b"\0")
        return bytes(self._gamma(buffer[i + c]) for i in range(0, len(buffer), PIXEL_BYTES)
                     for c in range(3))

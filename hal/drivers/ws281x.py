"""WS2812 LEDs on a Raspberry Pi before the Pi 5, through the rpi-ws281x library (PWM, PCM or SPI).

rpi-ws281x sends the whole buffer on every `show()`, but each `setPixelColor` is a Python call,
so only LEDs whose colour changed since the last frame are set. The library only says "init
failed" when it cannot start; the usual causes (not a Pi, a Pi 5, not root, a pin it cannot
drive, the onboard sound holding the PWM) are probed here so the host reads which one it is.
The probes read paths and a uid function given to `PiProbe`, so tests can point them elsewhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from hal.drivers.base import Driver, DriverError
from hal.drivers.leds_dev import is_pi5_family
from hal.frame import Frame

# Values of rpi-ws281x's WS2811_STRIP_* constants (ws2811.h): the byte order the LEDs expect.
STRIP_TYPES = {
    "RGB": 0x00100800,
    "RBG": 0x00100008,
    "GRB": 0x00081000,
    "GBR": 0x00080010,
    "BRG": 0x00001008,
    "BGR": 0x00000810,
}
PWM0_PINS = (12, 18)
PWM1_PINS = (13, 19)
PCM_PINS = (21,)
SPI_PINS = (10,)
USABLE_PINS = PWM0_PINS + PWM1_PINS + PCM_PINS + SPI_PINS
# LEDs compared as one byte slice before looking at them one by one (one panel row).
COMPARE_BLOCK_LEDS = 16


class PixelStripStandIn:
    """Records pixels like rpi_ws281x.PixelStrip, for tests and benchmarks off a Pi.

    Its methods have the real class's names and signatures (a test compares them), so the driver
    cannot call anything the real strip lacks.
    """

    def __init__(self, num, pin, freq_hz=800000, dma=10, invert=False, brightness=255, channel=0,
                 strip_type=None, gamma=None):
        self.settings = dict(num=num, pin=pin, freq_hz=freq_hz, dma=dma, invert=invert,
                             channel=channel, strip_type=strip_type)
        self.pixels = [0] * num
        self.brightness = brightness
        self.began = False
        self.shows = 0
        self.set_calls = 0

    def begin(self):
        self.began = True

    def show(self):
        self.shows += 1

    def setPixelColor(self, n, color):
        self.set_calls += 1
        self.pixels[n] = color

    def getPixelColor(self, n):
        return self.pixels[n]

    def numPixels(self):
        return len(self.pixels)

    def setBrightness(self, brightness):
        self.brightness = brightness

    def getBrightness(self):
        return self.brightness


def real_pixel_strip(*args, **kwargs):
    """rpi_ws281x.PixelStrip, imported only when a real strip is wanted."""
    try:
        from rpi_ws281x import PixelStrip
    except ImportError as error:
        raise DriverError(
            "the ws281x driver needs the rpi-ws281x library: pip install 'hues-console[pi]'"
        ) from error
    return PixelStrip(*args, **kwargs)


@dataclass(frozen=True)
class PiProbe:
    """Where to look when rpi-ws281x fails to start."""

    model_path: str = "/proc/device-tree/model"
    modules_path: str = "/proc/modules"
    euid: Callable[[], int] = os.geteuid

    def diagnose(self, pin: int, error: Exception) -> str:
        model = _read_text(self.model_path).replace("\0", "").strip()
        if "Raspberry Pi" not in model:
            return (f"this is not a Raspberry Pi ({self.model_path} says {model or 'nothing'!r}): "
                    f"use the sim-terminal driver")
        if is_pi5_family(model):
            return ("rpi-ws281x cannot drive LEDs on a Raspberry Pi 5: use the leds-dev driver "
                    "with dtoverlay=ws2812-pio")
        if pin not in USABLE_PINS:
            return (f"rpi-ws281x cannot drive LEDs on GPIO {pin}: wire them to GPIO 18 "
                    f"(or 12/13/19 PWM, 21 PCM, 10 SPI)")
        if pin not in SPI_PINS and self.euid() != 0:
            return f"driving LEDs on GPIO {pin} needs root: run hues-console with sudo"
        if pin in PWM0_PINS + PWM1_PINS and "snd_bcm2835" in _read_text(self.modules_path):
            return (f"the onboard sound (snd_bcm2835) holds the PWM that GPIO {pin} needs: "
                    f"set dtparam=audio=off in /boot/firmware/config.txt and reboot")
        return f"rpi-ws281x could not start the LEDs on GPIO {pin}: {error}"


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read()
    except OSError:
        return ""


class Ws281xDriver(Driver):
    """`strip_factory` takes PixelStrip's arguments; None means the real rpi_ws281x strip, tests
    and benchmarks pass PixelStripStandIn. `probe` explains a failed start."""

    def __init__(
        self,
        led_count: int,
        pin: int = 18,
        dma: int = 10,
        channel: int | None = None,
        freq_hz: int = 800000,
        invert: bool = False,
        strip_type: str = "GRB",
        strip_factory: Callable | None = None,
        probe: PiProbe = PiProbe(),
    ):
        if strip_type not in STRIP_TYPES:
            raise DriverError(
                f"ws281x strip_type {strip_type!r} is not a colour order: use one of {', '.join(STRIP_TYPES)}"
            )
        if channel is None:
            channel = 1 if pin in PWM1_PINS else 0
        if strip_factory is None:
            strip_factory = real_pixel_strip
        self.led_count = led_count
        self.strip = strip_factory(led_count, pin, freq_hz, dma, invert, 255, channel,
                                   STRIP_TYPES[strip_type])
        try:
            self.strip.begin()
        except RuntimeError as error:
            raise DriverError(probe.diagnose(pin, error)) from error
        self._shown = bytes(led_count * 3)
        self._closed = False
        self.strip.show()

    def show(self, leds: bytes, frame: Frame) -> None:
        self._send(leds)

    def clear(self) -> None:
        self._send(bytes(self.led_count * 3))

    def close(self) -> None:
        if not self._closed:
            self.clear()
            self._closed = True

    def _send(self, leds: bytes) -> None:
        """Set the changed LEDs and transmit; an unchanged frame is not sent again."""
        if leds == self._shown:
            return
        strip = self.strip
        for n in self._changed_leds(leds):
            strip.setPixelColor(n, int.from_bytes(leds[3 * n : 3 * n + 3], "big"))
        self._shown = bytes(leds)
        strip.show()

    def _changed_leds(self, leds: bytes):
        """Chain positions whose colour differs from the last frame sent.

        Blocks of LEDs are compared as byte slices first, so an unchanged region costs one
        comparison instead of one per LED.
        """
        shown = self._shown
        block = 3 * COMPARE_BLOCK_LEDS
        for start in range(0, len(leds), block):
            end = start + block
            if leds[start:end] != shown[start:end]:
                for i in range(start, min(end, len(leds)), 3):
                    if leds[i : i + 3] != shown[i : i + 3]:
                        yield i // 3

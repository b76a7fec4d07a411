"""WS2812 LEDs on a Raspberry Pi before the Pi 5, through the rpi-ws281x library (PWM, PCM or SPI).

rpi-ws281x sends the whole buffer on every `show()`, but each `setPixelColor` is a Python call,
so only LEDs whose colour changed since the last frame are set. The library only says "init
failed" when it cannot start; the usual causes (not a Pi, a Pi 5, not root, a pin it cannot
drive, the onboard sound holding the PWM, a board revision the library does not know, SPI not
set up) are probed here so the host reads which one it is. On SPI a node that udev has not made
yet, or made after the service started, is a DeviceNotReadyError: the service exits 75 and
systemd starts it again, now with the node. Every call into the library is
wrapped, so a failure mid-game is a DriverError with a sentence, never a traceback. The probes
read paths and a uid function given to `PiProbe`, so tests can point them elsewhere.

The bytes reach the LEDs as written: rpi-ws281x-python 5.0.0's PixelStrip passes the identity
table `list(range(256))` as gamma when none is given, and the C library's render scales each
byte by `((brightness & 0xff) + 1)` then `>> 8`, which with our brightness 255 is the byte itself
(jgarff/rpi_ws281x ws2811.c, ws2811_render). So this driver's light response is linear.
"""

from __future__ import annotations

import array
import errno
import itertools
import operator
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from hal.drivers.base import ChainDriver, DriverError
from hal.drivers.leds_dev import DeviceNotReadyError, is_pi5_family

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
USABLE_PINS_HELP = (f"{' or '.join(map(str, PWM0_PINS))} (PWM0), {' or '.join(map(str, PWM1_PINS))} (PWM1), "
                    f"{' or '.join(map(str, PCM_PINS))} (PCM) or {' or '.join(map(str, SPI_PINS))} (SPI)")
FREQUENCIES = (800000, 400000)  # WS2812, WS2811
# DMA channels the library can use (0..14). Channel 5 is the SD card's: rpi_ws281x's README warns
# that using it "will cause filesystem corruption" (jgarff/rpi_ws281x#224). 10 is its default.
DMA_CHANNELS = tuple(channel for channel in range(15) if channel != 5)
# ws2811_return_t values (ws2811.h) that have a cause worth naming.
HW_NOT_SUPPORTED = -3
SPI_TRANSFER_ERROR = -14
# Board revisions Raspberry Pi sold as a Pi 3 that rpi-ws281x 5.0.0's bundled C library (commit
# 1f47b59) does not list in rpihw.c: on a 64-bit OS it compares /proc/device-tree/system/
# linux,revision exactly, so these fail with code -3. jgarff/rpi_ws281x added them in October 2024
# (#536: 0xa52082, #543: 0x9020e1), after the last binding release.
UNKNOWN_TO_THE_BINDING = {0xA52082: "Pi 3 Model B Rev 1.2", 0x9020E1: "Pi 3 Model A+ Rev 1.1"}


def pin_problems(settings: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """The configuration's rule for this driver: the data pin is one rpi-ws281x can send on."""
    pin = settings.get("pin")
    if pin is not None and pin not in USABLE_PINS:
        yield "pin", f"rpi-ws281x cannot send LED data on GPIO {pin}; use {USABLE_PINS_HELP}"


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


def spi_frame_bytes(led_count: int, freq_hz: int = 800000) -> int:
    """Bytes rpi-ws281x sends in one SPI transfer for `led_count` LEDs: its PCM_BYTE_COUNT macro
    (ws2811.c), 3 SPI bits per LED bit, 4 colours an LED, plus 55 us of reset. spidev's buffer
    (the spidev.bufsiz kernel parameter, 4096 by default) must hold it."""
    bits = led_count * 4 * 8 * 3 + (55 * freq_hz * 3) // 1000000
    return ((bits >> 3) & ~0x7) + 4 + 4


@dataclass(frozen=True)
class PiProbe:
    """Where to look when rpi-ws281x fails to start."""

    model_path: str = "/proc/device-tree/model"
    revision_path: str = "/proc/device-tree/system/linux,revision"
    modules_path: str = "/proc/modules"
    spidev_bufsiz_path: str = "/sys/module/spidev/parameters/bufsiz"
    # What rpi-ws281x opens on SPI (ws2811.c, spi_init): spidev's node, and gpiomem for the pin.
    spi_nodes: tuple[str, ...] = ("/dev/spidev0.0", "/dev/gpiomem")
    euid: Callable[[], int] = os.geteuid

    def revision(self) -> int | None:
        """The board revision code (4 bytes, big-endian, as rpihw.c reads it), or None."""
        try:
            with open(self.revision_path, "rb") as file:
                data = file.read(4)
        except OSError:
            return None
        return int.from_bytes(data, "big") if len(data) == 4 else None

    def check_spi(self, led_count: int, freq_hz: int) -> None:
        """Refuse to start on SPI when spidev is missing or its buffer cannot take a frame."""
        needed = spi_frame_bytes(led_count, freq_hz)
        text = _read_text(self.spidev_bufsiz_path).strip()
        if not text:
            raise DriverError("SPI is off, so the LEDs on GPIO 10 cannot be driven: set "
                              "dtparam=spi=on in /boot/firmware/config.txt (sudo ./scripts/install-pi "
                              "does) and reboot")
        if text.isdigit() and int(text) < needed:
            raise DriverError(
                f"the SPI buffer (spidev.bufsiz={text}) is smaller than a frame of {led_count} "
                f"LEDs ({needed} bytes): add spidev.bufsiz={needed} to /boot/firmware/cmdline.txt "
                f"(sudo ./scripts/install-pi does) and reboot")

    def spi_node_not_ready(self) -> str | None:
        """After a failed start on SPI: the sentence for a node a restart of the service picks up,
        one udev has not made yet or one made after the service started, which systemd therefore
        left out of its device list (EPERM); None when each one opens."""
        for path in self.spi_nodes:
            try:
                os.close(os.open(path, os.O_RDWR))
            except FileNotFoundError:
                return f"there is no {path} yet (udev makes it at boot): the service restarts to pick it up"
            except OSError as error:
                if error.errno == errno.EPERM:
                    return (f"{path} appeared after the service started, so systemd does not let it "
                            f"open it: the service restarts to pick it up")
        return None

    def diagnose(self, pin: int, error: Exception) -> str:
        model = _read_text(self.model_path).replace("\0", "").strip()
        if "Raspberry Pi" not in model:
            return (f"this is not a Raspberry Pi ({self.model_path} says {model or 'nothing'!r}): "
                    f"use the sim-terminal driver")
        if is_pi5_family(model):
            return ("rpi-ws281x cannot drive LEDs on a Raspberry Pi 5: use the leds-dev driver "
                    "with dtoverlay=ws2812-pio")
        if f"code {HW_NOT_SUPPORTED} " in str(error):
            return self._unknown_board(model)
        if pin not in USABLE_PINS:
            return (f"rpi-ws281x cannot drive LEDs on GPIO {pin}: wire them to GPIO 18 "
                    f"(or 12/13/19 PWM, 21 PCM, 10 SPI)")
        if pin not in SPI_PINS and self.euid() != 0:
            return f"driving LEDs on GPIO {pin} needs root: run hues-console with sudo"
        if pin in PWM0_PINS + PWM1_PINS and "snd_bcm2835" in _read_text(self.modules_path):
            return (f"the onboard sound (snd_bcm2835) holds the PWM that GPIO {pin} needs: "
                    f"set dtparam=audio=off in /boot/firmware/config.txt and reboot")
        return f"rpi-ws281x could not start the LEDs on GPIO {pin}: {error}"

    def known_to_lack(self) -> str | None:
        """Before any start: the sentence for a board the binding is known not to know, else None
        (the installer says it at install time)."""
        revision = self.revision()
        if revision not in UNKNOWN_TO_THE_BINDING:
            return None
        return self._unknown_board(_read_text(self.model_path).replace("\0", "").strip())

    def _unknown_board(self, model: str) -> str:
        revision = self.revision()
        code = "an unknown revision" if revision is None else f"revision 0x{revision:06x}"
        known = UNKNOWN_TO_THE_BINDING.get(revision or 0)
        later = (f"its C library learned the {known} in October 2024, after the last release"
                 if known else "no release of its C library lists it")
        return (f"rpi-ws281x 5.0.0 does not know this board ({model}, {code}; {later}): build the "
                f"binding against the current library as docs/MAKERS.md says under "
                f"'A board rpi-ws281x does not know'")

    def render_failure(self, pin: int, error: Exception, led_count: int) -> str:
        """The sentence for a frame rpi-ws281x could not send."""
        if pin in SPI_PINS and f"code {SPI_TRANSFER_ERROR} " in str(error):
            return (f"the SPI transfer of a frame failed: spidev.bufsiz in /boot/firmware/cmdline.txt "
                    f"must be at least {spi_frame_bytes(led_count)} (sudo ./scripts/install-pi sets it)")
        return f"rpi-ws281x could not send a frame to the LEDs on GPIO {pin}: {error}"


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read()
    except OSError:
        return ""


class Ws281xDriver(ChainDriver):
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
        if dma not in DMA_CHANNELS:
            raise DriverError(f"ws281x dma {dma} cannot be used: pick one of 0..14 but 5 (channel 5 "
                              f"corrupts the SD card); 10 is the library's default")
        if channel is None:
            channel = 1 if pin in PWM1_PINS else 0
        if strip_factory is None:
            strip_factory = real_pixel_strip
        if pin in SPI_PINS:
            probe.check_spi(led_count, freq_hz)
        self.led_count = led_count
        self.pin = pin
        self._probe = probe
        try:
            self.strip = strip_factory(led_count, pin, freq_hz, dma, invert, 255, channel,
                                       STRIP_TYPES[strip_type])
            self.strip.begin()
        except (RuntimeError, ValueError, TypeError, OverflowError) as error:
            not_ready = probe.spi_node_not_ready() if pin in SPI_PINS else None
            if not_ready:
                raise DeviceNotReadyError(not_ready) from error
            raise DriverError(probe.diagnose(pin, error)) from error
        self._shown = bytes(led_count * 3)
        self._changes: dict[tuple[bytes, bytes], list[tuple[int, int]]] = {}  # (from, to) -> (LED, colour)s
        self._transmit()

    def _transmit(self) -> None:
        try:
            self.strip.show()
        except RuntimeError as error:
            raise DriverError(self._probe.render_failure(self.pin, error, self.led_count)) from error

    def _send(self, leds: bytes) -> None:
        """Set the LEDs whose colour changed and transmit; an unchanged frame is not sent again.
        Finding them runs in C (`changed_leds`), leaving one Python call per changed LED: the
        library's own."""
        leds = bytes(leds)
        if leds == self._shown:
            return
        changes = self._changes.pop((self._shown, leds), None)
        if changes is None:  # a still screen goes round a few pictures: each change is worked out once
            colors = led_colors(leds)
            changes = [(n, colors[n]) for n in changed_leds(self._shown, leds)]
            if len(self._changes) >= CHANGES_KEPT:
                del self._changes[next(iter(self._changes))]  # the least recently used
        self._changes[(self._shown, leds)] = changes
        set_pixel = self.strip.setPixelColor
        try:
            for n, color in changes:
                set_pixel(n, color)
        except (RuntimeError, ValueError, TypeError, OverflowError) as error:
            raise DriverError(f"rpi-ws281x refused a pixel: {error}") from error
        self._shown = leds
        self._transmit()


CHANGES_KEPT = 64  # frame-to-frame changes kept: a still screen's (the idle board's glint makes 25)
_MARKS = bytes([0] + [1] * 255)  # a translate table: 1 where a byte is not 0


def changed_leds(old: bytes, new: bytes) -> list[int]:
    """The LEDs (3 bytes each) whose bytes differ, in order, found in C: the two frames XORed
    as integers give 0 where they agree. A blink of a few pawns is a few `find` calls in that
    difference; where many LEDs changed, one comparison a LED over the colour arrays."""
    size = len(new)
    difference = (int.from_bytes(old, "big") ^ int.from_bytes(new, "big")).to_bytes(size, "big")
    marks = difference.translate(_MARKS)
    if 8 * marks.count(1) > size:  # many: a pass over every LED is cheaper
        return list(itertools.compress(range(size // 3), map(operator.ne, led_colors(old), led_colors(new))))
    changed, i = [], marks.find(1)
    while i >= 0:
        changed.append(i // 3)
        i = marks.find(1, i // 3 * 3 + 3)
    return changed


def led_colors(leds: bytes) -> array.array:
    """Each LED's 3 bytes as the 24-bit colour `setPixelColor` takes (0xRRGGBB, in the chain's
    byte order already), for the whole chain at once: spread to 4 bytes an LED, read as
    big-endian 32-bit integers."""
    padded = bytearray(len(leds) // 3 * 4)
    padded[1::4], padded[2::4], padded[3::4] = leds[0::3], leds[1::3], leds[2::3]
    colors = array.array("I", padded)
    if sys.byteorder == "little":
        colors.byteswap()
    return colors

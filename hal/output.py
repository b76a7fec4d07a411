"""From the logical picture to the bytes an LED chain is driven with: brightness, gamma, a current
limiter and the wiring order.

The frame holds sRGB values as a person should see them. LEDs respond linearly to their drive
(the PWM duty of each colour), so each channel goes through gamma, is scaled by the brightness
and rounded to 8 bits: that is the *light* the LEDs must get. Between the bytes we write and the
LEDs there may be a driver of its own: the Pi 5's kernel driver runs every byte through its gamma
table. A `LightResponse` says what each written byte becomes; the stage writes the byte whose
light is the one wanted, so the same brightness means the same light on every driver, and the
current limiter and the palette check count the light the LEDs really get.

A 32x16 panel at full white draws far more than a small supply gives, so, like WLED, the stage
estimates each frame's current from that light and dims a frame that would exceed the budget
just enough to fit. The whole board at the default supply is such a frame, and its level then
followed every blink: pawns going dark let the rest of the board 5 % brighter, and every LED
changed with them (a room sees the board pump; the driver rewrites 500 LEDs for 17). So the
level holds: a frame gets the last frame's level while it fits at it and would not fit at
RISE_AFTER times it; brighter frames are dimmed at once, much darker ones let up at once.

A private frame (the joystick giver's secret screen: a card, a pointing finger) is dimmed the
same way, but the hold it leaves is for private frames only: the next public frame holds the
last public frame's level. Else a secret's brightness carried on into what the room and /panel
see after it (a finger on a brighter cell left the board a step dimmer until the next change).

Everything per frame is a whole-buffer C-level operation on precomputed data: two 256-byte
translate tables per brightness step (bytes to write, light they give; built lazily, then
cached), a byte sum or two for the estimate (`byte_sum`; a frame the limiter dims anew takes a
few more) and the layout's slice copies for the chain order.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

from hal.drivers.base import Driver
from hal.frame import Frame
from hal.layout import Layout
from hal.light import LINEAR, LightResponse

# Brightness is applied in 1/255 steps: one cached translate table per step.
BRIGHTNESS_STEPS = 255
RISE_AFTER = 1.1  # a dimmed level rises only for a frame that fits at 10 % more
PROCESSED_KEPT = 64  # frames whose drive bytes are kept: a still screen's pictures (the glint's 25)


class OutputSettingsError(ValueError):
    """Brightness, gamma or power supply settings the output stage cannot work with."""


@dataclass(frozen=True)
class PowerBudget:
    """The LED supply and WLED's current model: a channel at 255 draws led_ma / 3, an LED idles at idle_ma."""

    supply_volts: float = 5.0
    supply_amps: float = 4.0
    pi_ma: float = 700
    led_ma: float = 55
    idle_ma: float = 1

    def __post_init__(self) -> None:
        for name in ("supply_volts", "supply_amps", "led_ma"):
            value = getattr(self, name)
            if not _is_number(value) or value <= 0:
                raise OutputSettingsError(f"power {name} must be a number above 0, not {value!r}")
        for name in ("pi_ma", "idle_ma"):
            value = getattr(self, name)
            if not _is_number(value) or value < 0:
                raise OutputSettingsError(f"power {name} must be a number of 0 or more, not {value!r}")
        if self.budget_ma <= 0:
            raise OutputSettingsError(
                f"a {self.supply_amps} A supply leaves nothing for the LEDs after the Pi's {self.pi_ma} mA"
            )

    @property
    def budget_ma(self) -> float:
        """Current the LEDs may draw: the supply less what the Pi itself takes."""
        return self.supply_amps * 1000 - self.pi_ma

    def estimate_ma(self, leds: bytes) -> float:
        """Estimated current of a chain driven with `leds` (3 drive bytes an LED, any order)."""
        return self.current_ma(byte_sum(leds), len(leds) // 3)

    def current_ma(self, channel_sum: int, led_count: int) -> float:
        """Estimated current of `led_count` LEDs whose drive bytes add up to `channel_sum`."""
        return channel_sum * self.led_ma / 765 + self.idle_ma * led_count

    def watts(self, current_ma: float) -> float:
        """What a draw of `current_ma` costs the supply: for sizing the supply and its cabling."""
        return current_ma * self.supply_volts / 1000


_SUM_CHUNK = 256  # 256 bytes add up to at most 65,280, below adler32's modulus


def byte_sum(data: bytes | bytearray) -> int:
    """sum(data), counted in C: the low half of zlib.adler32 is 1 + the sum of the bytes modulo
    65,521 (RFC 1950), so for chunks of 256 bytes it is the sum itself. `sum()` iterates a
    Python int a byte, 10 us a frame here and ten times that on a Pi Zero 2 W."""
    view = memoryview(data)
    chunks = range(0, len(view), _SUM_CHUNK)
    return sum(zlib.adler32(view[i : i + _SUM_CHUNK]) & 0xFFFF for i in chunks) - len(chunks)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_brightness(brightness: object) -> float:
    if not _is_number(brightness) or not 0 <= brightness <= 1:
        raise OutputSettingsError(f"brightness must be between 0 and 1, not {brightness!r}")
    return float(brightness)


class OutputStage:
    """Turns logical frames into chain-ordered drive bytes for one layout.

    `brightness` is the ceiling a frame gets unless `process` is given the host's; `last_brightness`
    is what the current limiter actually let through for the last frame (the ceiling unless the
    frame was too bright).
    """

    def __init__(
        self,
        layout: Layout,
        brightness: float = 1.0,
        gamma: float = 2.2,
        power: PowerBudget = PowerBudget(),
        response: LightResponse = LINEAR,
    ):
        if not _is_number(gamma) or gamma <= 0:
            raise OutputSettingsError(f"gamma must be a number above 0, not {gamma!r}")
        idle_ma = power.current_ma(0, layout.led_count)
        if idle_ma > power.budget_ma:
            raise OutputSettingsError(
                f"{layout.led_count} LEDs idle at {idle_ma:g} mA, more than the {power.budget_ma:g} mA "
                f"the supply leaves for them: use a bigger supply (supply_amps)"
            )
        self.layout = layout
        self.gamma = float(gamma)
        self.power = power
        self.response = response
        self._level = self._level_of(_check_brightness(brightness))
        self._ceiling = self._level  # the ceiling `process` was last given: `seen` counts other frames at it
        self.last_brightness = self._level / BRIGHTNESS_STEPS
        self._curve = [(v / 255) ** self.gamma for v in range(256)]  # each level's table scales it
        self._tables: dict[int, tuple[bytes, bytes]] = {}
        self._seen_tables: dict[int, bytes] = {}
        self._last_level: tuple[Frame | None, int] = (None, 0)  # the frame `process` was last given, its level
        self._public_level: int | None = None  # the level of the last public frame (None: none yet)
        self._processed: dict[tuple, tuple[int, bytes]] = {}  # (pixels, size, held level, ceiling) -> (level, bytes)

    @property
    def brightness(self) -> float:
        """The ceiling a frame gets by default (the configured one), quantised to the step used."""
        return self._level / BRIGHTNESS_STEPS

    @staticmethod
    def _level_of(brightness: float) -> int:
        return round(brightness * BRIGHTNESS_STEPS)

    def table(self, level: int) -> bytes:
        """The 256-byte translate table from sRGB values to the bytes written, for brightness
        level / BRIGHTNESS_STEPS."""
        return self._tables_for(level)[0]

    def light_table(self, level: int) -> bytes:
        """The 256-byte translate table from sRGB values to the light the LEDs get at that level."""
        return self._tables_for(level)[1]

    def _tables_for(self, level: int) -> tuple[bytes, bytes]:
        tables = self._tables.get(level)
        if tables is None:
            scale = 255 * level / BRIGHTNESS_STEPS
            wanted = bytes([round(scale * v) for v in self._curve])
            written = self.response.encode(wanted)
            light = self.response.light(written)
            # One object when they agree (every driver but the Pi 5's): one translate a frame.
            tables = self._tables[level] = (written, written if light == written else light)
        return tables

    def light(self, leds: bytes) -> bytes:
        """The light (0..255 a channel) the LEDs get from the bytes `process` wrote."""
        return self.response.light(leds)

    def process(self, frame: Frame, private: bool = False, brightness: float | None = None) -> bytes:
        """Chain-ordered drive bytes (3 an LED) for `frame` under the `brightness` ceiling (the
        host's setting; None: the stage's own), dimmed if it would overdraw the supply (at the last frame's level while that fits and is close to the best; for a
        public frame, the last public frame's: a `private` one's level never carries into what
        everyone sees). A still screen goes round a few pictures (three while guessing, 25 on
        the idle board), so the last PROCESSED_KEPT are kept: each is worked out once, then looked up."""
        held = self._last_level[1] if private and self._last_level[0] is not None else self._public_level
        ceiling = self._level if brightness is None else self._level_of(_check_brightness(brightness))
        self._ceiling = ceiling
        key = (bytes(frame.pixels), frame.width, frame.height, held, ceiling)
        done = self._processed.pop(key, None)
        if done is None:
            level = self._level_for(frame, held, ceiling)
            done = (level, self.layout.to_chain(frame.pixels.translate(self.table(level))))
            if len(self._processed) >= PROCESSED_KEPT:
                del self._processed[next(iter(self._processed))]  # the least recently used
        self._processed[key] = done
        level, leds = done
        self.last_brightness = level / BRIGHTNESS_STEPS
        self._last_level = (frame, level)
        if not private:
            self._public_level = level
        return leds

    def seen(self, frame: Frame) -> bytes:
        """The frame as the LEDs show it, for a screen (the browser's panel): each channel's light
        after brightness, gamma, the current limiter and the driver's own table, then restored
        to full brightness and un-gammaed, as WLED's live view does (wled00/ws.cpp: the colours
        of `getPixelColorRestored` through `unGamma8` with `gammaCorrectPreview`). So a screen
        shows what the LEDs make of each colour (dark shades that merge at a low brightness
        merge there too) without the room-level dimming. Logical order, 3 bytes a pixel; changes
        nothing in the stage, so another thread may call it. A frame other than the last one
        `process` was given (/panel's stand-in for the secret screen, a replay's) is counted
        again from the last public frame's level, never from a private frame's."""
        processed, level = self._last_level
        if processed is not frame:  # not the frame the panel was last given: count it again
            level = self._level_for(frame, self._public_level, self._ceiling)
        table = self._seen_tables.get(level)
        if table is None:
            light, scale, inverse = self.light_table(level), max(1, level), 1 / self.gamma
            table = self._seen_tables[level] = bytes(
                min(255, round(255 * (light[v] / scale) ** inverse)) for v in range(256))
        return bytes(frame.pixels.translate(table))

    def _level_for(self, frame: Frame, held: int | None, ceiling: int) -> int:
        """The brightness level the limiter lets through for `frame` under `ceiling`, `held` the last
        frame's (None: none yet): kept while the frame fits at it and would not fit at RISE_AFTER
        times it."""
        layout = self.layout
        if frame.width != layout.width or frame.height != layout.height:
            raise ValueError(
                f"a {frame.width}x{frame.height} frame does not fit the {layout.width}x"
                f"{layout.height} LED layout"
            )
        pixels, level = frame.pixels, ceiling
        if held is not None and held < level:
            rise = min(level, int(held * RISE_AFTER) + 1)
            if not self._fits(self._light_sum(pixels, rise)) and self._fits(self._light_sum(pixels, held)):
                return held
        light_sum = self._light_sum(pixels, level)
        if self._fits(light_sum):
            return level
        return self._limit(pixels, level, light_sum)

    def _light_sum(self, pixels: bytearray, level: int) -> int:
        """The light of the LEDs showing `pixels` at `level`, added up (each pixel lights a block
        of `leds_per_pixel` LEDs at a scale above 1)."""
        return byte_sum(pixels.translate(self.light_table(level))) * self.layout.leds_per_pixel

    def _fits(self, light_sum: int) -> bool:
        power = self.power
        return power.current_ma(light_sum, self.layout.led_count) <= power.budget_ma

    def _limit(self, pixels: bytearray, ceiling: int, ceiling_sum: int) -> int:
        """The highest level below `ceiling` (whose light adds up to `ceiling_sum`) that fits the budget.

        The light grows monotonically with the level and nearly linearly, so a linear guess
        lands within a step or two of the answer; a short walk finds the exact one.
        """
        power = self.power
        led_budget = power.budget_ma - power.current_ma(0, self.layout.led_count)
        ceiling_ma = power.current_ma(ceiling_sum, 0)
        level = min(ceiling - 1, int(ceiling * led_budget / ceiling_ma))
        while level > 0 and not self._fits(self._light_sum(pixels, level)):
            level -= 1
        while level + 1 < ceiling and self._fits(self._light_sum(pixels, level + 1)):
            level += 1
        return level


class Panel:
    """What an app shows frames on: the output stage feeding one driver. A frame equal to the
    last one is not processed or sent again, so a still screen costs no LED traffic."""

    def __init__(self, stage: OutputStage, driver: Driver):
        self.stage = stage
        self.driver = driver
        self.layout = stage.layout
        self._last: Frame | None = None
        self._last_shown: tuple[bool, float | None] = (False, None)  # the last frame's privacy and ceiling

    def show(self, frame: Frame, private: bool = False, brightness: float | None = None) -> bool:
        """Send `frame` under the `brightness` ceiling (None: the stage's own) if it or that differs
        from the last one sent (or is public where that was `private`, or the other way: see
        `OutputStage.process`); True when it was sent."""
        shown = (private, brightness)
        if frame == self._last and shown == self._last_shown:
            return False
        self.driver.show(self.stage.process(frame, private, brightness), frame)
        self._last, self._last_shown = frame, shown
        return True

    def close(self) -> None:
        """Turn every LED off and let the driver go (on exit, SIGTERM, before powering off)."""
        try:
            self.driver.clear()
        finally:
            self.driver.close()

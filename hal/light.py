"""What the bytes written to an LED driver become on the LEDs: the light each colour channel gets.

The output stage decides the light each LED should get; a driver that runs the bytes through a
table of its own (the Pi 5's kernel ws2812-pio driver and its gamma) would otherwise change it.
A `LightResponse` is that table, and its inverse picks, for each wanted light, the byte that
gives it: so the stage writes bytes for the driver and still knows the light, which is what the
current limiter counts, the palette check measures and the renderer's colour checks ask for.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field


@dataclass(frozen=True)
class LightResponse:
    """`table[byte]` is the light (0..255, linear in the LED's drive) that a written byte gives."""

    name: str
    table: bytes
    _inverse: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.table) != 256 or list(self.table) != sorted(self.table):
            raise ValueError(f"the {self.name} light table must be 256 rising values")
        object.__setattr__(self, "_inverse", bytes(self._nearest_byte(light) for light in range(256)))

    def _nearest_byte(self, light: int) -> int:
        """The byte whose light is nearest to `light`: the darker one on a tie, and the lowest
        byte among those giving the same light. The table rises, so the nearest light is one of
        the two around `light` (a bisection, not a search of all 256 at every start)."""
        table = self.table
        above = bisect.bisect_left(table, light)  # the first byte giving `light` or more
        below = bisect.bisect_left(table, table[above - 1]) if above else None  # the lowest giving the light under it
        if above == 256 or (below is not None and light - table[below] <= table[above] - light):
            return below
        return above

    def light(self, written: bytes) -> bytes:
        """The light the LEDs get from the bytes `written` (any length, a byte a channel)."""
        return written.translate(self.table)

    def encode(self, light: bytes) -> bytes:
        """The bytes to write for the wanted `light`, as near as the table allows."""
        return light.translate(self._inverse)


# Drivers that send the bytes as they are (rpi-ws281x with its identity gamma, the simulators).
LINEAR = LightResponse("linear", bytes(range(256)))

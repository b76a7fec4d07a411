"""LED and simulator drivers, picked by name from the configuration.

Each driver module is imported only when chosen, so a laptop never loads the Pi-only pieces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from hal.drivers.base import Driver, DriverError, driver_settings
from hal.layout import Layout
from hal.light import LINEAR, LightResponse

__all__ = ["DRIVER_NAMES", "Driver", "DriverError", "light_response_of", "make_driver"]


def _ws281x(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.ws281x import Ws281xDriver

    defaults = dict(pin=18, dma=10, channel=None, freq_hz=800000, invert=False, strip_type="GRB")
    return Ws281xDriver(layout.led_count, **driver_settings("ws281x", settings, defaults))


def _leds_dev(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.leds_dev import DEFAULT_DEVICE, LedsDevDriver, overlay_num_leds

    chosen = driver_settings("leds-dev", settings, dict(device=DEFAULT_DEVICE))
    return LedsDevDriver(layout.led_count, **chosen, num_leds=overlay_num_leds())


def _sim_terminal(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.sim_terminal import TerminalDriver

    driver_settings("sim-terminal", settings, {})
    return TerminalDriver(layout.width, layout.height)


def _sim_headless(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.sim_headless import DEFAULT_HISTORY, HeadlessDriver

    chosen = driver_settings("sim-headless", settings, dict(history=DEFAULT_HISTORY))
    return HeadlessDriver(layout.width, layout.height, **chosen)


def _sim_png(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.sim_png import DEFAULT_PATH, PngDriver

    chosen = driver_settings("sim-png", settings, dict(path=DEFAULT_PATH, scale=20, dots=True))
    return PngDriver(layout.width, layout.height, **chosen)


_FACTORIES: dict[str, Callable[[dict, Layout], Driver]] = {
    "ws281x": _ws281x,
    "leds-dev": _leds_dev,
    "sim-terminal": _sim_terminal,
    "sim-headless": _sim_headless,
    "sim-png": _sim_png,
}
DRIVER_NAMES = tuple(_FACTORIES)


def light_response_of(name: str) -> LightResponse:
    """What the bytes written become on the LEDs of the driver called `name`, without opening it
    (for `hues-console palette` on any machine)."""
    if name == "leds-dev":
        from hal.drivers.leds_dev import LedsDevDriver

        return LedsDevDriver.light_response
    return LINEAR


def make_driver(name: str, settings: Mapping[str, Any] | None, layout: Layout) -> Driver:
    """The driver called `name`, set up from its settings (None or {} for all defaults)."""
    factory = _FACTORIES.get(name)
    if factory is None:
        raise DriverError(f"there is no LED driver called {name!r}: use one of {', '.join(DRIVER_NAMES)}")
    return factory(dict(settings or {}), layout)

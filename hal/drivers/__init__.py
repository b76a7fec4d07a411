"""The LED and simulator drivers: the registry of them, and making one by name from its settings.

`DRIVERS` is the one list of drivers and their settings (hal/drivers/spec.py says what an entry
holds): the configuration's schema and checks, the wiring, `palette --driver` and `diag` all read
it, so a new driver is its module and its entry here. Each driver module is imported only when
its driver is built, so a laptop never loads the Pi-only pieces.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hal.drivers.base import Driver, DriverError
from hal.drivers.leds_dev import KERNEL_GAMMA, is_pi5_family
from hal.drivers.network import host_problem
from hal.drivers.spec import DriverSpec, Setting, gpio_pin
from hal.drivers.ws281x import DMA_CHANNELS, FREQUENCIES, STRIP_TYPES, pin_problems
from hal.layout import Layout
from hal.light import LightResponse

__all__ = ["AUTO", "DRIVERS", "DRIVER_NAMES", "NETWORK", "SIMULATORS", "Driver", "DriverError", "DriverSpec",
           "auto_driver", "driver_spec", "light_response_of", "make_driver"]


def _ws281x(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.ws281x import Ws281xDriver

    return Ws281xDriver(layout.led_count, **settings)


def _leds_dev(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.leds_dev import LedsDevDriver, overlay_num_leds

    # Its pin is the overlay's (the installer writes it into config.txt), not the driver's.
    return LedsDevDriver(layout.led_count, settings["device"], num_leds=overlay_num_leds())


def _sim_terminal(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.sim_terminal import TerminalDriver

    return TerminalDriver(layout.width, layout.height)


def _sim_headless(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.sim_headless import HeadlessDriver

    return HeadlessDriver(layout.width, layout.height, **settings)


def _sim_png(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.sim_png import PngDriver

    return PngDriver(layout.width, layout.height, **settings)


def _ddp(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.ddp import DdpDriver

    return DdpDriver(layout.led_count, **settings)


def _e131(settings: dict, layout: Layout) -> Driver:
    from hal.drivers.e131 import E131Driver

    return E131Driver(layout.led_count, **settings)


def _receiver_problems(settings: Mapping[str, Any]) -> Iterable[tuple[str, str]]:
    """A network driver needs its receiver's address or name."""
    if "host" in settings:
        problem = host_problem(settings["host"])
        if problem is not None:
            yield "host", problem


def _receiver(port: int) -> tuple[Setting, ...]:
    """The settings every network driver has: where the receiver is, how often a still frame
    goes again, and the web port its answers are asked on (0: never asked)."""
    return (
        Setting("host", str, None),
        Setting("port", int, port, low=1, high=65535),
        Setting("keepalive_ms", int, 400, low=100, high=2000),
        Setting("http_port", int, 80, low=0, high=65535),
    )


def _before_pi5(model: str) -> bool:
    return "Raspberry Pi" in model and not is_pi5_family(model)


DRIVERS: tuple[DriverSpec, ...] = (
    DriverSpec(
        "ws281x",
        (
            gpio_pin("pin", 18),
            Setting("dma", int, 10, choices=DMA_CHANNELS),
            Setting("channel", int, None, configured=False),  # the pin's PWM channel unless given
            Setting("freq_hz", int, 800000, choices=FREQUENCIES),
            Setting("invert", bool, False),
            Setting("strip_type", str, "GRB", choices=tuple(STRIP_TYPES)),
        ),
        _ws281x, auto_picks=_before_pi5, check=pin_problems,
    ),
    DriverSpec(
        "leds-dev",
        (Setting("device", str, "/dev/leds0", file=True), gpio_pin("pin", 18)),
        _leds_dev, light_response=KERNEL_GAMMA, auto_picks=is_pi5_family,
    ),
    DriverSpec("ddp", _receiver(4048), _ddp, network=True, check=_receiver_problems),
    DriverSpec(
        "e131",
        (*_receiver(5568)[:2], Setting("universe", int, 1, low=1, high=63999), *_receiver(5568)[2:]),
        _e131, network=True, check=_receiver_problems,
    ),
    DriverSpec("sim-terminal", (), _sim_terminal, simulator=True),
    DriverSpec("sim-headless", (Setting("history", int, 100, low=0, high=10000),), _sim_headless, simulator=True),
    DriverSpec(
        "sim-png",
        (
            Setting("path", str, "hues-panel.png", file=True),
            Setting("scale", int, 20, low=1, high=100),
            Setting("dots", bool, True),
        ),
        _sim_png, simulator=True,
    ),
)
DRIVER_NAMES = tuple(spec.name for spec in DRIVERS)
SIMULATORS = tuple(spec.name for spec in DRIVERS if spec.simulator)
NETWORK = tuple(spec.name for spec in DRIVERS if spec.network)  # LEDs on a receiver over the network
AUTO = "auto"  # the configuration's name for "the LEDs of this Pi, else the terminal"
OFF_A_PI = "sim-terminal"
_BY_NAME = {spec.name: spec for spec in DRIVERS}


def driver_spec(name: str) -> DriverSpec:
    """The registry's entry for the driver called `name`; DriverError naming the others if none."""
    spec = _BY_NAME.get(name)
    if spec is None:
        raise DriverError(f"there is no LED driver called {name!r}: use one of {', '.join(DRIVER_NAMES)}")
    return spec


def auto_driver(model: str | None) -> str:
    """The driver `auto` stands for on a board whose /proc/device-tree/model reads `model` (None:
    there is no such file): the Pi's own LED driver, else the terminal simulator."""
    if model is not None:
        for spec in DRIVERS:
            if spec.auto_picks is not None and spec.auto_picks(model):
                return spec.name
    return OFF_A_PI


def light_response_of(name: str) -> LightResponse:
    """What the bytes written become on the LEDs of the driver called `name`, without opening it
    (for `hues-console palette` on any machine)."""
    return driver_spec(name).light_response


def make_driver(name: str, settings: Mapping[str, Any] | None, layout: Layout) -> Driver:
    """The driver called `name`, set up from its settings (None or {} for all defaults)."""
    spec = driver_spec(name)
    return spec.build(spec.settings_with_defaults(settings or {}), layout)

"""What a driver is to the rest of the console, as plain data: its name, its settings (type,
default, the values each takes) and how it is built from them.

The registry (hal/drivers/__init__.py) holds one `DriverSpec` a driver; the configuration's schema,
its checks and messages, the wiring and the commands all read it, so a driver and its settings are
written down once. hal cannot know how the configuration reports a problem, so a setting says
only what is allowed; console/config turns that into its rules and its one-line messages.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from hal.drivers.base import Driver, DriverError
from hal.layout import Layout
from hal.light import LINEAR, LightResponse

GPIO_MAX = 27  # BCM GPIO numbers on the Pi's 40-pin header run from 0 to 27


@dataclass(frozen=True)
class Setting:
    """One setting of a driver. `kind` is bool, int, float or str; a `default` of None also
    accepts None (the driver then works the value out itself). A number stays within
    [low, high]; `choices`, when given, are the only values it takes; `file` text names a file.
    `data_pin`: the GPIO the LEDs' data leaves on, which no button may share. A setting that is
    not `configured` is not in the configuration file, only in `make_driver`'s settings."""

    name: str
    kind: type
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] = ()
    file: bool = False
    data_pin: bool = False
    configured: bool = True

    def __post_init__(self) -> None:
        if self.configured and self.kind in (int, float) and not self.choices and None in (self.low, self.high):
            raise ValueError(f"driver setting {self.name}: a number in the configuration needs its range")


def gpio_pin(name: str, default: int) -> Setting:
    """The GPIO the LEDs' data goes out on."""
    return Setting(name, int, default, low=0, high=GPIO_MAX, data_pin=True)


# The problems of a chosen driver's settings taken together: (setting name, message) pairs. It is
# given the settings whose own values passed, and stays silent about one that is missing.
SettingsCheck = Callable[[Mapping[str, Any]], Iterable[tuple[str, str]]]


@dataclass(frozen=True)
class DriverSpec:
    """A driver: `build(settings, layout)` makes it from its settings (every one given, defaults
    filled in), importing its module only then. `simulator`: it shows the panel on this computer
    (a terminal, a file, nothing), so the console is played from the keyboard and never powers the
    machine off. `network`: its LEDs are on a receiver it sends the frames to over the network
    (WLED, Falcon Player), `host` in its settings; the console is played from the keyboard in a
    terminal, the GPIO buttons otherwise, and the service may send UDP to that host only.
    `light_response`: what its bytes become on the LEDs (hal/light.py). `auto_picks`:
    whether `driver: auto` picks it on a board whose /proc/device-tree/model reads so. `check`: the
    rules across its settings when it is the driver (or `auto` may pick it)."""

    name: str
    settings: tuple[Setting, ...]
    build: Callable[[dict[str, Any], Layout], Driver]
    simulator: bool = False
    network: bool = False
    light_response: LightResponse = LINEAR
    auto_picks: Callable[[str], bool] | None = None
    check: SettingsCheck | None = None

    @property
    def section(self) -> str:
        """Its section under `driver:` in the configuration (`leds_dev` for leds-dev)."""
        return self.name.replace("-", "_")

    @property
    def configured_settings(self) -> tuple[Setting, ...]:
        """The settings the configuration file holds; a driver without any has no section."""
        return tuple(setting for setting in self.settings if setting.configured)

    def settings_with_defaults(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """Its defaults overridden by `settings`, refusing unknown names and values of the wrong
        type (an int is accepted where a float is expected). Ranges and choices are the
        configuration's to check and the driver's to refuse."""
        known = {setting.name: setting for setting in self.settings}
        unknown = sorted(set(settings) - set(known))
        if unknown:
            raise DriverError(
                f"unknown setting {', '.join(map(repr, unknown))} for the {self.name} driver "
                f"(it knows {', '.join(known)})"
            )
        merged = {setting.name: setting.default for setting in self.settings}
        for name, value in settings.items():
            setting = known[name]
            expected = setting.kind
            if setting.default is None and value is None:
                pass
            elif isinstance(value, bool) != (expected is bool) or not (
                isinstance(value, expected) or (expected is float and isinstance(value, int))
            ):
                raise DriverError(
                    f"{self.name} driver setting {name} should be {_type_name(expected)}, not {value!r}"
                )
            merged[name] = value
        return merged


def _type_name(expected: type) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(
        expected, expected.__name__
    )

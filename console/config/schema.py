"""What a valid configuration is: the frozen dataclasses the console reads, each field carrying
the rule its YAML value must pass, and the rules that involve several keys at once.

The schema lives on the dataclasses themselves so that the tree the rest of the console reads and
the tree the validator checks cannot drift apart; where hal already has the dataclass a section
becomes (LayoutOptions, PowerBudget), a table of rules stands beside it instead, and the drivers'
sections are made from hal's registry of drivers (hal/drivers), whose settings say their type and
range. Default values are not here: they live in the packaged `console.yaml`, next to the comments
a party host reads (a driver's, which hal knows too, are checked to agree with it).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, make_dataclass, replace
from typing import Any, Iterator, Mapping

from hal.drivers import AUTO, DRIVERS, DriverSpec
from hal.drivers.spec import GPIO_MAX, Setting
from hal.inputs.events import BUTTONS
from hal.layout import ROTATIONS, START_CORNERS, Layout, LayoutError, LayoutOptions
from hal.output import OutputSettingsError, PowerBudget
from console.config.store_url import StoreUrlProblem, check_store_url
from console.game.rules import DEFAULT_COLOR_NAMES

Path = tuple[str | int, ...]

PAWN_COLOR_NAMES = DEFAULT_COLOR_NAMES  # the rules engine validates the same names
STORE_URL_SCHEMES = ("memory://", "redis://", "rediss://", "unix://")


class Invalid(Exception):
    """A value broke its rule. Carries (path below the key, message) pairs: one for a plain value,
    one per bad entry for a list, so that each bad entry gets its own line.
    """

    def __init__(self, *problems: tuple[Path, str]):
        super().__init__(*problems)
        self.problems = problems


def invalid(message: str) -> Invalid:
    """The problem of a value as a whole."""
    return Invalid(((), message))


def describe(value: Any) -> str:
    """A short, one-line picture of a YAML value for an error message."""
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Number:
    """A whole number (`whole=True`) or any number within [low, high]; booleans are not numbers."""

    low: float
    high: float
    whole: bool = False

    def convert(self, value: Any) -> int | float:
        wanted = (int,) if self.whole else (int, float)
        if isinstance(value, bool) or not isinstance(value, wanted):
            kind = "a whole number" if self.whole else "a number"
            raise invalid(f"expected {kind} from {self.low:g} to {self.high:g}, got {describe(value)}")
        if not self.low <= value <= self.high:  # also rejects nan
            raise invalid(f"{describe(value)} is out of range, expected {self.low:g} to {self.high:g}")
        return value if self.whole else float(value)


@dataclass(frozen=True)
class Flag:
    """true or false."""

    def convert(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise invalid(f"expected true or false, got {describe(value)}")
        return value


@dataclass(frozen=True)
class OneOf:
    """One of a fixed set of values, of the same type (so `false` is not a rotation of 0)."""

    choices: tuple[Any, ...]

    def convert(self, value: Any) -> Any:
        for choice in self.choices:
            if type(value) is type(choice) and value == choice:
                return choice
        options = ", ".join(str(choice) for choice in self.choices)
        raise invalid(f"expected one of {options}, got {describe(value)}")


@dataclass(frozen=True)
class Text:
    """A non-empty string, optionally one that starts with one of `prefixes`."""

    prefixes: tuple[str, ...] = ()

    def convert(self, value: Any) -> str:
        if not isinstance(value, str) or not value.strip():
            raise invalid(f"expected some text, got {describe(value)}")
        if any("\ud800" <= ch <= "\udfff" for ch in value):  # YAML's "\ud800": no UTF-8 for it, anywhere
            raise invalid(f"{describe(value)} holds a lone surrogate, which is no text")
        if self.prefixes and not value.startswith(self.prefixes):
            raise invalid(f"{describe(value)} must start with {' or '.join(self.prefixes)}")
        return value


@dataclass(frozen=True)
class FileName(Text):
    """A path: no NUL (the kernel's end of a name: Python refuses it with a ValueError where the
    code expects an OSError)."""

    def convert(self, value: Any) -> str:
        value = super().convert(value)
        if "\0" in value:
            raise invalid(f"{describe(value)} is no file name (a NUL in it)")
        return value


@dataclass(frozen=True)
class StoreUrl(Text):
    """Where the game record is kept: one of the URL forms the console can reach (store_url.py)."""

    def convert(self, value: Any) -> str:
        value = super().convert(value)
        try:
            check_store_url(value)
        except StoreUrlProblem as problem:
            raise invalid(f"{describe(value)}: {problem}") from None
        return value


@dataclass(frozen=True)
class Section:
    """A nested mapping of settings read into the dataclass `kind`. The rule of each key comes from
    `rules`, or when that is None from the `setting(...)` metadata of kind's fields."""

    kind: type
    rules: Mapping[str, Any] | None = None

    def key_rules(self) -> dict[str, Any]:
        if self.rules is not None:
            return dict(self.rules)
        return {f.name: f.metadata["rule"] for f in fields(self.kind) if "rule" in f.metadata}


def setting(rule: Number | Flag | OneOf | Text | Section) -> Any:
    return field(metadata={"rule": rule})


def color_list_problems(value: Any) -> Iterator[tuple[Path, str]]:
    """Problems with `players.colors`: every pawn colour exactly once, in seat order.

    Yields (index path, message) pairs relative to the list so each bad entry gets its own line.
    """
    if not isinstance(value, list):
        yield (), f"expected a list of the {len(PAWN_COLOR_NAMES)} pawn colours, got {describe(value)}"
        return
    seen: set[str] = set()
    for index, name in enumerate(value):
        if name not in PAWN_COLOR_NAMES:
            yield (index,), f"{describe(name)} is not a pawn colour; use {', '.join(PAWN_COLOR_NAMES)}"
        elif name in seen:
            yield (index,), f"{name} is listed twice; each colour goes to one seat"
        else:
            seen.add(name)
    missing = [name for name in PAWN_COLOR_NAMES if name not in seen]
    if missing and len(value) <= len(PAWN_COLOR_NAMES):
        yield (), f"missing {', '.join(missing)}: list all {len(PAWN_COLOR_NAMES)} pawn colours"
    elif len(value) > len(PAWN_COLOR_NAMES):
        yield (), f"{len(value)} colours listed, expected {len(PAWN_COLOR_NAMES)}"


@dataclass(frozen=True)
class ColorList:
    """The pawn colours in seat order."""

    def convert(self, value: Any) -> tuple[str, ...]:
        problems = tuple(color_list_problems(value))
        if problems:
            raise Invalid(*problems)
        return tuple(value)


# --- the configuration tree ----------------------------------------------------------------


PANEL_RULES = {
    "panel_width": Number(1, 128, whole=True),  # a matrix whose receiver maps its wiring is one panel
    "panel_height": Number(1, 128, whole=True),
    "panels_across": Number(1, 4, whole=True),
    "panels_down": Number(1, 4, whole=True),
    "start_corner": OneOf(START_CORNERS),
    "vertical": Flag(),
    "serpentine": Flag(),
    "panel_serpentine": Flag(),
    "rotation": OneOf(ROTATIONS),
    "mirror_x": Flag(),
    "mirror_y": Flag(),
    "scale": Number(1, 4, whole=True),
}


@dataclass(frozen=True)
class OrNothing:
    """`rule`, or nothing (`null`, or the key with no value): a setting whose default is None,
    which a rule across keys may still ask for (the network drivers' receiver)."""

    rule: Number | Flag | OneOf | Text

    def convert(self, value: Any) -> Any:
        return None if value is None else self.rule.convert(value)


def setting_rule(item: Setting) -> Number | Flag | OneOf | Text | OrNothing:
    """The rule a driver's setting (hal's plain description of it) sets its YAML value."""
    if item.default is None:
        return OrNothing(setting_rule(replace(item, default=item.kind())))
    if item.choices:
        return OneOf(item.choices)
    if item.kind is bool:
        return Flag()
    if item.kind is str:
        return FileName() if item.file else Text()
    return Number(item.low, item.high, whole=item.kind is int)


def driver_section(spec: DriverSpec) -> type:
    """The dataclass a driver's section under `driver:` is read into (`config.driver.ws281x.pin`)."""
    keys = [(item.name, item.kind, setting(setting_rule(item))) for item in spec.configured_settings]
    return make_dataclass("".join(word.capitalize() for word in spec.section.split("_")) + "Config", keys,
                          frozen=True, namespace={"__module__": __name__})


def driver_config(drivers: tuple[DriverSpec, ...]) -> type:
    """The `driver:` section for the registry `drivers`: `name` (one of them or `auto`), then a
    section for each driver that has settings."""
    names = (AUTO,) + tuple(spec.name for spec in drivers)
    keys: list[tuple[str, type, Any]] = [("name", str, setting(OneOf(names)))]
    for spec in drivers:
        if spec.configured_settings:
            kind = driver_section(spec)
            keys.append((spec.section, kind, setting(Section(kind))))
    return make_dataclass("DriverConfig", keys, frozen=True, namespace={"__module__": __name__})


DriverConfig = driver_config(DRIVERS)


@dataclass(frozen=True)
class DisplayConfig:
    brightness: float = setting(Number(0.02, 1.0))
    gamma: float = setting(Number(1.0, 3.0))
    fps: int = setting(Number(10, 120, whole=True))


POWER_RULES = {
    "supply_volts": Number(3.5, 5.5),
    "supply_amps": Number(0.5, 100),
    "pi_ma": Number(0, 5000),
    "led_ma": Number(1, 200),
    "idle_ma": Number(0, 5),
}


@dataclass(frozen=True)
class ButtonPins:
    """BCM GPIO number of each button; the field names are hal.inputs.events.BUTTONS."""

    up: int = setting(Number(0, GPIO_MAX, whole=True))
    down: int = setting(Number(0, GPIO_MAX, whole=True))
    left: int = setting(Number(0, GPIO_MAX, whole=True))
    right: int = setting(Number(0, GPIO_MAX, whole=True))
    a: int = setting(Number(0, GPIO_MAX, whole=True))
    b: int = setting(Number(0, GPIO_MAX, whole=True))
    start: int = setting(Number(0, GPIO_MAX, whole=True))


BUTTON_PATHS = tuple(("input", "pins", name) for name in BUTTONS)


@dataclass(frozen=True)
class ShutdownConfig:
    enabled: bool = setting(Flag())
    button: str = setting(OneOf(BUTTONS))
    hold_s: float = setting(Number(1, 30))


@dataclass(frozen=True)
class InputConfig:
    pins: ButtonPins = setting(Section(ButtonPins))
    pull_up: bool = setting(Flag())
    bounce_ms: int = setting(Number(0, 500, whole=True))
    repeat_delay_ms: int = setting(Number(50, 2000, whole=True))
    repeat_rate_hz: float = setting(Number(1, 60))
    shutdown: ShutdownConfig = setting(Section(ShutdownConfig))


@dataclass(frozen=True)
class PlayersConfig:
    colors: tuple[str, ...] = setting(ColorList())


@dataclass(frozen=True)
class StoreConfig:
    url: str = setting(StoreUrl(STORE_URL_SCHEMES))
    prefix: str = setting(Text())
    state_dir: str = setting(FileName())
    keep_games: int = setting(Number(1, 1_000_000, whole=True))


@dataclass(frozen=True)
class PinCode:
    """The host PIN: empty (the first phone to take a seat is the host) or 4 to 8 digits."""

    def convert(self, value: Any) -> str:
        if value is None or value == "":
            return ""
        if isinstance(value, int) and not isinstance(value, bool):
            raise invalid(f"write the PIN in quotes (\"{value}\") so leading zeros are kept")
        if not isinstance(value, str) or not value.isdigit() or not 4 <= len(value) <= 8:
            raise invalid(f"expected 4 to 8 digits in quotes, or \"\" for no PIN, got {describe(value)}")
        return value


@dataclass(frozen=True)
class WebConfig:
    """The phones' web companion (console/web)."""

    enabled: bool = setting(Flag())
    address: str = setting(Text())
    port: int = setting(Number(1, 65535, whole=True))
    host_pin: str = setting(PinCode())


@dataclass(frozen=True)
class Config:
    """The whole configuration; `source` names the file(s) it was read from, default first."""

    panel: LayoutOptions = setting(Section(LayoutOptions, PANEL_RULES))
    driver: DriverConfig = setting(Section(DriverConfig))
    display: DisplayConfig = setting(Section(DisplayConfig))
    power: PowerBudget = setting(Section(PowerBudget, POWER_RULES))
    input: InputConfig = setting(Section(InputConfig))
    players: PlayersConfig = setting(Section(PlayersConfig))
    store: StoreConfig = setting(Section(StoreConfig))
    web: WebConfig = setting(Section(WebConfig))
    idle_timeout_s: float = setting(Number(0, 86400))
    source: tuple[str, ...] = ()


CONFIG_SECTION = Section(Config)


def setting_paths(section: Section = CONFIG_SECTION, prefix: Path = ()) -> Iterator[Path]:
    """Every key path the schema knows, sections included: for "did you mean" across sections."""
    for name, rule in section.key_rules().items():
        yield prefix + (name,)
        if isinstance(rule, Section):
            yield from setting_paths(rule, prefix + (name,))


# --- rules across keys ---------------------------------------------------------------------

def cross_key_problems(values: dict[Path, Any]) -> Iterator[tuple[Path, str]]:
    """Rules that involve several keys. `values` maps key paths to their checked values; a key whose
    own value was bad is absent, and every rule that needs it stays silent (its problem is reported).
    """
    yield from _layout_problems(values)
    yield from _driver_problems(values)
    yield from _power_problems(values)


def _layout_problems(values: dict[Path, Any]) -> Iterator[tuple[Path, str]]:
    options = built_section(values, "panel", LayoutOptions, PANEL_RULES)
    if options is None:
        return
    try:
        Layout(options)
    except LayoutError as exc:
        yield ("panel",), str(exc)


def built_section(values: dict[Path, Any], name: str, kind: type, rules: Mapping[str, Any]) -> Any:
    """The top-level section `name` as a `kind`, or None when one of its values broke its rule."""
    if not all((name, key) in values for key in rules):
        return None
    return kind(**{key: values[name, key] for key in rules})


def _chosen_drivers(name: Any) -> tuple[DriverSpec, ...]:
    """The drivers the configured `driver.name` may run: `auto` may pick any it knows a board for."""
    return tuple(spec for spec in DRIVERS if spec.name == name or (name == AUTO and spec.auto_picks))


def _driver_problems(values: dict[Path, Any]) -> Iterator[tuple[Path, str]]:
    """A GPIO serves one purpose: each button its own pin, none on the LED data pin, and each
    chosen driver's own rules across its settings. `auto` may pick any LED driver it knows a board
    for, so the rules and data pins of each of them count."""
    claims: list[tuple[Path, int, bool]] = []  # (key, pin, is an LED data pin)
    for spec in _chosen_drivers(values.get(("driver", "name"))):
        section = ("driver", spec.section)
        given = {item.name: values[section + (item.name,)] for item in spec.configured_settings
                 if section + (item.name,) in values}
        claims += [(section + (item.name,), given[item.name], True)
                   for item in spec.configured_settings if item.data_pin and item.name in given]
        if spec.check is not None:
            yield from ((section + (name,), message) for name, message in spec.check(given))
    claims += [(path, values[path], False) for path in BUTTON_PATHS if path in values]
    for path, pin, is_led in claims:
        others = [other for other, other_pin, other_is_led in claims
                  if other_pin == pin and other != path and not (is_led and other_is_led)]
        if others:
            yield path, f"GPIO {pin} is also used by {', '.join(map(format_path, others))}"


def _power_problems(values: dict[Path, Any]) -> Iterator[tuple[Path, str]]:
    options = built_section(values, "panel", LayoutOptions, PANEL_RULES)
    try:
        power = built_section(values, "power", PowerBudget, POWER_RULES)
    except OutputSettingsError as exc:
        yield ("power",), str(exc)
        return
    if options is None or power is None:
        return
    width, height = options.physical_size
    dark_ma = power.current_ma(0, width * height)
    if power.budget_ma <= dark_ma:
        yield ("power",), (
            f"a {power.supply_amps:g} A supply less {power.pi_ma:g} mA for the Pi leaves "
            f"{power.budget_ma:g} mA, not enough for the {dark_ma:g} mA that {width * height} dark LEDs draw"
        )


def format_path(path: Path) -> str:
    """`input.pins.a`, `players.colors[3]`: how a key path is written in messages."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += ("." if text else "") + part
    return text

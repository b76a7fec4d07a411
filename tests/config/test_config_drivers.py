"""Each driver and its settings are written once, in hal's registry (hal/drivers/__init__.py): the
configuration's schema and its messages, the packaged console.yaml and the makers' guide follow it,
and a driver added to the registry gets its section, its rules and its name in `driver.name`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from console.config.loader import ConfigError, load_config
from console.config.schema import (
    DriverConfig, FileName, Flag, Number, OneOf, OrNothing, Section, Text, driver_config,
)
from hal.drivers import AUTO, DRIVER_NAMES, DRIVERS, DriverSpec
from hal.drivers.spec import Setting

ROOT = Path(__file__).parents[2]
PACKAGED = ROOT / "config" / "console.yaml"
MAKERS = ROOT / "docs" / "MAKERS.md"
CONFIGURED = [spec for spec in DRIVERS if spec.configured_settings]


def test_the_schema_has_each_drivers_section_and_settings_in_the_registrys_order():
    sections = Section(DriverConfig).key_rules()
    assert sections["name"] == OneOf((AUTO,) + DRIVER_NAMES)
    assert list(sections) == ["name"] + [spec.section for spec in CONFIGURED]
    for spec in CONFIGURED:
        assert list(sections[spec.section].key_rules()) == [item.name for item in spec.configured_settings]


def test_the_packaged_configuration_holds_every_driver_setting_at_the_registrys_default():
    driver = yaml.safe_load(PACKAGED.read_text())["driver"]
    assert driver.pop("name") == AUTO
    assert driver == {spec.section: {item.name: item.default for item in spec.configured_settings}
                      for spec in CONFIGURED}


def test_the_packaged_configuration_names_every_driver_for_the_host():
    lines = PACKAGED.read_text().splitlines()
    name_line = lines[lines.index(next(line for line in lines if line.startswith("driver:"))) + 1]
    assert name_line.lstrip().startswith("name:")
    for name in (AUTO,) + DRIVER_NAMES:
        assert re.search(rf"[ (]{re.escape(name)}[ ,)]", name_line.partition("#")[2] + " "), name


def makers_drivers_table() -> dict[str, tuple[str, str]]:
    text = MAKERS.read_text()
    section = text[text.index("\n### The LED drivers\n"):]
    section = section[:section.find("\n#", 1)]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    rows = {}
    for line in lines[2:]:  # below the header and its rule
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


def yaml_scalar(value) -> str:
    return yaml.safe_dump(value, default_flow_style=True).removesuffix("\n...\n").strip()


def test_the_makers_guide_lists_every_driver_with_its_settings_and_defaults():
    table = makers_drivers_table()
    assert list(table) == list(DRIVER_NAMES)
    for spec in DRIVERS:
        settings = ", ".join(f"`{item.name}` ({yaml_scalar(item.default)})" for item in spec.configured_settings)
        assert table[spec.name][1] == (settings or "none"), spec.name


def test_a_new_driver_is_one_registry_entry_away_from_its_section_and_its_rules():
    """A driver the registry does not have yet (Art-Net, say): a spec, and the schema made from the
    registry has its section, each setting's rule, and `null` for a setting without a default."""
    artnet = DriverSpec("artnet", (
        Setting("host", str, None), Setting("port", int, 6454, low=1, high=65535),
        Setting("gamma", bool, False), Setting("file", str, "x", file=True),
        Setting("mode", str, "a", choices=("a", "b")), Setting("gain", float, 1.0, low=0, high=2),
        Setting("secret", int, None, configured=False),
    ), build=lambda settings, layout: None)
    rules = Section(driver_config(DRIVERS + (artnet,))).key_rules()
    assert rules["name"] == OneOf((AUTO,) + DRIVER_NAMES + ("artnet",))
    assert rules["artnet"].key_rules() == {"host": OrNothing(Text()), "port": Number(1, 65535, whole=True),
                                           "gamma": Flag(), "file": FileName(), "mode": OneOf(("a", "b")),
                                           "gain": Number(0, 2)}
    assert rules["artnet"].key_rules()["host"].convert(None) is None


# Every rule of every driver's settings, with the line check-config gives (F: the file). The same
# lines as the schema gave when it listed the drivers' settings itself.
@pytest.mark.parametrize("text, expected", [
    ("driver:\n  ws281x: {dma: 5}\n",
     ["F:2: driver.ws281x.dma: expected one of 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, got 5"]),
    ("driver:\n  ws281x: {freq_hz: 600000}\n",
     ["F:2: driver.ws281x.freq_hz: expected one of 800000, 400000, got 600000"]),
    ("driver:\n  ws281x: {invert: 'yes'}\n", ["F:2: driver.ws281x.invert: expected true or false, got 'yes'"]),
    ("driver:\n  ws281x: {strip_type: GRBW}\n",
     ["F:2: driver.ws281x.strip_type: expected one of RGB, RBG, GRB, GBR, BRG, BGR, got 'GRBW'"]),
    ("driver:\n  ws281x: {pin: 28}\n", ["F:2: driver.ws281x.pin: 28 is out of range, expected 0 to 27"]),
    ("driver:\n  ws281x: {pin: 4.0}\n", ["F:2: driver.ws281x.pin: expected a whole number from 0 to 27, got 4.0"]),
    ("driver:\n  ws281x: {channel: 1}\n", ["F:2: driver.ws281x.channel: unknown key"]),
    ("driver:\n  leds_dev: {device: ''}\n", ["F:2: driver.leds_dev.device: expected some text, got ''"]),
    ("driver:\n  leds_dev: {device: 5}\n", ["F:2: driver.leds_dev.device: expected some text, got 5"]),
    ("driver:\n  sim_headless: {history: 10001}\n",
     ["F:2: driver.sim_headless.history: 10001 is out of range, expected 0 to 10000"]),
    ("driver:\n  sim_png: {scale: 0}\n", ["F:2: driver.sim_png.scale: 0 is out of range, expected 1 to 100"]),
    ("driver:\n  sim_png: {dots: 1}\n", ["F:2: driver.sim_png.dots: expected true or false, got 1"]),
    ("driver:\n  sim_png: {path: [a]}\n", ["F:2: driver.sim_png.path: expected some text, got a list"]),
    ("driver:\n  sim_terminal: {}\n", ["F:2: driver.sim_terminal: unknown key"]),
    ("driver:\n  sim_png: 3\n", ["F:2: driver.sim_png: expected a mapping of settings, got 3"]),
    ("driver:\n  ddp: {port: 0}\n", ["F:2: driver.ddp.port: 0 is out of range, expected 1 to 65535"]),
    ("driver:\n  ddp: {host: ''}\n", ["F:2: driver.ddp.host: expected some text, got ''"]),
    ("driver:\n  ddp: {keepalive_ms: 3000}\n",
     ["F:2: driver.ddp.keepalive_ms: 3000 is out of range, expected 100 to 2000"]),
    ("driver:\n  e131: {universe: 64000}\n", ["F:2: driver.e131.universe: 64000 is out of range, expected 1 to 63999"]),
    ("driver:\n  e131: {http_port: -1}\n", ["F:2: driver.e131.http_port: -1 is out of range, expected 0 to 65535"]),
    ("driver:\n  name: ddp\n  ddp: {host: 'wled local'}\n",
     ["F:3: driver.ddp.host: 'wled local' is neither an IP address nor a host name"]),
    ("driver:\n  name: e131\n  e131: {host: -wled.local}\n",
     ["F:3: driver.e131.host: '-wled.local' is neither an IP address nor a host name"]),
    ("driver:\n  pin: 4\n", ["F:2: driver.pin: unknown key; did you mean driver.ws281x.pin?"]),
    ("driver:\n  sim_png: {history: 4}\n",
     ["F:2: driver.sim_png.history: unknown key; did you mean driver.sim_headless.history?"]),
    ("driver:\n  name: auto\n  ws281x: {pin: 4}\n",
     ["F:3: driver.ws281x.pin: rpi-ws281x cannot send LED data on GPIO 4; use 12 or 18 (PWM0), 13 or 19 (PWM1), "
      "21 (PCM) or 10 (SPI)"]),
    ("driver:\n  name: ws281x\n  ws281x: {pin: 4, dma: 5}\ninput:\n  pins: {a: 4}\n",
     ["F:3: driver.ws281x.dma: expected one of 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, got 5",
      "F:3: driver.ws281x.pin: rpi-ws281x cannot send LED data on GPIO 4; use 12 or 18 (PWM0), 13 or 19 (PWM1), "
      "21 (PCM) or 10 (SPI)",
      "F:3: driver.ws281x.pin: GPIO 4 is also used by input.pins.a",
      "F:5: input.pins.a: GPIO 4 is also used by driver.ws281x.pin"]),
    ("driver:\n  name: leds-dev\n  ws281x: {pin: 4}\n  leds_dev: {pin: 17}\n",  # up is on 17 in the default
     ["F:4: driver.leds_dev.pin: GPIO 17 is also used by input.pins.up"]),
])
def test_each_driver_setting_is_checked_with_its_one_line_message(tmp_path, text, expected):
    path = tmp_path / "console.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(str(path), {}, str(tmp_path / "etc.yaml"))
    found = [line.replace(str(path), "F") for line in caught.value.problems]
    assert [line for line in found if line.startswith("F:")] == expected


def test_a_simulator_drives_no_pin_so_the_led_drivers_pins_are_not_checked(tmp_path):
    path = tmp_path / "console.yaml"
    path.write_text("driver:\n  name: sim-png\n  ws281x: {pin: 4}\ninput:\n  pins: {a: 4}\n")
    assert load_config(str(path), {}, str(tmp_path / "etc.yaml")).driver.ws281x.pin == 4


def test_a_network_driver_needs_its_receiver_only_when_it_is_the_driver(tmp_path):
    """The receiver has no default: `driver.name: ddp` without `driver.ddp.host` is refused with
    what to give, any other driver leaves the null alone, and an address or a name is taken."""
    path = tmp_path / "console.yaml"
    for name in ("ddp", "e131"):
        path.write_text(f"driver:\n  name: {name}\n")
        with pytest.raises(ConfigError) as caught:
            load_config(str(path), {}, str(tmp_path / "etc.yaml"))
        assert [line.split(": ", 1)[1] for line in caught.value.problems] == [
            f"driver.{name.replace('-', '_')}.host: give the receiver's address or host name "
            "(such as 192.168.1.50 or wled-1a2b3c.local)"]
    for host in ("192.168.1.50", "fe80::1", "wled-1a2b3c.local", "fpp"):
        path.write_text(f"driver:\n  name: ddp\n  ddp: {{host: '{host}'}}\n")
        assert load_config(str(path), {}, str(tmp_path / "etc.yaml")).driver.ddp.host == host
    path.write_text("driver:\n  name: auto\n")
    assert load_config(str(path), {}, str(tmp_path / "etc.yaml")).driver.ddp.host is None


def test_the_wled_preset_is_the_makers_guides_and_a_good_configuration(tmp_path):
    """config/wled.yaml is the block the guide shows (less its header comment), check-config
    takes it, and its limiter counts as WLED's does (an ESP32's 120 mA, 55 mA an LED)."""
    preset = ROOT / "config" / "wled.yaml"
    body = "".join(line + "\n" for line in preset.read_text().splitlines() if not line.startswith("#"))
    guide = MAKERS.read_text()
    block = guide[guide.index("   ```yaml\n", guide.index("config/wled.yaml")) + len("   ```yaml\n"):]
    block = block[:block.index("   ```\n")]
    assert "".join(line[3:] + "\n" for line in block.splitlines()) == body
    config = load_config(str(preset), {}, str(tmp_path / "etc.yaml"))
    assert (config.driver.name, config.driver.ddp.host, config.panel.serpentine) == ("ddp", "192.168.1.50", False)
    assert (config.power.pi_ma, config.power.led_ma, config.power.idle_ma) == (120, 55, 1)

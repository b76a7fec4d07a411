"""The configuration file: the packaged default, the lookup order, merging, and every validation rule
reported as one `FILE:LINE: key.path: message` line."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import pathlib
import re
import unittest.mock

import pytest
import yaml
from yaml.composer import Composer
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from console.config import loader as config_loader
from console.config.loader import (
    ENV_VAR, Config, ConfigError, check_config_main, load_config, packaged_default,
)
from console.config.schema import PAWN_COLOR_NAMES, ButtonPins, setting_paths
from hal.inputs.events import BUTTONS
from hal.layout import LayoutOptions
from hal.output import PowerBudget

PROBLEM_LINE = re.compile(r"^[^\n]+?(:\d+)?: [^\n]+$")
DEFAULT = str(packaged_default())


@pytest.fixture
def no_etc(tmp_path):
    return str(tmp_path / "etc-console.yaml")  # never created


@pytest.fixture
def write(tmp_path):
    def write(text: str, name: str = "console.yaml") -> str:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


def load(path, no_etc, environ=None) -> Config:
    return load_config(path, environ={} if environ is None else environ, etc_path=no_etc)


def problems(path, no_etc) -> tuple[str, ...]:
    with pytest.raises(ConfigError) as caught:
        load(path, no_etc)
    for line in caught.value.problems:
        assert PROBLEM_LINE.match(line), line
    return caught.value.problems


# --- the packaged default ------------------------------------------------------------------


def test_packaged_default_passes_with_the_issue_defaults(no_etc):
    config = load(None, no_etc)
    assert config.source == (DEFAULT,)
    assert config.power == PowerBudget(supply_volts=5.0, supply_amps=4.0, pi_ma=700, led_ma=55, idle_ma=1)
    assert config.panel == LayoutOptions()  # hal's defaults: two 16x16 panels side by side
    assert (config.display.gamma, config.display.fps) == (2.2, 60)
    assert (config.input.repeat_delay_ms, config.input.repeat_rate_hz) == (350, 12.0)
    shutdown = config.input.shutdown
    assert (shutdown.enabled, shutdown.button, shutdown.hold_s) == (True, "start", 5.0)
    assert (config.store.url, config.store.prefix) == ("memory://", "hues:")
    assert config.players.colors == PAWN_COLOR_NAMES
    assert config.driver.name == "auto"


def test_every_key_of_the_packaged_default_has_a_comment():
    text = packaged_default().read_text(encoding="utf-8")
    lines = text.splitlines()
    keys = []

    def walk(node, path):
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                keys.append((path + key.value, key.start_mark.line))
                walk(value, path + key.value + ".")

    walk(yaml.compose(text), "")
    assert len(keys) == len(list(setting_paths()))
    uncommented = [path for path, line in keys if "#" not in lines[line]]
    assert uncommented == []


def test_button_pins_are_the_input_buttons_in_order(no_etc):
    assert tuple(ButtonPins.__dataclass_fields__) == BUTTONS
    pins = load(None, no_etc).input.pins
    assert dataclasses.asdict(pins) == {"up": 17, "down": 27, "left": 22, "right": 23, "a": 24, "b": 25, "start": 3}


def test_a_broken_packaged_default_is_reported_against_itself(write, no_etc, monkeypatch):
    text = packaged_default().read_text(encoding="utf-8").replace("  fps: 60", "  fbs: 60")
    broken = write(text, "broken-default.yaml")
    monkeypatch.setattr("console.config.loader.packaged_default", lambda: pathlib.Path(broken))
    number = {line.split(":")[0].strip(): n for n, line in enumerate(text.splitlines(), 1)}
    assert problems(None, no_etc) == (
        f"{broken}:{number['display']}: display: missing key fps",
        f"{broken}:{number['fbs']}: display.fbs: unknown key; did you mean fps?",
    )


def test_config_is_frozen(no_etc):
    config = load(None, no_etc)
    with pytest.raises(AttributeError):
        config.display.fps = 30


# --- lookup order and merging --------------------------------------------------------------


def test_lookup_order_option_then_environment_then_etc(write, tmp_path):
    option = write("display: {fps: 30}\n", "option.yaml")
    env = write("display: {fps: 40}\n", "env.yaml")
    etc = write("display: {fps: 50}\n", "etc.yaml")
    environ = {ENV_VAR: env}
    assert load_config(option, environ, etc).display.fps == 30
    assert load_config(None, environ, etc).display.fps == 40
    assert load_config(None, {}, etc).display.fps == 50
    assert load_config(None, {ENV_VAR: ""}, etc).source == (DEFAULT, etc)
    missing_etc = str(tmp_path / "absent.yaml")
    assert load_config(None, {}, missing_etc).source == (DEFAULT,)


def test_partial_user_file_keeps_every_other_default(write, no_etc):
    default = load(None, no_etc)
    config = load(write("display:\n  fps: 30\ninput:\n  pins:\n    a: 5\n"), no_etc)
    assert config.display.fps == 30
    assert config.display.gamma == default.display.gamma
    assert config.input.pins.a == 5
    assert config.input.pins.up == default.input.pins.up
    assert config.power == default.power
    assert config.source == (DEFAULT, config.source[1])


def test_empty_file_and_empty_section_change_nothing(write, no_etc):
    default = load(None, no_etc)
    assert load(write("# nothing changed yet\n"), no_etc).display == default.display
    assert load(write("display:\n  # fps: 30\n"), no_etc).display == default.display


def test_merge_keys_and_anchors_are_read(write, no_etc):
    text = "input:\n  pins: &pins {a: 5, b: 6}\n  shutdown: {<<: {button: a}, hold_s: 2}\n"
    config = load(write(text), no_etc)
    assert (config.input.pins.a, config.input.pins.b) == (5, 6)
    assert (config.input.shutdown.button, config.input.shutdown.hold_s) == ("a", 2.0)


# --- every rule, with a bad file -----------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("display:\n  brightnes: 0.5\n", "2: display.brightnes: unknown key; did you mean brightness?"),
    ("brightness: 0.5\n", "1: brightness: unknown key; did you mean display.brightness?"),
    ("panel:\n  zigzag: true\n", "2: panel.zigzag: unknown key"),
    ("display:\n  fps: fast\n", "2: display.fps: expected a whole number from 10 to 120, got 'fast'"),
    ("display:\n  fps: 60.5\n", "2: display.fps: expected a whole number from 10 to 120, got 60.5"),
    ("display:\n  brightness: true\n", "2: display.brightness: expected a number from 0.02 to 1, got True"),
    ("input:\n  pull_up: maybe\n", "2: input.pull_up: expected true or false, got 'maybe'"),
    ("panel:\n  rotation: false\n", "2: panel.rotation: expected one of 0, 90, 180, 270, got False"),
    ("display:\n  brightness: 1.5\n", "2: display.brightness: 1.5 is out of range, expected 0.02 to 1"),
    ("display:\n  gamma: .nan\n", "2: display.gamma: nan is out of range, expected 1 to 3"),
    ("input:\n  shutdown:\n    hold_s: 0\n", "3: input.shutdown.hold_s: 0 is out of range, expected 1 to 30"),
    ("input:\n  pins:\n    a: 28\n", "3: input.pins.a: 28 is out of range, expected 0 to 27"),
    ("driver:\n  name: neopixel\n", "2: driver.name: expected one of auto, ws281x, leds-dev, ddp, e131, "
                                    "sim-terminal, sim-headless, sim-png, got 'neopixel'"),
    ("input:\n  shutdown: {button: select}\n", "2: input.shutdown.button: expected one of up, down, "
                                                "left, right, a, b, start, got 'select'"),
    ("store:\n  url: http://x\n", "2: store.url: 'http://x' must start with memory:// or redis:// "
                                  "or rediss:// or unix://"),
    ("store:\n  prefix: ''\n", "2: store.prefix: expected some text, got ''"),
    ("display: 60\n", "1: display: expected a mapping of settings, got 60"),
    ("display:\n  fps: 30\n  fps: 40\n", "3: display.fps: key given twice"),
    ("display:\n  fps: !!int abc\n", "2: display.fps: cannot read the value 'abc' (tag tag:yaml.org,2002:int)"),
    ("display:\n  fps: !custom 30\n", "2: display.fps: cannot read the value '30' (tag !custom)"),
    ("display: !!set {fps}\n", "1: display: the YAML tag tag:yaml.org,2002:set is not supported here"),
    ("{[1]: 2}\n", "1: a key must be a plain name, not a list"),
])
def test_a_bad_value_is_reported_at_its_file_line_and_key(write, no_etc, text, expected):
    path = write(text)
    assert f"{path}:{expected}" in problems(path, no_etc)


@pytest.mark.parametrize("text, expected", [
    ("players:\n  colors: [red, red, orange, yellow, green, cyan, blue, purple, pink, white]\n",
     ["2: players.colors[1]: red is listed twice; each colour goes to one seat",
      "2: players.colors: missing black: list all 10 pawn colours"]),
    ("players:\n  colors:\n    - red\n    - magenta\n",
     ["4: players.colors[1]: 'magenta' is not a pawn colour; use " + ", ".join(PAWN_COLOR_NAMES),
      "2: players.colors: missing orange, yellow, green, cyan, blue, purple, pink, white, black: "
      "list all 10 pawn colours"]),
    ("players:\n  colors: [" + ", ".join(PAWN_COLOR_NAMES * 2) + "]\n",
     ["2: players.colors: 20 colours listed, expected 10"]),
    ("players:\n  colors: red\n", ["2: players.colors: expected a list of the 10 pawn colours, got 'red'"]),
])
def test_player_colours_are_the_ten_pawn_colours_each_once(write, no_etc, text, expected):
    path = write(text)
    found = problems(path, no_etc)
    for line in expected:
        assert f"{path}:{line}" in found


def test_reordered_player_colours_pass(write, no_etc):
    order = tuple(reversed(PAWN_COLOR_NAMES))
    config = load(write(f"players:\n  colors: [{', '.join(order)}]\n"), no_etc)
    assert config.players.colors == order


def test_two_buttons_on_one_pin_are_both_named(write, no_etc):
    path = write("input:\n  pins:\n    a: 17\n")  # up is on 17 in the default
    found = problems(path, no_etc)
    assert f"{path}:3: input.pins.a: GPIO 17 is also used by input.pins.up" in found
    assert any(line.endswith("input.pins.up: GPIO 17 is also used by input.pins.a") for line in found)


def test_a_button_on_the_led_data_pin(write, no_etc):
    path = write("driver:\n  name: ws281x\ninput:\n  pins:\n    a: 18\n")
    found = problems(path, no_etc)
    assert f"{path}:5: input.pins.a: GPIO 18 is also used by driver.ws281x.pin" in found
    # a simulator drives no pin, so the same wiring is fine there
    load(write("driver:\n  name: sim-headless\ninput:\n  pins:\n    a: 18\n"), no_etc)


def test_auto_may_pick_either_led_driver_so_both_data_pins_count(write, no_etc):
    path = write("driver:\n  leds_dev: {pin: 5}\ninput:\n  pins: {a: 5}\n")
    assert f"{path}:4: input.pins.a: GPIO 5 is also used by driver.leds_dev.pin" in problems(path, no_etc)


@pytest.mark.parametrize("pin, ok", [(18, True), (12, True), (13, True), (19, True), (21, True),
                                     (10, True), (4, False), (26, False)])
def test_ws281x_sends_only_on_its_pwm_pcm_and_spi_pins(write, no_etc, pin, ok):
    path = write(f"driver:\n  name: ws281x\n  ws281x:\n    pin: {pin}\n")
    if ok:
        assert load(path, no_etc).driver.ws281x.pin == pin
    else:
        assert f"{path}:4: driver.ws281x.pin: rpi-ws281x cannot send LED data on GPIO {pin}; use 12 or 18 " \
               "(PWM0), 13 or 19 (PWM1), 21 (PCM) or 10 (SPI)" in problems(path, no_etc)


def test_leds_dev_takes_any_gpio_from_0_to_27(write, no_etc):
    assert load(write("driver:\n  name: leds-dev\n  leds_dev: {pin: 4}\n"), no_etc).driver.leds_dev.pin == 4
    path = write("driver:\n  name: leds-dev\n  leds_dev: {pin: 28}\n")
    assert f"{path}:3: driver.leds_dev.pin: 28 is out of range, expected 0 to 27" in problems(path, no_etc)


@pytest.mark.parametrize("panel, ok", [
    ("{panels_across: 1}", False),                                   # 16x16
    ("{rotation: 90}", False),                                       # 32x16 turned is 16x32
    ("{panels_across: 1, panels_down: 2, rotation: 270}", True),     # 16x32 turned is 32x16
    ("{panel_width: 32, panel_height: 8, panels_across: 1, panels_down: 2}", True),
    ("{panel_width: 8, panel_height: 8, panels_across: 4, panels_down: 2}", True),
    ("{panel_width: 8, panel_height: 8, panels_across: 4, panels_down: 1}", False),
])
def test_the_panels_must_hold_the_board_and_its_status_columns(write, no_etc, panel, ok):
    path = write(f"panel: {panel}\n")
    if ok:
        assert load(path, no_etc).panel.rotation in (0, 90, 180, 270)
    else:
        (line,) = [line for line in problems(path, no_etc) if ": panel: " in line]
        assert line.startswith(f"{path}:1: panel: the LED panels make a")
        assert "the board needs at least 32x16" in line


def test_a_supply_that_cannot_light_the_panel(write, no_etc):
    path = write("power:\n  supply_amps: 0.6\n")
    assert problems(path, no_etc) == (f"{path}:1: power: a 0.6 A supply leaves nothing for the LEDs "
                                      "after the Pi's 700.0 mA",)
    path = write("power:\n  supply_amps: 1.0\n")
    assert problems(path, no_etc) == (f"{path}:1: power: a 1 A supply less 700 mA for the Pi leaves "
                                      "300 mA, not enough for the 512 mA that 512 dark LEDs draw",)


def test_every_problem_is_reported_in_file_order(write, no_etc):
    path = write("display:\n  fps: 5\n  gamma: 9\nstore:\n  url: ftp://x\nbogus: 1\n")
    assert problems(path, no_etc) == (
        f"{path}:2: display.fps: 5 is out of range, expected 10 to 120",
        f"{path}:3: display.gamma: 9 is out of range, expected 1 to 3",
        f"{path}:5: store.url: 'ftp://x' must start with memory:// or redis:// or rediss:// or unix://",
        f"{path}:6: bogus: unknown key",
    )


@pytest.mark.parametrize("text, expected", [
    ("display:\n  fps: 30\n bad indent: 1\n", ":3: YAML syntax error: "),
    ("display: [1, 2\n", ":2: YAML syntax error: "),
    ("a: 1\n---\nb: 2\n", ":2: YAML syntax error: expected a single document in the stream"),
    ("- fps\n- gamma\n", ":1: expected a mapping of settings (key: value lines), got a list"),
    ("just words\n", ":1: expected a mapping of settings (key: value lines), got 'just words'"),
])
def test_a_file_that_is_not_a_yaml_mapping(write, no_etc, text, expected):
    path = write(text)
    (line,) = problems(path, no_etc)
    assert line.startswith(path + expected)


def test_a_missing_or_unreadable_file(tmp_path, no_etc):
    missing = str(tmp_path / "missing.yaml")
    assert problems(missing, no_etc) == (f"{missing}: no such file",)
    with pytest.raises(ConfigError) as caught:
        load_config(None, {ENV_VAR: missing}, no_etc)
    assert caught.value.problems == (f"{missing}: no such file",)
    assert problems(str(tmp_path), no_etc) == (f"{tmp_path}: is a directory, not a configuration file",)
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"display:\n  fps: \xff\xfe\x00\n")
    (line,) = problems(str(binary), no_etc)
    assert line.startswith(f"{binary}: not a YAML text file: ")


def parsing_with(parser: str):
    """Read with libyaml (what the console uses here) or with PyYAML's own parser (its fallback)."""
    return contextlib.nullcontext() if parser == "libyaml" else \
        unittest.mock.patch.object(config_loader, "_Loader", yaml.SafeLoader)


@pytest.mark.parametrize("text", [
    "a: &a [*a]\n",                                                      # an alias inside itself
    "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n" + "".join(                  # an alias bomb
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(5)),
    "a: " + "[" * 2000 + "]" * 2000 + "\n",                              # deeper than the parser goes
    "a: " + "[" * 65_000 + "\n",                                          # as deep as 64 KiB goes
])
@pytest.mark.parametrize("parser", ["libyaml", "PyYAML's own"])
def test_documents_that_would_never_end_are_refused(write, no_etc, text, parser):
    path = write(text)
    with parsing_with(parser):
        (line,) = problems(path, no_etc)
    assert "nested deeper than 16 levels or more than 10000 values" in line


def test_nodes_are_composed_in_python_whatever_the_parser():
    """CSafeLoader composes in C, recursively, and Raspberry Pi OS's libyaml 0.2.5 (unlike this
    machine's 0.2.6) has no depth limit of its own: a 64 KiB file of `[` crashed the console
    there (SIGSEGV, found with Debian's python3-yaml). PyYAML's composer stops at Python's
    recursion limit with a RecursionError, which is one line (the test above)."""
    assert config_loader._Loader.compose_node is Composer.compose_node
    assert config_loader._Loader.get_single_node is Composer.get_single_node


@pytest.mark.parametrize("parser", ["libyaml", "PyYAML's own"])
def test_a_tab_indented_line_is_named_as_a_tab(write, no_etc, parser):
    """A host's editor may indent with tabs; libyaml's message would not name the character."""
    path = write("display:\n\tfps: 30\n")
    with parsing_with(parser):
        (line,) = problems(path, no_etc)
    assert line == f"{path}:2: YAML syntax error: a tab where YAML wants spaces (indent with spaces only)"


@pytest.mark.parametrize("parser", ["libyaml", "PyYAML's own"])
def test_an_escape_past_the_last_unicode_character_is_a_syntax_error(write, no_etc, parser):
    path = write('display:\n  fps: "\\U00110000"\n')
    with parsing_with(parser):
        (line,) = problems(path, no_etc)
    assert line.startswith(f"{path}:2: YAML syntax error: "), line


def test_config_error_is_the_problem_lines():
    error = ConfigError(["a.yaml:1: x: bad", "a.yaml:2: y: bad"])
    assert error.problems == ("a.yaml:1: x: bad", "a.yaml:2: y: bad")
    assert str(error) == "a.yaml:1: x: bad\na.yaml:2: y: bad"


# --- check-config --------------------------------------------------------------------------


def test_check_config_says_ok(write, no_etc, capsys):
    path = write("display: {fps: 30}\n")
    assert check_config_main(path, environ={}, etc_path=no_etc) == 0
    assert capsys.readouterr().out == f"{path}: OK\n"
    assert check_config_main(None, environ={}, etc_path=no_etc) == 0
    assert capsys.readouterr().out == f"{DEFAULT}: OK\n"


def test_check_config_prints_every_problem_and_exits_2(write, no_etc, capsys):
    path = write("display: {fps: 5, gamma: 9}\n")
    assert check_config_main(path, environ={}, etc_path=no_etc) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines() == [
        f"{path}:1: display.gamma: 9 is out of range, expected 1 to 3",
        f"{path}:1: display.fps: 5 is out of range, expected 10 to 120",
    ]


# --- properties ----------------------------------------------------------------------------

YAML_PIECES = [
    "panel", "display", "fps", "input", "pins", "a", "players", "colors", "red", "driver", "name",
    ":", ": ", " ", "  ", "\n", "\n  ", "\n    ", "- ", "[", "]", "{", "}", ", ", "&x ", "*x", "<<: ",
    "!!int ", "!!float ", "!!str ", "!!binary ", "!!timestamp ", "!!map ", "!!seq ", "!!set ",
    "!!omap ", "!!python/tuple ", "!tag ", "? ", "|\n", ">\n", "---\n", "...\n", "%YAML 1.1\n", "'",
    '"', "#", "~", "null", "yes", "on", "1", "-3", "1e400", "0x1F", "0o17", "-.inf", ".nan",
    "2001-12-14", "2001-13-45", "1_000", "9" * 5000, "\t", "\x00", "\x85", "é", "\ufeff", "\\",
]
yaml_documents = st.one_of(
    st.lists(st.sampled_from(YAML_PIECES), max_size=40).map("".join),
    st.text(max_size=200),
)
KEY_PATHS = [path for path in setting_paths()]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10 ** 6), 10 ** 6), st.floats(),
                    st.text(max_size=12), st.sampled_from(PAWN_COLOR_NAMES + BUTTONS))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=10)


def nest(path, value):
    for key in reversed(path):
        value = {key: value}
    return value


def assert_config_or_config_error(path, no_etc):
    try:
        assert isinstance(load(path, no_etc), Config)
    except ConfigError as error:
        assert error.problems
        for line in error.problems:
            assert PROBLEM_LINE.match(line), line


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(document=yaml_documents)
def test_any_document_gives_a_config_or_a_config_error(write, no_etc, document):
    assert_config_or_config_error(write(document), no_etc)


@FUZZ
@given(changes=st.lists(st.tuples(st.sampled_from(KEY_PATHS), values), min_size=1, max_size=4))
def test_any_value_at_a_real_key_gives_a_config_or_a_config_error(write, no_etc, changes):
    document: dict = {}
    for path, value in changes:
        node = document
        for key in path[:-1]:
            if not isinstance(node.get(key), dict):
                node[key] = {}
            node = node[key]
        node[path[-1]] = value
    assert_config_or_config_error(write(yaml.safe_dump(document, allow_unicode=True)), no_etc)


def outcome(path, no_etc):
    try:
        return load(path, no_etc)
    except ConfigError as error:
        return error.problems


@settings(FUZZ, max_examples=40)  # each example reads its file twice, PyYAML's own parser ten times slower
@given(changes=st.lists(st.tuples(st.sampled_from(KEY_PATHS), values), min_size=1, max_size=4))
def test_libyaml_and_pure_python_read_any_settings_alike(write, no_etc, changes):
    """The console reads with libyaml's parser where PyYAML has it (Debian's does) and with
    PyYAML's own otherwise: any settings written out as YAML give the same configuration, or
    the same problems on the same lines, with either. (They part on a lone surrogate escaped in
    a string, which no Unicode text holds: tests/commands/test_fuzz_inputs.py, refused_by_both_parsers.)"""
    assert config_loader._Loader is not yaml.SafeLoader  # this machine has libyaml: both are compared
    document = {}
    for path, value in changes:
        document.update(nest(path, value) if path[0] not in document else {})
    path = write(yaml.safe_dump(document, allow_unicode=True))
    with_c = outcome(path, no_etc)
    with unittest.mock.patch.object(config_loader, "_Loader", yaml.SafeLoader):
        assert outcome(path, no_etc) == with_c


def test_libyaml_and_pure_python_read_the_packaged_default_alike(no_etc):
    with_c = load(None, no_etc)
    with unittest.mock.patch.object(config_loader, "_Loader", yaml.SafeLoader):
        assert load(None, no_etc) == with_c


# A range check: its edges are given as examples, so a few dozen random values add all there is.
RANGE = settings(FUZZ, max_examples=30)


@RANGE
@example(fps=9)
@example(fps=10)
@example(fps=120)
@example(fps=121)
@given(fps=st.integers(-1000, 1000))
def test_fps_is_taken_exactly_when_from_10_to_120(write, no_etc, fps):
    path = write(f"display:\n  fps: {fps}\n")
    if 10 <= fps <= 120:
        assert load(path, no_etc).display.fps == fps
    else:
        assert problems(path, no_etc) == (f"{path}:2: display.fps: {fps} is out of range, expected 10 to 120",)


@RANGE
@example(brightness=0.019999999999999997)
@example(brightness=0.02)
@example(brightness=1.0)
@example(brightness=1.0000000000000002)
@given(brightness=st.floats(allow_nan=False, allow_infinity=False, min_value=-2, max_value=2))
def test_brightness_is_taken_exactly_when_from_0_02_to_1(write, no_etc, brightness):
    path = write(yaml.safe_dump(nest(("display", "brightness"), brightness)))
    if 0.02 <= brightness <= 1:
        assert load(path, no_etc).display.brightness == brightness
    else:
        (line,) = problems(path, no_etc)
        assert ": display.brightness: " in line and "is out of range, expected 0.02 to 1" in line


@pytest.mark.parametrize("value", ["!!bool 2", "!!bool", "!!int", "!!int _", "!!float", "!!binary é",
                                   "!!timestamp 2001-13-45", "!!int " + "9" * 5000])
def test_a_tagged_value_that_cannot_be_read_is_one_problem_line(write, no_etc, value):
    path = write(f"display:\n  fps: {value}\n")
    (line,) = problems(path, no_etc)
    assert line.startswith(f"{path}:2: display.fps: ")


def test_the_size_is_checked_before_the_yaml_is_read(write, no_etc):
    path = write("a" * 5_000_000)
    assert problems(path, no_etc) == (f"{path}: is larger than 64 KiB: this cannot be the right file",)


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_fifo_or_a_device_is_refused_without_waiting(tmp_path, no_etc, kind):
    path = str(tmp_path / "fifo") if kind == "fifo" else "/dev/zero"
    if kind == "fifo":
        os.mkfifo(path)  # nobody writes: opening it to read would block for ever
    (line,) = problems(path, no_etc)
    assert line == f"{path}: is not a regular file (a pipe or a device); give - to read standard input"


def test_an_empty_config_path_is_an_error(no_etc):
    with pytest.raises(ConfigError, match="no file name given"):
        load("", no_etc)


def test_a_config_on_stdin_is_named_stdin(no_etc, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"display:\n  fps: !!bool 2\n")))
    with pytest.raises(ConfigError) as caught:
        load("-", no_etc)
    assert caught.value.problems == ("<stdin>:2: display.fps: cannot read the value '2' (tag tag:yaml.org,2002:bool)",)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"display:\n  fps: 30\n")))
    assert load("-", no_etc).display.fps == 30

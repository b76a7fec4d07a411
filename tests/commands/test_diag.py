"""The wiring check: its pictures drawn directly, then the loop on a virtual clock with script
inputs, GPIO buttons on gpiozero's MockFactory pins, and the whole `diag` command headless."""

from __future__ import annotations

import dataclasses

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from console.commands.common import UsageError
from console.config.loader import load_config
from console.commands.diag import (
    BUTTON_COLOURS, CHASE, CHASE_LEDS_PER_S, CHASE_TAIL_LEDS, COORDINATES, COORDINATES_S,
    CORNER_COLOURS, CORNERS, CORNERS_S, EDGE, FINISH_HOLD_S, INPUTS, LIT_AFTER_PRESS_S,
    UNLIT_COLOURS, build_diag, diag_frame, diag_main, input_region, scripted_diag, stage_seconds,
)
from console.commands.wiring import gpio_input
from hal.frame import Frame
from hal.inputs.events import BUTTONS, QUIT, InputEvent
from hal.inputs.script import parse_script
from hal.layout import START_CORNERS, Layout, LayoutOptions
from hal.output import OutputStage
from tests.fakes import FakeClock

PERIOD = 1 / 60
DEFAULT = Layout()
TURNED = Layout(LayoutOptions(rotation=180))
TALL = Layout(LayoutOptions(panels_across=2, panels_down=2, vertical=True, start_corner="bottom-right"))


@pytest.fixture
def config(tmp_path):
    return load_config(None, environ={}, etc_path=str(tmp_path / "none.yaml"))


def region_colours(frame: Frame, button: str) -> set[tuple[int, int, int]]:
    x, y, w, h = input_region(button, frame.width, frame.height)
    return {frame.get(xx, yy) for yy in range(y, y + h) for xx in range(x, x + w)}


def lit_regions(frame: Frame) -> set[str]:
    """The buttons whose whole region shows their full colour; every other region must be dim."""
    lit = set()
    for button in BUTTONS:
        colours = region_colours(frame, button)
        if colours == {BUTTON_COLOURS[button]}:
            lit.add(button)
        else:
            assert colours == {UNLIT_COLOURS[button]}, button
    return lit


# --- the pictures ------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", [DEFAULT, TALL], ids=["32x16", "32x32"])
def test_corners_are_red_green_blue_white_inside_a_dim_frame(layout):
    frame = diag_frame(CORNERS, 1.0, layout)
    w, h = layout.width, layout.height
    corners = [frame.get(0, 0), frame.get(w - 1, 0), frame.get(0, h - 1), frame.get(w - 1, h - 1)]
    assert corners == list(CORNER_COLOURS)
    assert corners == [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]
    assert frame.get(w // 2, 0) == frame.get(0, h // 2) == frame.get(w - 1, h // 2) == EDGE
    assert frame.get(w // 2, h // 2) == (0, 0, 0)


def lit_chain_position(frame: Frame, layout: Layout) -> int:
    """The chain position of the one full-white pixel (the head of the running dot)."""
    heads = [p for p in range(layout.led_count) if frame.pixels[3 * p : 3 * p + 3] == b"\xff\xff\xff"]
    assert len(heads) == 1
    return layout.chain_index[heads[0]]


@pytest.mark.parametrize("layout", [DEFAULT, TURNED, TALL], ids=["default", "rotation-180", "tall"])
def test_the_dot_runs_along_the_chain_in_wiring_order(layout):
    visited = [lit_chain_position(diag_frame(CHASE, (i + 0.5) / CHASE_LEDS_PER_S, layout), layout)
               for i in range(layout.led_count)]
    assert visited == list(range(layout.led_count))


def test_the_dot_leaves_a_fading_tail_behind_it_and_nothing_ahead():
    i = 100
    frame = diag_frame(CHASE, (i + 0.5) / CHASE_LEDS_PER_S, TURNED)
    levels = [frame.pixels[3 * TURNED.logical_index[i - k]] for k in range(CHASE_TAIL_LEDS + 1)]
    assert levels[0] == 255 and levels[-1] == 0
    assert all(a > b for a, b in zip(levels, levels[1:]))
    assert frame.get(*divmod_xy(TURNED.logical_index[i + 1])) == (0, 0, 0)
    assert sum(frame.pixels) == sum(3 * level for level in levels)


def divmod_xy(logical: int, width: int = 32) -> tuple[int, int]:
    y, x = divmod(logical, width)
    return x, y


@settings(max_examples=40, deadline=None)
@given(
    start_corner=st.sampled_from(START_CORNERS), vertical=st.booleans(), serpentine=st.booleans(),
    rotation=st.sampled_from((0, 180)), mirror_x=st.booleans(), mirror_y=st.booleans(),
    t=st.floats(0, 20),
)
def test_the_dot_head_is_always_the_chain_position_the_pace_gives(
        start_corner, vertical, serpentine, rotation, mirror_x, mirror_y, t):
    layout = Layout(LayoutOptions(start_corner=start_corner, vertical=vertical, serpentine=serpentine,
                                  rotation=rotation, mirror_x=mirror_x, mirror_y=mirror_y))
    frame = diag_frame(CHASE, t, layout)
    assert lit_chain_position(frame, layout) == int(t * CHASE_LEDS_PER_S) % layout.led_count


def flipped(frame: Frame, flip_x: bool, flip_y: bool) -> Frame:
    out = Frame(frame.width, frame.height)
    for y in range(frame.height):
        for x in range(frame.width):
            out.set(frame.width - 1 - x if flip_x else x, frame.height - 1 - y if flip_y else y,
                    frame.get(x, y))
    return out


def test_the_coordinates_picture_has_no_symmetry_a_wrong_layout_could_hide():
    frame = diag_frame(COORDINATES, 0.0, DEFAULT)
    for flip_x, flip_y in ((True, False), (False, True), (True, True)):
        assert flipped(frame, flip_x, flip_y) != frame
    (r, g, b), (r2, g2, b2) = frame.get(1, 7), frame.get(30, 7)
    assert r > 4 * g and r > 4 * b  # red on the left
    assert b2 > r2 > 4 * g2  # purple on the right
    assert sum(frame.get(12, 7)) > sum(frame.get(12, 15))  # bright at the top
    assert frame.get(1, 0) == (255, 255, 255) and frame.get(1, 1) == (0, 0, 0)  # the A at the top
    assert frame.get(0, 11) == frame.get(0, 15) == (255, 255, 255)  # the P's stem at the bottom
    assert [frame.get(x, 5) for x in (9, 19, 29)] == [(255, 255, 255)] * 3  # the tens marks


@pytest.mark.parametrize("options", [LayoutOptions(mirror_x=True), LayoutOptions(mirror_y=True),
                                     LayoutOptions(rotation=180)])
def test_the_coordinates_drive_the_leds_differently_under_a_mirrored_or_turned_layout(options):
    frame = diag_frame(COORDINATES, 0.0, DEFAULT)
    assert OutputStage(Layout(options)).process(frame) != OutputStage(DEFAULT).process(frame)


def test_the_input_check_lights_the_given_regions_and_names_the_latest():
    frame = diag_frame(INPUTS, 0.0, DEFAULT, ("up", "start"))
    assert lit_regions(frame) == {"up", "start"}
    name_row = [frame.get(x, y) for y in range(11, 16) for x in range(32)]
    assert set(name_row) == {(0, 0, 0), BUTTON_COLOURS["start"]}
    assert lit_regions(diag_frame(INPUTS, 0.0, DEFAULT)) == set()


def test_regions_are_apart_and_inside_the_canvas():
    cells = {}
    for layout in (DEFAULT, TALL):
        for button in BUTTONS:
            x, y, w, h = input_region(button, layout.width, layout.height)
            assert 0 <= x and x + w <= layout.width and 0 <= y and y + h <= layout.height
            for cell in ((xx, yy) for yy in range(y, y + h) for xx in range(x, x + w)):
                assert cells.setdefault((layout.width, layout.height, cell), button) == button


def test_unknown_stage_is_refused():
    with pytest.raises(ValueError, match="no wiring check stage is called 'colours'"):
        diag_frame("colours", 0.0, DEFAULT)


# --- the loop on a virtual clock ---------------------------------------------------------------


def run_script(config, text: str, seconds: float, hints: list[str]):
    """Tick the headless wiring check on the frame grid; the frame and stage at every tick."""
    app, _ = scripted_diag(config, parse_script(text), hint=hints.append)
    app.start(0.0)
    timeline = []
    for k in range(round(seconds / PERIOD)):
        now = k * PERIOD
        app.tick(now)
        timeline.append((now, app.stage, app.driver.last_frame, app.driver.last_leds))
        if not app.running:
            break
    return app, timeline


def at(timeline, t: float):
    return next(entry for entry in timeline if entry[0] >= t - 1e-9)


def test_scripted_presses_walk_the_stages_and_light_each_button_in_time(config):
    hints: list[str] = []
    app, timeline = run_script(config, "a\na\na\nup\nhold b 1\nright\n", 3.0, hints)
    assert [at(timeline, k * PERIOD)[1] for k in range(5)] == [CHASE, CHASE, COORDINATES, COORDINATES, INPUTS]
    up_at, b_at, right_at = 6 * PERIOD, 8 * PERIOD, 9 * PERIOD + 1
    assert lit_regions(at(timeline, 5 * PERIOD)[2]) == set()  # A's press that began the check is not shown
    assert lit_regions(at(timeline, up_at)[2]) == {"up"}
    assert lit_regions(at(timeline, b_at)[2]) == {"up", "b"}
    assert lit_regions(at(timeline, up_at + LIT_AFTER_PRESS_S - 0.02)[2]) == {"up", "b"}
    assert lit_regions(at(timeline, up_at + LIT_AFTER_PRESS_S + 0.02)[2]) == {"b"}  # b still held
    assert lit_regions(at(timeline, b_at + 0.95)[2]) == {"b"}
    assert lit_regions(at(timeline, right_at)[2]) == {"right"}
    assert lit_regions(at(timeline, right_at + LIT_AFTER_PRESS_S + 0.02)[2]) == set()
    presses = [h for h in hints if " pressed" in h]
    assert [h.split()[0] for h in presses] == ["up", "b", "right"]
    assert presses[0] == "up pressed; still to try: down, left, right, a, b, start"
    assert app.running  # the input check waits for Start


def test_every_frame_goes_through_the_output_stage(config):
    app, timeline = run_script(config, "a\na\na\nup\n", 0.5, [])
    stage = OutputStage(Layout(config.panel), config.display.brightness, config.display.gamma,
                        config.power)
    for _, _, frame, leds in timeline:
        assert leds == stage.process(frame)


def test_the_stages_move_on_by_themselves_except_the_input_check(config):
    hints: list[str] = []
    chase_s = stage_seconds(CHASE, 512)
    app, timeline = run_script(config, "", CORNERS_S + chase_s + COORDINATES_S + 2, hints)
    assert chase_s == 512 / CHASE_LEDS_PER_S
    assert at(timeline, CORNERS_S - 0.02)[1] == CORNERS and at(timeline, CORNERS_S + 0.02)[1] == CHASE
    end_of_chase = CORNERS_S + chase_s
    assert at(timeline, end_of_chase - 0.02)[1] == CHASE
    assert at(timeline, end_of_chase + 0.02)[1] == COORDINATES
    assert at(timeline, end_of_chase + COORDINATES_S + 0.02)[1] == INPUTS
    assert timeline[-1][1] == INPUTS and app.running
    assert [h.split()[0] for h in hints if h[0].isdigit()] == ["1/4", "2/4", "3/4", "4/4"]
    assert "LED 256, the first of panel 2, is at x=16 y=0" in hints
    assert stage_seconds(INPUTS, 512) is None and timeline[0][1] == CORNERS


def test_holding_start_two_seconds_finishes_but_a_shorter_hold_does_not(config):
    hints: list[str] = []
    app, timeline = run_script(config, f"a 3\nhold start {FINISH_HOLD_S - 0.5}\nwait 1\n", 4.0, hints)
    assert app.running
    app, timeline = run_script(config, f"a 3\nhold start {FINISH_HOLD_S}\n", 4.0, hints)
    assert not app.running and hints[-1] == "wiring check finished"
    assert timeline[-1][0] == pytest.approx(6 * PERIOD + FINISH_HOLD_S, abs=PERIOD)


@pytest.mark.parametrize("held_s, finished", [(FINISH_HOLD_S + 0.1, True), (FINISH_HOLD_S - 0.4, False)])
def test_a_terminal_finishes_the_check_by_holding_start_through_key_repeat(config, held_s, finished):
    """Terminals send no key release: each key repeat is a press with its release at once."""
    app, _ = scripted_diag(config, ())
    app.start(0.0)
    now = 0.0
    for _ in range(3):  # A through the first three stages
        app.events.put(InputEvent("a", "press", now))
        app.events.put(InputEvent("a", "release", now))
        app.tick(now)
        now += PERIOD
    start = now
    while now - start < held_s:  # the key-repeat delay, then 30 repeats a second
        app.events.put(InputEvent("start", "press", now))
        app.events.put(InputEvent("start", "release", now))
        app.tick(now)
        now += 0.5 if now == start else 1 / 30
    for _ in range(60):
        app.tick(now)
        now += PERIOD
    assert app.running != finished


def test_q_in_the_terminal_ends_the_check_at_any_stage(config):
    app, _ = scripted_diag(config, ())
    app.start(0.0)
    app.events.put(InputEvent(QUIT, "press", 0.0))
    app.tick(0.0)
    assert not app.running


def test_close_clears_the_panel_and_closes_the_driver(config):
    app, _ = scripted_diag(config, ())
    app.start(0.0)
    app.tick(0.0)
    assert any(app.driver.last_leds)
    app.close()
    assert not any(app.driver.last_leds) and app.driver.closed


# --- GPIO buttons --------------------------------------------------------------------------------


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.reset()


def test_a_gpio_press_lights_its_region_and_the_hint_names_its_pin(config, factory):
    clock, hints = FakeClock(), []
    pins = dataclasses.asdict(config.input.pins)
    app = build_diag(config, "sim-headless",
                     lambda events: [gpio_input(config, events, pin_factory=factory, clock=clock)],
                     hint=hints.append, pins=pins)

    def run_for(seconds: float) -> None:
        end = clock.now + seconds
        while clock.now < end:
            app.tick(clock.now)
            clock.now = round(clock.now + PERIOD, 6)

    app.start(0.0)
    for _ in range(3):
        factory.pin(pins["a"]).drive_low()
        run_for(0.1)
        factory.pin(pins["a"]).drive_high()
        run_for(0.1)
    assert app.stage == INPUTS
    factory.pin(pins["left"]).drive_low()
    run_for(PERIOD)
    assert lit_regions(app.driver.last_frame) == {"left"}
    assert hints[-1] == "left pressed (GPIO 22); still to try: up, down, right, a, b, start"
    run_for(1.0)
    assert lit_regions(app.driver.last_frame) == {"left"}  # held
    factory.pin(pins["left"]).drive_high()
    run_for(PERIOD)
    assert lit_regions(app.driver.last_frame) == set()
    for source in app.sources:
        source.close()
    app.close()


# --- the command -------------------------------------------------------------------------------


def test_diag_headless_runs_a_script_and_writes_the_last_frame(tmp_path, capsys):
    config_file = tmp_path / "console.yaml"
    config_file.write_text("# the defaults\n")
    script = tmp_path / "inputs.txt"
    script.write_text("a 3\nup\nhold start 2.5\n")
    png = tmp_path / "out.png"
    assert diag_main(str(config_file), simulator=False, script=str(script), png=str(png)) == 0
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("1/4 corners") and out[-1] == "wiring check finished"
    assert "start pressed; still to try: down, left, right, a, b" in out


def test_diag_refuses_a_bad_script_line_and_a_png_without_a_script(tmp_path):
    config_file = tmp_path / "console.yaml"
    config_file.write_text("# the defaults\n")
    script = tmp_path / "inputs.txt"
    script.write_text("a\njump\n")
    with pytest.raises(UsageError, match=r"inputs.txt:2: unknown input 'jump'"):
        diag_main(str(config_file), simulator=False, script=str(script), png=None)
    with pytest.raises(UsageError, match="--png goes with"):
        diag_main(str(config_file), simulator=True, script=None, png=str(tmp_path / "x.png"))
    with pytest.raises(UsageError, match="needs `hues-console diag --headless"):
        config_file.write_text("driver:\n  name: sim-headless\n")
        diag_main(str(config_file), simulator=False, script=None, png=None)

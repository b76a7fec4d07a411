"""The colours a screen shows for the LEDs (`OutputStage.seen`): each colour's light after the
output stage, restored to full brightness and un-gammaed, like WLED's live view."""

from __future__ import annotations

from hal.drivers import light_response_of
from hal.frame import Frame
from hal.layout import Layout, LayoutOptions
from hal.output import OutputStage, PowerBudget
from console.view.render import board_frame

LAYOUT = Layout(LayoutOptions())  # two 16 x 16 panels side by side
BIG_SUPPLY = PowerBudget(supply_amps=100)


def test_at_full_brightness_the_screen_shows_the_frame_but_where_the_leds_merge_shades():
    stage = OutputStage(LAYOUT, brightness=1.0, power=BIG_SUPPLY)
    for v in range(256):
        shown = stage.seen(Frame(32, 16, bytearray(bytes([v]) * 1536)))
        assert set(shown) == {shown[0]}
        if v >= 64:
            assert abs(shown[0] - v) <= 1
        light = stage.light_table(255)
        assert light[shown[0]] == light[v]  # shown on the LEDs, it gives the same light


def test_the_limiter_dims_the_leds_not_the_screen():
    stage = OutputStage(LAYOUT, brightness=1.0)  # a 4 A supply cannot light 512 white LEDs
    white = Frame(32, 16)
    white.fill((255, 255, 255))
    before = stage.last_brightness
    assert set(stage.seen(white)) == {255}
    assert stage.last_brightness == before  # seen() changes nothing in the stage
    stage.process(white)
    assert stage.last_brightness < 0.5


def test_the_board_on_the_default_supply_keeps_480_colours_and_their_leds_light():
    for driver in ("ws281x", "leds-dev"):
        stage = OutputStage(LAYOUT, response=light_response_of(driver))
        board = board_frame()
        shown = stage.seen(board)
        stage.process(board)
        level = round(stage.last_brightness * 255)
        assert level < 255  # the limiter is at work on the whole board
        light = stage.light_table(level)
        cells = {shown[3 * (r * 32 + c):3 * (r * 32 + c) + 3] for r in range(16) for c in range(30)}
        assert len(cells) == 480, driver
        assert bytes(shown).translate(light) == bytes(board.pixels).translate(light), driver


def test_a_frame_of_another_size_is_refused():
    stage = OutputStage(LAYOUT)
    try:
        stage.seen(Frame(16, 16))
    except ValueError as exc:
        assert "does not fit the 32x16 LED layout" in str(exc)
    else:
        raise AssertionError("a 16x16 frame was accepted")

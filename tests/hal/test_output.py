import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hal.frame import Frame
from hal.layout import Layout, LayoutOptions
from hal.drivers.leds_dev import KERNEL_GAMMA
from hal.light import LINEAR
from hal.output import BRIGHTNESS_STEPS, PROCESSED_KEPT, RISE_AFTER, OutputSettingsError, OutputStage, PowerBudget, byte_sum

LAYOUT = Layout(LayoutOptions())
PLENTY = PowerBudget(supply_amps=100.0)


def frame_of(pixels: bytes) -> Frame:
    return Frame(LAYOUT.width, LAYOUT.height, bytearray(pixels))


def lit_frame(rgb, where=((0, 0),)) -> Frame:
    frame = Frame(LAYOUT.width, LAYOUT.height)
    for x, y in where:
        frame.set(x, y, rgb)
    return frame


def test_power_budget_is_the_supply_less_the_pi():
    assert PowerBudget().budget_ma == 3300
    assert PowerBudget(supply_amps=10, pi_ma=1000).budget_ma == 9000


def test_estimate_follows_wleds_model():
    power = PowerBudget()
    assert power.estimate_ma(bytes(512 * 3)) == 512  # idle current only
    assert power.estimate_ma(b"\xff" * (512 * 3)) == 512 * 55 + 512
    assert power.estimate_ma(b"\xff\x00\x00") == pytest.approx(55 / 3 + 1)


@pytest.mark.parametrize(
    "value, brightness, gamma, drive",
    [
        (255, 1.0, 2.2, 255),
        (0, 1.0, 2.2, 0),
        (128, 1.0, 2.2, round(255 * (128 / 255) ** 2.2)),  # 56
        (128, 0.5, 2.2, round(255 * (128 / 255) * (128 / 255) ** 2.2)),
        (255, 0.2, 2.2, 51),
        (128, 1.0, 1.0, 128),
        (128, 0.2, 1.0, 26),  # 51 * 128 / 255 = 25.6
    ],
)
def test_brightness_and_gamma(value, brightness, gamma, drive):
    stage = OutputStage(LAYOUT, brightness=brightness, gamma=gamma, power=PLENTY)
    leds = stage.process(lit_frame((value, value, value)))
    assert leds[0:3] == bytes([drive] * 3)
    assert leds[3:] == bytes(len(leds) - 3)


def test_known_gamma_value():
    stage = OutputStage(LAYOUT, power=PLENTY)
    assert stage.process(lit_frame((128, 64, 0)))[0:3] == bytes([56, 12, 0])


def test_drive_values_are_in_chain_order():
    rng = random.Random(7)
    frame = frame_of(bytes(rng.randrange(256) for _ in range(LAYOUT.led_count * 3)))
    stage = OutputStage(LAYOUT, power=PLENTY, gamma=1.0)
    leds = stage.process(frame)
    for x, y in [(0, 0), (0, 1), (15, 1), (16, 0), (31, 15), (20, 7)]:
        chain = LAYOUT.chain_index[y * LAYOUT.width + x]
        assert tuple(leds[3 * chain : 3 * chain + 3]) == frame.get(x, y), (x, y)


def test_one_lit_pixel_lands_where_the_wiring_says():
    stage = OutputStage(LAYOUT, power=PLENTY, gamma=1.0)
    leds = stage.process(lit_frame((1, 2, 3), where=[(0, 1)]))
    assert leds.index(b"\x01\x02\x03") == 31 * 3  # row 1 runs back: (0, 1) is LED 31


def test_a_dim_frame_is_left_untouched():
    stage = OutputStage(LAYOUT, brightness=0.8)
    frame = lit_frame((255, 255, 255), where=[(x, 0) for x in range(32)])
    leds = stage.process(frame)
    assert stage.last_brightness == stage.brightness == round(0.8 * 255) / 255
    assert leds.count(round(255 * stage.brightness)) == 96


def test_a_full_white_frame_is_dimmed_to_the_budget():
    stage = OutputStage(LAYOUT)
    leds = stage.process(frame_of(b"\xff" * (LAYOUT.led_count * 3)))
    power = stage.power
    assert power.estimate_ma(leds) <= power.budget_ma
    assert stage.last_brightness < 0.12
    level = round(stage.last_brightness * BRIGHTNESS_STEPS)
    brighter = bytes([stage.table(level + 1)[255]]) * len(leds)
    assert power.estimate_ma(brighter) > power.budget_ma


frames = st.one_of(
    st.binary(min_size=LAYOUT.led_count * 3, max_size=LAYOUT.led_count * 3),
    st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255)).map(
        lambda rgb: bytes(rgb) * LAYOUT.led_count
    ),
    # noise from a seeded standard generator: one hypothesis choice, not one per byte as with
    # st.randoms (which made this the suite's slowest property); st.binary above shrinks
    st.integers(0, 2**64).map(lambda seed: random.Random(seed).randbytes(LAYOUT.led_count * 3)),
)


@settings(max_examples=150, deadline=None)
@given(
    pixels=frames,
    supply_amps=st.floats(1.25, 40.0),
    led_ma=st.floats(10.0, 80.0),
    brightness=st.floats(0.0, 1.0),
    gamma=st.floats(1.0, 3.0),
    response=st.sampled_from([LINEAR, KERNEL_GAMMA]),
)
def test_the_limiter_never_exceeds_the_budget(pixels, supply_amps, led_ma, brightness, gamma, response):
    """Counted in the light the LEDs get, after the Pi 5 kernel's table where there is one."""
    power = PowerBudget(supply_amps=supply_amps, led_ma=led_ma)
    stage = OutputStage(LAYOUT, brightness, gamma, power, response)
    leds = stage.process(frame_of(pixels))
    assert power.estimate_ma(stage.light(leds)) <= power.budget_ma

    ceiling = round(brightness * BRIGHTNESS_STEPS)
    at_ceiling = pixels.translate(stage.table(ceiling))
    level = round(stage.last_brightness * BRIGHTNESS_STEPS)
    if power.estimate_ma(response.light(at_ceiling)) <= power.budget_ma:
        assert level == ceiling
        assert leds == bytes(at_ceiling[3 * i + k] for i in LAYOUT.logical_index for k in range(3))
    else:
        # Dimmed, but no more than needed: one step brighter would overdraw.
        assert level < ceiling
        assert power.estimate_ma(pixels.translate(stage.light_table(level + 1))) > power.budget_ma


@given(st.binary(max_size=5000))
def test_the_byte_sum_is_sum(data):
    assert byte_sum(data) == sum(data) == byte_sum(bytearray(data))


def best_level(stage: OutputStage, frame: Frame) -> int:
    """The level a stage that has seen no frame before gives `frame`: just below overdrawing."""
    fresh = OutputStage(LAYOUT, stage.brightness, stage.gamma, stage.power, stage.response)
    fresh.process(frame)
    return round(fresh.last_brightness * BRIGHTNESS_STEPS)


@settings(max_examples=60, deadline=None)
@given(st.lists(frames, min_size=2, max_size=5), st.floats(1.25, 10.0), st.floats(0.2, 1.0))
def test_a_run_of_frames_never_overdraws_and_is_never_much_dimmer_than_it_must_be(pixels, supply_amps, brightness):
    stage = OutputStage(LAYOUT, brightness, power=PowerBudget(supply_amps=supply_amps))
    for frame in map(frame_of, pixels):
        leds = stage.process(frame)
        assert stage.power.estimate_ma(stage.light(leds)) <= stage.power.budget_ma
        level = round(stage.last_brightness * BRIGHTNESS_STEPS)
        assert level <= best_level(stage, frame) < max(level * RISE_AFTER + 1, level + 1)


def test_a_blink_on_a_dimmed_board_changes_only_the_blinking_leds():
    """Pawns going dark let the rest of the board brighter; held, the level changes no other LED
    (the room sees no pumping, the driver sets 17 LEDs, not 500)."""
    from console.view.render import board_frame

    lit = board_frame()
    dark = board_frame()
    pawns = [(3 + 2 * i, 4 + i % 5) for i in range(17)]
    for x, y in pawns:
        lit.set(x, y, (255, 40, 40))
        dark.set(x, y, (0, 0, 0))
    stage = OutputStage(LAYOUT)
    shown = [stage.process(frame) for frame in (lit, dark, lit, dark)]
    assert stage.last_brightness < 0.5  # the board is dimmed to the supply
    assert best_level(stage, dark) > round(stage.last_brightness * BRIGHTNESS_STEPS)  # and could be brighter
    changed = {i // 3 for i in range(len(shown[0])) if shown[0][i] != shown[1][i]}
    assert changed == {LAYOUT.chain_index[y * LAYOUT.width + x] for x, y in pawns}
    assert shown[0] == shown[2] and shown[1] == shown[3]
    brighter = OutputStage(LAYOUT)
    brighter.process(dark)  # the darker frame first: the lit one must dim at once
    assert brighter.process(lit) == shown[0]


def test_a_still_screen_going_round_its_pictures_gets_the_same_bytes_each_time():
    frames = [lit_frame((255, 255, 255), where=[(x, y) for x in range(32) for y in range(n, 16)]) for n in range(0, 40, 2)]
    stage = OutputStage(LAYOUT)
    first = [stage.process(frame) for frame in frames]
    for _ in range(3):
        assert [stage.process(frame) for frame in frames] == first
    assert len(stage._processed) <= PROCESSED_KEPT
    assert stage.process(frames[7], brightness=0.5) != first[7]  # the ceiling is part of what is kept (a frame the limiter lets through)


def test_the_hosts_brightness_is_the_frames_ceiling():
    stage = OutputStage(LAYOUT, power=PLENTY, gamma=1.0)
    frame = lit_frame((200, 200, 200))
    assert stage.process(frame)[0] == 200
    assert stage.process(frame, brightness=0.5)[0] == round(128 * 200 / 255)
    assert stage.last_brightness == 128 / 255
    with pytest.raises(OutputSettingsError, match="brightness"):
        stage.process(frame, brightness=1.5)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(brightness=-0.1), "brightness"),
        (dict(brightness="high"), "brightness"),
        (dict(gamma=0), "gamma"),
        (dict(power=PowerBudget(supply_amps=1.0)), "512 LEDs idle at 512 mA, more than the 300 mA"),
    ],
)
def test_unusable_settings_are_refused(kwargs, words):
    with pytest.raises(OutputSettingsError, match=words):
        OutputStage(LAYOUT, **kwargs)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(supply_amps=0.5), "leaves nothing for the LEDs"),
        (dict(led_ma=0), "led_ma"),
        (dict(idle_ma=-1), "idle_ma"),
        (dict(supply_amps=float("nan")), "supply_amps"),
    ],
)
def test_unusable_power_budgets_are_refused(kwargs, words):
    with pytest.raises(OutputSettingsError, match=words):
        PowerBudget(**kwargs)


def test_a_frame_of_the_wrong_size_is_refused():
    with pytest.raises(ValueError, match="16x16 frame does not fit the 32x16"):
        OutputStage(LAYOUT).process(Frame(16, 16))


def test_a_private_frames_level_never_carries_into_a_public_one():
    """The joystick giver's secret screen is dimmed like any frame, but the frames after it (and
    /panel's stand-in for it, counted by `seen`) hold the last public frame's level: else how
    bright the secret was showed in the board the room sees next (a finger on a brighter cell
    left it a step dimmer)."""
    def white(count: int) -> Frame:  # the first `count` LEDs white
        return lit_frame((255, 255, 255), where=[(i % 32, i // 32) for i in range(count)])

    public, after, stand_in = white(96), white(256), white(256)  # the hand-off, the board, /panel's
    for x in range(32):
        stand_in.set(x, 15, (180, 90, 30))  # a shade whose look depends on the level
    alone = OutputStage(LAYOUT)
    alone.process(public)
    seen_alone = alone.seen(stand_in)
    shown_alone = alone.process(after)
    carried, carried_seen = set(), set()
    for count in range(256, 290, 4):  # secrets a little brighter than the board after them
        for private in (True, False):
            stage = OutputStage(LAYOUT)
            stage.process(public)
            stage.process(white(count), private=private)
            if private:
                assert stage.seen(stand_in) == seen_alone
                assert stage.process(after) == shown_alone
            else:
                carried_seen.add(stage.seen(stand_in))
                carried.add(stage.process(after))
    assert len(carried) > 1 and len(carried_seen) > 1  # a public frame in its place does carry


def test_the_limiter_counts_every_led_of_a_scaled_pixel():
    """At scale 2 a pixel lights four LEDs: the current is four times the 32x16 panel's, so a
    frame that fits the supply on the plain panel is dimmed on the 64x32 matrix."""
    plain = OutputStage(Layout(LayoutOptions()), power=PowerBudget(supply_amps=10, pi_ma=120))
    scaled = OutputStage(Layout(LayoutOptions(panel_width=32, panel_height=32, panels_across=2, scale=2)),
                         power=PowerBudget(supply_amps=10, pi_ma=120))
    grey = Frame(32, 16, bytearray(b"\x80" * 1536))  # 6.6 A on 512 LEDs, 26.5 A on 2048
    plain_leds, scaled_leds = plain.process(grey), scaled.process(grey)
    assert plain.last_brightness == 1.0 and scaled.last_brightness < 0.5
    assert scaled.power.estimate_ma(scaled_leds) <= scaled.power.budget_ma < 4 * plain.power.estimate_ma(plain_leds)

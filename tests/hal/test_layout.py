import itertools
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hal.layout import ROTATIONS, START_CORNERS, Layout, LayoutError, LayoutOptions

ANY_SIZE = (1, 1)

DISCRETE_OPTIONS = [
    dict(start_corner=corner, vertical=vertical, serpentine=serpentine,
         panel_serpentine=panel_serpentine, rotation=rotation, mirror_x=mirror_x, mirror_y=mirror_y)
    for corner, vertical, serpentine, panel_serpentine, rotation, mirror_x, mirror_y in itertools.product(
        START_CORNERS, (False, True), (False, True), (False, True), ROTATIONS, (False, True), (False, True)
    )
]


def chain_at(layout: Layout, x: int, y: int) -> int:
    return layout.chain_index[y * layout.width + x]


def assert_bijection(layout: Layout) -> None:
    assert len(layout.chain_index) == layout.led_count == layout.width * layout.height
    assert sorted(layout.chain_index) == list(range(layout.led_count))
    for logical, chain in enumerate(layout.chain_index):
        assert layout.logical_index[chain] == logical
    pixels = bytes(range(256)) * (3 * layout.led_count // 256) + bytes(range(3 * layout.led_count % 256))
    assert layout.to_chain(pixels) == bytes(pixels[3 * i + k] for i in layout.logical_index for k in range(3))


@pytest.mark.parametrize("discrete", DISCRETE_OPTIONS, ids=lambda d: "-".join(map(str, d.values())))
def test_every_option_combination_is_a_bijection(discrete):
    for shape in [dict(), dict(panel_width=3, panel_height=5, panels_across=2, panels_down=3)]:
        assert_bijection(Layout(LayoutOptions(**shape, **discrete), minimum=ANY_SIZE))


@given(
    panel_width=st.integers(1, 9),
    panel_height=st.integers(1, 9),
    panels_across=st.integers(1, 4),
    panels_down=st.integers(1, 4),
    discrete=st.sampled_from(DISCRETE_OPTIONS),
)
def test_any_panel_shape_is_a_bijection(panel_width, panel_height, panels_across, panels_down, discrete):
    options = LayoutOptions(panel_width=panel_width, panel_height=panel_height,
                            panels_across=panels_across, panels_down=panels_down, **discrete)
    layout = Layout(options, minimum=ANY_SIZE)
    assert_bijection(layout)
    across, down = panel_width * panels_across, panel_height * panels_down
    expected = (down, across) if options.rotation in (90, 270) else (across, down)
    assert (layout.width, layout.height) == expected


# One 16x16 panel, data in at the top left, rows, serpentine. Chain positions by (x, y):
#
#        x=0    1    2  ...  13   14   15
#   y=0    0    1    2  ...  13   14   15  ->
#   y=1   31   30   29  ...  18   17   16  <-
#   y=2   32   33   34  ...  45   46   47  ->
#   ...
#   y=15 255  254  253  ... 242  241  240  <-
SINGLE_PANEL = {
    (0, 0): 0, (1, 0): 1, (15, 0): 15,
    (15, 1): 16, (14, 1): 17, (0, 1): 31,
    (0, 2): 32, (15, 2): 47,
    (7, 8): 135,
    (15, 15): 240, (0, 15): 255,
}


def test_single_serpentine_panel_follows_its_wiring_diagram():
    layout = Layout(LayoutOptions(panels_across=1), minimum=(16, 16))
    assert (layout.width, layout.height) == (16, 16)
    for (x, y), chain in SINGLE_PANEL.items():
        assert chain_at(layout, x, y) == chain, (x, y)
    assert [chain_at(layout, x, 1) for x in range(16)] == list(range(31, 15, -1))


# Two 16x16 panels side by side, the data cable going from the left panel into the right one:
#
#        x=0 ...  15 | 16  ...  31
#   y=0    0 ...  15 | 256 ... 271  ->
#   y=1   31 ...  16 | 287 ... 272  <-
#   ...
#   y=15 255 ... 240 | 511 ... 496  <-
TWO_PANELS = {
    (0, 0): 0, (15, 0): 15, (15, 1): 16, (0, 1): 31, (0, 15): 255, (15, 15): 240,
    (16, 0): 256, (31, 0): 271, (31, 1): 272, (16, 1): 287, (31, 15): 496, (16, 15): 511,
}


def test_two_panels_side_by_side_follow_their_wiring_diagram():
    layout = Layout(LayoutOptions())
    assert (layout.width, layout.height, layout.led_count) == (32, 16, 512)
    for (x, y), chain in TWO_PANELS.items():
        assert chain_at(layout, x, y) == chain, (x, y)
    assert sorted(chain_at(layout, x, y) for x in range(16) for y in range(16)) == list(range(256))


@pytest.mark.parametrize(
    "options, expected",
    [
        # Columns from the top left, serpentine: down column 0, up column 1.
        (dict(vertical=True), {(0, 0): 0, (0, 15): 15, (1, 15): 16, (1, 0): 31}),
        # Data enters at the bottom right and runs right to left, then back along row 14.
        (dict(start_corner="bottom-right"), {(15, 15): 0, (0, 15): 15, (0, 14): 16, (15, 14): 31}),
        # Not serpentine: every row starts on the left.
        (dict(serpentine=False), {(0, 0): 0, (15, 0): 15, (0, 1): 16, (15, 15): 255}),
    ],
)
def test_single_panel_variants(options, expected):
    layout = Layout(LayoutOptions(panels_across=1, **options), minimum=(16, 16))
    for (x, y), chain in expected.items():
        assert chain_at(layout, x, y) == chain, (x, y)


def test_rotation_and_mirroring_of_two_panels():
    rotated = Layout(LayoutOptions(rotation=180))
    assert chain_at(rotated, 0, 0) == 496 and chain_at(rotated, 31, 15) == 0
    mirrored = Layout(LayoutOptions(mirror_x=True))
    assert chain_at(mirrored, 0, 0) == 271 and chain_at(mirrored, 31, 0) == 0
    flipped = Layout(LayoutOptions(mirror_y=True))
    assert chain_at(flipped, 0, 15) == 0 and chain_at(flipped, 0, 0) == 255


def test_quarter_turn_swaps_width_and_height():
    # Two panels stacked (16 wide, 32 high) turned a quarter: the logical top left is the
    # physical top right of the upper panel.
    layout = Layout(LayoutOptions(panels_across=1, panels_down=2, rotation=90))
    assert (layout.width, layout.height) == (32, 16)
    assert chain_at(layout, 0, 0) == 15
    assert chain_at(layout, 0, 15) == 0
    assert chain_at(layout, 31, 0) == 496
    turned_back = Layout(LayoutOptions(panels_across=1, panels_down=2, rotation=270))
    assert chain_at(turned_back, 31, 15) == 15


def test_serpentine_panel_chain_runs_back_along_the_second_row_of_panels():
    layout = Layout(LayoutOptions(panels_down=2, panel_serpentine=True))
    assert chain_at(layout, 16, 16) == 512  # right panel of the lower row comes third
    assert chain_at(layout, 0, 16) == 768
    straight = Layout(LayoutOptions(panels_down=2))
    assert chain_at(straight, 0, 16) == 512


@pytest.mark.parametrize(
    "options, words",
    [
        (dict(panels_across=1), "16x16"),
        (dict(rotation=90), "16x32"),
        (dict(panel_height=8), "32x8"),
    ],
)
def test_a_canvas_smaller_than_the_board_is_refused(options, words):
    with pytest.raises(LayoutError, match=f"{words}.*at least 32x16"):
        Layout(LayoutOptions(**options))


@pytest.mark.parametrize(
    "options, name",
    [
        (dict(panel_width=0), "panel_width"),
        (dict(panel_height="16"), "panel_height"),
        (dict(panels_across=True), "panels_across"),
        (dict(panels_down=-1), "panels_down"),
        (dict(start_corner="middle"), "start_corner"),
        (dict(rotation=45), "rotation"),
        (dict(rotation=True), "rotation"),
        (dict(serpentine="yes"), "serpentine"),
        (dict(mirror_x=1), "mirror_x"),
    ],
)
def test_bad_option_values_name_the_option(options, name):
    with pytest.raises(LayoutError, match=name):
        LayoutOptions(**options)


@pytest.mark.parametrize("scale", [2, 3, 4])
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_a_scaled_layout_shows_each_pixel_as_a_block_of_its_own_colour(scale, rotation):
    """At scale k every logical pixel is a k x k block of LEDs on the turned canvas, each LED of
    the block with the pixel's bytes: the picture k times larger, nothing in between guessed."""
    options = LayoutOptions(panel_width=16 * scale, panel_height=16 * scale, panels_across=2, rotation=rotation,
                            scale=scale)
    layout = Layout(options, minimum=(16, 16))
    assert layout.led_count == layout.width * layout.height * scale * scale and layout.leds_per_pixel == scale ** 2
    pixels = bytes(n % 256 for n in range(3 * layout.width * layout.height))
    chain = layout.to_chain(pixels)
    plain = Layout(replace(options, scale=1), minimum=(16, 16))  # the same LEDs, one a pixel
    for n in range(layout.led_count):
        canvas = plain.logical_index[n]
        y, x = divmod(canvas, plain.width)
        logical = (y // scale) * layout.width + x // scale
        assert layout.logical_index[n] == logical
        assert chain[3 * n:3 * n + 3] == pixels[3 * logical:3 * logical + 3]
    for pixel, n in enumerate(layout.chain_index):
        assert layout.logical_index[n] == pixel


def test_a_scale_that_does_not_divide_the_panels_is_refused():
    with pytest.raises(LayoutError, match="a 48x16 picture, which a scale of 3 does not divide"):
        LayoutOptions(panel_width=24, panels_across=2, scale=3)
    with pytest.raises(LayoutError, match=r"a 16x8 picture \(after rotation 0 at scale 2\)"):
        Layout(LayoutOptions(scale=2))

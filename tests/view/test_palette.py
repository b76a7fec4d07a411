import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from console.config.loader import load_config
from console.view.palette import (
    COLUMNS,
    PAWN_COLORS,
    ROWS,
    BoardDesign,
    PaletteError,
    board_colors,
    cell_color,
    led_separation,
    linear_srgb_to_oklab,
    max_chroma,
    min_oklab_distance,
    oklab_to_linear_srgb,
    oklab_to_srgb,
    oklch_to_oklab,
    oklch_to_srgb,
    srgb_to_oklab,
)
from console.game.rules import DEFAULT_COLOR_NAMES
from console.commands.session import board_led_values
from console.commands.wiring import build_output

byte = st.integers(0, 255)
rgb = st.tuples(byte, byte, byte)
lab = st.tuples(st.floats(0, 1), st.floats(-0.4, 0.4), st.floats(-0.4, 0.4))

# The LED defaults of docs/ARCHITECTURE.md: gamma 2.2, ceiling 1.0, WLED's current model.
GAMMA = 2.2
CHANNEL_MA = 55 / 3
LEDS = 32 * 16
BUDGET_MA = 4000 - 700
REQUIRED_SEPARATION = 0.01


def lch_of(colour):
    lightness, a, b = srgb_to_oklab(colour)
    return lightness, math.hypot(a, b), math.degrees(math.atan2(b, a)) % 360


def hue_gap(first, second):
    return abs((first - second + 180) % 360 - 180)


# -- OKLab -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "colour, expected",
    [
        ((255, 255, 255), (1.0, 0.0, 0.0)),
        ((0, 0, 0), (0.0, 0.0, 0.0)),
        ((255, 0, 0), (0.62796, 0.22486, 0.12585)),  # Ottosson's and CSS Color 4's red
        ((0, 0, 255), (0.45201, -0.03246, -0.31153)),
    ],
)
def test_oklab_reference_values(colour, expected):
    assert srgb_to_oklab(colour) == pytest.approx(expected, abs=2e-4)


@given(rgb)
def test_srgb_survives_a_round_trip_through_oklab(colour):
    assert oklab_to_srgb(srgb_to_oklab(colour)) == colour


@given(st.floats(0.01, 0.99), st.floats(0, 360, exclude_max=True))
def test_max_chroma_is_the_gamut_edge(lightness, hue):
    edge = max_chroma(lightness, hue)
    inside = oklab_to_linear_srgb(*oklch_to_oklab(lightness, edge, hue))
    assert all(-1e-6 <= v <= 1 + 1e-6 for v in inside)
    beyond = oklab_to_linear_srgb(*oklch_to_oklab(lightness, edge + 0.005, hue))
    assert any(v < 0 or v > 1 for v in beyond)


@given(st.floats(0.2, 0.95), st.floats(0, 0.4), st.floats(0, 360, exclude_max=True))
def test_gamut_mapping_keeps_lightness_and_hue(lightness, chroma, hue):
    mapped_lightness, mapped_chroma, mapped_hue = lch_of(oklch_to_srgb(lightness, chroma, hue))
    assert mapped_lightness == pytest.approx(lightness, abs=0.005)
    assert mapped_chroma <= chroma + 0.005
    if mapped_chroma > 0.05:
        assert hue_gap(mapped_hue, hue) < 3


@given(st.lists(lab, min_size=2, max_size=30))
def test_min_distance_matches_brute_force(colours):
    brute = min(math.dist(p, q) for p, q in itertools.combinations(colours, 2))
    assert min_oklab_distance(colours) == pytest.approx(brute)


def test_min_distance_needs_two_colours():
    with pytest.raises(PaletteError):
        min_oklab_distance([(0.5, 0.0, 0.0)])


# -- the board -------------------------------------------------------------------------------


def test_board_has_480_byte_colours_and_is_cached():
    colours = board_colors()
    assert len(colours) == ROWS * COLUMNS == 480
    assert all(len(c) == 3 and all(isinstance(v, int) and 0 <= v <= 255 for v in c) for c in colours)
    assert board_colors() is colours
    assert len(set(colours)) == 480


def test_cell_color_indexes_row_by_row():
    colours = board_colors()
    assert cell_color(0, 0) == colours[0]
    assert cell_color(1, 0) == colours[30]
    assert cell_color(15, 29) == colours[479]


@pytest.mark.parametrize("row, col", [(-1, 0), (16, 0), (0, -1), (0, 30)])
def test_cells_off_the_board_are_refused(row, col):
    with pytest.raises(PaletteError, match="off the 16x30 board"):
        cell_color(row, col)


def test_each_column_is_one_hue_getting_darker_down_the_rows():
    design = BoardDesign()
    for col in range(COLUMNS):
        column = [lch_of(cell_color(row, col)) for row in range(ROWS)]
        lightness = [lch[0] for lch in column]
        assert all(upper - lower > 0.015 for upper, lower in zip(lightness, lightness[1:])), col
        assert all(hue_gap(lch[2], design.hue(col)) < 2 for lch in column), col


def test_middle_rows_are_the_most_vivid():
    chroma = [sum(lch_of(cell_color(row, col))[1] for col in range(COLUMNS)) for row in range(ROWS)]
    assert max(chroma[5:11]) > max(chroma[0], chroma[15]) * 1.2


# A clue should point into a region of the board: the nearest cell lies where a player would look.
CLUES = {
    "sky": ((135, 206, 235), range(0, 4), range(16, 22)),
    "mint": ((152, 255, 152), range(0, 4), range(8, 13)),
    "salmon": ((250, 128, 114), range(0, 6), range(0, 3)),
    "lavender": ((181, 126, 220), range(0, 8), range(21, 26)),
    "mustard": ((225, 173, 1), range(3, 9), range(4, 8)),
    "olive": ((128, 128, 0), range(8, 16), range(6, 10)),
    "teal": ((0, 128, 128), range(10, 16), range(12, 17)),
    "brick": ((178, 34, 34), range(9, 16), range(0, 4)),
}


@pytest.mark.parametrize("name", CLUES)
def test_clues_point_into_their_region(name):
    colour, rows, cols = CLUES[name]
    clue = srgb_to_oklab(colour)
    distance, index = min((math.dist(clue, srgb_to_oklab(c)), i) for i, c in enumerate(board_colors()))
    row, col = divmod(index, COLUMNS)
    assert distance < 0.06
    assert row in rows and col in cols, (row, col)


# -- surviving the LEDs ----------------------------------------------------------------------


def limited_board_drives(colours):
    """Brightness and drive values the default LED stage gives the full board, by the formula."""
    linear = [[(v / 255) ** GAMMA for v in colour] for colour in colours]
    full_ma = sum(map(sum, linear)) * CHANNEL_MA  # at brightness 1.0, the 32 status LEDs dark
    brightness = min(1.0, (BUDGET_MA - LEDS * 1) / full_ma)
    drives = [tuple(round(255 * brightness * x) for x in channels) for channels in linear]
    return brightness, drives


def test_board_survives_the_current_limiter_and_8_bit_drive():
    brightness, drives = limited_board_drives(board_colors())
    assert 0.25 < brightness < 0.4  # the limiter really dims the board to about a third
    assert len(set(drives)) == 480
    assert led_separation(drives, brightness) >= REQUIRED_SEPARATION


def test_board_survives_the_default_configuration_on_the_leds(tmp_path):
    """What `hues-console palette` reports: the packaged configuration's output stage, the
    board as the renderer draws it, the brightness the power limit allows for it."""
    config = load_config(None, environ={}, etc_path=str(tmp_path / "none.yaml"))
    stage, _ = build_output(config, "sim-headless")
    drives, brightness = board_led_values(stage)
    assert 0.25 < brightness < 0.4
    assert len(set(drives)) == 480
    assert led_separation(drives, brightness) >= REQUIRED_SEPARATION


def test_led_separation_judges_at_full_brightness():
    dimmed = led_separation([(100, 0, 0), (0, 100, 0)], 0.5)
    assert dimmed == pytest.approx(led_separation([(200, 0, 0), (0, 200, 0)], 1.0))
    expected = math.dist(linear_srgb_to_oklab(200 / 255, 0, 0), linear_srgb_to_oklab(0, 200 / 255, 0))
    assert dimmed == pytest.approx(expected)
    assert led_separation([(9, 9, 9), (9, 9, 9), (200, 0, 0)], 0.3) == 0


@pytest.mark.parametrize("brightness", [0, -0.1, 1.5])
def test_led_separation_refuses_impossible_brightness(brightness):
    with pytest.raises(PaletteError, match="brightness"):
        led_separation([(1, 2, 3), (4, 5, 6)], brightness)


# -- pawns -----------------------------------------------------------------------------------


def test_pawn_colours_in_seat_order():
    assert tuple(PAWN_COLORS) == DEFAULT_COLOR_NAMES  # the names the rules engine accepts
    assert PAWN_COLORS["black"] == (0, 0, 0)
    assert PAWN_COLORS["white"] == (255, 255, 255)


def test_pawn_colours_drive_a_channel_fully():
    assert all(255 in colour for name, colour in PAWN_COLORS.items() if name != "black")


def test_pawn_colours_are_far_apart():
    assert min_oklab_distance(srgb_to_oklab(colour) for colour in PAWN_COLORS.values()) > 0.15


def test_the_board_table_is_the_design_written_out():
    """The board is computed when the code is built, not at each start: the table in the package
    is what the generator gives for the design."""
    from console.view import palette

    assert palette.board_colors() == palette.design_board(palette.BoardDesign())
    with open(palette.__file__.replace("palette.py", "board_table.py")) as table:
        assert table.read() == palette.board_table_text(), (
            "console/view/board_table.py is out of date: python -c 'from console.view.palette import "
            "board_table_text; print(board_table_text(), end=\"\")' > console/view/board_table.py")

import itertools
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from console.view.font import (
    GLYPH_HEIGHT,
    GLYPHS,
    ICONS,
    FontError,
    Glyph,
    draw_icon,
    draw_text,
    text_width,
)
from hal.frame import Frame

GOLD = (255, 200, 0)


def lit_pixels(frame):
    return {(x, y) for y in range(frame.height) for x in range(frame.width) if frame.get(x, y) != (0, 0, 0)}


def expected_pixels(glyph, x, y, width=32, height=16):
    return {
        (x + dx, y + dy) for dx, dy in glyph.lit if 0 <= x + dx < width and 0 <= y + dy < height
    }


def test_font_has_digits_letters_and_symbols():
    assert set(string.digits + string.ascii_uppercase + "-?!:+ ") <= set(GLYPHS)


def test_every_glyph_has_its_declared_size():
    for char, glyph in GLYPHS.items():
        assert glyph.height == GLYPH_HEIGHT, char
        if char.isalnum():
            assert glyph.width == 3, char
        else:
            assert 1 <= glyph.width <= 3, char
        assert all(0 <= dx < glyph.width and 0 <= dy < glyph.height for dx, dy in glyph.lit), char


def test_icons_are_5x5():
    assert {"check", "cross", "crown", "pass"} <= set(ICONS)
    for name, icon in ICONS.items():
        assert (icon.width, icon.height) == (5, 5), name
        assert icon.lit, name


def test_digits_are_pairwise_different():
    for first, second in itertools.combinations(string.digits, 2):
        assert GLYPHS[first].lit != GLYPHS[second].lit, (first, second)


def test_no_two_glyphs_look_the_same():
    """0 and O, 1 and I, 2 and Z, 5 and S, 8 and B must stay tellable apart in scores and names."""
    pictures = [(glyph.width, glyph.lit) for glyph in GLYPHS.values()]
    assert len(set(pictures)) == len(pictures)


def test_parse_reads_string_art():
    glyph = Glyph.parse("T", "### .#. .#.")
    assert (glyph.width, glyph.height) == (3, 3)
    assert glyph.lit == ((0, 0), (1, 0), (2, 0), (1, 1), (1, 2))


@pytest.mark.parametrize("art", ["### .#", "#x# ###"])
def test_parse_refuses_ragged_or_unknown_art(art):
    with pytest.raises(FontError, match="not a rectangle"):
        Glyph.parse("?", art)


@pytest.mark.parametrize(
    "text, spacing, width",
    [("", 1, 0), ("1", 1, 3), ("10", 1, 7), ("10:7", 1, 13), ("10", 0, 6), ("A B", 1, 9)],
)
def test_text_width(text, spacing, width):
    assert text_width(text, spacing) == width


def test_draw_text_lands_where_expected():
    frame = Frame(32, 16)
    end = draw_text(frame, 2, 3, "17", GOLD)
    one, seven = GLYPHS["1"], GLYPHS["7"]
    assert lit_pixels(frame) == expected_pixels(one, 2, 3) | expected_pixels(seven, 6, 3)
    assert frame.get(3, 3) == GOLD  # the top of the 1
    assert end == 2 + text_width("17") + 1


def test_lower_case_draws_as_upper_case():
    lower, upper = Frame(32, 16), Frame(32, 16)
    draw_text(lower, 0, 0, "pass", GOLD)
    draw_text(upper, 0, 0, "PASS", GOLD)
    assert lower == upper


@given(st.integers(-8, 36), st.integers(-8, 20))
def test_drawing_clips_at_the_edges_without_wrapping(x, y):
    frame = Frame(32, 16)
    draw_text(frame, x, y, "8", GOLD)
    assert lit_pixels(frame) == expected_pixels(GLYPHS["8"], x, y)


def test_text_running_off_the_right_edge_keeps_what_fits():
    frame = Frame(32, 16)
    draw_text(frame, 28, 0, "88", GOLD)
    assert lit_pixels(frame) == expected_pixels(GLYPHS["8"], 28, 0)
    assert frame.get(0, 1) == (0, 0, 0)  # nothing wrapped onto the next row


def test_draw_icon_lands_and_clips():
    frame = Frame(32, 16)
    draw_icon(frame, 29, 12, "check", GOLD)
    assert lit_pixels(frame) == expected_pixels(ICONS["check"], 29, 12)
    assert lit_pixels(frame)  # some of it is still visible


def test_unknown_characters_and_icons_are_refused():
    with pytest.raises(FontError, match="cannot draw '#'"):
        text_width("A#1")
    with pytest.raises(FontError, match="no icon called 'heart'"):
        draw_icon(Frame(32, 16), 0, 0, "heart", GOLD)

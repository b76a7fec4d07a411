"""The board's 480 colours and the pawn colours, generated in OKLab so that they survive the LEDs.

The board is computed rather than copied from the printed game because an LED panel is a harsher
medium than paper: the current limiter dims the whole board to about a third and every channel is
then rounded to 8 bits, which merges dark or greyish neighbours. OKLab (Björn Ottosson, 2020) is a
space where equal distances look about equally different, so the generator can space the cells
evenly there and `led_separation` can measure what is left after the LEDs' rounding.

Arrangement: each of the 30 columns is one hue, 12 degrees of OKLCH hue apart, from crimson in
column 1 through orange, yellow, green, cyan, blue and purple to pink and rose in column 30. Each
row is one step from pale tint (row A) through the vivid middle rows to deep shade (row P). Every
cell takes most of the chroma the sRGB gamut allows at its lightness and hue, so the middle rows
are as vivid as screen and LEDs can show and the outer rows soften into pastels and deep shades.
A column's lightness span follows its hue's gamut (yellows and greens reach paler tints, reds and
purples deeper shades, cyans stay lighter because dark cyans turn grey): no row ever holds two
hues so pale or so dark that they merge.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from console.view.board_table import BOARD
from hal.frame import RGB

Lab = tuple[float, float, float]

ROWS = 16
COLUMNS = 30


class PaletteError(ValueError):
    """A colour request the palette cannot answer (a cell off the board, an impossible design)."""


# -- sRGB transfer ---------------------------------------------------------------------------


def srgb_to_linear(value: int) -> float:
    """An 8-bit sRGB channel as linear light in 0..1 (the sRGB transfer curve)."""
    v = value / 255
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def linear_to_srgb(value: float) -> int:
    """Linear light (clipped to 0..1) as the nearest 8-bit sRGB channel."""
    v = min(1.0, max(0.0, value))
    encoded = 12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055
    return round(255 * encoded)


# -- OKLab (Ottosson's matrices) -------------------------------------------------------------


def linear_srgb_to_oklab(r: float, g: float, b: float) -> Lab:
    l = 0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b
    m = 0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b
    s = 0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b
    l_, m_, s_ = math.cbrt(l), math.cbrt(m), math.cbrt(s)
    return (
        0.2104542553 * l_ + 0.7936177850 * m_ - 0.0040720468 * s_,
        1.9779984951 * l_ - 2.4285922050 * m_ + 0.4505937099 * s_,
        0.0259040371 * l_ + 0.7827717662 * m_ - 0.8086757660 * s_,
    )


def oklab_to_linear_srgb(lightness: float, a: float, b: float) -> tuple[float, float, float]:
    l_ = lightness + 0.3963377774 * a + 0.2158037573 * b
    m_ = lightness - 0.1055613458 * a - 0.0638541728 * b
    s_ = lightness - 0.0894841775 * a - 1.2914855480 * b
    l, m, s = l_ * l_ * l_, m_ * m_ * m_, s_ * s_ * s_
    return (
        4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s,
        -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s,
        -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s,
    )


def srgb_to_oklab(rgb: RGB) -> Lab:
    return linear_srgb_to_oklab(*(srgb_to_linear(v) for v in rgb))


def oklab_to_srgb(lab: Lab) -> RGB:
    """The nearest 8-bit sRGB colour, each channel clipped (use `oklch_to_srgb` to keep the hue)."""
    r, g, b = oklab_to_linear_srgb(*lab)
    return (linear_to_srgb(r), linear_to_srgb(g), linear_to_srgb(b))


def oklch_to_oklab(lightness: float, chroma: float, hue: float) -> Lab:
    angle = math.radians(hue)
    return (lightness, chroma * math.cos(angle), chroma * math.sin(angle))


def min_oklab_distance(colours: Iterable[Lab]) -> float:
    """The smallest Euclidean distance between any two of `colours` (about 0.02 is just noticeable).

    Sorted by lightness, a pair whose lightness alone differs by more than the best distance so
    far cannot beat it, which cuts the board's 115,000 pairs to about 9,000 distance computations.
    """
    ordered = sorted(colours)
    if len(ordered) < 2:
        raise PaletteError(f"a separation needs at least two colours, got {len(ordered)}")
    best = math.inf
    for i, first in enumerate(ordered):
        for second in ordered[i + 1 :]:
            if second[0] - first[0] >= best:
                break
            best = min(best, math.dist(first, second))
    return best


# -- gamut mapping ---------------------------------------------------------------------------

_GAMUT_TOLERANCE = 1e-7
_CHROMA_CEILING = 0.5  # above every sRGB colour's OKLCH chroma (the most is about 0.32)
_BISECTION_STEPS = 24  # halves _CHROMA_CEILING down to 3e-8, far below one 8-bit step


def _lch_in_gamut(lightness: float, chroma: float, hue: float) -> bool:
    return all(
        -_GAMUT_TOLERANCE <= v <= 1 + _GAMUT_TOLERANCE
        for v in oklab_to_linear_srgb(*oklch_to_oklab(lightness, chroma, hue))
    )


def max_chroma(lightness: float, hue: float) -> float:
    """The most OKLCH chroma sRGB can show at this lightness and hue (0 at black and white)."""
    if not 0 < lightness < 1:
        return 0.0
    return _last_inside(lambda chroma: _lch_in_gamut(lightness, chroma, hue), 0.0, _CHROMA_CEILING)


def _last_inside(fits, inside: float, outside: float) -> float:
    """Bisection: the value nearest `outside` for which `fits` still holds, `fits(inside)` true."""
    for _ in range(_BISECTION_STEPS):
        middle = (inside + outside) / 2
        if fits(middle):
            inside = middle
        else:
            outside = middle
    return inside


def oklch_to_srgb(lightness: float, chroma: float, hue: float) -> RGB:
    """8-bit sRGB for an OKLCH colour, gamut mapped CSS Color 4 style: an out-of-gamut colour keeps
    its lightness and hue and loses chroma until sRGB can show it.
    """
    lightness = min(1.0, max(0.0, lightness))
    if not _lch_in_gamut(lightness, chroma, hue):
        chroma = max_chroma(lightness, hue)
    return oklab_to_srgb(oklch_to_oklab(lightness, chroma, hue))


# -- the board -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardDesign:
    """The knobs of the board generator (see the module docstring for the arrangement).

    A column's lightness runs from its tint to its shade: the lightest (up to `lightest`) and the
    darkest (down to `darkest`) lightness at which its hue can still carry `chroma_floor`. The
    floor keeps the 30 hues of a row apart where the gamut is narrow: near white for blues and
    reds, near black for yellows and cyans. `smoothing` averages each span with that many
    neighbouring columns on each side so that a row reads as one step of "lighter" or "darker".

    The defaults were chosen by measuring `led_separation` over limiter brightnesses 0.2 to 0.4.
    """

    first_hue: float = 20.0
    lightest: float = 0.95
    darkest: float = 0.40
    chroma_floor: float = 0.10
    gamut_share: float = 0.95  # how much of the gamut's chroma a cell takes
    smoothing: int = 2

    def hue(self, col: int) -> float:
        return (self.first_hue + col * 360 / COLUMNS) % 360


def _lightness_limit(hue: float, chroma: float, anchor: float, limit: float) -> float:
    """How far from `anchor` (where `chroma` fits) towards `limit` the lightness can go and still fit."""
    if _lch_in_gamut(limit, chroma, hue):
        return limit
    return _last_inside(lambda lightness: _lch_in_gamut(lightness, chroma, hue), anchor, limit)


def _column_span(design: BoardDesign, hue: float) -> tuple[float, float]:
    """(tint lightness, shade lightness) of one hue before smoothing."""
    floor = design.chroma_floor
    candidates = [design.darkest + (design.lightest - design.darkest) * i / 20 for i in range(21)]
    anchor = max(candidates, key=lambda lightness: max_chroma(lightness, hue))
    if max_chroma(anchor, hue) < floor:
        raise PaletteError(
            f"hue {hue:.0f} cannot carry chroma {floor} between lightness {design.darkest} "
            f"and {design.lightest}: lower the chroma floor"
        )
    return (
        _lightness_limit(hue, floor, anchor, design.lightest),
        _lightness_limit(hue, floor, anchor, design.darkest),
    )


def _circular_mean(values: Sequence[float], col: int, reach: int) -> float:
    window = [values[(col + offset) % len(values)] for offset in range(-reach, reach + 1)]
    return sum(window) / len(window)


def design_board(design: BoardDesign) -> tuple[RGB, ...]:
    """All 480 cells, row by row (index row * 30 + col), for one set of knobs."""
    hues = [design.hue(col) for col in range(COLUMNS)]
    spans = [_column_span(design, hue) for hue in hues]
    tints = [_circular_mean([s[0] for s in spans], col, design.smoothing) for col in range(COLUMNS)]
    shades = [_circular_mean([s[1] for s in spans], col, design.smoothing) for col in range(COLUMNS)]
    cells = []
    for row in range(ROWS):
        depth = row / (ROWS - 1)
        for hue, tint, shade in zip(hues, tints, shades):
            lightness = tint + (shade - tint) * depth
            chroma = design.gamut_share * max_chroma(lightness, hue)
            cells.append(oklch_to_srgb(lightness, chroma, hue))
    return tuple(cells)


def board_colors() -> tuple[RGB, ...]:
    """The board: 480 (r, g, b), index row * 30 + col, row 0 = A at the top, col 0 = column 1.

    Computed when the code is built, not at every start (the search is a noticeable part of a
    start on a Pi Zero 2 W: docs/PERFORMANCE.md): `board_table.BOARD` is `design_board(BoardDesign())`
    written out, a test checks that it still is, and `board_table_text()` is the file to write
    after a change to the design (the test's message says how)."""
    return BOARD


def board_table_text() -> str:
    """The source of `board_table.py` for the current design."""
    cells = design_board(BoardDesign())
    rows = "\n".join(f"    {' '.join(f'{rgb!r},' for rgb in cells[i : i + 6])}" for i in range(0, len(cells), 6))
    return ('"""The board\'s 480 colours, `palette.design_board(BoardDesign())` written out when the code\n'
            'is built (`palette.board_table_text()` is this file; a test checks it)."""\n\n'
            f"BOARD = (\n{rows}\n)\n")


def cell_color(row: int, col: int) -> RGB:
    if not (0 <= row < ROWS and 0 <= col < COLUMNS):
        raise PaletteError(f"cell (row {row}, column {col}) is off the {ROWS}x{COLUMNS} board")
    return board_colors()[row * COLUMNS + col]


# -- what reaches the eye through the LEDs ---------------------------------------------------


def led_separation(drives: Sequence[RGB], brightness: float) -> float:
    """Minimum pairwise OKLab distance of LED drive values, judged at full brightness.

    `drives` are 8-bit drive values (after gamma, brightness and the current limiter), so they
    are linear light times `brightness`; dividing that back out compares colours as they would
    look at full brightness, which is what the eye adapts to in a dark room.
    """
    if not 0 < brightness <= 1:
        raise PaletteError(f"brightness must be above 0 and at most 1, not {brightness}")
    scale = 1 / (255 * brightness)
    return min_oklab_distance(
        linear_srgb_to_oklab(r * scale, g * scale, b * scale) for r, g, b in drives
    )


# -- pawns -----------------------------------------------------------------------------------

# Every colour drives at least one LED channel fully and lies at least 0.18 from the others in
# OKLab (about nine just-noticeable steps), so pawns stay tellable apart when the limiter dims
# the panel. Black is off: a black pawn shows by blinking its cell to dark.
PAWN_COLORS: dict[str, RGB] = {
    "red": (255, 0, 0),
    "orange": (255, 140, 0),
    "yellow": (255, 230, 0),
    "green": (0, 255, 0),
    "cyan": (0, 230, 255),
    "blue": (0, 40, 255),
    "purple": (150, 0, 255),
    "pink": (255, 50, 185),
    "white": (255, 255, 255),
    "black": (0, 0, 0),
}


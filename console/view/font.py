"""A 3x5 pixel font and a few 5x5 icons for the 32x16 LED canvas.

Three pixels wide is the most a 16-row panel can spare for text beside the board while keeping
every digit distinct; narrow punctuation (`!`, `:`, `.`, `'`) takes one column so that scores
such as "10:7" fit. Glyphs are written as string art so that a reviewer sees the letter, and
parsed once into the offsets of their lit pixels so that drawing touches only those.

Five rows leave no room for accents, so text a guest wrote (a clue, in any of the six languages)
is folded first (`fold`): each letter decomposed (NFKD) and its marks dropped, as people type
without them on a phone (ă â î ș ț, č ř ů, ñ, ơ ư ế), the few letters that do not decompose
spelled as they are without a keyboard (đ D, ß SS, æ AE, ø O, ł L), curly apostrophes straight,
invisible format characters left out, and anything else the font has no picture for (another
script, an emoji) drawn as `?`.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from hal.frame import RGB, Frame

GLYPH_HEIGHT = 5


class FontError(ValueError):
    """Text or an icon the pixel font has no picture for."""


@dataclass(frozen=True)
class Glyph:
    width: int
    height: int
    lit: tuple[tuple[int, int], ...]  # (dx, dy) of the lit pixels, row by row

    @classmethod
    def parse(cls, name: str, art: str) -> Glyph:
        """A glyph from rows of '#' (lit) and '.' (dark) separated by spaces."""
        rows = art.split()
        width = len(rows[0])
        if any(len(row) != width for row in rows) or set("".join(rows)) - set("#."):
            raise FontError(f"the art for {name!r} is not a rectangle of '#' and '.': {art!r}")
        lit = tuple((dx, dy) for dy, row in enumerate(rows) for dx, mark in enumerate(row) if mark == "#")
        return cls(width, len(rows), lit)


_GLYPH_ART = {
    "0": "### #.# #.# #.# ###",
    "1": ".#. ##. .#. .#. ###",
    "2": "### ..# ### #.. ###",
    "3": "### ..# .## ..# ###",
    "4": "#.# #.# ### ..# ..#",
    "5": "### #.. ### ..# ###",
    "6": "### #.. ### #.# ###",
    "7": "### ..# ..# .#. .#.",
    "8": "### #.# ### #.# ###",
    "9": "### #.# ### ..# ###",
    "A": ".#. #.# ### #.# #.#",
    "B": "##. #.# ##. #.# ##.",
    "C": ".## #.. #.. #.. .##",
    "D": "##. #.# #.# #.# ##.",
    "E": "### #.. ##. #.. ###",
    "F": "### #.. ##. #.. #..",
    "G": ".## #.. #.# #.# .##",
    "H": "#.# #.# ### #.# #.#",
    "I": "### .#. .#. .#. ###",
    "J": "..# ..# ..# #.# .#.",
    "K": "#.# #.# ##. #.# #.#",
    "L": "#.. #.. #.. #.. ###",
    "M": "#.# ### ### #.# #.#",
    "N": "##. #.# #.# #.# #.#",
    "O": ".#. #.# #.# #.# .#.",
    "P": "##. #.# ##. #.. #..",
    "Q": ".#. #.# #.# ##. .##",
    "R": "##. #.# ##. #.# #.#",
    "S": ".## #.. .#. ..# ##.",
    "T": "### .#. .#. .#. .#.",
    "U": "#.# #.# #.# #.# ###",
    "V": "#.# #.# #.# #.# .#.",
    "W": "#.# #.# ### ### #.#",
    "X": "#.# #.# .#. #.# #.#",
    "Y": "#.# #.# .#. .#. .#.",
    "Z": "### ..# .#. #.. ###",
    "-": "... ... ### ... ...",
    "+": "... .#. ### .#. ...",
    "?": "### ..# .## ... .#.",
    "/": "..# ..# .#. #.. #..",
    "!": "# # # . #",
    ":": ". # . # .",
    ".": ". . . . #",
    "'": "# # . . .",
    " ": ". . . . .",
}

_ICON_ART = {
    "check": "..... ....# ...#. #.#.. .#...",
    "cross": "#...# .#.#. ..#.. .#.#. #...#",
    "crown": "..... ..#.. #.#.# ##### #####",
    "pass": "..#.. ...#. ##### ...#. ..#..",  # an arrow: hand the box to the next player
}

GLYPHS: dict[str, Glyph] = {char: Glyph.parse(char, art) for char, art in _GLYPH_ART.items()}
ICONS: dict[str, Glyph] = {name: Glyph.parse(name, art) for name, art in _ICON_ART.items()}


def _glyphs_of(text: str) -> list[Glyph]:
    """The glyphs of `text`, lower case drawn as upper case."""
    try:
        return [GLYPHS[char] for char in text.upper()]
    except KeyError as missing:
        raise FontError(
            f"the pixel font cannot draw {missing.args[0]!r} in {text!r}: it has 0-9, A-Z, space "
            f"and {' '.join(char for char in GLYPHS if not char.isalnum() and char != ' ')}"
        ) from None


_FOLDS = {"Đ": "D", "đ": "D", "ß": "SS", "ẞ": "SS", "Æ": "AE", "æ": "AE", "Œ": "OE", "œ": "OE", "Ø": "O",
          "ø": "O", "Ł": "L", "ł": "L", "ı": "I", "’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'"}


def fold(text: str) -> str:
    """`text` in the characters the font draws (see the module docstring): marks dropped, the
    letters without a decomposition spelled out, format characters left out, the rest `?`."""
    out = []
    for char in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(char) or unicodedata.category(char) == "Cf":
            continue
        if char.isspace():
            out.append(" ")
            continue
        folded = _FOLDS.get(char, char).upper()
        out.append(folded if all(c in GLYPHS for c in folded) else "?")
    return "".join(out)


def text_width(text: str, spacing: int = 1) -> int:
    """Columns `text` takes when drawn: glyph widths plus `spacing` between neighbours."""
    glyphs = _glyphs_of(text)
    return sum(glyph.width for glyph in glyphs) + spacing * max(0, len(glyphs) - 1)


def _stamp(frame: Frame, x: int, y: int, glyph: Glyph, colour: bytes) -> None:
    """Set the glyph's lit pixels at (x, y), leaving out those beyond the frame's edges."""
    pixels, width, height = frame.pixels, frame.width, frame.height
    for dx, dy in glyph.lit:
        px, py = x + dx, y + dy
        if 0 <= px < width and 0 <= py < height:
            i = (py * width + px) * 3
            pixels[i : i + 3] = colour


def draw_text(frame: Frame, x: int, y: int, text: str, rgb: RGB, spacing: int = 1) -> int:
    """Draw `text` with its top-left corner at (x, y), clipped at the frame's edges.

    Returns the x just after the text plus spacing, where a following piece of text would start.
    """
    colour = bytes(rgb)
    for glyph in _glyphs_of(text):
        _stamp(frame, x, y, glyph, colour)
        x += glyph.width + spacing
    return x


def draw_icon(frame: Frame, x: int, y: int, name: str, rgb: RGB) -> None:
    """Draw the 5x5 icon `name` (check, cross, crown, pass) with its top-left corner at (x, y)."""
    icon = ICONS.get(name)
    if icon is None:
        raise FontError(f"no icon called {name!r}; the icons are {', '.join(ICONS)}")
    _stamp(frame, x, y, icon, bytes(rgb))

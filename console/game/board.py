"""The 16 x 30 board: cell names like `H15`, and the distance the scoring frame is measured in.

Cells are (row, col) pairs counted from 0 so that the renderer can use them as canvas
coordinates directly; only their names are 1-based, as printed on the board.
"""

from __future__ import annotations

from typing import NamedTuple

ROWS = 16
COLS = 30
ROW_LETTERS = "ABCDEFGHIJKLMNOP"


class RuleError(ValueError):
    """An action the rules do not allow, with a message a player understands."""


class Cell(NamedTuple):
    row: int
    col: int

    def __str__(self) -> str:
        return f"{ROW_LETTERS[self.row]}{self.col + 1}"

    @property
    def index(self) -> int:
        return self.row * COLS + self.col


ALL_CELLS: tuple[Cell, ...] = tuple(Cell(r, c) for r in range(ROWS) for c in range(COLS))


def parse_cell(text: object) -> Cell:
    """`H15`, `h15` or ` O26 ` -> Cell; anything else is a RuleError naming the bad text."""
    if isinstance(text, str):
        name = text.strip().upper()
        if len(name) >= 2 and name[0] in ROW_LETTERS and name[1:].isdigit():
            col = int(name[1:])
            if 1 <= col <= COLS and name[1] != "0":
                return Cell(ROW_LETTERS.index(name[0]), col - 1)
    raise RuleError(f"{text!r} is not a cell on the board (A1 to P30)")


def distance(a: Cell, b: Cell) -> int:
    """Chebyshev distance: 0 on the target, 1 inside the 3x3 frame, 2 touching its outside."""
    return max(abs(a.row - b.row), abs(a.col - b.col))


def cells_within(centre: Cell, radius: int) -> tuple[Cell, ...]:
    """The cells at distance <= radius from centre, clipped at the board's edges."""
    return tuple(
        Cell(r, c)
        for r in range(max(0, centre.row - radius), min(ROWS, centre.row + radius + 1))
        for c in range(max(0, centre.col - radius), min(COLS, centre.col + radius + 1))
    )

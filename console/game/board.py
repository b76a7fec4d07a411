"""The 16 x 30 board: cell names like `H15`, and the distance the scoring frame is measured in.

Cells are (row, col) pairs counted from 0 so that the renderer can use them as canvas
coordinates directly; only their names are 1-based, as printed on the board.
"""

from __future__ import annotations

from typing import Any, NamedTuple

ROWS = 16
COLS = 30
ROW_LETTERS = "ABCDEFGHIJKLMNOP"


class RuleError(ValueError):
    """An action the rules do not allow, with a message a player understands. `key` names the
    kind of refusal where a player is told it in their own words (a phone looks the key up in
    its language, with `params`): whose turn it is, an occupied cell, a cell not on the card."""

    def __init__(self, text: str, key: str = "rule", **params: Any) -> None:
        super().__init__(text)
        self.key, self.params = key, params


class _CellFields(NamedTuple):
    row: int
    col: int


class Cell(_CellFields):
    """One of the 480 cells. Only those exist: `Cell(99, 99)`, `Cell(-1, 0)` or `Cell(True, 0)` is a
    RuleError, so an off-board cell can never reach the rules, a record or the renderer. Each cell
    is made once; `Cell(r, c)` returns that object (a range check and an index: cheap enough for
    the frame loop)."""

    __slots__ = ()

    def __new__(cls, row: int, col: int) -> Cell:
        if type(row) is int and type(col) is int and 0 <= row < ROWS and 0 <= col < COLS:
            return ALL_CELLS[row * COLS + col]
        raise RuleError(f"({brief_repr(row)}, {brief_repr(col)}) is not a cell on the board "
                        f"(rows 0 to {ROWS - 1}, columns 0 to {COLS - 1})")

    @classmethod
    def _make(cls, iterable) -> Cell:  # `_replace` and copies come through here: checked too
        return cls(*iterable)

    def __str__(self) -> str:
        return f"{ROW_LETTERS[self.row]}{self.col + 1}"

    @property
    def index(self) -> int:
        return self.row * COLS + self.col


ALL_CELLS: tuple[Cell, ...] = tuple(
    tuple.__new__(Cell, (r, c)) for r in range(ROWS) for c in range(COLS))
_NAMED: dict[str, Cell] = {str(cell): cell for cell in ALL_CELLS}


def brief_repr(value: object) -> str:
    """A value in an error message, cut short: a message stays one readable line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def parse_cell(text: object) -> Cell:
    """`H15`, `h15` or ` O26 ` -> Cell; anything else is a RuleError naming the bad text. ASCII
    only: `H²`, `H١٥` or full-width digits are not cells."""
    cell = _NAMED.get(text) if isinstance(text, str) else None  # as pages and the record spell it: one look-up
    if cell is not None:
        return cell
    if isinstance(text, str) and text.isascii():
        name = text.strip().upper()
        if 2 <= len(name) <= 3 and name[0] in ROW_LETTERS and name[1:].isdigit() and name[1] != "0":
            col = int(name[1:])
            if col <= COLS:
                return ALL_CELLS[ROW_LETTERS.index(name[0]) * COLS + col - 1]
    raise RuleError(f"{brief_repr(text)} is not a cell on the board (A1 to P30)")


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

"""The board's pictures, each worked out once per canvas size and kept: the plain board (the
play screens draw on a copy of it), the board dimmed (the menus' and the secret card's backdrop)
and the idle board with its glint at each step. The renderer copies one and draws on the copy.
"""

from __future__ import annotations

from functools import lru_cache

from console.game.board import COLS, ROWS
from console.view.moment import Moment
from console.view.palette import board_colors

# A glint crosses the idle board once every 20 s. Each of its steps wakes the box, and a wake-up
# after a sleep costs about as much as the work it does (cold caches), so it moves two diagonals a
# step, 10 a second, in 24 steps: at most 2.5 wake-ups a second in any 10 s (the 24 and the one
# that clears it). Its band is four diagonals (edge, middle, middle,
# edge), so every diagonal it crosses is lit alike: one step at the middle's level, one at the edge's.
IDLE_GLINT_S = 20.0
GLINT_STEP_S = 0.2  # 4.8 s to cross; then the board lies still
GLINT_STEPS = (COLS + ROWS) // 2 + 1  # 24: from entering at diagonal 0 to leaving at 44 (col + row)
GLINT_LEVELS = (0.75, 0.875, 1.0)  # the board's share of its colours; the glint's edge, its middle


@lru_cache(maxsize=8)
def board_bytes(width: int, height: int) -> bytes:
    """The plain board at the top left of a black width x height canvas."""
    pixels = bytearray(width * height * 3)
    colors = board_colors()
    for row in range(ROWS):
        line = b"".join(bytes(colors[row * COLS + col]) for col in range(COLS))
        i = row * width * 3
        pixels[i : i + len(line)] = line
    return bytes(pixels)


@lru_cache(maxsize=8)
def dim_bytes(width: int, height: int) -> bytes:
    """The board at a quarter of its brightness: the backdrop of menus and the secret card."""
    return board_bytes(width, height).translate(bytes(v // 4 for v in range(256)))


@lru_cache(maxsize=8)
def _glint_boards(width: int, height: int) -> tuple[bytes, ...]:
    """The board at each of GLINT_LEVELS."""
    board = board_bytes(width, height)
    return tuple(board.translate(bytes(round(v * level) for v in range(256))) for level in GLINT_LEVELS)


@lru_cache(maxsize=2 * GLINT_STEPS)
def idle_bytes(width: int, height: int, step: int) -> bytes:
    """The idle board at the glint's `step` (0 to GLINT_STEPS - 1: crossing; GLINT_STEPS: gone):
    its band on diagonals 2 * step - 3 to 2 * step (col + row), the middle two at full colour,
    the edges between, the rest dimmer. From one step to the next at most six diagonals change,
    not the whole board."""
    boards = _glint_boards(width, height)
    pixels = bytearray(boards[0])
    first = 2 * step - 3
    for diagonal in range(max(first, 0), first + 4):
        level = boards[1 if diagonal in (first, first + 3) else 2]
        for row in range(max(0, diagonal - COLS + 1), min(ROWS, diagonal + 1)):
            i = (row * width + diagonal - row) * 3
            pixels[i : i + 3] = level[i : i + 3]
    return bytes(pixels)


def glint_step(t: float) -> int:
    """Where the idle board's glint is at t: its step, 0 to GLINT_STEPS - 1 as it crosses, then
    GLINT_STEPS (gone) while the board lies still until the next crossing."""
    return min(int(t % IDLE_GLINT_S / GLINT_STEP_S), GLINT_STEPS)


def glint_at(at: Moment) -> int:
    """`glint_step` at `at`: it holds until the next step, or until the next crossing begins."""
    into = at.t % IDLE_GLINT_S
    steps = int(into / GLINT_STEP_S)
    next_step = (steps + 1) * GLINT_STEP_S if steps < GLINT_STEPS else IDLE_GLINT_S
    return at.holds(glint_step, at.t - into + next_step)

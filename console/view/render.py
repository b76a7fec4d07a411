"""The renderer: game state, UI state and time to a Frame, as a pure function.

The app redraws at its frame rate, so the board screens start from a cached copy of the plain
board's bytes (built once per canvas size) and overlay only what changes: pawns, cursors, the
status columns. A busy mid-game frame is a bytearray copy and a few dozen slice assignments.
Every animation is a function of `t` (and of `ui.since`, when the screen started), so the same
inputs always give the same frame and tests need no clock.

While clues are given and guessed, nothing covers the board: a pawn or a cursor changes only its
own cell, and everything else the table needs is in the status columns. A clue written on the
giver's phone fills the panel with its words for a few seconds when it is given, before the first
pawn of the phase (any press or a guesser's tap ends it), and again at the reveal.

- A pawn blinks between its player's colour (PAWN_LIT of each PAWN_S period) and dark. Dark
  differs from every cell by far more than any two pawn colours are close, so a pawn shows on
  every cell; its lit phase is its player's colour (in the reveal's frame, half of each second,
  with the scoring ring). The black seat cannot be lit: its pawn, text and swatches are grey
  (`screens.ink`), swatches checkered.
- A cursor keeps its cell's own look (colour or pawn) while the pawns are lit (CURSOR_LOOK of
  each CURSOR_S period) and flickers while they are dark, FLICKERS steps: its player's colour,
  then white or dark (whichever stands out from that cell, the other if that is the player's
  colour). The flicker tells it from a pawn (three looks a beat where a pawn has two), the
  colour says whose it is. Its eight neighbours are never touched.
- Pawns, cursors and the acting player's swatch keep one beat (a period of one second, the
  pawns' dark phase, the swatch's and the cursor's flicker starting at the same moment): the
  panel changes 3 times a second while guessing, not 7 to 8 on three rhythms, and the loop
  sleeps in between: each change wakes the box, and the wake-up costs more than the drawing (the
  figures are in docs/PERFORMANCE.md). A cursor on a refused cell (taken)
  flickers red instead for REFUSED_S, from the moment of the press.
  More cursors may be drawn beside it (`Ui.remote_cursors`: `palette --legibility` measures
  one on every cell at once).

The board takes columns 0-29 and rows 0-15 (cell (row, col) at x = col, y = row); larger
canvases keep it at the top left with the rest black. The status columns, x 30-31:

    rows 0-3    the colour of the player who must act, blinking while they must; steady, the
                cue giver's, while the table looks (reveal, or a last pawn not yet let stand)
    rows 5-9    the phase as a 2x5 glyph:

                choose   clue 1   guess 1   clue 2    guess 2   reveal
                target                      or pass
                  #.       ..       ..        ..        ##        ##
                  .#       ..       ##        ##        ##        ##
                  #.       ##       ##        ..        ..        ##
                  .#       ..       ..        ##        ##        ..
                  #.       ..       ..        ..        ##        ##

                a checker for the hidden choice, bars for clues and squares for pawns (one
                or two: the first or the second), "!" for the reveal
    rows 11-15  guessing: the loupe, the colour under the cursor as a 2x5 swatch; the second
                clue: C (clue, chosen) or P (pass) in white
    row 15      x 31 amber while the record store is offline (on every screen; blinking on the
                beat where the screen keeps it, `_draw_system`)

While the shutdown button is held both columns become a red bar filling from the bottom, on
every screen, so the host sees the hold counting.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import lru_cache

from console.view import screens
from console.view.boards import board_bytes, dim_bytes, glint_at, idle_bytes
from console.view.moment import Moment
from console.game.board import COLS, Cell, cells_within, distance
from console.view.palette import PAWN_COLORS, board_colors, srgb_to_oklab
from console.game.rules import GameState, Pawn, current_player
from console.view.screens import WHITE, fill_rect, ink, swatch
from console.game.seating import PANEL
from console.view.ui import Ui
from hal.frame import BLACK, RGB, Frame

PAWN_S, PAWN_LIT = 1.0, 0.6  # a pawn: its colour for 0.6 s, then dark for 0.4 s
CURSOR_S, CURSOR_LOOK, FLICKERS = PAWN_S, PAWN_LIT, 2  # a cursor: its cell's look for 0.6 s, then 2 flickers of 0.2 s
ACT_HZ = 1 / PAWN_S  # the acting player's swatch in the status columns, in step with the pawns
REFUSED_S = 0.6  # how long a cursor flickers red on a taken cell
# The reveal's frame keeps its own clock, from the moment it opens: the scoring ring and the pawns
# flash together, the target twice as fast, every edge of the ring's one of the target's: 4
# wake-ups a second. With the pawns on the play screens' beat (which runs from no moment in
# particular) it woke the box 5 to 6 times a second; at 2 and 3 Hz, 9.
RING_HZ, TARGET_HZ = 1.0, 2.0
STATUS_X = COLS
ROOM_CODE_Y = 10  # the phones' room code on the idle board
AMBER: RGB = (255, 180, 0)
DISK_FULL: RGB = (255, 0, 0)  # the same dot, red: the journal cannot be written
HOLD_ON: RGB = (255, 0, 0)
HOLD_OFF: RGB = (40, 0, 0)
LIGHT_CELL = 0.62  # OKLab lightness from which dark, not white, stands out from a cell

_WHITE, _BLACK, _RED = bytes(WHITE), bytes(BLACK), bytes((255, 0, 0))
_INK_BYTES = {name: bytes(ink(name)) for name in PAWN_COLORS}
_GLYPH_RGB: RGB = (200, 200, 200)
_PHASE_GLYPHS = {
    "choose_target": "#. .# #. .# #.",
    "clue1": ".. .. ## .. ..",
    "guess1": ".. ## ## .. ..",
    "clue2": ".. ## .. ## ..",
    "guess2": "## ## .. ## ##",
    "round_over": "## ## ## .. ##",
}
_CHOICE_GLYPHS = ("## #. #. #. ##", "## ## #. #. #.")  # C (a second clue), P (pass)
_GAME_SCREENS = ("handoff", "secret", "play", "reveal", "tiebreak", "game_over")


class CanvasError(ValueError):
    """A canvas too small to hold the board and its status columns."""


def render(state: GameState | None, ui: Ui, t: float, width: int = 32, height: int = 16) -> Frame:
    """The frame for `state` and `ui` at time t (seconds on the app's clock)."""
    return render_timed(state, ui, t, width, height)[0]


def next_change(state: GameState | None, ui: Ui, t: float, width: int = 32, height: int = 16) -> float:
    """The first time after t at which the frame can differ from the one at t (inf: not until
    the state changes): `render` is the same for every time in [t, next_change)."""
    return render_timed(state, ui, t, width, height)[1]


def render_timed(state: GameState | None, ui: Ui, t: float, width: int = 32, height: int = 16) -> tuple[Frame, float]:
    """The frame at t, and the first later time at which it can change (see `moment`): what
    the app loop sleeps until."""
    if width < screens.PANEL_W or height < screens.PANEL_H:
        raise CanvasError(
            f"the panel is {width}x{height} pixels; the board and its status need at least "
            f"{screens.PANEL_W}x{screens.PANEL_H}"
        )
    draw = _SCREENS.get(ui.screen)
    if draw is None:
        raise ValueError(f"unknown screen {ui.screen!r}")
    if state is None and ui.screen in _GAME_SCREENS:
        raise ValueError(f"the {ui.screen} screen needs a game under way")
    at = Moment(t)
    frame = draw(state, ui, at, width, height)
    _draw_system(frame, ui, at)
    return frame, at.until


# --- the board layers ---------------------------------------------------------------------------


def board_frame(width: int = 32, height: int = 16) -> Frame:
    """The plain board, nothing on it: what the palette's LED check drives."""
    return _frame_from(board_bytes(width, height), width, height)


def _frame_from(base: bytes, width: int, height: int) -> Frame:
    return Frame(width, height, bytearray(base))


def _put_pawns(pixels: bytearray, width: int, pawns: tuple[Pawn, ...], colors: tuple[str, ...], lit: bool) -> None:
    for pawn in pawns:
        i = (pawn.cell.row * width + pawn.cell.col) * 3
        pixels[i : i + 3] = _INK_BYTES[colors[pawn.player]] if lit else _BLACK


@lru_cache(maxsize=1)
def _cursor_contrast() -> tuple[bytes, ...]:
    """Per cell, white or dark: whichever stands out more from its colour."""
    return tuple(_BLACK if srgb_to_oklab(rgb)[0] >= LIGHT_CELL else _WHITE for rgb in board_colors())


_FLICKER = (1.0 - CURSOR_LOOK) / FLICKERS  # one flicker step, as a share of the period


def cursor_mark(t: float) -> int:
    """0 while a cursor shows its cell's own look, 1 for its colour, 2 for the contrast."""
    phase = (t / CURSOR_S) % 1.0
    if phase < CURSOR_LOOK:
        return 0
    return 1 + min(int((phase - CURSOR_LOOK) / _FLICKER), FLICKERS - 1) % 2


def _cursor_mark(at: Moment) -> int:
    """`cursor_mark` at `at`: its look ends at CURSOR_LOOK of the period, then each flicker."""
    phase = (at.t / CURSOR_S) % 1.0
    if phase < CURSOR_LOOK:
        step = CURSOR_LOOK
    else:
        step = min(CURSOR_LOOK + (math.floor((phase - CURSOR_LOOK) / _FLICKER) + 1) * _FLICKER, 1.0)
    return at.holds(cursor_mark, at.t + (step - phase) * CURSOR_S)


def _refused_mark(at: Moment, since: float) -> int:
    """A refused cursor's mark: its colour (red) at once, then the contrast, and so on, each a
    flicker step from `since`, not waiting for the beat."""
    step_s = _FLICKER * CURSOR_S
    return 1 + at.whole(lambda t: (t - since) / step_s, 1 / step_s) % 2


def _draw_cursor(pixels: bytearray, width: int, player_color: str, cell: Cell, at: Moment,
                 refused: bool = False, refused_at: float = 0.0) -> None:
    """One cursor, `player_color`'s, on its own cell only (see the module docstring)."""
    mark = _refused_mark(at, refused_at) if refused else _cursor_mark(at)
    if mark == 0:
        return
    i = (cell.row * width + cell.col) * 3
    color = _RED if refused else _INK_BYTES[player_color]
    if mark == 2:
        contrast = _cursor_contrast()[cell.index]
        color = contrast if contrast != color else (_WHITE if contrast == _BLACK else _BLACK)
    pixels[i : i + 3] = color


def _draw_cursors(pixels: bytearray, width: int, ui: Ui, at: Moment, own_color: str | None) -> None:
    """The extra cursors (`Ui.remote_cursors`), then the panel's in the acting player's colour (`own_color`,
    None: no cursor of its own)."""
    for cursor in ui.remote_cursors:
        _draw_cursor(pixels, width, cursor.color, cursor.cell, at)
    if own_color is not None:
        refused = ui.refused == ui.cursor and at.within(ui.refused_at, REFUSED_S)
        _draw_cursor(pixels, width, own_color, ui.cursor, at, refused, ui.refused_at)


def _contrast(rgb: bytes) -> bytes:
    """Black on a light cell, white on a dark one."""
    return _BLACK if 299 * rgb[0] + 587 * rgb[1] + 114 * rgb[2] >= 140_000 else _WHITE


# --- the status columns -------------------------------------------------------------------------


@lru_cache(maxsize=16)
def _glyph(art: str, rgb: RGB) -> tuple[bytes, ...]:
    """2x5 art ("#" lit, "." dark) as five 6-byte rows; built once, not every frame."""
    return tuple(b"".join(bytes(rgb) if mark == "#" else _BLACK for mark in line) for line in art.split())


@lru_cache(maxsize=256)
def _status_rows(color: str, lit: bool, phase: str, lower: tuple[bytes, ...] | None) -> tuple[bytes, ...]:
    """The 16 rows (6 bytes each) of the status columns; `lower` the bottom five."""
    rgb = PAWN_COLORS[color]
    if rgb == BLACK:
        grey = screens.BLACK_INK if lit else tuple(v // 3 for v in screens.BLACK_INK)
        checker = (bytes(grey) + _BLACK, _BLACK + bytes(grey))
        top = [checker[y % 2] for y in range(4)]
    else:
        shown = rgb if lit else tuple(v // 4 for v in rgb)
        top = [bytes(shown) * 2] * 4
    art = _PHASE_GLYPHS.get(phase)
    glyph = [_BLACK * 2] * 5 if art is None else list(_glyph(art, _GLYPH_RGB))
    bottom = list(lower) if lower is not None else [_BLACK * 2] * 5
    return tuple(top + [_BLACK * 2] + glyph + [_BLACK * 2] + bottom)


def _draw_status(frame: Frame, state: GameState, ui: Ui, at: Moment, lower: tuple[bytes, ...] | None = None) -> None:
    _put_status(frame.pixels, frame.width, _status_now(state, at, lower))


def _status_now(state: GameState, at: Moment, lower: tuple[bytes, ...] | None) -> tuple[bytes, ...]:
    actor = current_player(state)  # nobody while the last pawn of a round waits to be let stand
    color = state.colors[state.giver if actor is None else actor]
    return _status_rows(color, actor is None or at.blink(ACT_HZ, PAWN_LIT), state.phase, lower)


def _put_status(pixels: bytearray, width: int, rows: tuple[bytes, ...], top: int = 0) -> None:
    """`rows` into the status columns, the first at row `top`."""
    for y, line in enumerate(rows, top):
        i = (y * width + STATUS_X) * 3
        pixels[i : i + 6] = line


@lru_cache(maxsize=32)
def _play_base(width: int, height: int, pawns: tuple[Pawn, ...], colors: tuple[str, ...], lit: bool,
               status: tuple[bytes, ...]) -> bytes:
    """The play screen under its cursors: the board, the pawns (lit or dark) and the status
    columns. A still screen goes round two or three of these, so a frame is a copy and a cursor."""
    pixels = bytearray(board_bytes(width, height))
    _put_pawns(pixels, width, pawns, colors, lit)
    _put_status(pixels, width, status)
    return bytes(pixels)


@lru_cache(maxsize=None)
def _loupe(cell: Cell) -> tuple[bytes, ...]:
    """The colour under the cursor, big enough to compare with the cells around it (one per cell,
    built once: the frame loop asks for it 60 times a second)."""
    return (bytes(board_colors()[cell.index]) * 2,) * 5


_BEAT_SCREENS = ("play", "secret")  # the screens whose pawns, cursors or swatches keep the beat


def _shows_clue(ui: Ui, at: Moment) -> bool:
    """`Ui.shows_clue` at `at`: the board comes back at `Ui.clue_ends`, on the beat."""
    if not ui.clue_screen:
        return False
    ends = ui.clue_ends()
    return at.holds(ui.shows_clue, ui.since if at.t < ui.since else ends if at.t < ends else math.inf)


def _draw_system(frame: Frame, ui: Ui, at: Moment) -> None:
    """What the host must see on any screen: the shutdown hold and a store outage. The outage's
    dot blinks on the beat where the screen keeps it, and is steady elsewhere: a blink of its own
    would wake the box twice a second more on a still screen (a menu, the idle board), and on a
    screen that keeps time from when it opened (set-up, the reveal, the tie-break, the game over)
    its edges fell between the screen's own: 47 wake-ups in 12 s where the screen makes 23."""
    if ui.hold_progress > 0:
        filled = math.ceil(min(1.0, ui.hold_progress) * screens.PANEL_H)
        fill_rect(frame, STATUS_X, 0, 2, screens.PANEL_H - filled, HOLD_OFF)
        fill_rect(frame, STATUS_X, screens.PANEL_H - filled, 2, filled, HOLD_ON)
    on_beat = ui.screen in _BEAT_SCREENS and not _shows_clue(ui, at)
    if (ui.disk_full or not ui.store_online) and (not on_beat or at.blink(ACT_HZ, PAWN_LIT)):
        frame.set(STATUS_X + 1, screens.PANEL_H - 1, DISK_FULL if ui.disk_full else AMBER)


# --- the board screens --------------------------------------------------------------------------


def _idle(state: GameState | None, ui: Ui, at: Moment, width: int, height: int) -> Frame:
    """The board, still but for a glint crossing it every 20 s (`boards`); the last winners'
    colours in the status columns."""
    frame = _frame_from(idle_bytes(width, height, glint_at(at)), width, height)
    for i, color in enumerate(ui.last_winners[: (screens.PANEL_H + 1) // 4]):
        swatch(frame, STATUS_X, 4 * i, 2, 3, color)
    if ui.room_code:
        screens.room_code(frame, ROOM_CODE_Y, ui.room_code)
    return frame


def shows_secret(ui: Ui) -> bool:
    """Whether the frame for `ui` draws the round's secret: the secret screen of a round dealt
    to the panel, the one place the renderer draws the card and the giver's pointing."""
    return ui.screen == "secret" and ui.seating.secret == PANEL


def _secret(state: GameState, ui: Ui, at: Moment, width: int, height: int) -> Frame:
    """The giver picks the target: in the cards variant the card's four cells blink on a dimmed
    board and the chosen one holds still under the cursor; in the free variant, any cell. For
    anyone but the panel's own round (`shows_secret`), what the room sees meanwhile: the hand-off."""
    if not shows_secret(ui):
        return _SCREENS["handoff"](state, replace(ui, armed_at=-1.0), at, width, height)
    cells = state.card_cells
    giver = state.colors[state.giver]
    if state.variant == "cards" and cells:
        frame = _frame_from(dim_bytes(width, height), width, height)
        base, pixels = board_bytes(width, height), frame.pixels
        chosen = cells[ui.card_choice % len(cells)]
        lit = at.blink(ACT_HZ, PAWN_LIT)  # on the beat the cursor and the status columns keep
        for cell in cells:
            if lit or cell == chosen:
                i = (cell.row * width + cell.col) * 3
                pixels[i : i + 3] = base[i : i + 3]
    else:
        frame = _frame_from(board_bytes(width, height), width, height)
        chosen = ui.cursor
    _draw_cursor(frame.pixels, width, giver, chosen, at)
    _draw_status(frame, state, ui, at, _loupe(chosen))
    return frame


def _play(state: GameState, ui: Ui, at: Moment, width: int, height: int) -> Frame:
    """Clues and guesses: the whole board with its pawns; while guessing the cursor and, in the
    status columns, the loupe; in the second clue the giver's choice, C or P. A clue written on
    the giver's phone first fills the panel with its words, before anyone places a pawn."""
    if _shows_clue(ui, at):
        frame = Frame(width, height)
        screens.clue(frame, state, ui, at)
        return frame
    parts = _play_parts(state, ui, width, height)
    beat = parts.asks_beat and at.blink(ACT_HZ, PAWN_LIT)  # the pawns' and the swatch's one beat
    frame = _frame_from(parts.bases[beat], width, height)
    if ui.remote_cursors or parts.cursor_color is not None:
        _draw_cursors(frame.pixels, width, ui, at, parts.cursor_color)
    return frame


class _PlayParts:
    """What the play screen draws from one state and Ui, whatever the time: its two bases (the
    beat dark, lit: the board, the pawns and the status columns with the loupe, the colour under
    the cursor, or the second clue's choice in their lower rows) and the panel cursor's colour
    (None: no cursor of its own)."""

    __slots__ = ("state", "ui", "size", "asks_beat", "bases", "cursor_color")

    def __init__(self, state: GameState, ui: Ui, width: int, height: int) -> None:
        self.state, self.ui, self.size = state, ui, (width, height)
        phase = state.phase
        guessing = phase in ("guess1", "guess2")
        actor = current_player(state)  # nobody while the last pawn of a round waits to be let stand
        # The beat is asked only when something follows it (no wake-ups for a blink nobody sees):
        # pawns (a pending pawn is in the record) or the acting player's swatch.
        self.asks_beat = bool(state.pawns) or actor is not None
        color = state.colors[state.giver if actor is None else actor]
        lower = _loupe(ui.cursor) if guessing else _glyph(_CHOICE_GLYPHS[ui.choice], WHITE) if phase == "clue2" else None
        self.bases = tuple(
            _play_base(width, height, state.pawns, state.colors, bool(state.pawns) and lit,
                       _status_rows(color, actor is None or lit, phase, lower))
            for lit in (False, True))
        self.cursor_color = state.colors[actor] if guessing and actor is not None else None


_play_kept: list[_PlayParts | None] = [None]  # the last state's: a still screen draws from one for many frames


def _play_parts(state: GameState, ui: Ui, width: int, height: int) -> _PlayParts:
    """The parts for `state` and `ui`, worked out once for them (they are immutable: the same
    objects, the same parts)."""
    kept = _play_kept[0]
    if kept is None or kept.state is not state or kept.ui is not ui or kept.size != (width, height):
        kept = _play_kept[0] = _PlayParts(state, ui, width, height)
    return kept


def _reveal(state: GameState, ui: Ui, at: Moment, width: int, height: int) -> Frame:
    stage = screens.reveal_stage(ui, at)
    if stage == "frame":
        return _reveal_frame(state, ui, at, width, height)
    frame = Frame(width, height)
    {"clues": screens.reveal_clues, "points": screens.points, "scores": screens.scores}[stage](frame, state, ui, at)
    return frame


def _reveal_frame(state: GameState, ui: Ui, at: Moment, width: int, height: int) -> Frame:
    """The scoring frame: the ring of cells 2 from the target (where the physical frame lies)
    flashes with the pawns, so the room sees at once which pawns lie inside it; the target
    blinks twice as fast. All from when the frame opened (`ui.since`), not on the play
    screens' beat: one set of edges."""
    frame = _frame_from(board_bytes(width, height), width, height)
    base, pixels = board_bytes(width, height), frame.pixels
    target = state.target_revealed
    lit = (target is not None or bool(state.pawns)) and at.blink(RING_HZ, since=ui.since)
    if target is not None:
        if lit:
            for cell in cells_within(target, 2):
                if distance(cell, target) == 2:
                    i = (cell.row * width + cell.col) * 3
                    pixels[i : i + 3] = _contrast(base[i : i + 3])
        if at.blink(TARGET_HZ, since=ui.since):
            i = (target.row * width + target.col) * 3
            pixels[i : i + 3] = _contrast(base[i : i + 3])
    _put_pawns(pixels, width, state.pawns, state.colors, lit)
    _draw_status(frame, state, ui, at)
    return frame


def _full_canvas(draw):
    """A screen of `screens`, drawn on a black canvas."""

    def render_screen(state: GameState | None, ui: Ui, at: Moment, width: int, height: int) -> Frame:
        frame = Frame(width, height)
        draw(frame, state, ui, at)
        return frame

    return render_screen


_SCREENS = {
    "idle": _idle,
    "resume": _full_canvas(screens.resume),
    "setup": _full_canvas(screens.setup),
    "handoff": _full_canvas(screens.handoff),
    "secret": _secret,
    "play": _play,
    "reveal": _reveal,
    "tiebreak": _full_canvas(screens.tiebreak),
    "game_over": _full_canvas(screens.game_over),
    "brightness": _full_canvas(screens.brightness),
    "host": _full_canvas(screens.host),
    "confirm": _full_canvas(screens.confirm),
}

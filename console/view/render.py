"""The renderer: game state, UI state and time to a Frame, as a pure function.

The app redraws at its frame rate, so the board screens start from a cached copy of the plain
board's bytes (built once per canvas size) and overlay only what changes: pawns, the cursor, the
status columns. A busy mid-game frame is a bytearray copy and a few dozen slice assignments.
Every animation is a function of `t` (and of `ui.since`, when the screen started), so the same
inputs always give the same frame and tests need no clock.

The board takes columns 0-29 and rows 0-15 (cell (row, col) at x = col, y = row); larger
canvases keep it at the top left with the rest black. The status columns, x 30-31:

    rows 0-5    the colour of the player who must act, blinking while they must (during a
                pending pawn, the next player's); steady, the cue giver's, during the reveal
    rows 7-11   the phase as a 2x5 glyph:

                choose   clue 1   guess 1   clue 2    guess 2   reveal
                target                      or pass
                  #.       ..       ..        ..        ##        ##
                  .#       ..       ##        ##        ##        ##
                  #.       ##       ##        ..        ..        ##
                  .#       ..       ..        ##        ##        ..
                  #.       ..       ..        ..        ##        ##

                a checker for the hidden choice, bars for clues and squares for pawns (one
                or two: the first or the second), "!" for the reveal
    row 15      x 31 blinks amber while the record store is offline (on every screen)

While the shutdown button is held both columns become a red bar filling from the bottom, on
every screen, so the host sees the hold counting.
"""

from __future__ import annotations

import math
from functools import lru_cache

from console.view import font
from console.view import screens
from console.game.board import COLS, ROWS, Cell, cells_within, distance
from console.view.palette import PAWN_COLORS, board_colors
from console.game.rules import GameState, Pawn, current_player
from console.view.screens import WHITE, blink, fill_rect, ink, swatch
from console.view.ui import Ui, acting_player
from hal.frame import BLACK, RGB, Frame

PAWN_HZ = 1.5  # pawns: the player's colour, then the cell's, in each period
CURSOR_HZ = 4.0  # the crosshair's arms swap white and black
ACT_HZ = 2.0  # the acting player's swatch in the status columns
CARD_HZ = 2.0  # the card's cells on the secret screen
REFUSED_S = 0.6  # how long the red "no" cross stays
RING_HZ, TARGET_HZ = 2.0, 3.0  # the reveal: the scoring ring flashes, the target blinks faster
WARN_HZ = 2.0
IDLE_WAVE_S = 8.0  # one brightness wave across the idle board
IDLE_STEPS = 64  # cached frames per wave
CLUE_BANNER_S, CLUE_BANNER_EVERY_S = 2.5, 8.0  # the CLUE banner shows that long, that often
STATUS_X = COLS
AMBER: RGB = (255, 180, 0)
UNCHOSEN_ON_BOARD: RGB = (140, 140, 140)  # legible on the dimmed board, still well below white
HOLD_ON: RGB = (255, 0, 0)
HOLD_OFF: RGB = (40, 0, 0)

_WHITE, _BLACK, _RED = bytes(WHITE), bytes(BLACK), bytes((255, 0, 0))
_PAWN_BYTES = {name: bytes(rgb) for name, rgb in PAWN_COLORS.items()}
_GLYPH_RGB: RGB = (200, 200, 200)
_PHASE_GLYPHS = {
    "choose_target": "#. .# #. .# #.",
    "clue1": ".. .. ## .. ..",
    "guess1": ".. ## ## .. ..",
    "clue2": ".. ## .. ## ..",
    "guess2": "## ## .. ## ##",
    "round_over": "## ## ## .. ##",
}
_GAME_SCREENS = ("handoff", "secret", "play", "reveal", "tiebreak", "game_over")


class CanvasError(ValueError):
    """A canvas too small to hold the board and its status columns."""


def render(state: GameState | None, ui: Ui, t: float, width: int = 32, height: int = 16) -> Frame:
    """The frame for `state` and `ui` at time t (seconds on the app's clock)."""
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
    frame = draw(state, ui, t, width, height)
    _draw_system(frame, ui, t)
    return frame


# --- the board layers ---------------------------------------------------------------------------


def board_frame(width: int = 32, height: int = 16) -> Frame:
    """The plain board, nothing on it: what the palette's LED check drives."""
    return _frame_from(_board_bytes(width, height), width, height)


@lru_cache(maxsize=8)
def _board_bytes(width: int, height: int) -> bytes:
    """The plain board at the top left of a black width x height canvas."""
    pixels = bytearray(width * height * 3)
    colors = board_colors()
    for row in range(ROWS):
        line = b"".join(bytes(colors[row * COLS + col]) for col in range(COLS))
        i = row * width * 3
        pixels[i : i + len(line)] = line
    return bytes(pixels)


@lru_cache(maxsize=8)
def _dim_bytes(width: int, height: int) -> bytes:
    """The board at a quarter of its brightness: the backdrop of menus and the secret card."""
    return _board_bytes(width, height).translate(bytes(v // 4 for v in range(256)))


@lru_cache(maxsize=2 * IDLE_STEPS)
def _idle_bytes(width: int, height: int, step: int) -> bytes:
    """The board under a soft diagonal brightness wave, `step` of IDLE_STEPS along its period."""
    pixels = bytearray(_board_bytes(width, height))
    phase = 2 * math.pi * step / IDLE_STEPS
    for row in range(ROWS):
        for col in range(COLS):
            level = 0.55 + 0.45 * (0.5 + 0.5 * math.cos(2 * math.pi * (col + 2 * row) / COLS - phase))
            i = (row * width + col) * 3
            pixels[i : i + 3] = bytes(round(v * level) for v in pixels[i : i + 3])
    return bytes(pixels)


def _frame_from(base: bytes, width: int, height: int) -> Frame:
    return Frame(width, height, bytearray(base))


def _draw_pawns(pixels: bytearray, width: int, pawns: tuple[Pawn, ...], colors: tuple[str, ...], t: float) -> None:
    """Every pawn in its player's colour in the first half of each blink (the cell shows otherwise)."""
    if not blink(t, PAWN_HZ):
        return
    for pawn in pawns:
        i = (pawn.cell.row * width + pawn.cell.col) * 3
        pixels[i : i + 3] = _PAWN_BYTES[colors[pawn.player]]


def _draw_cursor(pixels: bytearray, width: int, cell: Cell, t: float, ink: bytes = _WHITE) -> None:
    """A crosshair on the four cells beside `cell`: the vertical arms white (or a phone guesser's
    colour) while the horizontal ones are black, swapping quickly, so some arm stands out on any
    colour. The centre keeps its own colour: the player sees what they point at."""
    vertical, horizontal = (ink, _BLACK) if blink(t, CURSOR_HZ) else (_BLACK, ink)
    for dr, dc, rgb in ((-1, 0, vertical), (1, 0, vertical), (0, -1, horizontal), (0, 1, horizontal)):
        row, col = cell.row + dr, cell.col + dc
        if 0 <= row < ROWS and 0 <= col < COLS:
            i = (row * width + col) * 3
            pixels[i : i + 3] = rgb


def _draw_refused(pixels: bytearray, width: int, ui: Ui, t: float) -> None:
    """A red X over an occupied cell the player tried to take, for REFUSED_S."""
    if ui.refused is None or not 0 <= t - ui.refused_at < REFUSED_S:
        return
    for dr, dc in ((0, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)):
        row, col = ui.refused.row + dr, ui.refused.col + dc
        if 0 <= row < ROWS and 0 <= col < COLS:
            i = (row * width + col) * 3
            pixels[i : i + 3] = _RED


def _contrast(rgb: bytes) -> bytes:
    """Black on a light cell, white on a dark one."""
    return _BLACK if 299 * rgb[0] + 587 * rgb[1] + 114 * rgb[2] >= 140_000 else _WHITE


# --- the status columns -------------------------------------------------------------------------


@lru_cache(maxsize=128)
def _status_rows(color: str, lit: bool, phase: str) -> tuple[bytes, ...]:
    """The 16 rows (6 bytes each) of the status columns."""
    rgb = PAWN_COLORS[color]
    if rgb == BLACK:
        grey = screens.BLACK_INK if lit else tuple(v // 3 for v in screens.BLACK_INK)
        checker = (bytes(grey) + _BLACK, _BLACK + bytes(grey))
        top = [checker[y % 2] for y in range(6)]
    else:
        shown = rgb if lit else tuple(v // 4 for v in rgb)
        top = [bytes(shown) * 2] * 6
    art = _PHASE_GLYPHS.get(phase)
    glyph = [_BLACK * 2] * 5 if art is None else [
        b"".join(bytes(_GLYPH_RGB) if mark == "#" else _BLACK for mark in line) for line in art.split()
    ]
    return tuple(top + [_BLACK * 2] + glyph + [_BLACK * 2] * 4)


def _draw_status(frame: Frame, state: GameState, ui: Ui, t: float) -> None:
    actor = acting_player(state, ui)
    color = state.colors[state.giver if actor is None else actor]
    rows = _status_rows(color, actor is None or blink(t, ACT_HZ, 0.7), state.phase)
    pixels, width = frame.pixels, frame.width
    for y, line in enumerate(rows):
        i = (y * width + STATUS_X) * 3
        pixels[i : i + 6] = line


def _draw_system(frame: Frame, ui: Ui, t: float) -> None:
    """What the host must see on any screen: the shutdown hold and a store outage."""
    if ui.hold_progress > 0:
        filled = math.ceil(min(1.0, ui.hold_progress) * screens.PANEL_H)
        fill_rect(frame, STATUS_X, 0, 2, screens.PANEL_H - filled, HOLD_OFF)
        fill_rect(frame, STATUS_X, screens.PANEL_H - filled, 2, filled, HOLD_ON)
    if not ui.store_online and blink(t, WARN_HZ):
        frame.set(STATUS_X + 1, screens.PANEL_H - 1, AMBER)


# --- the board screens --------------------------------------------------------------------------


def _idle(state: GameState | None, ui: Ui, t: float, width: int, height: int) -> Frame:
    """The board breathing under a slow wave; the last winners' colours in the status columns."""
    step = int(t / IDLE_WAVE_S * IDLE_STEPS) % IDLE_STEPS
    frame = _frame_from(_idle_bytes(width, height, step), width, height)
    for i, color in enumerate(ui.last_winners[: (screens.PANEL_H + 1) // 4]):
        swatch(frame, STATUS_X, 4 * i, 2, 3, color)
    if ui.room_code:
        screens.room_code(frame, 10, ui.room_code)
    return frame


def _secret(state: GameState, ui: Ui, t: float, width: int, height: int) -> Frame:
    """The giver picks the target: in the cards variant the card's four cells blink on a dimmed
    board and the chosen one holds still under the cursor; in the free variant, any cell."""
    cells = state.card_cells
    if state.variant == "cards" and cells:
        frame = _frame_from(_dim_bytes(width, height), width, height)
        base, pixels = _board_bytes(width, height), frame.pixels
        chosen = cells[ui.card_choice % len(cells)]
        lit = blink(t, CARD_HZ, 0.6)
        for cell in cells:
            if lit or cell == chosen:
                i = (cell.row * width + cell.col) * 3
                pixels[i : i + 3] = base[i : i + 3]
        _draw_cursor(pixels, width, chosen, t)
    else:
        frame = _frame_from(_board_bytes(width, height), width, height)
        _draw_cursor(frame.pixels, width, ui.cursor, t)
    _draw_status(frame, state, ui, t)
    return frame


def _play(state: GameState, ui: Ui, t: float, width: int, height: int) -> Frame:
    """Clues and guesses: the board and the pawns; the cursor while guessing; a CLUE banner in
    the giver's colour now and then during the first clue; CLUE / PASS over a dimmed board
    during the second."""
    phase = state.phase
    base = _dim_bytes(width, height) if phase == "clue2" else _board_bytes(width, height)
    frame = _frame_from(base, width, height)
    pixels = frame.pixels
    pawns = state.pawns if ui.pending is None else state.pawns + (ui.pending,)
    _draw_pawns(pixels, width, pawns, state.colors, t)
    if phase in ("guess1", "guess2"):
        guesser = current_player(state)
        by_phone = Pawn(guesser, ui.cursor) in ui.cursors  # a phone moved it: the guesser's colour
        _draw_cursor(pixels, width, ui.cursor, t, bytes(ink(state.colors[guesser])) if by_phone else _WHITE)
        _draw_refused(pixels, width, ui, t)
    elif phase == "clue1" and (t - ui.since) % CLUE_BANNER_EVERY_S < CLUE_BANNER_S:
        _clue_banner(frame, ink(state.colors[state.giver]))
    elif phase == "clue2":
        _clue_or_pass(frame, ui.choice)
    _draw_status(frame, state, ui, t)
    return frame


def _clue_banner(frame: Frame, rgb: RGB) -> None:
    fill_rect(frame, 5, 3, 19, 9, rgb)
    fill_rect(frame, 6, 4, 17, 7, BLACK)
    font.draw_text(frame, 7, 5, "CLUE", rgb)


def _clue_or_pass(frame: Frame, choice: int) -> None:
    """Two stacked choices, the chosen one white behind a pointer."""
    for i, (word, y) in enumerate((("CLUE", 2), ("PASS", 9))):
        x = (COLS - font.text_width(word)) // 2
        chosen = choice == i
        font.draw_text(frame, x, y, word, WHITE if chosen else UNCHOSEN_ON_BOARD)
        if chosen:
            fill_rect(frame, x - 4, y + 1, 1, 3, WHITE)
            frame.set(x - 3, y + 2, WHITE)


def _reveal(state: GameState, ui: Ui, t: float, width: int, height: int) -> Frame:
    stage = ui.reveal_stage(t)
    if stage == "frame":
        return _reveal_frame(state, ui, t, width, height)
    frame = Frame(width, height)
    (screens.points if stage == "points" else screens.scores)(frame, state, ui, t)
    return frame


def _reveal_frame(state: GameState, ui: Ui, t: float, width: int, height: int) -> Frame:
    """The scoring frame: the ring of cells 2 from the target (where the physical frame lies)
    flashes, the target blinks, the pawns stay on the board."""
    frame = _frame_from(_board_bytes(width, height), width, height)
    base, pixels = _board_bytes(width, height), frame.pixels
    target = state.target_revealed
    if target is not None:
        since = t - ui.since
        if blink(since, RING_HZ, 0.6):
            for cell in cells_within(target, 2):
                if distance(cell, target) == 2:
                    i = (cell.row * width + cell.col) * 3
                    pixels[i : i + 3] = _contrast(base[i : i + 3])
        if blink(since, TARGET_HZ):
            i = (target.row * width + target.col) * 3
            pixels[i : i + 3] = _contrast(base[i : i + 3])
    _draw_pawns(pixels, width, state.pawns, state.colors, t)
    _draw_status(frame, state, ui, t)
    return frame


def _full_canvas(draw):
    """A screen of `screens`, drawn on a black canvas."""

    def render_screen(state: GameState | None, ui: Ui, t: float, width: int, height: int) -> Frame:
        frame = Frame(width, height)
        draw(frame, state, ui, t)
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
}


# --- the one-line hint --------------------------------------------------------------------------


def describe(state: GameState | None, ui: Ui) -> str:
    """What the panel asks for, in words: for the terminal simulator's status line and the logs."""
    text = _hint(state, ui)
    if not ui.store_online:
        text += " [the record store is offline: moves are kept and saved when it is back]"
    return text


def _name(state: GameState, player: int) -> str:
    return state.colors[player].capitalize()


def _names(state: GameState, players: tuple[int, ...]) -> str:
    names = [_name(state, p) for p in players]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _hint(state: GameState | None, ui: Ui) -> str:
    screen = ui.screen
    if screen == "idle":
        last = f" Last winner: {' and '.join(c.capitalize() for c in ui.last_winners)}." if ui.last_winners else ""
        return f"Press Start for a new game (B: brightness).{last}"
    if screen == "brightness":
        return f"Brightness {round(ui.brightness * 100)}% (up/down changes it, A or B goes back)"
    if screen == "resume":
        pick = "resume it" if ui.choice == 0 else "start a new one"
        return f"An unfinished game is waiting: {pick}? (left/right switches, A confirms)"
    if screen == "setup":
        return _setup_hint(ui)
    giver = _name(state, state.giver)
    if screen == "handoff":
        return f"Pass the controls to {giver}, everyone else look away (A when ready)"
    if screen == "secret":
        where = "one of your card's 4 cells" if state.variant == "cards" else "any cell"
        return f"{giver}: choose the target, {where} (joystick moves, A picks, B hides)"
    if screen == "play":
        return _play_hint(state, ui, giver)
    if screen == "reveal":
        return f"Round {state.round} scored: the target was {state.target_revealed} (A moves on)"
    if screen == "tiebreak":
        return f"Tie between {_names(state, state.tied)}: a tie-break round (A goes on)"
    if screen == "game_over":
        verb = "wins" if len(state.winners) == 1 else "win"
        best = max(state.scores)
        return f"{_names(state, state.winners)} {verb} with {best} points (A or Start to finish)"
    raise ValueError(f"unknown screen {screen!r}")


def _setup_hint(ui: Ui) -> str:
    s = ui.setup
    keys = "(left/right changes, A next, B back)"
    if s.item == 0:
        return f"Set-up: {s.players} players {keys}"
    if s.item == 1:
        rule = "targets from a drawn card" if s.variant == "cards" else "any cell can be the target"
        return f"Set-up: {s.variant} variant, {rule} {keys}"
    if s.item == 2:
        first = "a random player" if s.first_giver is None else ui.colors[s.first_giver].capitalize()
        return f"Set-up: {first} gives the first cue {keys}"
    return "Set-up: press A to start the game (B back)"


def _play_hint(state: GameState, ui: Ui, giver: str) -> str:
    phase = state.phase
    if phase == "clue1":
        return f"{giver}: give your first clue, one word, then press A"
    if phase == "clue2":
        pick = "CLUE" if ui.choice == 0 else "PASS"
        return f"{giver}: give a second clue of up to two words, or pass ({pick} chosen, A confirms)"
    if phase not in ("guess1", "guess2"):
        raise ValueError(f"the play screen has nothing to ask for in the {phase} phase")
    which = "first" if phase == "guess1" else "second"
    if ui.pending is None:
        return f"{_name(state, current_player(state))}: place your {which} pawn (A places, B takes back)"
    placed = f"{_name(state, ui.pending.player)} placed a pawn on {ui.pending.cell} (B takes it back)"
    nxt = _actor(state, ui)
    if nxt is None:
        return f"{placed}; any other button reveals the target"
    if len(state.to_place) > 1:
        return f"{placed}; {_name(state, nxt)}: place your {which} pawn"
    return f"{placed}; any other button goes on to {_name(state, nxt)}'s second clue"

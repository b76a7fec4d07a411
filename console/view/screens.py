"""The full-canvas screens: everything the panel shows when it is not showing the board.

Each screen draws onto a black frame in the 32 x 16 area at the top left (larger canvases keep
the rest black, like the board screens), from the game state, the UI state and the time only.
They are drawn for a table of people a metre or two away: few words, big colour swatches, one
thing changing at a time. `render.render` picks the screen; these functions only draw.

A player is shown by their pawn colour. Black cannot be lit, so a black player's swatch is a
grey checkerboard and black text or icons are drawn in grey (`ink`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from console.view import font
from console.view.moment import Moment
from console.view.palette import PAWN_COLORS
from console.game import rules
from console.game.rules import Clue, GameState
from console.game.seating import is_computer
from console.view.ui import HANDOFF_ARM_S, HOST_ITEMS, HOST_MENU, SCOREBOARD_PAGE_S, SETUP_ITEMS, Ui
from hal.frame import BLACK, RGB, Frame

PANEL_W, PANEL_H = 32, 16
WHITE: RGB = (255, 255, 255)
GREY: RGB = (90, 90, 90)  # labels, choices not taken, the other page dots
BLACK_INK: RGB = (100, 100, 100)  # a black player, who cannot be lit
FAINT: RGB = (22, 22, 22)
GOLD: RGB = (255, 170, 0)
GREEN: RGB = (0, 220, 0)


def reveal_stage(ui: Ui, at: Moment) -> str:
    """`Ui.reveal_stage` at `at`: it moves on where each stage starts."""
    return at.stage(ui.reveal_stage, *(ui.since + ui.reveal_at(stage) for stage in ("clues", "points", "scores")))


def ink(color: str) -> RGB:
    """The colour to draw a player's text or icon in (grey for black, which cannot be lit)."""
    rgb = PAWN_COLORS[color]
    return BLACK_INK if rgb == BLACK else rgb


def fill_rect(frame: Frame, x: int, y: int, w: int, h: int, rgb: RGB) -> None:
    """A solid rectangle, clipped to the frame."""
    x0, x1 = max(0, x), min(frame.width, x + w)
    if x0 >= x1:
        return
    row = bytes(rgb) * (x1 - x0)
    px = frame.pixels
    for yy in range(max(0, y), min(frame.height, y + h)):
        i = (yy * frame.width + x0) * 3
        px[i : i + len(row)] = row


def swatch(frame: Frame, x: int, y: int, w: int, h: int, color: str) -> None:
    """A block of a player's colour; a black player's is a grey checkerboard."""
    rgb = PAWN_COLORS[color]
    if rgb != BLACK:
        fill_rect(frame, x, y, w, h, rgb)
        return
    for yy in range(max(0, y), min(frame.height, y + h)):
        for xx in range(max(0, x), min(frame.width, x + w)):
            frame.set(xx, yy, BLACK_INK if (xx + yy) % 2 == 0 else BLACK)


def centred_text(frame: Frame, y: int, text: str, rgb: RGB, x0: int = 0, w: int = PANEL_W) -> None:
    font.draw_text(frame, x0 + (w - font.text_width(text)) // 2, y, text, rgb)


def _arrows(frame: Frame, y: int, rgb: RGB) -> None:
    """Small left and right pointers at the panel's sides: left/right changes this value."""
    for dy, xs in ((0, (1,)), (1, (0, 1)), (2, (1,))):
        for dx in xs:
            frame.set(dx, y + dy, rgb)
            frame.set(PANEL_W - 1 - dx, y + dy, rgb)


def _page_dots(frame: Frame, y: int, count: int, current: int) -> None:
    """`count` dots centred on row y, the current one white: where in a sequence we are."""
    if count < 2:
        return
    x = (PANEL_W - (2 * count - 1)) // 2
    for i in range(count):
        frame.set(x + 2 * i, y, WHITE if i == current else GREY)


# --- start-up screens ---------------------------------------------------------------------------


def resume(frame: Frame, state: GameState | None, ui: Ui, at: Moment) -> None:
    """RESUME? over two choices, GO (0: carry on) and NEW (1: a new game); the chosen one lit."""
    _question(frame, "RESUME?", ("GO", "NEW"), ui.choice)


def _question(frame: Frame, question: str, words: tuple[str, str], choice: int) -> None:
    centred_text(frame, 1, question, WHITE)
    for i, word in enumerate(words):
        x0 = i * PANEL_W // 2
        chosen = choice == i
        centred_text(frame, 8, word, WHITE if chosen else GREY, x0, PANEL_W // 2)
        if chosen:
            width = font.text_width(word) + 2
            fill_rect(frame, x0 + (PANEL_W // 2 - width) // 2, 14, width, 1, GOLD)


_SETUP_LABELS = {"players": "PLAYERS", "computers": "BOTS", "level": "LEVEL", "lang": "LANG", "variant": "MODE",
                 "first_giver": "FIRST", "start": "READY"}
_LEVEL_WORDS = {"child": "KID", "expert": "PRO"}


def setup(frame: Frame, state: GameState | None, ui: Ui, at: Moment) -> None:
    """One set-up item at a time: its label, its value between left/right pointers, and a row of
    dots saying which of the items this is. With phones on, the room code stands in the label's
    place for the whole set-up (the value and the dots still say which item it is): guests join
    while the host chooses."""
    s = ui.setup
    item = SETUP_ITEMS[s.item]
    if ui.room_code:
        room_code(frame, 0, ui.room_code)
    else:
        centred_text(frame, 0, _SETUP_LABELS[item], GREY)
    if item in ("players", "computers"):
        centred_text(frame, 6, str(s.players if item == "players" else s.computers), WHITE)
        x = (PANEL_W - (3 * s.players - 1)) // 2
        computers = ui.seating.computer_seats(s.players, s.computers)
        for i, color in enumerate(ui.colors[: s.players]):
            swatch(frame, x + 3 * i, 12, 2, 2, color)
            if i in computers:  # a white bar on a computer player's seat
                fill_rect(frame, x + 3 * i, 11, 2, 1, WHITE)
    elif item == "level":
        centred_text(frame, 7, _LEVEL_WORDS[s.level], WHITE)
    elif item == "lang":
        centred_text(frame, 7, s.lang.upper(), WHITE)
    elif item == "variant":
        centred_text(frame, 7, "CARDS" if s.variant == "cards" else "FREE", WHITE)
    elif item == "first_giver":
        if s.first_giver is None:
            centred_text(frame, 7, "RND", WHITE)
        else:
            swatch(frame, PANEL_W // 2 - 4, 6, 8, 6, ui.colors[s.first_giver])
    else:
        centred_text(frame, 7, "GO", GREEN if at.blink(1.0, 0.7, since=ui.since) else WHITE)
    if item != "start":
        _arrows(frame, 8, GREY)
    _page_dots(frame, 15, len(SETUP_ITEMS), s.item)


def room_code(frame: Frame, y: int, code: str) -> None:
    """The code phones type to join: gold text at row y on a black box (clipped at the top), centred
    over the board's 30 columns."""
    hide_room_code(frame, y, code)
    centred_text(frame, y, code, GOLD, 0, 30)


def hide_room_code(frame: Frame, y: int, code: str) -> None:
    """The room code's black box, without the code: what a view for those not at the table shows."""
    width = font.text_width(code) + 2
    fill_rect(frame, (30 - width) // 2, y - 1, width, font.GLYPH_HEIGHT + 2, BLACK)


# --- a round's screens --------------------------------------------------------------------------


def handoff(frame: Frame, state: GameState, ui: Ui, at: Moment) -> None:
    """LOOK AWAY beside the giver's colour; after the first A, a blinking A in the colour asks
    for the second. A giver with a phone chooses there: a phone in their colour, its dots
    running, and nobody needs to look away; so for a computer player (BOT)."""
    if is_computer(ui.seating.secret):
        _computer_choosing(frame, state, at)
        return
    if ui.giver_on_phone(state):
        _phone_choosing(frame, state, at)
        return
    centred_text(frame, 2, "LOOK", WHITE, 0, 17)
    centred_text(frame, 9, "AWAY", WHITE, 0, 17)
    color = state.colors[state.giver]
    swatch(frame, 19, 2, 11, 12, color)
    armed = at.stage(ui.handoff_armed, ui.armed_at, ui.armed_at + HANDOFF_ARM_S)
    if armed and at.blink(2.0, 0.7, since=ui.armed_at):
        fill_rect(frame, 22, 4, 5, 8, BLACK)
        font.draw_text(frame, 23, 6, "A", ink(color))


def _computer_choosing(frame: Frame, state: GameState, at: Moment) -> None:
    """BOT beside the giver's colour, three dots filling in turn under it: a computer player
    chooses, and nobody needs to look away."""
    centred_text(frame, 2, "BOT", WHITE, 0, 17)
    swatch(frame, 19, 2, 11, 12, state.colors[state.giver])
    _thinking_dots(frame, 2, 11, at)


def _thinking_dots(frame: Frame, x: int, y: int, at: Moment) -> None:
    lit = at.whole(lambda t: t * 2, 2.0) % 4  # 0..3 dots, two steps a second
    for i in range(3):
        fill_rect(frame, x + 5 * i, y, 3, 3, WHITE if i < lit else FAINT)


def _phone_choosing(frame: Frame, state: GameState, at: Moment) -> None:
    """A phone (white outline, its screen in the giver's colour) and three dots filling in turn."""
    fill_rect(frame, 3, 1, 9, 14, WHITE)
    fill_rect(frame, 4, 2, 7, 10, BLACK)
    swatch(frame, 5, 3, 5, 8, state.colors[state.giver])
    fill_rect(frame, 6, 13, 3, 1, BLACK)  # the home button
    _thinking_dots(frame, 15, 7, at)


def tiebreak(frame: Frame, state: GameState, ui: Ui, at: Moment) -> None:
    """TIE and, below it, the colours of the players who play it off."""
    centred_text(frame, 1, "TIE", GOLD if at.blink(1.0, 0.7, since=ui.since) else WHITE)
    tied = state.tied
    x = (PANEL_W - (3 * len(tied) - 1)) // 2
    for i, player in enumerate(tied):
        swatch(frame, x + 3 * i, 8, 2, 6, state.colors[player])


def points(frame: Frame, state: GameState, ui: Ui, at: Moment) -> None:
    """Each player's points for the round just scored, "+N" in their colour."""
    texts = [f"+{n}" for n in state.last_round_points]
    pages = _slots(state)
    start = ui.reveal_at("points")
    page_s = (ui.reveal_at("scores") - start) / len(pages)
    _show_page(frame, state, texts, pages, _page(at, pages, lambda t: (t - ui.since - start) / page_s, page_s))


def scores(frame: Frame, state: GameState, ui: Ui, at: Moment) -> None:
    """The totals, each in its player's colour, paged when they do not fit."""
    pages = _slots(state)
    texts = [str(score) for score in state.scores]
    start = ui.reveal_at("scores")
    _show_page(frame, state, texts, pages,
               _page(at, pages, lambda t: (t - ui.since - start) / SCOREBOARD_PAGE_S, SCOREBOARD_PAGE_S))


def _page(at: Moment, pages: list, count: Callable[[float], float], page_s: float) -> int:
    """Which page shows: int(count(t)); a single page holds still."""
    return 0 if len(pages) == 1 else at.whole(count, 1 / page_s)


# The score screens: the round as a fraction on the left ("3 over 6"; "T over 1" in gold for the
# first tie-break round), then a slot per player in seat order, two lines a page. Both screens
# use the same slots, so a player finds their number at the same place on each. Two totals side
# by side are two dark columns apart, one more than the digits of a number, so that "12" beside
# "19" never reads "1219" across a room (a "+" already starts each round's points).
SCORES_X = 9
LINE_YS = (1, 9)
NUMBER_GAP = 2  # dark columns between two numbers that fill their slots


def _slots(state: GameState) -> list[list[tuple[int, int, int]]]:
    """Pages of (player, x, y): seat order, slots as wide as the widest "+N" or total, spread
    over the line."""
    totals = [str(s) for s in state.scores]
    slot = max(font.text_width(text) for text in [f"+{n}" for n in state.last_round_points] + totals)
    room = PANEL_W - SCORES_X
    gap = NUMBER_GAP if max(map(font.text_width, totals)) == slot and (room + NUMBER_GAP) // (slot + NUMBER_GAP) > 1 else 1
    per_line = (room + gap) // (slot + gap)
    step = slot + gap + ((room - per_line * slot - (per_line - 1) * gap) // (per_line - 1) if per_line > 1 else 0)
    per_page = per_line * len(LINE_YS)
    pages = []
    for first in range(0, state.players, per_page):
        page = []
        for k, player in enumerate(range(first, min(state.players, first + per_page))):
            line, col = divmod(k, per_line)
            page.append((player, SCORES_X + col * step + slot, LINE_YS[line]))
        pages.append(page)
    return pages


def _round_fraction(frame: Frame, state: GameState) -> None:
    """The round over the number of rounds; a tie-break's "T" over its count, in gold."""
    regular = rules.regular_rounds(state.players)
    if state.tiebreak:
        top, bottom, rgb = "T", str(state.round - regular), GOLD
    else:
        top, bottom, rgb = str(state.round), str(regular), WHITE
    centred_text(frame, LINE_YS[0], top, rgb, 0, SCORES_X - 2)
    fill_rect(frame, 0, 7, SCORES_X - 2, 1, rgb)
    centred_text(frame, LINE_YS[1], bottom, rgb, 0, SCORES_X - 2)


def _show_page(frame: Frame, state: GameState, texts: list[str], pages, page: int) -> None:
    """One page of lit numbers on black, each right-aligned in its slot in its player's colour."""
    _round_fraction(frame, state)
    page = max(0, page) % len(pages)
    for player, right, y in pages[page]:
        text = texts[player]
        font.draw_text(frame, right - font.text_width(text), y, text, ink(state.colors[player]))
    if len(pages) > 1:
        x = SCORES_X + (PANEL_W - SCORES_X - (2 * len(pages) - 1)) // 2
        for i in range(len(pages)):
            frame.set(x + 2 * i, PANEL_H - 1, WHITE if i == page else GREY)


# --- the round's written clues ------------------------------------------------------------------

# A written clue fills the panel when it is given (the play screen's first seconds, before anyone
# places a pawn) and again at the reveal: its words folded to the font's letters, a line each, in
# white (the first clue) or gold (the second), under a bar in the giver's colour. A word wider
# than the panel is broken at its spaces (a Vietnamese word is several syllables) or into even
# pieces ending in "-"; a clue's lines make pages of two, and the pages follow one another,
# CLUE_PAGE_S each, dots under them saying which (the screen lasts as many pages as it has:
# `clue_seconds`). Nothing scrolls: a still screen changes once a page.
CLUE_PAGE_S = 2.5
CLUE_LINE_YS = {1: (6,), 2: (3, 9)}  # where a page of one or two lines puts them
CLUE_COLORS = (WHITE, GOLD)  # the first clue's, the second's


def clue_lines(words: tuple[str, ...]) -> list[str]:
    """A written clue's words as lines of the panel: a word that fits on one line alone, a longer
    one broken at its spaces, then into pieces that end in "-"."""
    lines: list[str] = []
    for word in words:
        line = ""
        for part in font.fold(word).split():
            joined = f"{line} {part}" if line else part
            if font.text_width(joined) <= PANEL_W:
                line = joined
                continue
            if line:
                lines.append(line)
            pieces = _broken(part)
            lines.extend(pieces[:-1])
            line = pieces[-1]
        if line:
            lines.append(line)
    return lines


def _broken(part: str) -> list[str]:
    """`part` in the fewest pieces the panel's width holds, as even as can be, each but the last
    ending in "-" ("MELOC-", "OTON" rather than "MELOCOT-", "ON")."""
    for count in range(1, len(part) + 1):
        size = -(-len(part) // count)
        pieces = [part[i:i + size] for i in range(0, len(part), size)]
        pieces = [piece + "-" for piece in pieces[:-1]] + pieces[-1:]
        if all(font.text_width(piece) <= PANEL_W for piece in pieces):
            return pieces
    return [part]  # not reached: a glyph and "-" always fit


@lru_cache(maxsize=16)
def _clue_pages(clues: tuple[tuple[int, Clue], ...]) -> tuple[tuple[tuple[str, RGB], ...], ...]:
    """The pages of the written ones of (which clue, clue): each clue's lines two a page (worked
    out once a clue: a blinking screen is drawn many times)."""
    pages: list = []
    for which, clue in clues:
        lines = [(line, CLUE_COLORS[which]) for line in clue_lines(clue.words)]
        pages += [tuple(lines[i:i + 2]) for i in range(0, len(lines), 2)]
    return tuple(pages)


def _numbered(clues: tuple[Clue, ...]) -> tuple[tuple[int, Clue], ...]:
    return tuple((which, clue) for which, clue in enumerate(clues) if clue.written)


def clue_seconds(clues: tuple[Clue, ...]) -> float:
    """How long the panel shows these clues' words: a page of two lines CLUE_PAGE_S (0: none is
    written)."""
    return len(_clue_pages(_numbered(clues))) * CLUE_PAGE_S


def clue(frame: Frame, state: GameState, ui: Ui, at: Moment) -> None:
    """The clue just given, written on the giver's phone: the play screen's first seconds."""
    _show_clues(frame, state, _numbered(state.clues)[-1:], at, ui.since)


def reveal_clues(frame: Frame, state: GameState, ui: Ui, at: Moment) -> None:
    """The round's written clues again, after the scoring frame."""
    _show_clues(frame, state, _numbered(state.clues), at, ui.since + ui.reveal_at("clues"))


def _show_clues(frame: Frame, state: GameState, clues: tuple[tuple[int, Clue], ...], at: Moment,
                since: float) -> None:
    pages = _clue_pages(clues)
    if not pages:
        return
    swatch(frame, 0, 0, PANEL_W, 1, state.colors[state.giver])
    page = min(len(pages) - 1, _page(at, pages, lambda t: (t - since) / CLUE_PAGE_S, CLUE_PAGE_S))
    lines = pages[max(0, page)]
    for (text, rgb), y in zip(lines, CLUE_LINE_YS[len(lines)]):
        centred_text(frame, y, text, rgb)
    _page_dots(frame, PANEL_H - 1, len(pages), page)


# --- the end and the host's menu ----------------------------------------------------------------


def game_over(frame: Frame, state: GameState, ui: Ui, at: Moment) -> None:
    """Ripples in the winners' colours spread from the middle behind a crown and the winners'
    colours, fast while the room cheers (CHEER_S), then calmly: the screen stays up until a press
    or the idle timeout, and each step wakes the box. Joint winners take turns in the ripples."""
    colors = tuple(ink(state.colors[w]) for w in state.winners) or (GOLD,)
    speed = RIPPLE_SPEED if at.t - ui.since < CHEER_S else RIPPLE_CALM_SPEED
    step = at.whole(lambda t: ripple_travel(t - ui.since), speed) % (RIPPLE_SPACING * len(colors))
    ripple, width = _ripple(colors, step), PANEL_W * 3
    for y in range(PANEL_H):
        i = y * frame.width * 3
        frame.pixels[i : i + width] = ripple[y * width : (y + 1) * width]
    fill_rect(frame, 8, 0, 16, PANEL_H, BLACK)
    font.draw_icon(frame, 13, 1, "crown", GOLD)
    n = len(state.winners)
    w = 3 if 4 * n - 1 <= 14 else 2
    x = (PANEL_W - ((w + 1) * n - 1)) // 2
    # Six or more joint winners are wider than the black middle: a dark band keeps the ripples
    # (in the same colours) from reading as a swatch's extra column.
    fill_rect(frame, max(0, x - 1), 7, min(PANEL_W, (w + 1) * n + 1), 8, BLACK)
    for i, player in enumerate(state.winners):
        swatch(frame, x + (w + 1) * i, 8, w, 6, state.colors[player])


RIPPLE_SPEED = 6.0  # pixels a second while the room cheers
CHEER_S = 8.0  # then the ripples go on calmly until the idle board comes back
RIPPLE_CALM_SPEED = 2.0  # each step is 128 LEDs set and a wake-up: few a second once the cheering is over
RIPPLE_SPACING = 4


def ripple_travel(elapsed: float) -> float:
    """How far the ripples have spread `elapsed` seconds into the game-over screen, in pixels."""
    return RIPPLE_SPEED * min(elapsed, CHEER_S) + RIPPLE_CALM_SPEED * max(0.0, elapsed - CHEER_S)


@lru_cache(maxsize=64)
def _ripple(colors: tuple[RGB, ...], step: int) -> bytes:
    """The 32x16 ripple background `step` pixels on: diamond rings, every RIPPLE_SPACING pixels,
    half bright, each ring in the next winner's colour."""
    out = bytearray()
    for y in range(PANEL_H):
        for x in range(PANEL_W):
            wave = abs(x - 15.5) + 2 * abs(y - 7.5) - step
            ring, within = divmod(wave, RIPPLE_SPACING)
            lit = within < RIPPLE_SPACING / 2
            out += bytes(v // 2 for v in colors[int(ring) % len(colors)]) if lit else bytes(3)
    return bytes(out)


def brightness(frame: Frame, state: GameState | None, ui: Ui, at: Moment) -> None:
    """The brightness ceiling in percent and as a bar (up/right brighter, down/left dimmer)."""
    centred_text(frame, 1, str(round(ui.brightness * 100)), WHITE)
    filled = round(ui.brightness * (PANEL_W - 2))
    fill_rect(frame, 1, 10, PANEL_W - 2, 4, FAINT)
    fill_rect(frame, 1, 10, filled, 4, WHITE)


_HOST_WORDS = {"continue": "GO ON", "new_game": "NEW", "brightness": "BRIGHT", "power_off": "OFF"}
_CONFIRM_WORDS = {"new_game": "NEW?", "power_off": "OFF?", "quit": "QUIT?"}


def host(frame: Frame, state: GameState | None, ui: Ui, at: Moment) -> None:
    """The host menu, one item at a time like set-up: HOST, the item, its place among the items.
    The clue check shows CHECK over its state, ON (green) or OFF (gold), the computer players'
    pace BOTS over CALM or FAST: A switches them."""
    centred_text(frame, 0, "HOST", GREY)
    item = HOST_MENU[ui.menu_item]
    if item == "clue_check":
        centred_text(frame, 5, "CHECK", WHITE)
        centred_text(frame, 10, "ON" if ui.clue_check else "OFF", GREEN if ui.clue_check else GOLD)
    elif item == "pace":  # the computer players': a person's, or fast
        centred_text(frame, 5, "BOTS", WHITE)
        centred_text(frame, 10, "FAST" if ui.fast_computers else "CALM", GOLD if ui.fast_computers else GREEN)
    else:
        centred_text(frame, 7, _HOST_WORDS[item], WHITE)
    _arrows(frame, 8, GREY)
    _page_dots(frame, 15, len(HOST_MENU), ui.menu_item)


def confirm(frame: Frame, state: GameState | None, ui: Ui, at: Moment) -> None:
    """NEW? / OFF? / QUIT? over NO (the default) and YES."""
    _question(frame, _CONFIRM_WORDS[HOST_ITEMS[ui.menu_item]], ("NO", "YES"), ui.choice)

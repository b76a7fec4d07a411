"""The board while a round is played, judged frame by frame as the LEDs show it: pawns and
cursors on every one of the 480 cells in every pawn colour, the loupe, and a board nothing covers
while clues are given and guessed (issue 10, goals 1, 2 and 4)."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from console.commands.legibility import cursor_figures, light_after, pawn_figures, ten_players
from console.commands.wiring import build_output
from console.config.loader import load_config
from console.game import rules
from console.game.board import ALL_CELLS, COLS, ROWS, Cell
from console.game.rules import ChooseTarget, Clue, Pawn, Place, SkipClue
from console.view.palette import PAWN_COLORS, board_colors
from console.view.render import CURSOR_S, PAWN_S, REFUSED_S, render
from console.view.screens import BLACK_INK, ink
from console.view.ui import Cursor, Ui
from tests.gameplay import c
from tests.game.test_rules_properties import legal_games

BOARD = board_colors()
LEGIBLE = 0.15  # OKLab, as light: the threshold for a mark on a cell
COLORS = tuple(PAWN_COLORS)


@pytest.fixture(scope="module")
def light():
    return light_after(build_output(load_config(None), "sim-headless")[0])[0]


def frames(state, ui, seconds: float, steps: int = 40):
    return [render(state, ui, seconds * i / steps) for i in range(steps)]


def at(frame, cell: Cell):
    return frame.get(cell.col, cell.row)


def neighbours(cell: Cell) -> list[Cell]:
    return [Cell(cell.row + dr, cell.col + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= cell.row + dr < ROWS and 0 <= cell.col + dc < COLS]


# --- goal 1: pawns --------------------------------------------------------------------------------


def test_every_pawn_colour_on_every_cell_has_a_phase_that_stands_out(light):
    figures = pawn_figures(light)
    assert set(figures["pawn_least_difference"]) == set(COLORS)
    for color, least in figures["pawn_least_difference"].items():
        assert least >= LEGIBLE, f"a {color} pawn hides on some cell ({least:.3f})"


def test_a_pawn_shows_exactly_its_players_colour_and_dark_so_players_are_told_apart(light):
    base = ten_players()
    shown_by = {}
    for player, color in enumerate(base.colors):
        state = replace(base, pawns=tuple(Pawn(player, cell) for cell in ALL_CELLS))
        seen = frames(state, Ui(screen="play"), PAWN_S)
        for cell in ALL_CELLS:
            phases = frozenset(at(f, cell) for f in seen)
            assert phases == {ink(color), (0, 0, 0)}, (color, cell)
        shown_by[color] = phases
    assert len(set(shown_by.values())) == len(COLORS)  # no two players' pawns look alike
    inks = [light(ink(color)) for color in COLORS]
    assert min(math.dist(a, b) for i, a in enumerate(inks) for b in inks[i + 1 :]) >= LEGIBLE


def test_the_black_seat_is_grey_on_the_panel():
    state = replace(ten_players(), pawns=(Pawn(9, c("H15")),))
    assert ink("black") == BLACK_INK != (0, 0, 0)
    assert {at(f, c("H15")) for f in frames(state, Ui(screen="play"), PAWN_S)} == {BLACK_INK, (0, 0, 0)}


def test_a_pawn_changes_only_its_own_cell():
    state = replace(ten_players(), pawns=(Pawn(3, c("H15")),))
    for f in frames(state, Ui(screen="play"), PAWN_S):
        assert all(at(f, x) == BOARD[x.index] for x in ALL_CELLS if x != c("H15"))


# --- goal 2: the cursor ---------------------------------------------------------------------------


def test_a_cursor_of_every_colour_on_every_cell_shows_the_cell_half_the_time_and_stands_out(light):
    figures = cursor_figures(light)
    assert figures["cursor_own_colour_share"] >= 0.5
    assert figures["cursor_min"] >= LEGIBLE


@pytest.mark.parametrize("offset", range(9))
def test_the_eight_neighbours_of_a_cursor_show_their_own_colour_or_pawn_at_all_times(offset):
    """Cursors three cells apart, so that their neighbourhoods do not overlap, shifted over the
    nine offsets to cover every cell; pawns on some neighbours keep their own blink."""
    dr, dc = divmod(offset, 3)
    centres = [x for x in ALL_CELLS if x.row % 3 == dr and x.col % 3 == dc]
    pawn_cells = [Cell(x.row, x.col + 1) for x in centres if x.col + 1 < COLS][::2]
    base = replace(ten_players(), pawns=tuple(Pawn(i % 10, x) for i, x in enumerate(pawn_cells)))
    with_pawns = frames(base, Ui(screen="play"), 2 * CURSOR_S)
    for color in ("white", "black", "orange"):
        ui = Ui(screen="play", remote_cursors=tuple(Cursor(color, x) for x in centres))
        for bare, f in zip(with_pawns, frames(base, ui, 2 * CURSOR_S)):
            for centre in centres:
                assert all(at(f, n) == at(bare, n) for n in neighbours(centre)), (color, centre)


def test_the_panels_cursor_shows_whose_turn_it_is():
    state = rules.apply(rules.apply(rules.apply(None, rules.NewGame(4, variant="free")), ChooseTarget(c("A1"))), Clue())
    for _ in range(3):
        player = rules.current_player(state)
        seen = {at(f, c("H15")) for f in frames(state, Ui(screen="play", cursor=c("H15")), CURSOR_S)}
        assert ink(state.colors[player]) in seen
        others = {ink(state.colors[p]) for p in range(4) if p != player}
        assert not seen & others
        state = rules.apply(state, Place(c(f"B{player + 2}")))


def test_a_cursor_cannot_be_taken_for_a_pawn():
    """A pawn never shows its cell's colour; a cursor shows it while the pawns are lit and
    flickers (changes every 0.2 s) while they are dark, faster than any pawn blinks."""
    base = ten_players()
    for player, color in enumerate(COLORS):
        pawn_state = replace(base, pawns=tuple(Pawn(player, x) for x in ALL_CELLS))
        pawn_frames = frames(pawn_state, Ui(screen="play"), PAWN_S, 80)
        cursor_frames = frames(base, Ui(screen="play", remote_cursors=tuple(Cursor(color, x) for x in ALL_CELLS)),
                               CURSOR_S, 80)
        for cell in ALL_CELLS[::7]:
            own = BOARD[cell.index]
            assert own not in {at(f, cell) for f in pawn_frames}
            seen = [at(f, cell) for f in cursor_frames]
            assert seen.count(own) >= len(seen) / 2
            assert sum(a != b for a, b in zip(seen, seen[1:] + seen[:1])) == 3  # cell, colour, contrast, cell
            pawn_seen = [at(f, cell) for f in pawn_frames]
            assert sum(a != b for a, b in zip(pawn_seen, pawn_seen[1:] + pawn_seen[:1])) == 2  # lit, dark, lit


@pytest.mark.parametrize("refused_at", [10.0, 10.3, 10.65, 10.9])  # in the cursor's look and in its flicker
def test_a_taken_cell_flickers_the_cursor_red_at_once_without_touching_the_neighbours(refused_at):
    state = rules.apply(rules.apply(rules.apply(None, rules.NewGame(4, variant="free")), ChooseTarget(c("A1"))), Clue())
    state = rules.apply(state, Place(c("H15")))
    ui = Ui(screen="play", cursor=c("H15"), refused=c("H15"), refused_at=refused_at)
    during = [render(state, ui, refused_at + REFUSED_S * i / 20) for i in range(20)]
    assert at(during[0], c("H15")) == (255, 0, 0)  # the press is answered on its own frame
    assert len({at(f, c("H15")) for f in during}) == 2  # red, then the contrast, ...
    assert all(at(f, n) == BOARD[n.index] for f in during for n in neighbours(c("H15")))
    after = {at(render(state, ui, refused_at + REFUSED_S + CURSOR_S * (i + 1) / 20), c("H15")) for i in range(20)}
    assert (255, 0, 0) not in after


def test_the_loupe_shows_the_colour_under_the_cursor_in_the_status_columns():
    state = rules.apply(rules.apply(rules.apply(None, rules.NewGame(4, variant="free")), ChooseTarget(c("A1"))), Clue())
    for name in ("A1", "H15", "P30", "E4"):
        for f in frames(state, Ui(screen="play", cursor=c(name)), CURSOR_S, 8):
            assert {f.get(x, y) for x in (30, 31) for y in range(11, 16)} == {BOARD[c(name).index]}


# --- goal 4: the board stays visible --------------------------------------------------------------


def _round_states():
    """Every phase in which the table studies the board, with pawns down."""
    state = rules.apply(None, rules.NewGame(6, seed=3, variant="free"))
    state = rules.apply(state, ChooseTarget(c("H15")))
    yield state, Ui(screen="play")  # clue1
    state = rules.apply(state, Clue())
    for n in range(5):
        yield state, Ui(screen="play", cursor=c("E4"), refused=c("E4"), refused_at=0.2)  # guess1
        state = rules.apply(state, Place(c(f"C{n + 3}")))
    for choice in (0, 1):
        yield state, Ui(screen="play", choice=choice)  # clue2
    state = rules.apply(state, Clue())
    for n in range(5):
        yield state, Ui(screen="play", cursor=c("P30"), remote_cursors=(Cursor("white", c("A1")),))  # guess2
        state = rules.apply(state, Place(c(f"K{n + 3}")))


def test_in_clue_and_guess_phases_at_least_470_cells_show_their_colour_or_a_pawn_in_every_frame():
    phases = set()
    for state, ui in _round_states():
        phases.add(state.phase)
        pawn_looks = {p.cell: {ink(state.colors[p.player]), (0, 0, 0)} for p in state.pawns}
        for t in [i / 20 for i in range(200)]:  # 10 s, past any banner's period
            f = render(state, ui, t)
            shown = sum(at(f, x) in pawn_looks.get(x, {BOARD[x.index]}) for x in ALL_CELLS)
            assert shown >= 470, (state.phase, t, shown)
    assert phases == {"clue1", "guess1", "clue2", "guess2"}


def test_the_second_clue_choice_shows_in_the_status_columns():
    state = rules.apply(None, rules.NewGame(3, variant="free"))
    state = rules.apply(rules.apply(state, ChooseTarget(c("H15"))), Clue())
    state = rules.apply(rules.apply(state, Place(c("A1"))), Place(c("A2")))
    assert state.phase == "clue2"
    lower = [[render(state, Ui(screen="play", choice=choice), 0.0).get(x, y) for y in range(11, 16) for x in (30, 31)]
             for choice in (0, 1)]
    assert lower[0] != lower[1] and all((255, 255, 255) in side for side in lower)
    passed = rules.apply(state, SkipClue())
    assert passed.phase == "round_over"


def test_palette_legibility_prints_the_figures(capsys, monkeypatch, tmp_path):
    from console.commands import main as cli

    (tmp_path / "console.yaml").write_text("store:\n  url: memory://\n")
    monkeypatch.setenv("HUES_CONFIG", str(tmp_path / "console.yaml"))
    assert cli.main(["palette", "--legibility", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["pawn_min"] >= LEGIBLE and figures["cursor_min"] >= LEGIBLE
    assert figures["cursor_own_colour_share"] >= 0.5 and 0.2 < figures["brightness"] < 0.4
    assert figures["pawn_colour_alone_min"] < LEGIBLE  # a colour alone would hide: the dark phase is needed
    assert cli.main(["palette", "--legibility"]) == 0
    assert f"{figures['pawn_min']:.3f}" in capsys.readouterr().out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=legal_games(), cursor=st.sampled_from(ALL_CELLS), t=st.floats(0, 20))
def test_in_any_game_the_clue_and_guess_phases_leave_470_cells_showing_their_colour_or_a_pawn(game, cursor, t):
    _, states = game
    for state in states:
        if state.phase not in ("clue1", "guess1", "clue2", "guess2"):
            continue
        frame = render(state, Ui(screen="play", cursor=cursor, refused=cursor, refused_at=t - 0.1), t)
        looks = {p.cell: {ink(state.colors[p.player]), (0, 0, 0)} for p in state.pawns}
        assert sum(at(frame, x) in looks.get(x, {BOARD[x.index]}) for x in ALL_CELLS) >= 470

"""The renderer, judged by the frames it returns: what a player at the table would see."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from console.game import rules
from console.game.board import ALL_CELLS, Cell, distance
from console.view.palette import PAWN_COLORS, board_colors
from console.view.hints import describe
from console.view.render import CanvasError, render
from console.game.rules import ChooseTarget, Clue, GameState, NewGame, Place, SkipClue
from console.game.seating import PANEL, Seating
from console.view.ui import HOST_ITEMS, REVEAL_POINTS_S, REVEAL_SCORES_S, SCOREBOARD_PAGE_S, SCREENS, SETUP_ITEMS, SetupChoices, Ui
from tests.gameplay import c, play_round

BOARD = board_colors()
SECOND = [i / 100 for i in range(100)]  # one second in 10 ms steps
TWO_SECONDS = [i / 100 for i in range(200)]
STATUS = [(x, y) for x in (30, 31) for y in range(4)]


def new(players: int = 4, variant: str = "cards", first_giver: int = 0, **kw) -> GameState:
    return rules.apply(None, NewGame(players=players, seed=7, first_giver=first_giver, variant=variant, **kw))


def at(frame, cell: Cell):
    return frame.get(cell.col, cell.row)


def cell_rgb(cell: Cell):
    return BOARD[cell.index]


def guessing(pawns: dict[int, Cell] | None = None, players: int = 4, **kw) -> GameState:
    """A free-variant game in guess1 with target A1, the named players' pawns placed in turn."""
    state = rules.apply(new(players, "free", **kw), ChooseTarget(c("A1")))
    state = rules.apply(state, Clue())
    for player, cell in (pawns or {}).items():
        assert rules.current_player(state) == player
        state = rules.apply(state, Place(cell, player))
    return state


def luma(rgb) -> float:
    return 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]


def differs(a, b, by: int = 150) -> bool:
    return sum(abs(x - y) for x, y in zip(a, b)) >= by


# --- the board and the pawns --------------------------------------------------------------------


def test_board_cells_show_their_palette_colour():
    state = rules.apply(new(), ChooseTarget(new().card_cells[0]))  # clue1: no pawns, no cursor
    frame = render(state, Ui(screen="play", since=0.0), t=3.0)  # nothing covers the board
    assert all(at(frame, cell) == cell_rgb(cell) for cell in ALL_CELLS)


# --- the status columns -------------------------------------------------------------------------


def test_the_status_columns_show_the_current_players_colour():
    state = guessing({1: c("H15")})
    player = rules.current_player(state)
    assert player == 2
    frames = [render(state, Ui(screen="play"), t) for t in SECOND]
    shown = {f.get(x, y) for f in frames for x, y in STATUS}
    assert PAWN_COLORS[state.colors[player]] in shown
    others = {PAWN_COLORS[state.colors[p]] for p in range(state.players) if p != player}
    assert not shown & others


def test_each_phase_has_its_own_status_glyph():
    def glyph(state: GameState, screen: str) -> list:
        frame = render(state, Ui(screen=screen, seating=Seating(secret=PANEL)), 0.0)
        return [frame.get(x, y) for x in (30, 31) for y in range(5, 10)]

    state = new(3, "free")
    glyphs = [glyph(state, "secret")]
    state = rules.apply(state, ChooseTarget(c("H15")))
    glyphs.append(glyph(state, "play"))
    state = rules.apply(state, Clue())
    glyphs.append(glyph(state, "play"))
    state = rules.apply(rules.apply(state, Place(c("A1"))), Place(c("A2")))
    glyphs.append(glyph(state, "play"))
    state = rules.apply(state, Clue())
    glyphs.append(glyph(state, "play"))
    state = rules.apply(rules.apply(state, Place(c("A3"))), Place(c("A4")))
    glyphs.append(glyph(state, "reveal"))
    assert len({tuple(g) for g in glyphs}) == 6


def test_an_offline_store_blinks_an_amber_pixel_on_any_screen():
    for screen, state in (("idle", None), ("play", guessing())):
        seen = {render(state, Ui(screen=screen, store_online=False), t).get(31, 15) for t in SECOND}
        assert any(r > 200 and 60 < g < 200 and b < 50 for r, g, b in seen)
        assert {render(state, Ui(screen=screen), t).get(31, 15) for t in SECOND} & seen != seen


def test_the_shutdown_hold_fills_a_bar():
    lit = lambda p: sum(  # noqa: E731
        render(None, Ui(hold_progress=p), 0.0).get(31, y)[0] > 200 for y in range(16)
    )
    assert lit(0.0) == 0 < lit(0.25) < lit(0.5) < lit(1.0) == 16


# --- the secret target --------------------------------------------------------------------------


def test_the_secret_screen_dims_everything_but_the_card():
    state = new()
    card, chosen = state.card_cells, state.card_cells[2]
    frames = [render(state, Ui(screen="secret", card_choice=2, seating=Seating(secret=PANEL)), t) for t in SECOND]
    for cell in ALL_CELLS:
        if cell not in card:
            assert all(v <= full // 4 + 1 for f in frames for v, full in zip(at(f, cell), cell_rgb(cell))), cell
    for other in card:
        if other != chosen:  # the other card cells blink between full colour and dim
            assert len({at(f, other) for f in frames}) == 2 and cell_rgb(other) in {at(f, other) for f in frames}
    seen = [at(f, chosen) for f in frames]  # the chosen one: the cursor in the giver's colour
    assert seen.count(cell_rgb(chosen)) >= len(seen) / 2 and PAWN_COLORS["red"] in seen


def test_the_free_variant_secret_screen_is_the_board_with_the_cursor():
    state = new(4, "free")
    frames = [render(state, Ui(screen="secret", cursor=c("E7"), seating=Seating(secret=PANEL)), t) for t in SECOND]
    assert all(at(f, x) == cell_rgb(x) for f in frames for x in ALL_CELLS if x != c("E7"))
    assert PAWN_COLORS["red"] in {at(f, c("E7")) for f in frames}


@pytest.mark.parametrize("phase_actions", [[], [Clue()], [Clue(), Place(c("B2"))]],
                         ids=["clue1", "guess1", "guess1 with a pawn"])
def test_once_chosen_nothing_marks_the_target(phase_actions):
    """Two games differing only in the target look the same, at every moment."""
    base = new()
    games = []
    for target in base.card_cells[:2]:
        state = rules.apply(base, ChooseTarget(target))
        for action in phase_actions:
            state = rules.apply(state, action)
        games.append(state)
    ui = Ui(screen="play", since=0.0, cursor=c("J9"))
    for t in TWO_SECONDS[::7] + [3.0, 9.0]:
        assert render(games[0], ui, t) == render(games[1], ui, t)
    assert describe(games[0], ui) == describe(games[1], ui)


# --- the reveal ---------------------------------------------------------------------------------


def _scored(target: Cell) -> GameState:
    state = play_round(new(3, "free"), target=target)
    assert state.phase == "round_over"
    return state


@pytest.mark.parametrize("target", ["H15", "A1", "P30", "B29"])
def test_the_reveal_flashes_the_ring_around_the_target(target):
    state = _scored(c(target))
    target = state.target_revealed
    pawn_cells = {p.cell for p in state.pawns}
    frames = [render(state, Ui(screen="reveal", since=0.0), t) for t in TWO_SECONDS]
    ring = [x for x in ALL_CELLS if distance(x, target) == 2]
    assert ring and all(any(differs(at(f, x), cell_rgb(x)) for f in frames) for x in ring)
    assert any(differs(at(f, target), cell_rgb(target)) for f in frames)
    still = [x for x in ALL_CELLS if distance(x, target) in (1, 3) and x not in pawn_cells]
    assert all(at(f, x) == cell_rgb(x) for f in frames for x in still)


def test_the_reveal_then_shows_round_points_then_the_scoreboard():
    state = _scored(c("H15"))
    ui = Ui(screen="reveal", since=0.0)
    board_frame = render(state, ui, 0.5)
    points = render(state, ui, REVEAL_POINTS_S + 0.1)
    scores = render(state, ui, REVEAL_SCORES_S + 0.1)
    assert at(board_frame, c("P1")) == cell_rgb(c("P1"))
    for frame in (points, scores):
        colours = set(_colours(frame))
        assert {PAWN_COLORS[name] for name in state.colors} <= colours
        assert at(frame, c("P1")) != cell_rgb(c("P1"))
    assert points != scores


def _colours(frame) -> list:
    return [frame.get(x, y) for y in range(frame.height) for x in range(frame.width)]


def test_a_full_scoreboard_pages_through_every_player():
    state = replace(new(10), scores=tuple(10 + 7 * p for p in range(10)), phase="round_over")
    ui = Ui(screen="reveal", since=0.0)
    first = render(state, ui, REVEAL_SCORES_S + 0.1)
    second = render(state, ui, REVEAL_SCORES_S + SCOREBOARD_PAGE_S + 0.1)
    assert first != second
    shown = set(_colours(first)) | set(_colours(second))
    assert {PAWN_COLORS[n] for n in state.colors if n != "black"} <= shown


# --- the other screens --------------------------------------------------------------------------


def _every_screen() -> list[tuple[GameState | None, Ui]]:
    scored = _scored(c("H15"))
    tied = replace(new(4), tied=(0, 2))
    over = replace(scored, phase="game_over", winners=(0, 2))
    return [
        (None, Ui(screen="idle", last_winners=("red", "blue"))),
        (new(), Ui(screen="resume", choice=1)),
        (None, Ui(screen="setup", setup=SetupChoices(item=SETUP_ITEMS.index("first_giver"), first_giver=3))),
        (new(), Ui(screen="handoff")),
        (new(), Ui(screen="secret", seating=Seating(secret=PANEL))),
        (guessing({1: c("C3")}), Ui(screen="play")),
        (scored, Ui(screen="reveal")),
        (tied, Ui(screen="tiebreak")),
        (over, Ui(screen="game_over")),
        (None, Ui(screen="brightness", brightness=0.5)),
        (new(), Ui(screen="host", menu_item=1)),
        (new(), Ui(screen="confirm", menu_item=HOST_ITEMS.index("power_off"), store_keeps=False)),
    ]


_EVERY = _every_screen()


def test_every_screen_draws_something_and_has_a_hint():
    cases = _EVERY
    assert sorted(ui.screen for _, ui in cases) == sorted(SCREENS)
    for state, ui in cases:
        frame = render(state, ui, 1.0)
        assert any(v for v in frame.pixels), ui.screen
        assert describe(state, ui)


def test_handoff_shows_the_giver_and_not_the_board():
    frame = render(new(4, first_giver=2), Ui(screen="handoff"), 0.0)
    colours = set(_colours(frame))
    assert PAWN_COLORS["yellow"] in colours
    assert len(colours) <= 3  # black, the giver's colour and the arrow: no board


def test_the_resume_choice_highlights_the_selected_option():
    assert render(new(), Ui(screen="resume", choice=0), 0) != render(new(), Ui(screen="resume", choice=1), 0)


def test_setup_shows_one_item_at_a_time():
    frames = [render(None, Ui(screen="setup", setup=SetupChoices(item=i)), 0.0) for i in range(4)]
    assert len({bytes(f.pixels) for f in frames}) == 4
    five = render(None, Ui(screen="setup", setup=SetupChoices(players=5)), 0.0)
    assert five != frames[0]


def test_brightness_bar_grows_with_brightness():
    def lit(b):
        frame = render(None, Ui(screen="brightness", brightness=b), 0.0)
        return sum(frame.get(x, 11) == (255, 255, 255) for x in range(32))

    assert lit(0.1) < lit(0.5) < lit(1.0)


def test_game_over_celebrates_every_joint_winner():
    over = replace(_scored(c("H15")), phase="game_over", winners=(0, 2))
    shown = {v for t in SECOND[::10] for v in _colours(render(over, Ui(screen="game_over"), t))}
    assert {PAWN_COLORS[over.colors[0]], PAWN_COLORS[over.colors[2]]} <= shown
    assert PAWN_COLORS[over.colors[1]] not in shown


@pytest.mark.parametrize("winners", [1, 3, 5, 6, 10])
def test_the_winners_colours_stand_on_black_however_many_win(winners):
    """Ten joint winners are wider than the crown's black middle: no ripple dot may touch a
    winner's colour, where it reads as the swatch's extra column."""
    over = replace(new(10), phase="game_over", winners=tuple(range(winners)))
    for t in SECOND[::10]:
        frame = render(over, Ui(screen="game_over"), t)
        # a swatch's column: six lit rows; a ripple's diamond rings cross a column two dots a ring
        swatches = {x for x in range(32) if (0, 0, 0) not in {frame.get(x, y) for y in range(8, 14)}}
        lit_seats = [p for p in over.winners if over.colors[p] != "black"]  # black: a grey checker
        assert len(swatches) == len(lit_seats) * (3 if winners <= 3 else 2)
        edges = {x + d for x in swatches for d in (-1, 1)} - swatches
        for x in swatches | edges:
            rows = range(7, 15) if x in edges else (7, 14)
            assert all(frame.get(x, y) == (0, 0, 0) for y in rows if 0 <= x < 32), f"a ripple touches column {x}"


def test_tiebreak_shows_the_tied_players():
    tied = replace(new(4), tied=(1, 3))
    shown = set(_colours(render(tied, Ui(screen="tiebreak"), 0.0)))
    assert {PAWN_COLORS["orange"], PAWN_COLORS["green"]} <= shown
    assert not {PAWN_COLORS["red"], PAWN_COLORS["yellow"]} & shown


# --- the canvas ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(64, 32), (64, 64)])
def test_larger_canvases_keep_the_board_at_the_top_left(size):
    width, height = size
    for state, ui in _EVERY:
        small = render(state, ui, 1.3)
        big = render(state, ui, 1.3, width, height)
        for y in range(height):
            for x in range(width):
                expected = small.get(x, y) if x < 32 and y < 16 else (0, 0, 0)
                assert big.get(x, y) == expected, (ui.screen, x, y)


def test_a_canvas_smaller_than_the_board_is_refused():
    with pytest.raises(CanvasError, match="16x16"):
        render(None, Ui(), 0.0, 16, 16)


@settings(max_examples=60, deadline=None)
@given(t=st.floats(0, 1000, allow_nan=False), case=st.integers(0, 9))
def test_render_is_deterministic(t, case):
    state, ui = _EVERY[case]
    assert render(state, ui, t) == render(state, ui, t)
    render(state, ui, t, 64, 32)  # another canvas size in between changes nothing
    assert render(state, ui, t) == render(state, ui, t)


@settings(max_examples=60, deadline=None)
@given(pawns=st.integers(0, 3), cells=st.lists(st.sampled_from(ALL_CELLS), min_size=1, max_size=4),
       t=st.floats(0, 10, allow_nan=False))
def test_a_cursor_move_draws_what_a_fresh_render_does(pawns, cells, t):
    """The play screen's pictures kept for one state and Ui (a still screen draws from them for
    many frames) never stand in for another's: each cursor move draws what a render with nothing
    kept draws."""
    from console.view import render as renderer

    state = guessing({player: Cell(player, player) for player in range(1, 1 + pawns)})
    ui = replace(Ui(screen="play"), cursor=Cell(9, 9))
    render(state, ui, t)
    moved = [render(state, ui.with_cursor(cell), t) for cell in cells]
    renderer._play_kept[0] = None
    renderer._play_base.cache_clear()
    assert moved == [render(state, ui.with_cursor(cell), t) for cell in cells]


# --- the hint line ------------------------------------------------------------------------------


def test_describe_says_who_does_what():
    state = guessing({1: c("C3"), 2: c("D4"), 3: c("E5")})
    state = rules.apply(state, Clue())
    assert describe(state, Ui(screen="play")) == "Green: place your second pawn (A places)"
    assert describe(new(), Ui(screen="handoff")) == "Pass the controls to Red, everyone else look away (A twice when ready)"
    assert "offline" in describe(None, Ui(store_online=False))


def test_describe_names_the_target_only_once_scored():
    state = rules.apply(new(4, "free"), ChooseTarget(c("K17")))
    assert "K17" not in describe(state, Ui(screen="play"))
    state = rules.apply(state, Clue())
    for who in (1, 2, 3):
        state = rules.apply(state, Place(c(f"A{who}")))
    state = rules.apply(state, SkipClue())
    assert "K17" in describe(state, Ui(screen="reveal"))

"""Whatever the buttons do, the console never crashes and never makes an illegal move."""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from console.play import controller
from console.game import rules
from console.view.hints import describe
from console.view.render import render
from console.game.board import Cell
from console.view.ui import SCREENS, Ui

# Weighted like real play: mostly moving and confirming, sometimes backing out or starting over.
BUTTONS = ["up", "down", "left", "right"] * 3 + ["a"] * 6 + ["b", "start", "hold start", "quit"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(presses=st.lists(st.sampled_from(BUTTONS), min_size=1, max_size=600),
       gaps=st.lists(st.floats(0.0, 4.0), min_size=1, max_size=600), seed=st.integers(0, 1000))
def test_any_button_sequence_keeps_the_console_consistent(presses, gaps, seed):
    game, ui, t = None, Ui(), 0.0
    rng = random.Random(seed)
    replayed = None
    for i, button in enumerate(presses):
        t += gaps[i % len(gaps)]
        if button == "hold start":  # what the app does on a 1.5 s Start hold
            if controller.host_menu_opens(game, ui):
                ui = controller.open_host_menu(ui, t)
            continue
        if button == "quit":  # the simulator's q mid-game
            if game is not None and not rules.is_terminal(game) and not (
                    ui.screen == "confirm" and controller.HOST_ITEMS[ui.menu_item] == "quit"):
                ui = controller.open_quit(ui, t)
            continue
        step = controller.handle(game, ui, button, t, rng)
        if step.stop:
            break
        for action in step.actions:  # every action the controller makes is legal, in order
            replayed = rules.apply(None if isinstance(action, rules.NewGame) else replayed, action)
        game, ui = step.game, step.ui
        if step.abandon:
            assert game is None
            replayed = None
        assert replayed == game
        assert ui.screen in ("idle", "setup", "brightness") or game is not None
        if ui.screen in ("host", "confirm"):  # a menu over a game always knows its way back
            assert ui.menu_return is not None and game is not None
        elif ui.screen != "brightness":
            assert ui.menu_return is None
        frame = render(game, ui, t)
        assert frame.width == 32 and frame.height == 16
        assert describe(game, ui)


CELLS = st.builds(Cell, st.integers(0, 15), st.integers(0, 29))


@given(ui=st.builds(Ui, screen=st.sampled_from(SCREENS), since=st.floats(0, 1e6), cursor=CELLS,
                    refused=st.none() | CELLS, pending=st.none() | st.builds(rules.Pawn, st.integers(0, 9), CELLS),
                    phones=st.lists(st.tuples(st.integers(0, 9), st.text(max_size=8)), max_size=3).map(tuple),
                    secret_holder=st.none() | st.text(max_size=8), room_code=st.text(max_size=4)),
       cell=CELLS)
def test_a_cursor_move_makes_the_ui_replace_makes(ui, cell):
    """`Ui.with_cursor` copies the fields at once (a tap's hot path): the same Ui as replace's."""
    moved = ui.with_cursor(cell)
    expected = replace(ui, cursor=cell, refused=None)
    assert type(moved) is Ui and moved == expected and vars(moved) == vars(expected)
    assert hash(moved) == hash(expected)

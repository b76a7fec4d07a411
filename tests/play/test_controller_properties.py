"""Whatever the buttons do, the console never crashes and never makes an illegal move."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from console.play import controller
from console.game import rules
from console.view.hints import describe
from console.view.render import render
from console.view.ui import Ui

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

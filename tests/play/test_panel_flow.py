"""Screens that follow one another: the hand-off says "look away" and opens only on a second A,
the joystick finds the card cell it points at (issue 10, goal 5)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from console.game import rules
from console.game.deck import cards
from console.game.rules import NewGame
from console.play import controller
from console.play.controller import MOVES, card_step
from console.view import font
from console.view.hints import describe
from console.view.render import render
from console.view.screens import WHITE
from console.game.seating import PANEL, Seating
from console.view.ui import HANDOFF_ARM_S, Ui
from hal.frame import Frame
from tests.scripting import card_path

RNG = random.Random(0)


def game(players: int = 4, giver: int = 0):
    return rules.apply(None, NewGame(players=players, seed=3, first_giver=giver))


def press(state, ui, button, t):
    step = controller.handle(state, ui, button, t, RNG)
    return step.game, step.ui


def lit(frame: Frame, rgb, x0=0, x1=32, y0=0, y1=16):
    return {(x, y) for y in range(y0, y1) for x in range(x0, x1) if frame.get(x, y) == rgb}


def text_at(text: str, x: int, y: int):
    canvas = Frame(32, 16)
    font.draw_text(canvas, x, y, text, WHITE)
    return lit(canvas, WHITE)


# --- the hand-off ---------------------------------------------------------------------------------


def test_the_handoff_says_look_away_beside_the_givers_colour():
    state = game(giver=2)
    frame = render(state, Ui(screen="handoff"), 0.5)
    words = lit(frame, WHITE, 0, 17)
    assert words == text_at("LOOK", 1, 2) | text_at("AWAY", 1, 9)
    assert len(lit(frame, (255, 230, 0))) >= 100  # the giver's (yellow) swatch
    assert "look away" in describe(state, Ui(screen="handoff"))


def test_with_a_phone_giver_the_handoff_says_the_phone_and_nobody_looks_away():
    state = game(giver=2)
    ui = Ui(screen="handoff", seating=Seating(holders=((2, "d" * 64),), secret="d" * 64))  # the round dealt to its phone
    for t in (0.1, 0.6, 1.1, 1.6):  # the dots run; no LOOK AWAY, no blinking A, at any instant
        frame = render(state, replace(ui, armed_at=t - 0.1), t)
        white = lit(frame, WHITE)
        assert not text_at("LOOK", 1, 2) <= white and not text_at("AWAY", 1, 9) <= white
        assert lit(frame, (255, 230, 0)) == lit(frame, (255, 230, 0), 5, 10, 3, 11)  # no blinking A
        assert len(lit(frame, (255, 230, 0))) == 40  # the phone's screen in the giver's yellow
    hint = describe(state, ui)
    assert "on their phone" in hint and "look away" not in hint and "twice" not in hint
    _, after = press(state, ui, "a", 1.0)
    _, after = press(state, after, "a", 1.2)
    assert after.screen == "handoff"  # the joystick cannot open a phone giver's card


def test_one_press_of_a_does_not_open_the_secret_two_do():
    state = game()
    ui = Ui(screen="handoff", since=0.0, seating=Seating(secret=PANEL))  # a round dealt to the joystick giver
    _, once = press(state, ui, "a", 1.0)
    assert once.screen == "handoff"
    frames = [render(state, once, 1.0 + i / 10) for i in range(10)]
    assert any(f != render(state, ui, 1.0 + i / 10) for i, f in enumerate(frames))  # the panel asks again
    assert "press A again" in describe(state, once)
    _, twice = press(state, once, "a", 1.0 + HANDOFF_ARM_S - 0.1)
    assert twice.screen == "secret"


@pytest.mark.parametrize("between", ["b", "up", "start", "late"])
def test_a_stray_press_between_or_a_late_second_a_keeps_the_secret_closed(between):
    state = game()
    _, ui = press(state, Ui(screen="handoff", seating=Seating(secret=PANEL)), "a", 1.0)
    if between == "late":
        _, ui = press(state, ui, "a", 1.0 + HANDOFF_ARM_S + 0.1)
    else:
        _, ui = press(state, ui, between, 1.5)
        _, ui = press(state, ui, "a", 2.0)
    assert ui.screen == "handoff"


# --- the secret choice ----------------------------------------------------------------------------


@pytest.mark.parametrize("card", range(0, 100, 1))
def test_the_joystick_moves_to_the_card_cell_in_the_pressed_direction(card):
    cells = cards()[card]
    for index, here in enumerate(cells):
        for button, (dr, dc) in MOVES.items():
            ahead = [i for i, x in enumerate(cells) if (x.row - here.row) * dr + (x.col - here.col) * dc > 0]
            went = card_step(cells, index, button)
            if not ahead:
                assert went == index
                continue
            assert went in ahead
            there = cells[went]
            along = (there.row - here.row) * dr + (there.col - here.col) * dc
            across = abs((there.row - here.row) * dc) + abs((there.col - here.col) * dr)
            in_cone = [i for i in ahead if abs((cells[i].row - here.row) * dc) + abs((cells[i].col - here.col) * dr)
                       <= (cells[i].row - here.row) * dr + (cells[i].col - here.col) * dc]
            assert (across <= along) == bool(in_cone)  # within 45 degrees whenever a cell is
        for goal in range(4):
            assert len(card_path(cells, goal)) <= 3  # every cell within reach


def test_the_secret_frame_follows_the_joystick():
    state = game()
    ui = Ui(screen="secret", seating=Seating(secret=PANEL))
    cells = state.card_cells
    for button in MOVES:
        _, moved = press(state, ui, button, 1.0)
        chosen = cells[card_step(cells, 0, button)]
        seen = {render(state, moved, i / 10).get(chosen.col, chosen.row) for i in range(8)}
        assert (255, 0, 0) in seen  # the red giver's cursor on the cell it went to

"""The score screens read back from their frames: lit numbers on black, each in its player's
colour, for up to ten players, in seat order on both screens, and the round (issue 10, goal 3)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from console.game import rules
from console.game.rules import NewGame
from console.view import font
from console.view.render import render
from console.view.screens import GOLD, LINE_YS, SCORES_X, WHITE, ink
from console.view.ui import REVEAL_POINTS_S, REVEAL_SCORES_S, SCOREBOARD_PAGE_S, Ui
from hal.frame import BLACK, Frame


def scored(players: int, scores, points, round_: int = 3, tied=()) -> rules.GameState:
    state = rules.apply(None, NewGame(players=players, seed=5))
    return replace(state, phase="round_over", round=round_, scores=tuple(scores),
                   last_round_points=tuple(points), tied=tuple(tied))


def lit(frame: Frame, rgb, x0: int = 0, x1: int = 32, y0: int = 0, y1: int = 16) -> set[tuple[int, int]]:
    return {(x, y) for y in range(y0, y1) for x in range(x0, x1) if frame.get(x, y) == rgb}


def text_pixels(text: str, x: int, y: int) -> set[tuple[int, int]]:
    canvas = Frame(64, 16)
    font.draw_text(canvas, x, y, text, WHITE)
    return lit(canvas, WHITE, 0, 64)


def read(frame: Frame, rgb, y: int, candidates) -> list[str]:
    """The texts drawn in `rgb` on the line at y, left to right, among `candidates`."""
    pixels = sorted(lit(frame, rgb, SCORES_X, 32, y, y + 5))
    found, rest = [], set(pixels)
    while rest:
        x = min(px for px, _ in rest)
        match = [t for t in candidates if text_pixels(t, x, y) <= rest
                 and not (text_pixels(t, x, y) ^ {p for p in rest if x <= p[0] < x + font.text_width(t)})]
        assert match, f"the pixels at x={x} y={y} are no number"
        best = max(match, key=len)
        found.append(best)
        rest -= text_pixels(best, x, y)
    return found


def pages(state, start: float, page_s: float, count: int) -> list[Frame]:
    ui = Ui(screen="reveal", since=0.0)
    return [render(state, ui, start + 0.01 + page_s * i) for i in range(count)]


def read_all(frames: list[Frame], state, texts) -> dict[int, tuple[int, int, str]]:
    """player -> (page, position, text) for every number found in its colour."""
    found, distinct = {}, []
    for frame in frames:
        if frame not in distinct:  # a page shows through more than one period
            distinct.append(frame)
    for page, frame in enumerate(distinct):
        for player, color in enumerate(state.colors):
            for y in LINE_YS:
                for text in read(frame, ink(color), y, texts):
                    assert player not in found, f"player {player} shown twice"
                    found[player] = (page, y, min(x for x, yy in lit(frame, ink(color), SCORES_X, 32, y, y + 5)), text)
    return found


@pytest.mark.parametrize("players", [3, 6, 10])
def test_every_total_and_every_round_point_reads_back_in_its_players_colour_in_seat_order(players):
    scores = [(7 * p + 3) % 60 for p in range(players)]
    points = [(p * 2) % 7 for p in range(players)]
    state = scored(players, scores, points)
    candidates = [str(n) for n in range(100)] + [f"+{n}" for n in range(20)]
    totals = read_all(pages(state, REVEAL_SCORES_S, SCOREBOARD_PAGE_S, 3), state, candidates)
    page_s = (REVEAL_SCORES_S - REVEAL_POINTS_S) / 3
    rounds = read_all(pages(state, REVEAL_POINTS_S, page_s, 3), state, candidates)
    assert {p: t[3] for p, t in totals.items()} == {p: str(s) for p, s in enumerate(scores)}
    assert {p: t[3] for p, t in rounds.items()} == {p: f"+{n}" for p, n in enumerate(points)}
    seats = sorted(totals, key=lambda p: totals[p][:3])
    assert seats == list(range(players))  # seat order: page, line, then left to right
    assert [t[:2] for t in totals.values()] == [rounds[p][:2] for p in totals]  # same page and line


def test_the_numbers_are_lit_on_a_dark_background():
    state = scored(5, [12, 3, 0, 19, 7], [1, 0, 3, 2, 2])
    frame = render(state, Ui(screen="reveal", since=0.0), REVEAL_SCORES_S + 0.1)
    inks = {ink(c) for c in state.colors}
    area = [frame.get(x, y) for y in range(16) for x in range(SCORES_X, 32)]
    assert set(area) <= inks | {BLACK, WHITE, (90, 90, 90)}
    assert area.count(BLACK) > len(area) / 2


@pytest.mark.parametrize("round_, players, tied, top, bottom, rgb", [
    (3, 3, (), "3", "6", WHITE),
    (8, 4, (), "8", "8", WHITE),
    (12, 6, (), "12", "12", WHITE),
    (13, 6, (0, 2), "T", "1", GOLD),
])
def test_the_round_shows_as_a_fraction_and_a_tie_break_in_gold(round_, players, tied, top, bottom, rgb):
    state = scored(players, [0] * players, [0] * players, round_, tied)
    for t in (REVEAL_POINTS_S + 0.1, REVEAL_SCORES_S + 0.1):
        frame = render(state, Ui(screen="reveal", since=0.0), t)
        left = lit(frame, rgb, 0, SCORES_X - 2)
        assert {(x, 7) for x in range(SCORES_X - 2)} <= left  # the fraction's bar
        for text, y in ((top, LINE_YS[0]), (bottom, LINE_YS[1])):
            x = (SCORES_X - 2 - font.text_width(text)) // 2
            assert text_pixels(text, x, y) == {p for p in left if y <= p[1] < y + 5}


@pytest.mark.parametrize("scores", [
    [12, 19, 15, 21, 10, 48],  # late in a game every total has two digits
    [48, 5, 12, 0, 33, 9, 100, 7, 48, 21],
    [10, 11, 48],
    [3, 1, 0, 2],
])
def test_two_totals_side_by_side_are_further_apart_than_the_digits_of_one(scores):
    """Beside each other in the colours of neighbouring seats (red, orange, yellow), "12" and
    "19" one column apart read "1219" across a room: two totals are two dark columns apart.
    (The round's points each start with a "+", which parts them; three-digit totals, out of
    reach of a real game's score, keep one column so that two still fit a line.)"""
    state = scored(len(scores), scores, [2] * len(scores))
    for frame in pages(state, REVEAL_SCORES_S, SCOREBOARD_PAGE_S, 3):
        for y in LINE_YS:
            owners = {}
            for player, color in enumerate(state.colors):
                for x, _ in lit(frame, ink(color), SCORES_X, 32, y, y + 5):
                    owners[x] = player
            columns = sorted(owners)
            for left, right in zip(columns, columns[1:]):
                if owners[left] != owners[right]:
                    assert right - left - 1 >= 2, f"players {owners[left]} and {owners[right]} run together at x={right}"

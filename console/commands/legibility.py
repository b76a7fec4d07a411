"""How far the panel's marks stand out from the board, measured as light after the output stage.

A pawn or a cursor only helps if it differs from the cell it stands on as the LEDs show it: the
rendered frame goes through the configured output stage (gamma, then the brightness the power
limit allows for the whole board, rounded to 8 bits) and each drive value is turned back into
light at full brightness (as `palette.led_separation` judges the board), then into OKLab. Every
figure is taken from `render`'s frames, over all 480 cells and all ten pawn colours, sampled
through one blink period: `hues-console palette --legibility` prints them and the tests hold
them to the issue's thresholds.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Callable

from console.game import rules
from console.game.board import ALL_CELLS, Cell
from console.game.rules import ChooseTarget, Clue, GameState, NewGame, Pawn
from console.view.palette import PAWN_COLORS, Lab, linear_srgb_to_oklab
from console.view.render import CURSOR_S, PAWN_S, board_frame, render
from console.view.screens import ink
from console.view.ui import Cursor, Ui
from hal.frame import RGB, Frame
from hal.output import OutputStage

SAMPLES = 40  # frames per blink period
Light = Callable[[RGB], Lab]


def light_after(stage: OutputStage) -> tuple[Light, float]:
    """rgb -> OKLab of the light the LEDs give for it at the full board's limited brightness
    (judged at full brightness), and that brightness."""
    layout = stage.layout
    stage.process(board_frame(layout.width, layout.height))
    level = round(stage.last_brightness * 255)
    table = stage.light_table(level)  # the light each sRGB value gives, whatever the driver
    cache: dict[RGB, Lab] = {}

    def light(rgb: RGB) -> Lab:
        lab = cache.get(rgb)
        if lab is None:
            lab = cache[rgb] = linear_srgb_to_oklab(*(table[v] / level for v in rgb))
        return lab

    return light, stage.last_brightness


def ten_players() -> GameState:
    """A 10-player free game, one seat for each pawn colour, at its second clue: the board shows
    pawns and phone players' cursors but not the panel's own cursor."""
    state = rules.apply(None, NewGame(players=10, seed=1, variant="free"))
    return replace(rules.apply(rules.apply(state, ChooseTarget(Cell(0, 0))), Clue()), phase="clue2")


def _frames(state: GameState, ui: Ui, period: float) -> list[Frame]:
    return [render(state, ui, period * i / SAMPLES) for i in range(SAMPLES)]


def _cell_light(frame: Frame, cell: Cell, light: Light) -> Lab:
    return light(frame.get(cell.col, cell.row))


def pawn_figures(light: Light) -> dict:
    """Per pawn colour, the least over the 480 cells of the most a pawn's phases differ from the
    bare cell; and how close the lit phases of two colours come (telling players apart)."""
    base = ten_players()
    bare = board_frame()
    least: dict[str, float] = {}
    for player, color in enumerate(base.colors):
        state = replace(base, pawns=tuple(Pawn(player, cell) for cell in ALL_CELLS))
        frames = _frames(state, Ui(screen="play", cursor=Cell(0, 0)), PAWN_S)
        least[color] = min(
            max(math.dist(_cell_light(f, cell, light), _cell_light(bare, cell, light)) for f in frames)
            for cell in ALL_CELLS
        )
    inks = [light(ink(color)) for color in PAWN_COLORS]
    apart = min(math.dist(a, b) for i, a in enumerate(inks) for b in inks[i + 1 :])
    lit_alone = min(math.dist(lab, _cell_light(bare, cell, light)) for lab in inks for cell in ALL_CELLS)
    return {"pawn_least_difference": least, "pawn_min": min(least.values()), "pawn_colours_apart": apart,
            "pawn_colour_alone_min": lit_alone}


def cursor_figures(light: Light) -> dict:
    """For a cursor of every colour on every cell: the least share of each period it shows the
    cell's own colour, and the least over the cells of its most different phase."""
    state = ten_players()
    bare = board_frame()
    share, contrast = 1.0, math.inf
    for color in PAWN_COLORS:
        ui = Ui(screen="play", cursor=Cell(0, 0), remote_cursors=tuple(Cursor(color, c) for c in ALL_CELLS))
        frames = _frames(state, ui, CURSOR_S)
        for cell in ALL_CELLS:
            own = bare.get(cell.col, cell.row)
            seen = [f.get(cell.col, cell.row) for f in frames]
            share = min(share, seen.count(own) / len(seen))
            contrast = min(contrast, max(math.dist(light(rgb), light(own)) for rgb in seen))
    return {"cursor_own_colour_share": share, "cursor_min": contrast}


def figures(stage: OutputStage) -> dict:
    light, brightness = light_after(stage)
    return {"brightness": round(brightness, 3), **pawn_figures(light), **cursor_figures(light)}


def print_figures(stage: OutputStage, as_json: bool) -> int:
    found = figures(stage)
    if as_json:
        print(json.dumps(found))
        return 0
    print(f"as light after the output stage, at the full board's brightness {found['brightness']:.3f} "
          f"(OKLab distances):")
    print(f"  pawns: the least, over 480 cells and 10 colours, of a pawn's most different phase: "
          f"{found['pawn_min']:.3f}")
    for color, value in found["pawn_least_difference"].items():
        print(f"    {color:>6}: {value:.3f}")
    print(f"  pawn colours: the closest two lit phases: {found['pawn_colours_apart']:.3f}; a lit phase "
          f"alone comes as close as {found['pawn_colour_alone_min']:.3f} to some cell (why the dark phase)")
    print(f"  cursor: its cell's own colour for at least {found['cursor_own_colour_share']:.0%} of each "
          f"period; its most different phase at least {found['cursor_min']:.3f} from the cell")
    return 0

"""The games `hues-console bench` measures and the console it measures them on: the busy game
(10 players, 17 pawns down: the dearest play screen to draw), its reveal, and the console on the
32x16 panel's PixelStrip stand-in. The lab (`python -m bench`) measures the same ones."""

from __future__ import annotations

import time

from console.game import rules
from console.game.board import ALL_CELLS, Cell, distance
from console.game.rules import ChooseTarget, Clue, GameState, NewGame, Place
from console.play.app import ConsoleApp
from console.store.games import GameStore
from console.view.ui import Ui
from hal.drivers.ws281x import PixelStripStandIn, Ws281xDriver
from hal.inputs.events import EventQueue
from hal.layout import Layout, LayoutOptions
from hal.output import OutputStage


def busy_game() -> tuple[GameState, Ui]:
    """10 players in the second guesses: 17 pawns down, the last one still to be let stand (B
    takes it back), the 18th guesser's cursor, status."""
    state = rules.apply(None, NewGame(players=10, seed=11, first_giver=0, variant="free"))
    target = Cell(7, 14)
    state = rules.apply(rules.apply(state, ChooseTarget(target)), Clue())
    near = iter(c for c in ALL_CELLS if 1 <= distance(c, target) <= 4)
    while state.phase == "guess1":
        state = rules.apply(state, Place(next(near)))
    state = rules.apply(state, Clue())
    while len(state.to_place) > 1:
        state = rules.apply(state, Place(next(near)))
    return state, Ui(screen="play", cursor=Cell(3, 20), pending=state.pawns[-1])


def reveal_game() -> tuple[GameState, Ui]:
    state, _ = busy_game()  # its pending pawn is in the state already: the last guesser places
    taken = {pawn.cell for pawn in state.pawns}
    state = rules.apply(state, Place(next(c for c in ALL_CELLS if c not in taken)))
    return state, Ui(screen="reveal", since=0.0)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def started_app(now: float | None = None) -> ConsoleApp:
    """The console on the 32x16 panel's PixelStrip stand-in with an in-memory store, started
    (at `now` on its clock; by default time.monotonic's)."""
    layout = Layout(LayoutOptions())
    app = ConsoleApp(OutputStage(layout), Ws281xDriver(layout.led_count, strip_factory=PixelStripStandIn),
                     EventQueue(), [], GameStore("memory://"))
    app.start(time.monotonic() if now is None else now)
    return app

"""The app loop on a virtual clock: no press lands on a screen that just appeared, the host menu
on a Start hold (from GPIO or a terminal's key repeat), the quit that asks first (issue 10, goals
6, 7 and 9)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from console.commands.wiring import build_output
from console.config.loader import load_config
from console.game import rules
from console.game.board import ALL_CELLS
from console.game.record import action_from_json, action_to_json
from console.game.rules import ChooseTarget, Clue, NewGame, Place
from console.play.app import ConsoleApp
from console.play.ports import Shutdown
from console.play.controller import GRACE_S, HOST_MENU_HOLD_S
from console.play.hold import KEY_REPEAT_GAP_S
from console.store.games import GameStore
from console.view.palette import board_colors
from console.view.hints import describe
from console.view.render import render
from console.view.screens import ink
from console.view.ui import HOST_MENU, REVEAL_SCORES_S
from hal.inputs.events import PRESS, QUIT, RELEASE, EventQueue, InputEvent
from tests.gameplay import c, play_round

FPS = 60
BOARD = board_colors()


class Player:
    """Presses on the app's queue, as a GPIO button (release later) or a terminal key (release
    at once) gives them, and frames on a virtual clock."""

    def __init__(self, store: GameStore | None = None, poweroff=None):
        config = load_config(None, environ={}, etc_path="/nonexistent/console.yaml")
        stage, driver = build_output(config, "sim-headless")
        self.events = EventQueue()
        self.store = store or GameStore("memory://")
        self.app = ConsoleApp(stage, driver, self.events, [], self.store, colors=config.players.colors,
                              rng=random.Random(0), shutdown=Shutdown("start", 5.0, poweroff))
        self.now = 0.0
        self.app.start(0.0)

    def run(self, seconds: float) -> None:
        end = self.now + seconds
        while self.now < end - 1e-9 and self.app.running:
            self.app.tick(self.now)
            self.now = round(self.now + 1 / FPS, 6)

    def tap(self, button: str, terminal: bool = False) -> None:
        self.events.put(InputEvent(button, PRESS, self.now))
        if terminal:
            self.events.put(InputEvent(button, RELEASE, self.now))
            self.run(1 / FPS)
        else:
            self.run(1 / FPS)
            self.events.put(InputEvent(button, RELEASE, self.now))
        self.run(1 / FPS)

    def taps(self, *buttons: str) -> None:
        for button in buttons:
            self.tap(button)

    def hold(self, button: str, seconds: float) -> None:
        self.events.put(InputEvent(button, PRESS, self.now))
        self.run(seconds)
        self.events.put(InputEvent(button, RELEASE, self.now))
        self.run(1 / FPS)

    def key_held(self, button: str, seconds: float, delay: float = 0.5, rate: float = 30) -> None:
        """A terminal's key held down: a press, the key-repeat delay, then repeats."""
        start = self.now
        self.events.put(InputEvent(button, PRESS, self.now))
        self.events.put(InputEvent(button, RELEASE, self.now))
        self.run(delay)
        while self.now - start < seconds:
            self.events.put(InputEvent(button, PRESS, self.now))
            self.events.put(InputEvent(button, RELEASE, self.now))
            self.run(1 / rate)


def at_the_reveal() -> Player:
    """A game whose first round was just scored, the reveal starting at the player's now."""
    store = GameStore("memory://")
    game = rules.apply(None, NewGame(3, seed=1, variant="free"))
    store.start_game(action_to_json(NewGame(3, seed=1, variant="free")))
    state = play_round(game, target=c("H15"))
    for action in _actions_of(game, state):
        store.append(action)
    player = Player(store)
    player.tap("a")  # resume: straight to the scoreboard
    return player


def _actions_of(game, state):
    yield action_to_json(ChooseTarget(c("H15")))
    yield action_to_json(Clue())
    for pawn in state.pawns:
        yield action_to_json(Place(pawn.cell, pawn.player))
    yield {"action": "skip_clue"}


def guessing_player() -> Player:
    store = GameStore("memory://")
    store.start_game(action_to_json(NewGame(4, seed=3, variant="free")))
    for action in (ChooseTarget(c("H15")), Clue()):
        store.append(action_to_json(action))
    player = Player(store)
    player.tap("a")  # resume
    assert player.app.ui.screen == "play" and player.app.game.phase == "guess1"
    return player


# --- goal 6: a grace after a screen changes by itself -----------------------------------------


@pytest.mark.parametrize("after, lands", [(0.1, False), (GRACE_S - 0.05, False), (GRACE_S + 0.05, True)])
def test_a_press_just_after_the_scoreboard_appears_by_itself_is_ignored(after, lands):
    player = at_the_reveal()
    app = player.app
    app.ui = replace(app.ui, since=player.now)  # the reveal from its start: frame, points, scores
    player.run(REVEAL_SCORES_S + after)
    assert app.ui.reveal_stage(player.now) == "scores"
    player.tap("a")
    assert (app.game.phase == "choose_target") == lands


def test_a_screen_a_press_opened_takes_the_next_press_at_once():
    player = guessing_player()
    app = player.app
    player.tap("left")
    player.tap("a")  # a pawn: placed, pending
    assert app.ui.pending is not None
    player.tap("b")  # taken back at once, no grace
    assert app.ui.pending is None and app.game.pawns == ()


def test_a_press_just_after_a_menu_falls_back_to_idle_is_ignored():
    player = Player()
    app = player.app
    app.idle_timeout_s = 5.0
    player.tap("start")
    assert app.ui.screen == "setup"
    player.run(5.1)
    assert app.ui.screen == "idle"
    player.tap("start")
    assert app.ui.screen == "idle"
    player.run(GRACE_S)
    player.tap("start")
    assert app.ui.screen == "setup"


# --- goal 7: the host menu --------------------------------------------------------------------


@pytest.mark.parametrize("terminal", [False, True], ids=["gpio", "terminal key repeat"])
def test_holding_start_opens_the_host_menu_over_a_game(terminal):
    player = guessing_player()
    app = player.app
    player.tap("right")
    cursor = app.ui.cursor
    if terminal:
        player.key_held("start", HOST_MENU_HOLD_S - 0.3)
        player.run(KEY_REPEAT_GAP_S + 0.1)
        assert app.ui.screen == "play"
        player.key_held("start", HOST_MENU_HOLD_S + 0.1)
    else:
        player.hold("start", HOST_MENU_HOLD_S - 0.2)
        assert app.ui.screen == "play"
        player.hold("start", HOST_MENU_HOLD_S + 0.1)
    assert app.ui.screen == "host"
    assert "Host menu" in describe(app.game, app.ui)
    player.run(KEY_REPEAT_GAP_S + 0.1)
    player.tap("a")  # continue
    assert app.ui.screen == "play" and app.ui.cursor == cursor and app.running


def test_a_new_game_from_the_host_menu_asks_first_and_abandons_the_old_one():
    player = guessing_player()
    app, store = player.app, player.store
    player.hold("start", HOST_MENU_HOLD_S + 0.1)
    player.taps("down", "a")  # new game
    assert app.ui.screen == "confirm"
    player.tap("a")  # NO is the default
    assert app.ui.screen == "host" and app.game is not None
    player.taps("a", "right", "a")  # YES
    assert app.ui.screen == "setup" and app.game is None
    assert store.unfinished() is None
    assert [g.get("status") for g in store.history(5)] == ["abandoned"]


def test_power_off_from_the_host_menu_asks_first_then_powers_off():
    calls = []
    player = guessing_player()
    player = Player(player.store, poweroff=lambda: calls.append("off"))
    player.tap("a")  # resume
    app = player.app
    player.hold("start", HOST_MENU_HOLD_S + 0.1)
    player.taps(*["down"] * HOST_MENU.index("power_off"), "a")  # power off
    player.tap("b")  # B says no
    assert app.ui.screen == "host" and app.running
    player.taps("a", "left", "a")
    assert not app.running and app.powering_off
    app.close()
    assert calls == ["off"]
    assert player.store.unfinished() is not None  # the game waits for the next start


def test_the_five_second_hold_still_powers_off_through_the_menu():
    calls = []
    player = Player(guessing_player().store, poweroff=lambda: calls.append("off"))
    player.tap("a")
    player.hold("start", 5.2)
    assert player.app.powering_off and not player.app.running


def test_brightness_from_the_host_menu_returns_to_it_and_never_times_out_to_idle():
    player = guessing_player()
    app = player.app
    app.idle_timeout_s = 2.0
    player.hold("start", HOST_MENU_HOLD_S + 0.1)
    player.taps("down", "down", "a")
    assert app.ui.screen == "brightness"
    player.run(3.0)
    assert app.ui.screen == "brightness"
    player.tap("a")
    assert app.ui.screen == "host"


def test_no_host_menu_without_a_game():
    player = Player()
    player.hold("start", HOST_MENU_HOLD_S + 0.5)
    assert player.app.ui.screen == "setup"  # the press opened set-up; the hold adds nothing


# --- goal 9: quitting the simulator -----------------------------------------------------------


def test_quitting_mid_game_asks_first_and_says_memory_keeps_nothing():
    player = guessing_player()
    app = player.app
    player.tap(QUIT, terminal=True)
    assert app.running and app.ui.screen == "confirm"
    assert "memory:// keeps nothing" in describe(app.game, app.ui)
    player.tap("b")
    assert app.ui.screen == "play" and app.running
    player.tap(QUIT, terminal=True)
    player.tap(QUIT, terminal=True)
    assert not app.running


def test_quitting_with_no_game_under_way_is_at_once():
    player = Player()
    player.tap(QUIT, terminal=True)
    assert not player.app.running


# --- goal 8: what the panel showed as placed is in the store ----------------------------------


def _resumed(store: GameStore):
    """The game a box switched on now would resume."""
    return rules.replay(action_from_json(a) for a in store.unfinished()[1])


def _pawn_cells_shown(state, ui) -> set:
    """Cells showing a pawn's colour at a moment pawns are lit (the cursor parked on its own look)."""
    frame = render(state, ui, 0.0)  # pawns lit, the cursor showing its cell
    inks = {ink(color) for color in state.colors}
    return {x for x in ALL_CELLS if frame.get(x.col, x.row) in inks and frame.get(x.col, x.row) != BOARD[x.index]}


def test_at_every_moment_of_a_round_a_power_cut_keeps_every_pawn_the_panel_showed():
    player = guessing_player()
    app = player.app
    presses = ["up", "a", "b", "left", "a", "a", "down", "a", "right", "a", "b", "a",  # guess1
               "a", "a",  # the last pawn let stand, the giver's CLUE
               "up", "a", "right", "right", "a", "b", "a", "down", "down", "a", "start"]  # guess2
    for button in presses:
        player.tap(button)
        resumed = _resumed(player.store)
        assert resumed.pawns == app.game.pawns
        if app.ui.screen == "play":
            assert _pawn_cells_shown(app.game, app.ui) <= {p.cell for p in resumed.pawns}
    assert app.game.phase == "round_over" and app.ui.screen == "reveal"
    assert len(_resumed(player.store).pawns) == 6


def test_a_replay_shows_a_take_back_and_never_the_target_it_held_back():
    from console.view.timeline import replay_timeline

    record = [NewGame(3, seed=1, variant="free"), ChooseTarget(c("H15")), Clue(), Place(c("A1")), Place(c("A2")),
              Clue(), Place(c("A3")), Place(c("H15")), rules.TakeBack(), Place(c("P30"))]
    timeline = replay_timeline(record)
    captions = [scene.caption for scene in timeline.scenes]
    taken = next(i for i, text in enumerate(captions) if "takes back the pawn on H15" in text)
    assert all(scene.ui.screen != "reveal" for scene in timeline.scenes[:taken + 1])
    last = timeline.scenes[-1]  # the round is scored, but its reveal waits for a press, as on the panel
    assert last.game.phase == "round_over" and last.ui.screen == "play"


def test_quitting_from_the_host_menu_and_saying_no_goes_back_to_the_game():
    player = guessing_player()
    app = player.app
    player.hold("start", HOST_MENU_HOLD_S + 0.1)
    assert app.ui.screen == "host"
    player.tap(QUIT, terminal=True)
    assert app.ui.screen == "confirm"
    player.tap("b")
    assert app.ui.screen == "play" and app.ui.menu_return is None and app.running
    player.hold("start", HOST_MENU_HOLD_S + 0.1)
    player.taps("down", "a")  # NEW? asks first
    player.tap(QUIT, terminal=True)  # q there asks about quitting, it does not quit
    assert app.running and "Quit mid-game" in describe(app.game, app.ui)
    assert "saved" in describe(app.game, replace(app.ui, store_keeps=True))

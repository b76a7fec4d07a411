"""The app loop with real gpiozero Buttons on MockFactory pins, an injected clock, a headless panel
and an in-memory store: shutdown hold, brightness kept across restarts, resume, frames pushed
only when they change."""

from __future__ import annotations

import random

import pytest
from gpiozero.pins.mock import MockFactory

from console.play.app import ConsoleApp
from console.play.ports import Shutdown
from console.config.loader import load_config
from console.game.record import action_to_json
from console.game.rules import ChooseTarget, Clue, NewGame
from console.store.games import GameStore
from console.commands.wiring import build_output, gpio_input
from hal.inputs.events import PRESS, EventQueue, InputEvent
from tests.gameplay import c
from tests.fakes import FakeClock

PERIOD = 1 / 60


@pytest.fixture
def config(tmp_path):
    return load_config(None, environ={}, etc_path=str(tmp_path / "none.yaml"))


@pytest.fixture
def factory():
    f = MockFactory()
    yield f
    f.reset()


def make_app(config, factory, clock, store, poweroff=None):
    stage, driver = build_output(config, "sim-headless")
    events = EventQueue()
    gpio = gpio_input(config, events, pin_factory=factory, clock=clock)
    app = ConsoleApp(stage, driver, events, [gpio], store, colors=config.players.colors,
                     rng=random.Random(0), shutdown=Shutdown("start", 5.0, poweroff))
    return app, gpio


def run_until(app, clock, t_end):
    while clock.now < t_end:
        app.tick(clock.now)
        clock.now = round(clock.now + PERIOD, 6)


def press(factory, pin):
    factory.pin(pin).drive_low()


def release(factory, pin):
    factory.pin(pin).drive_high()


def test_holding_start_five_seconds_clears_the_panel_flushes_and_powers_off(config, factory):
    clock, calls = FakeClock(), []
    store = GameStore("memory://")
    app, gpio = make_app(config, factory, clock, store, poweroff=lambda: calls.append("off"))
    app.start(0.0)
    start_pin = config.input.pins.start
    run_until(app, clock, 0.5)
    press(factory, start_pin)
    run_until(app, clock, 4.9)
    assert app.running and 0.8 < app.ui.hold_progress < 1.0
    run_until(app, clock, 5.6)
    assert not app.running and app.powering_off
    app.close()
    gpio.close()
    assert calls == ["off"]
    assert app.driver.last_frame is None or not any(app.driver.last_frame.pixels)


def test_a_short_start_press_opens_set_up_and_never_powers_off(config, factory):
    clock, calls = FakeClock(), []
    app, gpio = make_app(config, factory, clock, GameStore("memory://"), poweroff=lambda: calls.append("off"))
    app.start(0.0)
    press(factory, config.input.pins.start)
    run_until(app, clock, 0.3)
    release(factory, config.input.pins.start)
    run_until(app, clock, 8.0)
    gpio.close()
    assert app.running and app.ui.screen == "setup" and app.ui.hold_progress == 0.0 and calls == []


def test_the_simulator_has_no_power_off(config, factory):
    clock = FakeClock()
    app, gpio = make_app(config, factory, clock, GameStore("memory://"), poweroff=None)
    app.start(0.0)
    press(factory, config.input.pins.start)
    run_until(app, clock, 7.0)
    gpio.close()
    assert app.running and not app.powering_off


def test_brightness_menu_is_kept_in_the_store_across_restarts(config, factory):
    clock = FakeClock()
    store = GameStore("memory://")
    app, gpio = make_app(config, factory, clock, store)
    app.start(0.0)
    pins = config.input.pins
    for pin in (pins.b, pins.down, pins.down, pins.down):
        press(factory, pin)
        run_until(app, clock, clock.now + 0.1)
        release(factory, pin)
        run_until(app, clock, clock.now + 0.1)
    gpio.close()
    assert app.ui.screen == "brightness" and app.ui.brightness == pytest.approx(0.7, abs=0.01)
    assert app.stage.last_brightness <= 0.71  # the LEDs got it: the frame's ceiling
    again, gpio = make_app(config, factory, clock, store)
    again.start(clock.now)
    again.tick(clock.now)
    gpio.close()
    assert again.ui.brightness == pytest.approx(0.7, abs=0.01) and again.stage.last_brightness <= 0.71


def store_with_a_game_at_the_first_guesses() -> GameStore:
    store = GameStore("memory://")
    store.start_game(action_to_json(NewGame(4, seed=3, variant="free")))
    for action in (ChooseTarget(c("H15")), Clue()):
        store.append(action_to_json(action))
    return store


def test_an_unfinished_game_is_offered_for_resume_and_comes_back(config, factory):
    store = store_with_a_game_at_the_first_guesses()
    clock = FakeClock()
    app, gpio = make_app(config, factory, clock, store)
    app.start(0.0)
    assert app.ui.screen == "resume" and app.game.phase == "guess1"
    press(factory, config.input.pins.a)
    run_until(app, clock, 0.2)
    gpio.close()
    assert app.ui.screen == "play" and app.game.phase == "guess1" and app.game.target == c("H15")


def test_frames_are_pushed_only_when_they_change(config, factory):
    clock = FakeClock()
    app, gpio = make_app(config, factory, clock, GameStore("memory://"))
    app.start(0.0)
    app.ui = app.ui.__class__(screen="brightness", since=0.0)  # a still screen
    run_until(app, clock, 2.0)
    gpio.close()
    assert app.stats.frames_pushed <= 2


def test_held_joystick_repeats_and_buttons_make_game_actions(config, factory):
    """Real Buttons on mock pins: a held direction auto-repeats (350 ms, then 12 a second, on the
    injected clock), A places a pawn, the next player's press commits it to the store."""
    store = store_with_a_game_at_the_first_guesses()
    clock = FakeClock()
    app, gpio = make_app(config, factory, clock, store)
    app.start(0.0)
    pins = config.input.pins
    press(factory, pins.a)  # resume
    run_until(app, clock, 0.1)
    release(factory, pins.a)
    start_col = app.ui.cursor.col
    press(factory, pins.right)
    run_until(app, clock, 1.1)  # 1 press + repeats at 0.45, 0.53, ... up to 1.1 s
    release(factory, pins.right)
    run_until(app, clock, 1.2)
    moved = app.ui.cursor.col - start_col
    assert 1 + 8 <= moved <= 1 + 9
    for pin in (pins.a, pins.down):  # place, then the next player takes over
        press(factory, pin)
        run_until(app, clock, clock.now + 0.1)
        release(factory, pin)
        run_until(app, clock, clock.now + 0.1)
    gpio.close()
    record = store.export()
    assert record[-1] == {"action": "place", "cell": str(c("H15")._replace(col=14 + moved)), "player": 1}


def test_menus_fall_back_to_the_idle_board_after_the_idle_timeout(config, factory):
    clock = FakeClock()
    app, gpio = make_app(config, factory, clock, GameStore("memory://"))
    app.idle_timeout_s = 10.0
    app.start(0.0)
    press(factory, config.input.pins.start)
    run_until(app, clock, 0.2)
    release(factory, config.input.pins.start)
    run_until(app, clock, 9.0)
    assert app.ui.screen == "setup"
    run_until(app, clock, 10.5)
    gpio.close()
    assert app.ui.screen == "idle"


def test_sigterm_stops_the_loop_clears_the_panel_and_flushes_the_store(config):
    """What systemd's stop does: SIGTERM; the loop ends, the panel goes dark, the store is flushed."""
    import os
    import signal
    import threading

    from console.play.loop import run_realtime
    from console.commands.session import closing_app

    flushed = []
    store = GameStore("memory://")
    store.flush = lambda timeout_s: flushed.append(timeout_s) or True
    stage, driver = build_output(config, "sim-headless")
    app = ConsoleApp(stage, driver, EventQueue(), [], store)
    threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGTERM)).start()
    with closing_app(app):
        run_realtime(app, 60)  # returns once the signal has stopped it
    assert not app.running and flushed
    assert driver.shown > 0 and driver.last_leds == bytes(512 * 3) and driver.closed


def _guessing_app(config, factory, clock):
    """An app on a resumed game in guess1, player 1 to guess, a request's time from `clock`."""
    store = GameStore("memory://")
    store.start_game(action_to_json(NewGame(4, seed=3, variant="free")))
    for action in (ChooseTarget(c("H15")), Clue()):
        store.append(action_to_json(action))
    app, _ = make_app(config, factory, clock, store)
    app.clock = clock
    app.start(clock.now)
    app.tick(clock.now)
    app.events.put(InputEvent("a", PRESS, clock.now))  # carry on the stored game
    app.tick(clock.now)
    assert app.ui.screen == "play" and app.game.phase == "guess1"
    return app

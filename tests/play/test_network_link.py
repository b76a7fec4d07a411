"""The console on a network driver: the receiver's keep-alive is one of the loop's timers, a
receiver that stops answering is said in the hint (the terminal's line, the log, /panel) and the
game goes on, and on a laptop the keyboard plays it, never powering the laptop off."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from console.commands import session
from console.commands.wiring import build_app
from console.config.loader import load_config
from console.view.hints import describe
from console.view.ui import Ui
from hal.drivers import network
from tests.fakes import FakeClock
from tests.network_game import drain, receiver_socket

ROOT = Path(__file__).resolve().parents[2]


def ddp_config(tmp_path, port: int):
    config = load_config(str(ROOT / "config" / "console.yaml"), {}, str(tmp_path / "none.yaml"))
    ddp = dataclasses.replace(config.driver.ddp, host="127.0.0.1", port=port, http_port=0)
    return dataclasses.replace(config, driver=dataclasses.replace(config.driver, name="ddp", ddp=ddp))


@pytest.fixture
def console(monkeypatch, tmp_path):
    monkeypatch.setattr(network.ReceiverWatch, "start", lambda self: None)
    receiver = receiver_socket()
    hints: list[str] = []
    app = build_app(ddp_config(tmp_path, receiver.getsockname()[1]), "ddp", lambda events: [],
                    rng=random.Random(1), hint=hints.append, box=False)
    clock = FakeClock()
    app.driver.clock = clock
    yield app, receiver, hints, clock
    app.close()
    receiver.close()


def test_a_still_screen_wakes_the_loop_for_the_keepalive_and_sends_nothing_else(console):
    """Set-up holds still (its frame never changes by itself): the loop wakes only for the
    keep-alive, every 400 ms, and each time the same two packets go."""
    app, receiver, hints, clock = console
    app.start(0.0)
    app.put_on(None, Ui(screen="setup"), 0.0)
    due = app.tick(0.0)
    assert len(drain(receiver)) == 2 and due == pytest.approx(0.4)
    wakes, now = [], 0.0
    while due < 4.1:  # wake only when the loop asks, as the real-time loop does
        now = clock.now = due
        due = app.tick(now)
        wakes.append((round(now, 6), len(drain(receiver))))
    assert wakes == [(round(0.4 * n, 6), 2) for n in range(1, 11)]
    assert app.driver.stats.keepalives == 10 and app.driver.stats.frames == 11


def test_a_receiver_that_stops_answering_is_said_in_the_hint_and_the_game_goes_on(console):
    app, receiver, hints, clock = console
    app.start(0.0)
    app.tick(0.0)
    watch = app.driver.receiver
    woken = []
    watch.watch(lambda: woken.append(True))
    watch.answering = False
    app.tick(0.1)
    assert not app.ui.receiver_answers and "[the LED matrix does not answer" in hints[-1]
    assert "[the LED matrix does not answer" in describe(app.game, app.ui)
    drain(receiver)
    clock.now = 0.6
    app.tick(0.6)
    assert len(drain(receiver)) >= 2  # frames go on being sent: it shows the game once it is back
    watch.answering = True
    app.tick(0.7)
    assert app.ui.receiver_answers and "does not answer" not in hints[-1]


@pytest.mark.parametrize("terminal, keys, box", [(True, True, False), (False, False, True)])
def test_a_network_driver_is_played_from_the_keyboard_in_a_terminal_else_from_the_buttons(
        monkeypatch, tmp_path, terminal, keys, box):
    """On a laptop (standard input a terminal) the keyboard plays and holding Start never powers
    the laptop off; under the service the box's buttons do."""
    monkeypatch.setattr(session.os, "isatty", lambda fd: terminal)
    monkeypatch.setattr(session, "open_keyboard", lambda events: "keyboard")
    monkeypatch.setattr(session, "gpio_input", lambda config, events: "buttons")
    built = {}

    class Stop(Exception):
        pass

    def build(name, sources, hint, box_):
        built.update(name=name, sources=sources(None), box=box_)
        raise Stop

    with pytest.raises(Stop):
        session.run_interactive(ddp_config(tmp_path, 4048), "ddp", build)
    assert built == {"name": "ddp", "sources": ["keyboard" if keys else "buttons"], "box": box}


def test_on_a_laptop_the_shutdown_hold_never_powers_off(monkeypatch, tmp_path):
    monkeypatch.setattr(network.ReceiverWatch, "start", lambda self: None)
    app = build_app(ddp_config(tmp_path, 4048), "ddp", lambda events: [], box=False)
    try:
        assert app.shutdown.poweroff is None and app.notifier is None
    finally:
        app.close()

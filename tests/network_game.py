"""A whole scripted game played by the console on a network driver (ddp or e131) that sends to a
receiver socket on loopback, on a virtual clock the driver shares: what every frame was, when it
was shown, and every datagram the receiver got, with the tick it came in.

Used by tests/hal/test_ddp.py and tests/hal/test_e131.py, which decode the datagrams with
implementations not written here and compare them with the frames."""

from __future__ import annotations

import dataclasses
import random
import socket
from dataclasses import dataclass, field
from pathlib import Path

from console.commands.wiring import build_app
from console.config.loader import load_config
from console.game import rules
from console.game.board import ALL_CELLS, Cell, distance
from hal.frame import Frame
from hal.inputs.script import ScriptInput, parse_script
from tests.fakes import FakeClock
from tests.scripting import plan_game

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Shown:
    """A frame the app pushed: when, the frame, the chain-ordered bytes the driver was given, and
    the brightness level the output stage drew it at."""

    time: float
    frame: Frame
    leds: bytes
    level: int


@dataclass
class GameRun:
    stage: object
    shown: list[Shown] = field(default_factory=list)
    received: list[tuple[float, bytes]] = field(default_factory=list)  # (tick, datagram)
    ticks: list[float] = field(default_factory=list)
    end: float = 0.0


def receiver_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 * 1024 * 1024)
    sock.bind(("127.0.0.1", 0))
    sock.setblocking(False)
    return sock


def drain(sock: socket.socket) -> list[bytes]:
    got = []
    while True:
        try:
            got.append(sock.recv(65536))
        except BlockingIOError:
            return got


def short_game(seed: int = 5):
    """3 players, cards, a pass in the first round: every screen of a game from the idle board
    to the winner (hand-off, the secret choice, guesses, the second clue, reveal, scores)."""
    rng = random.Random(seed)

    def guess(state: rules.GameState, who: int) -> Cell:
        taken = {p.cell for p in state.pawns}
        return rng.choice([c for c in ALL_CELLS if distance(c, state.target) <= 2 and c not in taken])

    script, expected, _ = plan_game(3, "cards", None, seed, target=lambda s: s.card_cells[0], guess=guess,
                                    passes=lambda s: s.round == 1)
    return script, expected


def play_game(monkeypatch, tmp_path, driver: str, settings: dict, seed: int = 5, still_s: float = 3.0) -> GameRun:
    """The console on `driver` (its section's `settings` over the defaults) sending to a loopback
    receiver, playing `short_game`, then `still_s` more seconds on the still end screen."""
    from hal.drivers import network

    monkeypatch.setattr(network.ReceiverWatch, "start", lambda self: None)  # no thread: no stray query
    receiver = receiver_socket()
    config = load_config(str(ROOT / "config" / "console.yaml"), {}, str(tmp_path / "none.yaml"))
    section = dataclasses.replace(getattr(config.driver, driver), host="127.0.0.1",
                                  port=receiver.getsockname()[1], http_port=0, **settings)
    config = dataclasses.replace(config, driver=dataclasses.replace(config.driver, name=driver, **{driver: section}))
    script, expected = short_game(seed)
    steps = parse_script(script.text(), "game")
    clock = FakeClock()
    inputs = []

    def sources(events):
        inputs.append(ScriptInput(steps, events, 1 / config.display.fps, config.input.repeat_delay_ms / 1000,
                                  config.input.repeat_rate_hz))
        return list(inputs)

    app = build_app(config, driver, sources, rng=random.Random(seed), box=False)
    app.driver.clock = clock
    run = GameRun(app.stage)
    given = app.driver.show

    def show(leds: bytes, frame: Frame) -> None:
        run.shown.append(Shown(clock(), frame.copy(), leds, round(app.stage.last_brightness * 255)))
        given(leds, frame)

    app.driver.show = show
    period = 1 / config.display.fps
    app.start(0.0)
    tick, end = 0, None
    try:
        while app.running:
            now = clock.now = tick * period
            app.tick(now)
            run.ticks.append(now)
            run.received += [(now, datagram) for datagram in drain(receiver)]
            if end is None and inputs[0].done:
                end = now + still_s
            if end is not None and now >= end:
                break
            tick += 1
    finally:
        app.close()
        receiver.close()
    run.end = clock.now
    assert app.game is not None and app.game == expected, "the script did not play the planned game"
    return run

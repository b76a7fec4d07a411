"""The phones' part of `hues-console bench`: the web companion on a free loopback port and
phones that join it, for a tap's round trip (a seated phone's tap to its own view showing it,
beside a websocket ping on the same connection, which the server answers without the game).

These phones are websocket clients in threads of the measuring process: they share its
interpreter with the server. The lab (`python -m bench`) measures a tap to every phone with the
phones in a process of their own, beside a minimal Starlette broadcast, and uses these phones
too (under attack, and with the server on while it times the panel).
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from typing import Any, Callable

from websockets.sync.client import connect

from console.commands.measure_games import busy_game, percentile, started_app
from console.config.loader import load_config
from console.config.schema import WebConfig
from console.game.board import Cell
from console.game.rules import current_player
from console.play.app import ConsoleApp
from console.play.loop import run_realtime
from console.view.ui import Ui
from console.web.companion import WebCompanion
from console.play import intents, table
from console.web.seats import new_room_code

WAIT_S = 5.0


def bench_web_config() -> WebConfig:
    return dataclasses.replace(load_config().web, enabled=True, address="127.0.0.1", port=0)


def attach_bench_web(app: ConsoleApp) -> WebCompanion:
    """The companion on a free loopback port, publishing the app's states (as `attach_web`)."""
    web = WebCompanion(bench_web_config(), app.events, app.store)
    web.start()
    app.publisher, app.room_codes = web.hub, new_room_code
    app.ui = dataclasses.replace(app.ui, room_code=new_room_code())
    app.publisher.publish_state(app.game, app.ui, 0.0)
    return web


class BenchPhone:
    """A phone that joins, takes a seat (None: watches) and keeps every message with its arrival
    time; `source`: the address it connects from (another device on loopback: 127.0.0.x);
    `tick`: what runs the app's loop while it waits to be seated, where no thread runs it yet."""

    def __init__(self, url: str, code: str, seat: int | None, source: str | None = None,
                 tick: Callable[[], Any] | None = None) -> None:
        self.ws = connect(url.replace("http://", "ws://") + "/ws", origin=url, open_timeout=WAIT_S,
                          source_address=(source, 0) if source else None).__enter__()
        self.n = 0
        self.received: list[tuple[float, dict]] = []
        self.arrived = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.send("join", code=code)
        if seat is None:
            self.wait_for(lambda m: m["t"] == "admitted")
            return
        self.send("take", seat=seat)
        self.wait_for(lambda m: m["t"] == "seated", tick=tick)

    def send(self, t: str, **fields: Any) -> float:
        self.n += 1
        sent = time.perf_counter()
        self.ws.send(json.dumps({"t": t, "n": self.n, **fields}))
        return sent

    def _read(self) -> None:
        try:
            for text in self.ws:
                with self.arrived:
                    self.received.append((time.perf_counter(), json.loads(text)))
                    self.arrived.notify_all()
        except Exception:  # the connection closed: the bench is over
            pass

    def wait_for(self, match, since: float = 0.0, tick: Callable[[], Any] | None = None) -> float:
        """When the first message after `since` that matches arrived (`tick`: see the class)."""
        deadline = time.monotonic() + WAIT_S
        while True:
            with self.arrived:
                for at, message in self.received:
                    if at >= since and _matches(match, message):
                        return at
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("a phone never saw the change")
                self.arrived.wait(min(left, 0.01) if tick else left)
            if tick is not None:
                tick()

    def close(self) -> None:
        self.ws.close()


def _matches(match, message: dict) -> bool:
    try:
        return bool(match(message))
    except (KeyError, TypeError, IndexError):
        return False


def open_to_phones(app: ConsoleApp) -> WebCompanion:
    """`attach_bench_web`, every colour of the game under way handed over to the phones (the
    host's hand-over: mid-game a colour no phone holds is the joystick's)."""
    web = attach_bench_web(app)
    for seat in range(app.game.players if app.game is not None else 0):
        step = table.act(app.game, app.ui, intents.joystick(), intents.HandOver(seat), 0.0, app.rng)
        app.put_on(step.game, step.ui, 0.0)
    return web


def serve_one_phone(app: ConsoleApp):
    """The server on, one phone seated and reading every view: returns what stops them. The
    phone takes seat 5 before the game is put on (mid-game a colour no phone holds is the
    joystick's): a guesser who has placed, so the joystick's presses still act."""
    web = attach_bench_web(app)
    phone = BenchPhone(web.url, app.ui.room_code, 5, tick=lambda: app.tick(time.monotonic()))

    def stop() -> None:
        phone.close()
        web.close()

    return stop


def round_trip_figures(taps: int = 200, every_s: float = 0.02) -> dict:
    """The busy game's guesser on a phone taps a cell `taps` times, `every_s` apart, with the
    panel's loop running: ms from each tap sent to its view with the cursor there read by this
    thread, p50 and p99. The anchor: a websocket ping after each tap on the same connection,
    timed alike, which uvicorn's websocket protocol answers itself (the network, the server's
    event loop and this process's threads, without the console's work)."""
    app = started_app()
    app.put_on(busy_game()[0], Ui(screen="play", cursor=Cell(3, 20)), time.monotonic())
    web = open_to_phones(app)
    loop = threading.Thread(target=run_realtime, args=(app, 60), kwargs={"start": False}, daemon=True)
    loop.start()
    phone = BenchPhone(web.url, app.ui.room_code, current_player(app.game))
    tapped, pinged = [], []
    try:
        for i in range(taps):
            cell = f"{'AB'[i % 2]}{20 + i % 10}"  # free cells of the busy game, each tap another
            sent = phone.send("cursor", cell=cell)
            phone.wait_for(lambda m, cell=cell: m["t"] == "view" and m["game"]["cursor"] == cell, sent)
            tapped.append((time.perf_counter() - sent) * 1000)
            pinged_at = time.perf_counter()
            if not phone.ws.ping().wait(WAIT_S):
                raise TimeoutError("the server never answered a ping")
            pinged.append((time.perf_counter() - pinged_at) * 1000)
            time.sleep(max(0.0, sent + every_s - time.perf_counter()))
    finally:
        phone.close()
        app.stop()
        loop.join(WAIT_S)
        web.close()
    figures = {name: {"p50": round(percentile(values, 50), 2), "p99": round(percentile(values, 99), 2),
                      "samples": len(values)} for name, values in (("tap", tapped), ("ping (anchor)", pinged))}
    return figures | {"p50_ratio": round(percentile(tapped, 50) / percentile(pinged, 50), 2)}

"""The web companion in `hues-console bench`: the server on a free loopback port, and phones
that join it, for what the server costs the panel (the frame loop's latency, idle CPU, start-up
and memory are measured by `bench` with the server on and a phone connected) and for the attacks'
bench (`bench_attacks`).

These phones are websocket clients in threads of the measuring process, each keeping when a
message arrived: they share its interpreter, so a tap's latency to every phone is measured with
the phones in a process of their own instead (`bench_phones`).
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from typing import Any

from websockets.sync.client import connect

from console.config.loader import load_config
from console.config.schema import WebConfig
from console.play.app import ConsoleApp
from console.web.companion import WebCompanion
from console.play import intents, table
from console.web.seats import new_room_code

WAIT_S = 5.0


def bench_web_config() -> WebConfig:
    return dataclasses.replace(load_config().web, enabled=True, address="127.0.0.1", port=0)


def attach_bench_web(app: ConsoleApp) -> WebCompanion:
    """The companion on a free loopback port, publishing the app's states (as `attach_web`)."""
    web = WebCompanion(bench_web_config(), app.events, app.store, take_request=app.take_request)
    web.start()
    app.publisher, app.room_codes = web.hub, new_room_code
    app.ui = dataclasses.replace(app.ui, room_code=new_room_code())
    app.publisher.publish_state(app.game, app.ui, 0.0)
    return web


class BenchPhone:
    """A phone that joins, takes a seat (None: watches) and keeps every message with its arrival
    time; `source`: the address it connects from (another device on loopback: 127.0.0.x)."""

    def __init__(self, url: str, code: str, seat: int | None, source: str | None = None) -> None:
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
        self.wait_for(lambda m: m["t"] == "seated")

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

    def wait_for(self, match, since: float = 0.0) -> float:
        """When the first message after `since` that matches arrived."""
        deadline = time.monotonic() + WAIT_S
        with self.arrived:
            while True:
                for at, message in self.received:
                    if at >= since and _matches(match, message):
                        return at
                if not self.arrived.wait(deadline - time.monotonic()):
                    raise TimeoutError("a phone never saw the change")

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
    phone = BenchPhone(web.url, app.ui.room_code, 5)

    def stop() -> None:
        phone.close()
        web.close()

    return stop

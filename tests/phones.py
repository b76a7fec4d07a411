"""A console with its web companion for the phone tests: the real app loop in real time on the
headless driver (in a thread), the real uvicorn server on a free port, and phones as websocket
clients that wait for what they expect (each wait has a timeout; nothing sleeps to time things).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import queue
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Callable

from websockets.sync.client import ClientConnection, connect

from console.commands.wiring import attach_web, build_app
from console.config.loader import load_config
from console.play.app import ConsoleApp
from console.play.loop import run_realtime
from console.play.ports import Chore
from hal.inputs.events import PRESS, InputEvent

WAIT_S = 5.0
ROOT = Path(__file__).resolve().parents[1]


_STATE_DIRS: dict[str, str] = {}


def state_dir(store_url: str) -> str:
    """Where a store keeps its journal and identity (not in ~): one per store for the test run,
    so a second PhoneTable on a store is the same console started again, and a console on
    another test's store never takes over writes the last one left in its journal."""
    return _STATE_DIRS.setdefault(store_url, tempfile.mkdtemp(prefix="hues-state-"))


def web_config(store_url: str = "memory://", pin: str = "", port: int = 0):
    config = load_config(environ={}, etc_path="/nonexistent")
    return dataclasses.replace(
        config, web=dataclasses.replace(config.web, enabled=True, port=port, host_pin=pin),
        store=dataclasses.replace(config.store, url=store_url, state_dir=state_dir(store_url)))


def stop_console(app: ConsoleApp, loop: threading.Thread) -> None:
    """Stop the app's loop thread, then close its sources (the web server) and the app."""
    app.stop()
    loop.join(WAIT_S)
    for source in app.sources:
        source.close()
    app.close()


class PhoneTable:
    """The console and its server; `phone()` connects a phone, `press()` uses the joystick."""

    def __init__(self, store_url: str = "memory://", seed: int = 7, pin: str = "",
                 codes: Callable[[], str] | None = None, port: int = 0):
        self.config = web_config(store_url, pin, port)
        self.app: ConsoleApp = build_app(self.config, "sim-headless", lambda events: [], rng=random.Random(seed))
        self.web = attach_web(self.config, self.app)
        if codes is not None:
            self.app.room_codes = codes
        self.url = self.web.url
        self.phones: list[Phone] = []
        self.thread = threading.Thread(target=run_realtime, args=(self.app, 60), daemon=True)
        self.thread.start()
        self.wait_until(lambda: self.code != "")

    @property
    def code(self) -> str:
        return self.web.hub.snapshot.ui.room_code

    def phone(self, origin: str | None = None) -> Phone:
        phone = Phone(self.url, origin)
        self.phones.append(phone)
        return phone

    def press(self, button: str, times: int = 1) -> None:
        for _ in range(times):
            self.app.events.put(InputEvent(button, PRESS, 0.0))

    def wait_until(self, condition: Callable[[], bool]) -> None:
        done = threading.Event()
        for _ in range(int(WAIT_S / 0.01)):
            if condition():
                return
            done.wait(0.01)
        raise AssertionError("the console never got there")

    def settle(self) -> None:
        """Wait until the app loop has handled every event queued so far (the queue is FIFO)."""
        done = threading.Event()
        self.app.events.put(Chore(lambda store: done.set()))
        assert done.wait(WAIT_S), "the app loop never got there"

    def record(self) -> list[dict]:
        return self.app.store.export()

    def close(self) -> None:
        for phone in self.phones:
            phone.close()
        stop_console(self.app, self.thread)

    def __enter__(self) -> PhoneTable:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Phone:
    """One phone's websocket: `send` numbers each message, `expect` waits for a matching one and
    keeps everything received in `log`."""

    def __init__(self, url: str, origin: str | None = None):
        # max_queue=None: a test reads its messages when it wants, and a full queue would stop the
        # client reading the socket (so it would not see the server's close for close_timeout)
        self.ws: ClientConnection = connect(url.replace("http://", "ws://") + "/ws", origin=origin or url,
                                            open_timeout=WAIT_S, max_queue=None).__enter__()
        self.n = 0
        self.log: list[dict] = []
        self.token: str | None = None
        self.seat: int | None = None

    def send(self, t: str, **fields) -> int:
        self.n += 1
        self.ws.send(json.dumps({"t": t, "n": self.n, **fields}))
        return self.n

    def send_raw(self, text: str | bytes) -> None:
        self.ws.send(text)

    def expect(self, kind: str) -> dict:
        """The first message of that kind not expected before."""
        for message in self.log:
            if message["t"] == kind and not message.get("_seen"):
                message["_seen"] = True
                return message
        while True:
            message = self.receive()
            if message["t"] == kind:
                message["_seen"] = True
                return message

    def receive(self) -> dict:
        message = json.loads(self.ws.recv(timeout=WAIT_S))
        self.log.append(message)
        return message

    def view(self, match: Callable[[dict], bool] = lambda v: True) -> dict:
        """The latest view, once one matches (a view that lacks what `match` looks at does not)."""

        def matches(view: dict) -> bool:
            try:
                return bool(match(view))
            except (KeyError, TypeError, IndexError):
                return False

        latest = next((m for m in reversed(self.log) if m["t"] == "view"), None)
        while latest is None or not matches(latest):
            message = self.receive()
            if message["t"] == "view":
                latest = message
        return latest

    def refusal(self) -> str:
        return self.expect("refused")["why"]

    def expect_refusal_of_text(self) -> bool:
        """Wait for the refusal of a message that was not JSON (sent last)."""
        while True:
            message = self.expect("refused")
            if message["why"] == "not a JSON message":
                return True

    def join(self, code: str, seat: int) -> Phone:
        self.send("join", code=code)
        self.expect("admitted")
        self.send("take", seat=seat)
        seated = self.expect("seated")
        self.token, self.seat = seated["token"], seat
        return self

    def close(self) -> None:
        self.ws.close()


def in_own_loop(coroutine):
    """Run a coroutine on a loop of its own in a thread (Playwright's sync API, used by other
    tests of the session, keeps a running loop in this one)."""
    result = []
    thread = threading.Thread(target=lambda: result.append(asyncio.run(coroutine)))
    thread.start()
    thread.join(10)
    return result[0]


class SimWeb:
    """`hues-console sim --web --port 0` in a process of its own, from this checkout, run by
    `python` (another venv's in tests/test_floors.py) on the configuration file `config`: the
    addresses and the room code it prints. `stop` sends SIGTERM and returns its exit status."""

    def __init__(self, config: Path, python: str = sys.executable) -> None:
        env = dict(os.environ, HUES_CONFIG=str(config))
        env.pop("HUES_DEBUG", None)
        self.process = subprocess.Popen([python, "-m", "console.commands.main", "sim", "--web", "--port", "0"],
                                        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            line = self.process.stdout.readline()
            assert line.startswith("the console is running in the browser: open http://127.0.0.1:"), line
            self.url = line.split("open ", 1)[1].split()[0]  # the page with the keys: /sim
            assert self.url.endswith("/sim")
            self.base = self.url[: -len("/sim")]
            lines: queue.Queue = queue.Queue()
            threading.Thread(target=lambda: [lines.put(text) for text in self.process.stdout], daemon=True).start()
            phones, panel = lines.get(timeout=WAIT_S), lines.get(timeout=WAIT_S)
            self.code = re.fullmatch(f"phones: open {self.base}/ and type the room code ([A-Z]{{4}}) .*\n",
                                     phones).group(1)
            assert panel.startswith(f"the panel for a second screen: {self.base}/panel;"), panel
        except BaseException:
            self.close()
            raise

    def stop(self) -> int:
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=10)

    def close(self) -> None:
        """Kill it if it still runs."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def errors(self) -> str:
        """What it wrote to stderr (once it has stopped)."""
        return self.process.stderr.read()

    def __enter__(self) -> SimWeb:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

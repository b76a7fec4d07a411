"""The console as `sim --web` runs it, for the browser tests: the real app, the real server on a
free port, and the page in the system Chromium; only the clock is the test's.

The app loop runs in a thread on a `FakeClock` that moves only when the test says, so every
animation stands still and the frame the page shows can be compared with the renderer's for the
same instant. Presses from the page are counted as the server puts them on the app's queue, and
`settle` waits until the loop has taken them (each wait has a timeout; nothing sleeps to time
things).
"""

from __future__ import annotations

import random
import re
import threading
from typing import Callable

from console.commands.wiring import attach_web, build_app
from console.play.app import ConsoleApp
from console.view.render import render
from console.web.hub import Snapshot
from console.web.panel import spectator_frame
from hal.inputs.events import EventQueue, InputEvent
from hal.inputs.script import Hold, Tap, Wait
from tests.browser import new_page
from tests.fakes import FakeClock
from tests.phones import WAIT_S, stop_console, web_config

KEY_OF = {"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
          "a": "Enter", "b": "Backspace", "start": "Tab"}
STEP_S = 0.05  # the app's clock moves on this much after each press from the page
_RGB = re.compile(r"rgb\((\d+), (\d+), (\d+)\)")
READ_DOTS = "[...document.querySelectorAll('#board .led')].map(d => getComputedStyle(d).backgroundColor)"


class CountingQueue(EventQueue):
    """The app's queue, counting what the server puts on it."""

    def __init__(self) -> None:
        super().__init__()
        self.put_count = 0
        self._lock = threading.Lock()

    def put(self, event: InputEvent) -> None:
        super().put(event)
        with self._lock:
            self.put_count += 1


class BrowserConsole:
    def __init__(self, browser, store_url: str = "memory://", seed: int = 7, controls: bool = True):
        self.config = web_config(store_url)
        self.clock = FakeClock(1.0)
        self.app: ConsoleApp = build_app(self.config, "sim-headless", lambda events: [], rng=random.Random(seed))
        self.app.events = self.events = CountingQueue()
        self.web = attach_web(self.config, self.app, controls=controls)
        self.url = self.web.url
        self.browser = browser
        self.pages = []
        self.ticks = 0
        self.app.start(self.clock())
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while self.app.running:
            self.app.tick(self.clock())
            self.ticks += 1
            self.app.events.wait(0.005)

    def page(self, path: str = "/sim"):
        page = new_page(self.browser)
        self.pages.append(page)
        page.goto(self.url + path)
        page.wait_for_selector("body[data-connected=yes]")
        return page

    def wait_until(self, condition: Callable[[], bool], what: str = "the console never got there") -> None:
        done = threading.Event()
        for _ in range(int(WAIT_S / 0.005)):
            if condition():
                return
            done.wait(0.005)
        raise AssertionError(what)

    def settle(self, puts: int) -> None:
        """Wait until the server has put `puts` events in all and the loop has taken them."""
        self.wait_until(lambda: self.events.put_count >= puts, f"only {self.events.put_count} of {puts} presses arrived")
        ticks = self.ticks
        self.wait_until(lambda: self.ticks >= ticks + 2)

    def press(self, page, button: str, count: int = 1) -> None:
        """Press a button with its key in the page, `count` times, each taken before the next,
        the clock moving on a little after each."""
        for _ in range(count):
            expected = self.events.put_count + 2  # the key's press and its release
            page.keyboard.press(KEY_OF[button])
            self.settle(expected)
            self.clock.sleep(STEP_S)

    def play(self, page, steps) -> None:
        """An input script's steps, typed into the page."""
        for step in steps:
            if isinstance(step, Tap):
                self.press(page, step.button, step.count)
            elif isinstance(step, Hold):
                expected = self.events.put_count + 1
                page.keyboard.down(KEY_OF[step.button])
                self.settle(expected)
                self.clock.sleep(step.seconds)
                page.keyboard.up(KEY_OF[step.button])
                self.settle(expected + 1)
            elif isinstance(step, Wait):
                self.clock.sleep(step.seconds)

    def expected_dots(self, spectator: bool = False) -> list[tuple[int, int, int]]:
        """What the page must show now: the renderer's frame at the clock's instant, as seen
        (on /panel, as `spectator_frame` shows it: no secret screen, no room code)."""
        layout = self.app.panel.layout
        now, game, ui = self.clock(), self.app.game, self.app.ui
        frame = render(game, ui, now, layout.width, layout.height)
        if spectator:
            frame = spectator_frame(frame, Snapshot(0, game, ui, now), now)
        seen = self.app.stage.seen(frame)
        return [tuple(seen[i : i + 3]) for i in range(0, len(seen), 3)]

    def wait_for_dots(self, page, expected: list[tuple[int, int, int]]) -> None:
        done = threading.Event()
        for _ in range(int(WAIT_S / 0.01)):
            if dots(page) == expected:
                return
            done.wait(0.01)
        shown = dots(page)
        wrong = [i for i, (a, b) in enumerate(zip(shown, expected)) if a != b]
        raise AssertionError(f"{len(wrong)} of {len(expected)} dots differ, the first at LED {wrong[:1]}")

    def close(self) -> None:
        for page in self.pages:
            page.context.close()
        stop_console(self.app, self._thread)

    def __enter__(self) -> BrowserConsole:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def dots(page) -> list[tuple[int, int, int]]:
    """Every LED's colour as the page draws it (its computed style), in row order."""
    out = []
    for text in page.evaluate(READ_DOTS):
        match = _RGB.fullmatch(text)
        out.append(tuple(int(v) for v in match.groups()) if match else (-1, -1, -1))
    return out

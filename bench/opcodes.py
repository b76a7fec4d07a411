"""The Python a phone's cursor tap runs, counted opcode by opcode in each server's thread (the
console's and the anchor's, `bench.phones.anchor_server`), and the console's draw of it on the
panel: what the lab's tap times follow, without the machine's noise.
"""

from __future__ import annotations

import json
import os
import selectors
import sys
import threading
import time

import bench
import console
import hal
from bench.phones import anchor_server, cursor_in
from bench.processes import WAIT_S

# the project's files: the console's and hal's, and the lab's (the anchor's own code is in bench.phones)
OURS = tuple(os.path.dirname(package.__file__) + os.sep for package in (console, hal, bench))
SETTLE_TAP_S = 0.05  # after the view has arrived: the server's thread back in its loop's select
_WAIT = selectors.DefaultSelector.select.__code__  # what asyncio's loop waits in (timeout 0: it only looks)


class _Opcodes:
    """What one thread runs while `thread` names it, opcode by opcode (sys.settrace's opcode
    events; `threading.settrace` gives `call` to the threads started after it), the project's
    own (console and hal: a request drains hal's input queue; with the constructors of its
    dataclasses and NamedTuples; the anchor's endpoint, in bench) apart from the libraries' (Starlette, uvicorn, websockets,
    asyncio). A tap is counted from its bytes arriving (the transport's `_read_ready`) to the
    server's loop waiting again, so what its loop does on a timer of its own (uvicorn's main
    loop looks at its state every 0.1 s) is left out unless it falls inside that half a
    millisecond: the median of a few taps does not depend on when they came."""

    def __init__(self) -> None:
        self.thread: str | None = None
        self.reading = False  # waiting for the tap's bytes: nothing is counted before them
        self.ours = self.libraries = 0

    def call(self, frame, event, arg):
        if self.thread is None or threading.current_thread().name != self.thread:
            return None
        code = frame.f_code
        if self.reading:
            if code.co_name != "_read_ready":
                return None
            self.reading = False
        elif code is _WAIT and frame.f_locals.get("timeout") != 0:
            self.thread = None  # the loop waits again: the tap is done
            return None
        frame.f_trace_opcodes = True
        return self.opcode

    def opcode(self, frame, event, arg):
        if event == "opcode" and self.thread is not None:
            if _code_file(frame).startswith(OURS):
                self.ours += 1
            else:
                self.libraries += 1
        return self.opcode

    def during(self, thread: str, tap) -> dict:
        """Count `thread` from the bytes `tap()` sends arriving to its loop waiting again (`tap`
        returns once its view has come back)."""
        self.thread, self.reading, self.ours, self.libraries = thread, True, 0, 0
        tap()
        time.sleep(SETTLE_TAP_S)
        self.thread = None
        return {"ours": self.ours, "libraries": self.libraries}

    def running(self, work) -> dict:
        """Count this thread while it runs `work()`."""
        self.thread, self.reading, self.ours, self.libraries = threading.current_thread().name, False, 0, 0
        sys.settrace(self.call)
        try:
            work()
        finally:
            sys.settrace(None)
            self.thread = None
        return {"ours": self.ours, "libraries": self.libraries}


def _code_file(frame) -> str:
    """The file whose code `frame` runs; for code made at run time (a dataclass's __init__, a
    NamedTuple's __new__: "<string>"), its caller's."""
    path = frame.f_code.co_filename
    while path.startswith("<") and frame.f_back is not None:
        frame = frame.f_back
        path = frame.f_code.co_filename
    return path


def _console_tap(phone, cell: str, events):
    """A tap of `phone` (a BenchPhone) on `cell`, until the server has put its request on the
    app's queue (`events`): the loop's tick does the rest."""
    def tap() -> None:
        phone.send("cursor", cell=cell)
        deadline = time.monotonic() + WAIT_S
        while not events.wait(deadline - time.monotonic()):  # False also after a drain before: wait on
            if time.monotonic() >= deadline:
                raise TimeoutError("the tap never reached the app's queue")
    return tap


def _anchor_tap(watcher, cell: str):
    """A tap on the anchor (`watcher`: a websocket client of it), until its view comes back."""
    def tap() -> None:
        watcher.send(json.dumps({"cell": cell}))
        while cursor_in(watcher.recv(timeout=WAIT_S)) != cell:
            pass
    return tap


def tap_opcodes(taps: int = 5) -> dict:
    """The Python a phone's cursor tap runs in each server's thread, from its bytes arriving to
    the loop waiting again: the console's (the busy game's guesser, one phone seated: reading the
    tap and handing it to the app's queue) and the anchor's (its whole broadcast), each server in
    a thread of this process, counted opcode by opcode; and the console's `panel`: its loop's
    tick after the tap, which does the intent and draws the frame with the cursor moved. (The
    view's building and writing, in the server's thread after the tick, is not counted.) Unlike the tap times
    (`bench.phones`) it does not depend on how warm the machine's caches are, so it says what a
    tap's p50 ratio follows: after 50 ms between taps each opcode costs about 0.09 us here.
    The median of `taps` counted taps, after as many uncounted."""
    from websockets.sync.client import connect

    from bench.processes import put_on_screen
    from console.commands.measure_games import percentile, started_app
    from console.commands.measure_phone import BenchPhone, open_to_phones
    from console.game.rules import current_player

    counter = _Opcodes()
    threading.settrace(counter.call)
    try:
        app = started_app()
        put_on_screen(app, "guessing", time.monotonic())
        web = open_to_phones(app)  # its server's thread: "hues-web"
        url, anchor, sock = anchor_server()
        anchor_thread = threading.Thread(target=anchor.run, kwargs={"sockets": [sock]}, name="anchor", daemon=True)
        anchor_thread.start()
    finally:
        threading.settrace(None)
    phone = BenchPhone(web.url, app.ui.room_code, current_player(app.game), tick=lambda: app.tick(time.monotonic()))
    for _ in range(int(WAIT_S / 0.01)):
        if anchor.started:
            break
        time.sleep(0.01)
    counted: dict[str, list[dict]] = {"console": [], "anchor": [], "panel": []}
    try:
        with connect(url.replace("http://", "ws://") + "/", origin=url, compression=None, open_timeout=WAIT_S) as watcher:
            for i in range(2 * taps):
                cell = f"{'AB'[i % 2]}{20 + i % 10}"  # free cells of the busy game, each tap another
                for name, thread, tap in (("console", "hues-web", _console_tap(phone, cell, app.events)),
                                          ("anchor", "anchor", _anchor_tap(watcher, cell))):
                    got = counter.during(thread, tap)
                    # what the loop's thread, woken by the tap, does: the panel's frame with the cursor moved
                    drawn = counter.running(lambda: app.tick(time.monotonic()))
                    if name == "console":  # its view, out once the tick has published the state
                        phone.wait_for(lambda m, cell=cell: m["t"] == "view" and m["game"]["cursor"] == cell)
                    if i >= taps:
                        counted[name].append(got)
                        if name == "console":
                            counted["panel"].append(drawn)
    finally:
        phone.close()
        web.close()
        anchor.should_exit = True
        anchor_thread.join(WAIT_S)
    return {name: {part: round(percentile([got[part] for got in taps_of], 50)) for part in ("ours", "libraries")}
            | {"taps": len(taps_of)} for name, taps_of in counted.items()}

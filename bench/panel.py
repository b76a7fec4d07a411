"""The browser panel in the lab: how long a press from the `sim --web` page
takes to come back to it as the changed frame, on loopback.

The page is a websocket client in this process. On the set-up screen (which holds still)
right and left change the number of players, so each press changes the frame exactly once: the
latency is from just before the press is sent to the arrival of the frame it makes.
"""

from __future__ import annotations

import json
import threading
import time

from websockets.sync.client import connect

from console.commands.measure_phone import WAIT_S, bench_web_config
from console.play.app import ConsoleApp
from console.play.loop import run_realtime
from console.web.companion import WebCompanion
from console.web.panel import PanelStream

PAUSE_S = 0.05  # between presses: a quick player's pace, under the page's flood throttle


def press_to_page_latencies(app: ConsoleApp, presses: int = 200, fps: int = 60) -> list[float]:
    """Milliseconds from each press sent by the page to the frame it changed arriving there.
    `app` is started, not running."""
    web = WebCompanion(bench_web_config(), app.events, app.store,
                       more_routes=[lambda hub: PanelStream(hub, app.stage, app.events).routes()])
    web.start()
    app.publisher = web.hub
    loop = threading.Thread(target=run_realtime, args=(app, fps), kwargs={"start": False}, daemon=True)
    loop.start()
    try:
        with connect(web.url.replace("http://", "ws://") + "/sim/ws", origin=web.url, open_timeout=WAIT_S) as page:
            def press(button: str) -> None:
                page.send(json.dumps({"press": button}))
                page.send(json.dumps({"release": button}))

            def next_frame() -> bytes:
                while True:
                    message = page.recv(timeout=WAIT_S)
                    if isinstance(message, bytes):
                        return message

            press("start")  # the set-up screen, its first item (the number of players) holds still
            shown = settled(page)
            latencies = []
            for i in range(presses):
                sent = time.perf_counter()
                press("right" if i % 2 == 0 else "left")
                frame = next_frame()
                latencies.append((time.perf_counter() - sent) * 1000)
                if frame == shown:
                    raise RuntimeError("a press came back as the frame before it")
                shown = frame
                time.sleep(PAUSE_S)
            return latencies
    finally:
        app.stop()
        loop.join(WAIT_S)
        web.close()


def settled(page, quiet_s: float = 0.3) -> bytes | None:
    """The last frame the page got once nothing has come for `quiet_s`."""
    last = None
    while True:
        try:
            message = page.recv(timeout=quiet_s)
        except TimeoutError:
            return last
        if isinstance(message, bytes):
            last = message

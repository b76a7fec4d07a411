"""WLED's live-view page draws the box's panel: a page opened from the box's address connects to
the box's /ws, sends {"lv":true} first, and draws each LED of /panel's view (never the room
code) from the frames the box then sends every 40 ms, again after a resize has cleared its canvas.

The page here is a stand-in written for these tests (wled_live_view_stand_in.html, which says
what of WLED's source it follows: liveviewws2D.htm, common.js's `connectWs`, ws.cpp); WLED's own
files are not part of this repository. WLED's page connects to `ws://<host>/ws`, port 80 (the
page's port dropped), so the browser maps the box's name on port 80 to the test's server
(Chromium's --host-rules), and the test answers the page at the box's address, at the path a
WLED device serves it (`/liveview2D`, index.js `toggleLiveview`).

The protocol tests below talk to /ws and /panel/ws as any WLED live-view client would, with the
console's clock standing still: frames that keep coming mean the 40 ms stream, not a change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from tests import browser as browsers
from tests.browser_console import BrowserConsole
from tests.phones import WAIT_S

STAND_IN = Path(__file__).resolve().parent / "wled_live_view_stand_in.html"
BOX = "http://hues.local"
WIDTH, HEIGHT = 32, 16
FRAME_BYTES = 4 + 3 * WIDTH * HEIGHT
# The colour at the centre of each LED's circle on the stand-in's canvas (laid out as WLED's page
# lays them out: p = min(width / w, height / h), left = floor((width - p w) / 2), centre at
# ((x + .5) p + left, (y + .5) p)).
CENTRES = """([w, h]) => {
  const c = document.getElementById('canv'), ctx = c.getContext('2d');
  const p = Math.min(c.width / w, c.height / h), off = Math.floor((c.width - p * w) / 2), out = [];
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const d = ctx.getImageData(Math.floor((x + .5) * p + off), Math.floor((y + .5) * p), 1, 1).data;
    out.push([d[0], d[1], d[2]]);
  }
  return out;
}"""


def wait_in(page, condition, what: str) -> None:
    """Wait for `condition`, letting Playwright deliver the page's events between the checks (its
    sync API runs the handlers only inside its own calls)."""
    for _ in range(500):
        if condition():
            return
        page.wait_for_timeout(10)
    raise AssertionError(what)


def canvas(page) -> list[list[int]]:
    return page.evaluate(CENTRES, [WIDTH, HEIGHT])


def test_a_wled_live_view_page_from_the_box_draws_the_panel(browser):
    with BrowserConsole(browser, controls=False) as console:
        port = console.web.server.port
        launched = browser.browser_type.launch(
            executable_path=browsers.find_chromium(), headless=True,
            args=[*browsers.CHROMIUM_ARGS, f"--host-rules=MAP hues.local:80 127.0.0.1:{port}",
                  # the page is answered by the test, so Chromium cannot know it came from the
                  # box's own (loopback) address, and would refuse it a local connection
                  "--disable-features=LocalNetworkAccessChecks"])
        try:
            page = browsers.new_page(launched, viewport={"width": 640, "height": 360})
            page.route(f"{BOX}/liveview2D", lambda route: route.fulfill(
                body=STAND_IN.read_text(encoding="utf-8"), content_type="text/html"))
            sockets, sent, frames = [], [], []

            def watch(ws) -> None:
                sockets.append(ws.url)
                ws.on("framesent", lambda payload: sent.append(payload))
                ws.on("framereceived", lambda payload: frames.append(payload) if isinstance(payload, bytes) else None)

            page.on("websocket", watch)
            page.goto(f"{BOX}/liveview2D")
            expected = [list(rgb) for rgb in console.expected_dots(spectator=True)]
            assert expected != [list(rgb) for rgb in console.expected_dots()]  # the panel shows the room code
            wait_in(page, lambda: len(frames) >= 2, "no frames reached the live-view page")
            assert sockets == ["ws://hues.local/ws"] and sent[0] == '{"lv":true}'
            assert frames[0][:4] == b"L\x02\x20\x10" and len(frames[0]) == FRAME_BYTES
            wait_in(page, lambda: canvas(page) == expected, "the canvas never showed the panel")
            still = len(frames)  # the clock stands still: nothing changes, the frames keep coming
            wait_in(page, lambda: len(frames) >= still + 5, "frames stopped when nothing changed")
            page.set_viewport_size({"width": 400, "height": 300})  # the canvas is sized again: blank
            wait_in(page, lambda: page.evaluate("document.getElementById('canv').width") == int(400 * 0.98),
                    "no resize")
            wait_in(page, lambda: canvas(page) == expected, "the canvas stayed blank after a resize")
            page.context.close()
        finally:
            launched.close()


@pytest.fixture
def console():
    with BrowserConsole(None, controls=False) as c:  # no page: a websocket client is the test's own
        yield c


def frames_from(ws, count: int) -> list[bytes]:
    """The next `count` binary messages (text, the hint or a phone's view, is skipped, as WLED's
    page skips it)."""
    frames = []
    for _ in range(count * 10):
        message = ws.recv(timeout=WAIT_S)
        if isinstance(message, bytes):
            frames.append(message)
            if len(frames) == count:
                return frames
    raise AssertionError(f"{len(frames)} of {count} frames came among {count * 10} messages")


def as_dots(frame: bytes) -> list[tuple[int, int, int]]:
    return [tuple(frame[i:i + 3]) for i in range(4, len(frame), 3)]


def quiet(ws, most: int = 10) -> bool:
    """Whether the messages stop: a few may be on their way, then none comes for 0.3 s."""
    for _ in range(most):
        try:
            ws.recv(timeout=0.3)
        except TimeoutError:
            return True
    return False


@pytest.mark.parametrize("path", ["/ws", "/panel/ws"])
def test_lv_true_streams_the_spectators_frame_until_lv_false(console, path):
    with connect(console.url.replace("http", "ws") + path, origin=console.url, open_timeout=WAIT_S) as ws:
        ws.send('{"lv":true}')
        frames = frames_from(ws, 6)  # the clock stands still: six frames are the 40 ms stream
        assert all(frame[:4] == b"L\x02\x20\x10" and len(frame) == FRAME_BYTES for frame in frames)
        assert as_dots(frames[-1]) == console.expected_dots(spectator=True)  # the panel's view, no room code
        ws.send('{"lv":false}')  # what WLED's own interface sends when its live view is hidden
        assert quiet(ws), "frames kept coming after {\"lv\":false}"
        console.clock.sleep(1.0)  # a change is still sent, as to /panel
        assert as_dots(frames_from(ws, 1)[0]) == console.expected_dots(spectator=True)


def test_on_the_phones_socket_only_a_first_message_makes_a_live_view(console):
    """A phone that has spoken is a phone: its {"lv":true} later is a message it may not send,
    and it gets no frames."""
    with connect(console.url.replace("http", "ws") + "/ws", origin=console.url, open_timeout=WAIT_S) as ws:
        ws.send(json.dumps({"t": "join", "n": 1, "code": "XXXX"}))
        ws.send('{"lv":true}')
        seen = []
        while not any(m.get("t") == "refused" and m.get("n") is None for m in seen):
            message = ws.recv(timeout=WAIT_S)
            assert isinstance(message, str), "a phone got a live-view frame"
            seen.append(json.loads(message))
        assert quiet(ws)


def test_another_sites_page_gets_no_live_view(console):
    """WLED's page from another address (a WLED device's own page) connects to its own host; one
    that reaches the box anyway is refused, as any page from another site is."""
    with pytest.raises(InvalidStatus, match="403"):
        connect(console.url.replace("http", "ws") + "/ws", origin="http://wled.local", open_timeout=WAIT_S)

"""WLED's own live-view page (tests/wled: WLED's files, unchanged), a client nobody here wrote,
draws the box's panel: opened from the box's address, it connects to the box's /ws, sends
{"lv":true} first, and draws each LED of /panel's view from the frames the box then sends every
40 ms, again after a resize has cleared its canvas.

WLED's page connects to `ws://<host>/ws`, port 80 (`connectWs` in common.js drops the page's
port), so the browser maps the box's name on port 80 to the test's server (Chromium's
--host-rules); the page and its common.js are answered at the box's address by the test.
"""

from __future__ import annotations

from pathlib import Path

from tests import browser as browsers
from tests.browser_console import BrowserConsole

WLED = Path(__file__).resolve().parent / "wled"
BOX = "http://hues.local"
# The centre of each LED's circle on WLED's canvas, as its page lays them out (liveviewws2D.htm:
# pPL = min(width / w, height / h), lOf = (width - pPL * w) / 2, circle at ((x + .5) pPL + lOf, (y + .5) pPL)).
CENTRES = """() => {
  const c = document.getElementById('canv'), ctx = c.getContext('2d'), w = 32, h = 16;
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


def answer(body: str, kind: str):
    """A route handler that answers with WLED's file, as if the box served it."""
    return lambda route: route.fulfill(body=body, content_type=kind)


def test_wleds_own_live_view_page_draws_the_panel(browser):
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
            for name, kind in (("liveviewws2D.htm", "text/html"), ("common.js", "text/javascript")):
                page.route(f"{BOX}/wled/{name}", answer((WLED / name).read_text(encoding="utf-8"), kind))
            sent, frames = [], []

            def watch(ws) -> None:
                ws.on("framesent", lambda payload: sent.append(payload))
                ws.on("framereceived", lambda payload: frames.append(payload) if isinstance(payload, bytes) else None)

            page.on("websocket", watch)
            page.goto(f"{BOX}/wled/liveviewws2D.htm")
            expected = [list(rgb) for rgb in console.expected_dots(spectator=True)]
            wait_in(page, lambda: len(frames) >= 2, "no frames reached WLED's page")
            assert sent[0] == '{"lv":true}'  # what WLED's page sends first
            assert frames[0][:4] == b"L\x02\x20\x10" and len(frames[0]) == 4 + 3 * 32 * 16
            wait_in(page, lambda: page.evaluate(CENTRES) == expected, "WLED's canvas never showed the panel")
            still = len(frames)  # the clock stands still: nothing changes, the frames keep coming
            wait_in(page, lambda: len(frames) >= still + 5, "frames stopped when nothing changed")
            page.set_viewport_size({"width": 400, "height": 300})  # WLED clears its canvas on a resize
            wait_in(page, lambda: page.evaluate("document.getElementById('canv').width") == int(400 * 0.98), "no resize")
            wait_in(page, lambda: page.evaluate(CENTRES) == expected, "the canvas stayed blank after a resize")
            page.context.close()
        finally:
            launched.close()

"""Every page of the console fits the screen it is opened on: no horizontal scroll on phones of
320 to 430 px, and the whole page on a 1920x1080 projector (measured in the system Chromium)."""

from __future__ import annotations

import pytest

from tests.browser import new_page
from tests.browser_console import BrowserConsole
from tests.web.test_web_panel import stored_game  # noqa: F401  (a fixture: a finished game in the store)

PHONE_WIDTHS = (320, 360, 390, 430)
PAGES = ("/", "/sim", "/panel", "/replay/{game}")
OVERFLOW = """() => {
  const root = document.scrollingElement, wide = [];
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    if (box.width && (box.right > innerWidth + 0.5 || box.left < -0.5) && getComputedStyle(el).visibility !== 'hidden')
      wide.push(el.id || el.className || el.tagName);
  }
  return {scrollWidth: root.scrollWidth, width: innerWidth, scrollHeight: root.scrollHeight,
          height: innerHeight, wide: wide.slice(0, 5)};
}"""


@pytest.fixture(scope="module")
def console(browser):
    with BrowserConsole(browser) as c:
        yield c


def open_at(console, path: str, width: int, height: int):
    page = new_page(console.browser, viewport={"width": width, "height": height})
    page.goto(console.url + path)
    if path == "/":
        page.wait_for_selector("#join:not([hidden])")
    else:
        page.wait_for_selector("body[data-connected=yes]")
        page.wait_for_selector("body[data-frames]" if "replay" not in path else "body[data-shown]")
    return page


@pytest.mark.parametrize("path", PAGES)
def test_no_page_scrolls_sideways_on_a_phone_and_each_fits_a_projector(console, stored_game, path):  # noqa: F811
    path = path.format(game=stored_game[0])
    page = open_at(console, path, PHONE_WIDTHS[0], 700)
    try:
        for width in PHONE_WIDTHS:
            page.set_viewport_size({"width": width, "height": 800})
            got = page.evaluate(OVERFLOW)
            assert got["scrollWidth"] <= width and not got["wide"], f"{path} at {width} px: {got}"
        page.set_viewport_size({"width": 1920, "height": 1080})
        got = page.evaluate(OVERFLOW)
        assert got["scrollWidth"] <= 1920 and got["scrollHeight"] <= 1080 and not got["wide"], f"{path}: {got}"
    finally:
        page.context.close()

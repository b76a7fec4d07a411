"""The browser the web tests use is the system's Chromium, headless, on a fresh profile."""

from __future__ import annotations

from tests import browser as browsers

ORIGIN = "http://hues.test/"  # answered inside the browser: no request leaves it


def serve(page, body: str) -> None:
    page.context.route(f"{ORIGIN}**", lambda route: route.fulfill(body=body, content_type="text/html"))
    page.goto(ORIGIN)


def test_the_system_chromium_runs_headless_with_a_fresh_profile(browser, page):
    assert browser.browser_type.name == "chromium"
    serve(page, "<p id='p'>hues</p><script>document.getElementById('p').dataset.kept = "
                "String(localStorage.length); localStorage.setItem('seat', '1')</script>")
    assert page.locator("#p").get_attribute("data-kept") == "0"  # nothing stored from before
    assert "HeadlessChrome" in page.evaluate("navigator.userAgent")


def test_contexts_do_not_share_storage(browser):
    first, second = browsers.new_page(browser), browsers.new_page(browser)
    try:
        serve(first, "<script>localStorage.setItem('seat', '1')</script>")
        serve(second, "<p>second phone</p>")
        assert first.evaluate("localStorage.getItem('seat')") == "1"
        assert second.evaluate("localStorage.getItem('seat')") is None
    finally:
        first.context.close()
        second.context.close()

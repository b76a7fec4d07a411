"""A real browser for the tests: Debian's `chromium` package, headless, driven by Playwright.

Playwright's Python package ships its own driver (a Node program) and talks to any Chromium
over the DevTools protocol, so the tests launch the system's executable instead of a browser
build of Playwright's own (`playwright install` is never run: nothing is downloaded at test
time). `./scripts/test` installs the `chromium` package the way it installs redis-server.

Each launch gets a fresh, empty profile: Playwright's `launch()` (unlike
`launch_persistent_context`) makes a new `playwright_chromiumdev_profile-*` directory with
`mkdtemp` and removes it when the browser closes (driver/package/lib/coreBundle.js,
`_prepareToLaunch`), so nothing from one run or from a person's own profile leaks into a test.
"""

from __future__ import annotations

import os
import shutil

CHROMIUM = "/usr/bin/chromium"
INSTALL_HINT = "apt-get install chromium (./scripts/test does this as root on Debian)"
# No sandbox (CI runs as root, where Chromium's sandbox refuses to start), no GPU, and nothing
# that phones home or updates itself during a test.
CHROMIUM_ARGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync",
)
TIMEOUT_MS = 5_000  # a page of this project answers in milliseconds: a wait that long is a failure


def find_chromium() -> str | None:
    """The system Chromium, or None when it is not installed."""
    if os.access(CHROMIUM, os.X_OK):
        return CHROMIUM
    return shutil.which("chromium")


def launch(playwright, executable: str):
    """A headless Chromium with a fresh profile."""
    return playwright.chromium.launch(executable_path=executable, headless=True, args=list(CHROMIUM_ARGS))


def new_page(browser, **context_options):
    """A page in a context of its own (its own storage, like a separate phone), with short
    timeouts. Close it with `page.context.close()`."""
    context = browser.new_context(**context_options)
    context.set_default_timeout(TIMEOUT_MS)
    return context.new_page()

"""Shared fixtures: the real and the fake Redis servers the store's tests run against, a real
browser for the web pages, and the hypothesis profile."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from tests import browser as browsers
from tests.redis_server import INSTALL_HINT, FakeRedisRig, RedisServer, find_redis_server, replies_lost

# The machine is shared (2 cores, other work beside the tests): a slow example is not a failure.
settings.register_profile("hues", deadline=None, print_blob=True)
settings.load_profile("hues")


@pytest.fixture
def redis_server_off(tmp_path):
    """A real redis-server with its own port and data directory, not started yet.

    Without redis-server the test FAILS with how to install it, unless HUES_SKIP_REDIS_SERVER=1,
    which skips it instead.
    """
    binary = find_redis_server()
    if binary is None:
        if os.environ.get("HUES_SKIP_REDIS_SERVER") == "1":
            pytest.skip("redis-server is not installed (HUES_SKIP_REDIS_SERVER=1)")
        pytest.fail(f"redis-server is not installed: {INSTALL_HINT} "
                    "(or set HUES_SKIP_REDIS_SERVER=1 to skip the Redis integration tests)", pytrace=False)
    server = RedisServer(binary, tmp_path / "redis")
    yield server
    server.kill()


@pytest.fixture
def redis_server(redis_server_off):
    """A running real redis-server (see redis_server_off)."""
    redis_server_off.start()
    return redis_server_off


@pytest.fixture
def rig():
    """A fakeredis server with a switch to cut the link, fake clocks, and stores on it."""
    return FakeRedisRig()


@pytest.fixture
def lost_replies():
    """Set ["lose"] = N: the next N transactions run on the server but their replies are lost."""
    with replies_lost() as state:
        yield state


@pytest.fixture(scope="module")
def browser():
    """One headless system Chromium (tests/browser.py) per test module; each test opens its
    own contexts (`browsers.new_page(browser)`). Without chromium the test FAILS with how to
    install it: CI installs it, so a missing browser is never a silent skip.

    Per module, not per session: between its calls Playwright's sync API leaves its own event
    loop marked as running in the main thread (playwright/_impl/_greenlets.py wait_for_future
    calls asyncio._set_running_loop(loop); only leaving sync_playwright() clears it), so every
    later test's asyncio.run() would fail with "cannot be called from a running event loop"
    for as long as the browser stays open."""
    executable = browsers.find_chromium()
    if executable is None:
        pytest.fail(f"chromium is not installed: {browsers.INSTALL_HINT}", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = browsers.launch(playwright, executable)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    """A fresh page in a context of its own, closed after the test."""
    opened = browsers.new_page(browser)
    yield opened
    opened.context.close()

"""Shared fixtures: the real and the fake Redis servers the store's tests run against, a real
browser for the web pages, the container stage (tests/box) started in the background, and the
hypothesis profile."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A test's captured output may hold lone surrogates (the store reads damaged bytes as PEP 383
    text, and logs a damaged game's id): shown escaped, as the console's stderr shows them
    (backslashreplace), so xdist can send the report to the suite's first process as UTF-8."""
    outcome = yield
    report = outcome.get_result()
    report.sections = [(title, text.encode("utf-8", "backslashreplace").decode("utf-8"))
                       for title, text in report.sections]


# --- the container stage (tests/box, tests/box/test_box.py) ---------------------------------------------

BOX_TESTS = "tests/box/test_box.py"
BOX_WAIT_S = 1800  # the stage's own timeouts end it before: roots built from nothing, under load
BOX_FOLLOW = "HUES_BOX_STAGE"  # "PID REPORT LOG": the stage the suite's first process started, for its workers


class BoxStage:
    """`python -m tests.box.stage REPORT` in a process (and session) of its own, started with the
    suite so that it runs beside all the other tests. The suite's own process starts it (or, with
    `follow`, an xdist worker follows the one its controller started)."""

    def __init__(self, follow: str | None = None):
        self.process: subprocess.Popen | None = None
        self.pid = 0
        self.problem = None
        if os.environ.get("HUES_SKIP_BOX") == "1":
            self.problem = ("skip", "the container stage is off (HUES_SKIP_BOX=1)")
        elif os.geteuid() != 0:
            self.problem = ("fail", "the container stage boots systemd-nspawn, which needs root: run the "
                            "suite as root (CI does), or set HUES_SKIP_BOX=1 to skip it")
        if self.problem:
            return
        if follow:
            pid, report, log = follow.split(" ", 2)
            self.pid, self.report, self.log = int(pid), Path(report), Path(log)
            return
        folder = Path(tempfile.mkdtemp(prefix="hues-box-report-"))
        self.report, self.log = folder / "report.json", folder / "stage.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "tests.box.stage", str(self.report)],
                                            cwd=Path(__file__).resolve().parents[1], stdin=subprocess.DEVNULL,
                                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.pid = self.process.pid
        os.environ[BOX_FOLLOW] = f"{self.pid} {self.report} {self.log}"  # the workers, started after this, follow it

    def read(self) -> dict | None:
        try:
            return json.loads(self.report.read_text())
        except (OSError, ValueError):
            return None

    def running(self) -> bool:
        if self.process is not None:
            return self.process.poll() is None
        try:  # another process's child: gone, or a zombie its parent has not waited for yet
            return Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    def wait(self, check: str | None) -> dict:
        """The report once it has `check` (None: once the stage is over)."""
        deadline = time.monotonic() + BOX_WAIT_S
        while True:
            report = self.read()
            if report and (report["finished"] or (check is not None and check in report["checks"])):
                return report
            if not self.running() or time.monotonic() > deadline:
                report = self.read()  # it may have finished between the two looks
                if report and (report["finished"] or (check is not None and check in report["checks"])):
                    return report
                tail = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
                pytest.fail(f"the container stage ended without a report of {check or 'its end'}:\n{tail}",
                            pytrace=False)
            time.sleep(0.5)

    def stop(self) -> None:
        """Ends the stage if it still runs; its report and log are removed unless a check failed."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()  # the stage switches its box off and removes it
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        if self.process.returncode == 0:
            shutil.rmtree(self.report.parent, ignore_errors=True)
        else:
            print(f"\nthe container stage's report and log are in {self.report.parent}", file=sys.stderr)


def runs_the_box_tests(config) -> bool:
    """Whether the paths the suite was given (tests/ when none) hold tests/box/test_box.py."""
    box = Path(config.rootpath, BOX_TESTS).resolve()
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0]).resolve()
        if path == box or path in box.parents:
            return True
    return False


def pytest_configure(config):
    """The suite's first process starts the stage before any worker starts (xdist's workers
    collect, and would each start one)."""
    if not hasattr(config, "workerinput") and runs_the_box_tests(config):
        config.hues_box_stage = BoxStage()


def pytest_collection_modifyitems(session, config, items):
    box = [item for item in items if item.nodeid.startswith(BOX_TESTS)]
    if box:
        items[:] = [item for item in items if not item.nodeid.startswith(BOX_TESTS)] + box
        if not hasattr(config, "hues_box_stage"):
            config.hues_box_stage = BoxStage(follow=os.environ.get(BOX_FOLLOW))


def pytest_terminal_summary(terminalreporter, config):
    """A line for each part of the container stage (the trixie box, the bookworm install, arm64,
    armhf): its checks, its time and the figures a reader asks for."""
    stage = getattr(config, "hues_box_stage", None)
    report = stage.read() if stage is not None and stage.process is not None else None
    if not report:
        return
    for part, done in report["parts"].items():
        checks = [c for c in report["checks"].values() if c["part"] == part]
        figures = report["figures"].get(part, {})
        said = [f"root {figures.get('root_seconds', '?')} s", f"install {figures.get('install_s', '?')} s"]
        if "power_cuts" in figures:
            said.append(f"{figures['power_cuts'].get('cuts', '?')} power cuts")
        if "boot_to_first_frame_s" in figures:
            frames = figures["boot_to_first_frame_s"]
            said.append(f"first frame {frames.get('median', '?')} s after power-on (median of {frames.get('boots', '?')})")
        if "modules" in figures:
            said.append(f"{figures['modules']} modules imported")
        terminalreporter.write_line(f"{part} ({done['root']}): {sum(c['ok'] for c in checks)} of {len(checks)} checks passed in "
                                    f"{done.get('seconds', '?')} s ({'; '.join(said)})")


def pytest_unconfigure(config):
    stage = getattr(config, "hues_box_stage", None)
    if stage is not None:
        stage.stop()


@pytest.fixture
def box_report(request):
    """`box_report(check)`: the container stage's report once it has that check."""
    stage = request.config.hues_box_stage
    if stage.problem:
        (pytest.skip if stage.problem[0] == "skip" else pytest.fail)(stage.problem[1])
    return stage.wait

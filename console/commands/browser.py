"""`hues-console sim --web [--port N]`: the console with its panel in a web page instead of the
terminal, played from the page's keys and buttons, for a maker deciding whether to build the box,
a host trying the game on a laptop, or a developer; with a network driver configured (ddp,
e131), on that LED matrix as well. The phones' page, the spectator view and the
replays are served beside it, as on the box.
"""

from __future__ import annotations

import dataclasses
import math
import time

from console.commands.common import UsageError
from console.commands.session import closing_app
from console.commands.wiring import attach_web, build_app, phone_address, resolve_driver_name
from console.config.loader import load_config
from console.play.app import ConsoleApp
from console.play.loop import run_realtime
from console.web.server import WebServerError
from hal.drivers import NETWORK, DriverError


class RoomCodeLine:
    """An input source that reads nothing: it prints the room code whenever a new game changes
    it, so whoever started `sim --web` can always read the code the phones need."""

    def __init__(self, app: ConsoleApp) -> None:
        self.app, self.shown = app, app.ui.room_code

    def poll(self, now: float) -> None:
        if self.app.ui.room_code != self.shown:
            self.shown = self.app.ui.room_code
            print(f"the room code is now {self.shown}", flush=True)

    def next_poll(self, now: float) -> float:
        return math.inf  # the code changes only in a tick that something else caused

    def close(self) -> None:
        pass


def play_in_browser(config_path: str | None, port: int | None) -> int:
    """The console in real time until Ctrl-C, SIGTERM or q in the page. `port` 0 takes a free
    one; None the configured `web.port`."""
    config = load_config(config_path)
    web = dataclasses.replace(config.web, enabled=True)
    if port is not None:
        if not 0 <= port <= 65535:
            raise UsageError(f"--port must be between 1 and 65535 (or 0 for any free port), not {port}")
        web = dataclasses.replace(web, port=port)
    config = dataclasses.replace(config, web=web)
    # A matrix on the network (driver ddp or e131) shows the panel too: a laptop and a WLED on
    # the same Wi-Fi are a party box with nothing soldered. Else nothing but the page shows it.
    configured = resolve_driver_name(config.driver.name)
    driver = configured if configured in NETWORK else "sim-headless"
    try:
        app = build_app(config, driver, lambda events: [], box=False)
    except DriverError as exc:
        raise UsageError(str(exc)) from None
    try:
        companion = attach_web(config, app, controls=True)
    except WebServerError as exc:
        app.close()
        raise UsageError(str(exc)) from None
    with closing_app(app):  # SIGTERM is handled from here on, before anyone is told the address
        app.start(time.monotonic())  # the first room code
        print(f"the console is running in the browser: open {companion.url}/sim\n"
              f"phones: open {phone_address(config, companion.server)} and type the room code "
              f"{app.ui.room_code} (a new one each game: the panel shows it)\n"
              f"the panel for a second screen: {companion.url}/panel; the last finished game played back: "
              f"{companion.url}/replay/last\nCtrl-C stops it", flush=True)
        if driver in NETWORK:
            print(f"the panel also goes to the LED matrix at {getattr(config.driver, driver).host} ({driver})",
                  flush=True)
        app.sources.append(RoomCodeLine(app))
        run_realtime(app, config.display.fps, start=False)
    return 0

"""`hues-console sim --web [--port N]`: the console with its panel in a web page instead of the
terminal, played from the page's keys and buttons, for a maker deciding whether to build the box,
a host trying the game on a laptop, or a developer. The phones' page, the spectator view and the
replays are served beside it, as on the box.
"""

from __future__ import annotations

import dataclasses

from console.commands.common import UsageError
from console.commands.session import closing_app
from console.commands.wiring import attach_web, build_app
from console.config.loader import load_config
from console.play.loop import run_realtime
from console.web.server import WebServerError


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
    app = build_app(config, "sim-headless", lambda events: [])
    try:
        companion = attach_web(config, app, controls=True)
    except WebServerError as exc:
        app.close()
        raise UsageError(str(exc)) from None
    with closing_app(app):  # SIGTERM is handled from here on, before anyone is told the address
        print(f"the console is running in the browser: open {companion.url}/sim "
              f"(spectators: {companion.url}/panel; the last finished game played back: "
              f"{companion.url}/replay/last; Ctrl-C stops it)", flush=True)
        run_realtime(app, config.display.fps)
    return 0

"""From a checked configuration to the running parts: layout, output stage, driver, inputs, store.

This is the one place that knows which hal classes go with which configuration keys, so the
app loop itself only sees small interfaces.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from pathlib import Path
from typing import Callable

from console.play.app import ConsoleApp
from console.play.ports import InputSource, Shutdown
from console.play.sd_notify import SystemdNotifier
from console.config.loader import Config
from console.commands.common import UsageError
from console.play.opening import OpeningStore
from console.store.format import StateDirInUseError, StoreUrlError
from console.store.journal import default_state_dir
from hal.drivers import AUTO, SIMULATORS, Driver, auto_driver, driver_spec, make_driver
from hal.inputs.events import EventQueue
from hal.layout import Layout
from hal.light import LightResponse
from hal.output import OutputStage

log = logging.getLogger("hues-console")
DEVICE_MODEL = Path("/proc/device-tree/model")


def resolve_driver_name(name: str, model_path: Path = DEVICE_MODEL) -> str:
    """`auto`: the driver hal picks for this board (leds-dev on a Raspberry Pi 5, ws281x on an
    older Pi, else the terminal simulator); any other name stays."""
    if name != AUTO:
        return name
    try:
        model = model_path.read_text(errors="replace")
    except OSError:
        model = None
    return auto_driver(model)


def driver_settings_for(config: Config, name: str) -> dict:
    """The configuration section of one driver as plain settings ({} for a driver without one)."""
    spec = driver_spec(name)
    return dataclasses.asdict(getattr(config.driver, spec.section)) if spec.configured_settings else {}


def build_output(config: Config, driver_name: str) -> tuple[OutputStage, Driver]:
    layout = Layout(config.panel)
    driver = make_driver(driver_name, driver_settings_for(config, driver_name), layout)
    return output_stage(config, driver.light_response, layout), driver


def output_stage(config: Config, response: LightResponse, layout: Layout | None = None) -> OutputStage:
    """The configured output stage writing for a driver whose bytes become light by `response`
    (on `layout`, when the caller has already built the configured one)."""
    return OutputStage(
        Layout(config.panel) if layout is None else layout,
        brightness=config.display.brightness,
        gamma=config.display.gamma,
        power=config.power,
        response=response,
    )


def gpio_input(config: Config, events: EventQueue, pin_factory=None,
               clock: Callable[[], float] = time.monotonic) -> InputSource:
    from hal.inputs.gpio import GpioInput

    inp = config.input
    return GpioInput(
        dataclasses.asdict(inp.pins), events, clock=clock, pull_up=inp.pull_up, bounce_s=inp.bounce_ms / 1000,
        repeat_delay_s=inp.repeat_delay_ms / 1000, repeat_rate_hz=inp.repeat_rate_hz,
        pin_factory=pin_factory,
    )


def systemctl_poweroff() -> None:
    import subprocess  # only when powering off: not part of every start

    subprocess.run(["systemctl", "poweroff"], check=False)


def store_for(config: Config, read_only: bool = False, events: EventQueue | None = None):
    """The configured game store (a GameStore). A Redis store journals every write in the state
    directory and writes to Redis from a thread, so a slow Redis never holds up a frame;
    `read_only` (history, export) neither journals nor sets anything aside. The memory store
    keeps nothing anyway; given the loop's `events`, it is made on a thread of its own while
    the first frame is drawn (`OpeningStore`): it cannot fail with a host's mistake."""
    store = config.store
    if store.url.startswith("memory://") and events is not None and not read_only:
        return OpeningStore(lambda: _memory_store(config), store.url, events)
    from console.store.games import GameStore  # redis-py: 0.1 s here, a second on a Pi Zero 2 W

    try:
        if store.url.startswith("memory://") or read_only:
            return GameStore(store.url, prefix=store.prefix, read_only=read_only, keep_games=store.keep_games)
        state_dir = default_state_dir() if store.state_dir == "auto" else _expanded(store.state_dir)
        return GameStore(store.url, prefix=store.prefix, state_dir=state_dir, background=True,
                         keep_games=store.keep_games)
    except StoreUrlError as error:  # a wrong configuration: restarting cannot fix it (exit 2)
        raise UsageError(f"{config.source[-1] if config.source else 'the configuration'}: {error}") from None
    except StateDirInUseError as error:  # two consoles would share one identity and journal
        raise UsageError(str(error)) from None


def _memory_store(config: Config):
    from console.store.games import GameStore

    return GameStore(config.store.url, prefix=config.store.prefix, keep_games=config.store.keep_games)


def _expanded(path: str) -> Path:
    """`~/x` or `~user/x` as a path; UsageError for a user without a home (pathlib's RuntimeError)."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        raise UsageError(f"store.state_dir {path[:80]!r}: that user has no home directory") from None


def build_io(config: Config, driver_name: str, sources: Callable[[EventQueue], list[InputSource]]
             ) -> tuple[OutputStage, Driver, EventQueue, list[InputSource]]:
    """Output stage, driver, the shared event queue and the input sources `sources` makes on it
    (and a network driver's link to its receiver: its keep-alive, waking the loop when the
    receiver goes or comes back); the driver is let go again if the inputs cannot be opened."""
    events = EventQueue()
    stage, driver = build_output(config, driver_name)
    try:
        inputs = sources(events)
    except BaseException:
        driver.close()
        raise
    if driver.link is not None:  # a receiver's keep-alive is one of the app's sources
        driver.link.watch(events.wake)
        inputs.append(driver.link)
    return stage, driver, events, inputs


def phone_address(config: Config, server) -> str:
    """Where a phone at the table opens the page: the box's name for a server on every network."""
    from console.commands.sticker import box_url

    try:
        return box_url(config.web.address, server.port)
    except UsageError:  # this computer only
        return server.url + "/"


def attach_web(config: Config, app: ConsoleApp, controls: bool = False, limits=None):
    """With `web.enabled`: the phones' server, serving before the loop starts, publishing the
    app's states and frames, one of its sources (so it is closed with them) and a new room code
    each game; beside the phones, the panel's spectator view, the stored games' replays and,
    with `controls` (`sim --web`), the console itself in the page. Returns the companion, or
    None when the web is off; a port in use raises WebServerError. `limits`: the server's
    (`web.limits.LIMITS` by default)."""
    if not config.web.enabled:
        return None
    from console.web.companion import WebCompanion
    from console.web.limits import LIMITS
    from console.web.panel import PanelStream
    from console.web.replay import ReplayRoom
    from console.web.seats import new_room_code

    limits = limits or LIMITS
    panels: list[PanelStream] = []

    def panel_routes(hub):
        panels.append(PanelStream(hub, app.stage, app.events if controls else None, limits=limits))
        return panels[0].routes()

    web = WebCompanion(config.web, app.events, app.store, limits=limits, more_routes=[
        panel_routes, lambda hub: ReplayRoom(app.stage, app.store, limits=limits).routes(),
    ])
    web.room.live_view = panels[0].live_viewer  # WLED's live view on the phones' /ws
    web.room.thinker.executor = app.computers.thinker  # where the computer players read the knowledge and word lists
    app.seat_phones(web.kept_seats, web.seats.save)
    web.start()
    app.publisher, app.room_codes = web.hub, new_room_code
    app.sources.append(web)
    log.info("phones: open %s and type the room code the panel shows", phone_address(config, web.server))
    return web


def build_app(
    config: Config,
    driver_name: str,
    sources: Callable[[EventQueue], list[InputSource]],
    *,
    rng=None,
    hint: Callable[[str], None] | None = None,
    journal: Callable[[str, object], None] | None = None,
    box: bool | None = None,
) -> ConsoleApp:
    """The whole console for one driver; `sources` makes the input sources on the shared queue.
    `box`: it runs as the box, on its GPIO buttons (the shutdown hold powers the machine off,
    systemd hears of its frames); by default, on any driver but a simulator."""
    shut = config.input.shutdown
    on_hardware = driver_name not in SIMULATORS if box is None else box
    stage, driver, events, inputs = build_io(config, driver_name, sources)
    try:
        store = store_for(config, events=events)
    except BaseException:
        driver.close()
        raise
    return ConsoleApp(
        stage, driver, events, inputs,
        store,
        colors=config.players.colors,
        rng=rng,
        shutdown=Shutdown(shut.button, shut.hold_s,
                          systemctl_poweroff if (shut.enabled and on_hardware) else None),
        hint=hint,
        journal=journal,
        idle_timeout_s=config.idle_timeout_s,
        notifier=SystemdNotifier() if on_hardware else None,
    )

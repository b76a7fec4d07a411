"""The commands that run the console or one of its parts: play (panel or terminal), the headless
simulator, render and palette. Each turns config and files into running parts and back into
exit statuses; the console itself lives in app, controller and render.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import random
import signal
import sys
import time
from typing import TYPE_CHECKING, Callable

from console.game.board import ALL_CELLS
from console.play.app import ConsoleApp
from console.play.ports import InputSource
from console.play.loop import freeze_start_up, run_realtime, run_virtual
from console.commands.common import UsageError, read_text, write_output
from console.config.loader import Config, load_config, one_line
from console.play.controller import screen_for
from console.view.palette import board_colors
from console.config.files import input_name
from console.game.record import MAX_RECORD_BYTES, replay_record, state_json
from console.view.render import board_frame, render
from console.view.ui import Ui
from console.commands.wiring import (attach_web, build_app, build_output, gpio_input, output_stage,
                                     resolve_driver_name, store_for)
from console.web.server import WebServerError
from hal.drivers import NETWORK, SIMULATORS, DriverError, light_response_of
from hal.drivers.leds_dev import DeviceNotReadyError
from hal.inputs.events import PRESS, QUIT, EventQueue, InputConfigError, InputEvent
from hal.inputs.script import MAX_SCRIPT_BYTES, ScriptError, ScriptInput, Step, parse_script
from hal.frame import Frame
from hal.picture import encode_png

if TYPE_CHECKING:
    from console.store.games import GameStore

log = logging.getLogger("hues-console")


# Hardware that will be there after a restart (systemd restarts on anything but 2): EX_TEMPFAIL.
EXIT_TRY_AGAIN = os.EX_TEMPFAIL
SCRIPT_START_WAIT_S = 30.0  # a scripted run's first frame waits this long for the store (the box's: START_WAIT_S)


def open_store(config_path: str | None) -> GameStore:
    """The store for the commands that only read it (history, export): they change nothing."""
    return store_for(load_config(config_path), read_only=True)


def play(config_path: str | None, simulator: bool) -> int:
    """The console in real time until quit (q), SIGTERM or the shutdown hold."""
    config = load_config(config_path)
    name = interactive_driver(config, simulator, "sim")

    def build(name: str, sources: Callable, hint: Callable | None, box: bool) -> ConsoleApp:
        app = build_app(config, name, sources, hint=hint, journal=_log_journal, box=box)
        try:
            attach_web(config, app)
        except WebServerError as exc:
            app.close()
            raise UsageError(str(exc)) from None
        return app

    return run_interactive(config, name, build)


def interactive_driver(config: Config, simulator: bool, command: str) -> str:
    """The driver a real-time run of `command` uses, once it is known to work here: the terminal
    simulator draws on standard output and reads keys from standard input, sim-png reads keys, so
    each needs a terminal there. Checked before the command says or opens anything, so that the
    refusal is its only line (`diag --sim < /dev/null` printed its boot line first)."""
    name = "sim-terminal" if simulator else resolve_driver_name(config.driver.name)
    if name == "sim-headless":  # sim-png is played like the terminal: the keys, the picture in a file
        raise UsageError(f"the {name} driver needs `hues-console {command} --headless --script FILE`")
    if name in SIMULATORS:
        need_terminal(name, command)
    return name


def need_terminal(name: str, command: str) -> None:
    """UsageError unless the simulator `name` has its terminal: keys on standard input, and for
    the terminal simulator the panel drawn on standard output."""
    what = "the terminal simulator" if name == "sim-terminal" else f"the {name} driver"
    instead = f"`hues-console {command} --headless --script FILE` plays without one"
    if not os.isatty(0):
        raise UsageError(f"{what} reads keys, but standard input is not a terminal ({instead})")
    if name == "sim-terminal" and not os.isatty(1):
        raise UsageError(f"{what} draws the panel on the terminal, but standard output is not one ({instead})")


def run_interactive(config: Config, name: str, build: Callable) -> int:
    """Run an app (the console, or the wiring check) in real time on the driver `name` (from
    `interactive_driver`): on the terminal simulator or sim-png's picture with the keyboard; on a
    network driver's matrix with the keyboard when standard input is a terminal (a laptop), hints
    printed; else on the configured driver with the box's GPIO buttons, hints going to the log.
    `build(driver_name, sources, hint, box)` makes the app; `box` is True with the GPIO buttons
    (the box itself: the shutdown hold powers it off, systemd hears from it)."""
    keys = name in SIMULATORS or (name in NETWORK and os.isatty(0))
    printed = lambda text: print(text, flush=True)  # noqa: E731
    try:
        if name in SIMULATORS:
            app = build(name, lambda events: [open_keyboard(events)], None, False)
            app.hint = getattr(app.driver, "status_line", None)
        elif keys:
            app = build(name, lambda events: [open_keyboard(events)], printed, False)
        else:
            app = build(name, lambda events: [gpio_input(config, events)], printed, True)
    except DeviceNotReadyError as exc:
        print(f"hues-console: {exc}", file=sys.stderr, flush=True)
        return EXIT_TRY_AGAIN
    except (DriverError, InputConfigError) as exc:
        raise UsageError(str(exc)) from None
    with closing_app(app, interrupt_is_quit=keys), terminal_messages(app.driver):
        run_realtime(app, config.display.fps, started=freeze_start_up)
    return 0


class terminal_messages:
    """While the terminal simulator runs, log messages (the store's warnings) go to its message
    line under the panel, escaped to one line, instead of the command line's stderr handler
    printing them over the board; that handler is back once the simulator stops."""

    def __init__(self, driver):
        self.show = getattr(driver, "message_line", None)

    def __enter__(self):
        if self.show is not None:
            root = logging.getLogger()
            self.saved = root.handlers[:]
            root.handlers[:] = [_LineHandler(self.show)]
        return self

    def __exit__(self, *exc_info):
        if self.show is not None:
            logging.getLogger().handlers[:] = self.saved


class _LineHandler(logging.Handler):
    def __init__(self, show: Callable[[str], None]):
        super().__init__(logging.WARNING)
        self.show = show

    def emit(self, record: logging.LogRecord) -> None:
        self.show(one_line(record.getMessage()))


def open_keyboard(events: EventQueue) -> InputSource:
    """The terminal's keys as input, in cbreak mode until closed (also at exit, after a crash)."""
    from hal.inputs.keyboard import KeyboardInput, TerminalError

    try:
        keyboard = KeyboardInput(events)
    except TerminalError as exc:
        raise UsageError(str(exc)) from None
    keyboard.open()
    atexit.register(keyboard.close)  # the terminal comes back even after a crash
    return keyboard


class closing_app:
    """Clear the panel, flush the store and restore the terminal on exit, Ctrl-C or a signal that
    asks the console to end: SIGTERM, SIGQUIT, SIGHUP (a terminal or ssh session gone), whose
    default is to die with the panel still lit and the terminal in cbreak mode.

    Works for any app with `running`, `sources` and `close()` (the console, the wiring check).
    """

    STOP_SIGNALS = (signal.SIGTERM, signal.SIGQUIT, signal.SIGHUP)

    def __init__(self, app: ConsoleApp, interrupt_is_quit: bool = False):
        self.app = app
        self.interrupt_is_quit = interrupt_is_quit  # the simulator: Ctrl-C is q, asked first mid-game

    def __enter__(self):
        def stop(signum, frame):
            self.app.stop()

        def quit_key(signum, frame):
            self.app.events.put(InputEvent(QUIT, PRESS, time.monotonic()))

        self._previous = {signum: signal.signal(signum, stop) for signum in self.STOP_SIGNALS}
        self._interrupt = signal.signal(signal.SIGINT, quit_key) if self.interrupt_is_quit else None
        return self.app

    def __exit__(self, *exc_info):
        try:
            self.app.close()
        finally:
            for signum, previous in self._previous.items():
                signal.signal(signum, previous)
            if self._interrupt is not None:
                signal.signal(signal.SIGINT, self._interrupt)
            for source in self.app.sources:
                close = getattr(source, "close", None)
                if close is not None:
                    close()
        return exc_info[0] is KeyboardInterrupt


def run_headless(config_path: str | None, script_path: str, png: str | None,
                 state_json_path: str | None, seed: int, report_actions: bool = False) -> int:
    """`sim --headless --script FILE`: the inputs on a virtual clock, as fast as the CPU allows.
    `report_actions` prints each game action as it is stored (`{"stored": ...}`) and a resumed
    record (`{"resumed": [...]}`), one JSON line each: how the power-cut test knows what was
    acknowledged before it pulled the plug."""
    config = load_config(config_path)
    journal = _print_journal if report_actions else None
    app, script = scripted(config, load_script(script_path), lambda name, sources: build_app(
        config, name, sources, rng=random.Random(seed), journal=journal))
    # A script's presses are timed for what the console shows, on a clock that runs as fast as
    # the CPU: its first frame waits for the store's answers (an unfinished game's resume
    # question), which on the box come when they come. Under load they took longer than the
    # box's wait, and a script written to resume a game found the idle board instead.
    app.start_wait_s = SCRIPT_START_WAIT_S
    frame = play_script(config, app, script)
    game = app.game
    if png and frame is not None:
        write_output(png, encode_png(frame))
    if state_json_path:
        if game is None:
            raise UsageError(f"{script_path}: the script never started a game, so there is no state to write")
        write_output(state_json_path, json.dumps(state_json(game)) + "\n")
    return 0


def _print_journal(kind: str, what: object) -> None:
    print(json.dumps({kind: what}), flush=True)


def _log_journal(kind: str, what: object) -> None:
    """At HUES_LOG_LEVEL=debug the journal shows each action once it is durable, and the record a
    start offers for resume: what was on the panel before a power cut (tests/box reads it)."""
    log.debug("%s %s", kind, json.dumps(what))


def load_script(path: str) -> tuple[Step, ...]:
    """The steps of the input script at `path`; a bad line is a UsageError naming file and line."""
    try:
        return parse_script(read_text(path, MAX_SCRIPT_BYTES), input_name(path))
    except ScriptError as exc:
        raise UsageError(str(exc)) from None


def scripted(config: Config, steps: tuple[Step, ...], build: Callable) -> tuple:
    """(app, its script input): an app (the console or the wiring check) on the headless
    simulator, `build(driver_name, sources)` making it, its inputs the script's steps played on
    the app's frame grid and auto-repeating like the configured joystick."""
    inp = config.input
    scripts: list[ScriptInput] = []

    def sources(events: EventQueue) -> list[ScriptInput]:
        scripts.append(ScriptInput(steps, events, 1 / config.display.fps, inp.repeat_delay_ms / 1000,
                                   inp.repeat_rate_hz))
        return scripts

    return build("sim-headless", sources), scripts[0]


def play_script(config: Config, app, script: ScriptInput) -> Frame | None:
    """Run `app` on the virtual clock until its script is over, close it, and return the last
    frame it showed."""
    try:
        run_virtual(app, config.display.fps, lambda: script.done)
        return app.driver.last_frame
    finally:
        app.close()


def render_record(config_path: str | None, record_path: str, t: float, json_out: str | None,
                  png_out: str | None) -> int:
    """The frame a record's final state shows at animation time t (its screen started at 0)."""
    config = load_config(config_path)
    game = replay_record(read_text(record_path, MAX_RECORD_BYTES), input_name(record_path))
    ui = screen_for(game, Ui(), 0.0)
    stage, driver = build_output(config, "sim-headless")
    frame = render(game, ui, t, stage.layout.width, stage.layout.height)
    if png_out:
        write_output(png_out, encode_png(frame))
    if json_out or not png_out:
        text = json.dumps({"width": frame.width, "height": frame.height, "pixels": frame.rows()})
        if json_out in (None, "-"):
            print(text)
        else:
            write_output(json_out, text + "\n")
    return 0


def print_palette(config_path: str | None, as_json: bool, driver: str | None = None) -> int:
    """Per cell: its sRGB colour, the bytes the driver is sent (`led`) and the light the LEDs get
    from them (`light`, after the kernel's gamma table on a Pi 5), at the brightness the
    configured power limit allows for the whole board; and that board's current and power."""
    config = load_config(config_path)
    name = resolve_driver_name(driver or config.driver.name)
    try:
        response = light_response_of(name)
    except DriverError as exc:  # no such driver
        raise UsageError(str(exc)) from None
    stage = output_stage(config, response)
    leds, brightness = board_led_values(stage)
    lights = [tuple(stage.light(bytes(led))) for led in leds]
    current_ma = stage.power.current_ma(sum(map(sum, lights)), stage.layout.led_count)
    power_w = stage.power.watts(current_ma)
    cells = [
        {"cell": str(cell), "rgb": list(board_colors()[cell.index]), "led": list(led), "light": list(light)}
        for cell, led, light in zip(ALL_CELLS, leds, lights)
    ]
    if as_json:
        print(json.dumps({"driver": name, "brightness": brightness, "current_ma": round(current_ma, 1),
                          "power_w": round(power_w, 2), "cells": cells}))
        return 0
    print(f"board on the {name} driver at brightness {brightness:.3f} (after the power limit): "
          f"{current_ma:.0f} mA, {power_w:.1f} W")
    for c in cells:
        r, g, b = c["rgb"]
        print(f"{c['cell']:>4}  #{r:02x}{g:02x}{b:02x}  led {c['led'][0]:3} {c['led'][1]:3} {c['led'][2]:3}"
              f"  light {c['light'][0]:3} {c['light'][1]:3} {c['light'][2]:3}")
    return 0


def board_led_values(stage) -> tuple[list[tuple[int, int, int]], float]:
    """The bytes written for the 480 cells when the whole board is shown, and that brightness."""
    layout = stage.layout
    leds = stage.process(board_frame(layout.width, layout.height))
    values = []
    for cell in ALL_CELLS:
        i = 3 * layout.chain_index[cell.row * layout.width + cell.col]
        values.append((leds[i], leds[i + 1], leds[i + 2]))
    return values, stage.last_brightness

"""`hues-console diag`: the wiring check a maker runs once, right after soldering the box together.

Every setting a maker can get wrong shows as a picture that is plainly wrong, in four stages:

1. corners: logical (0,0) red, (W-1,0) green, (0,H-1) blue, (W-1,H-1) white, inside a dim edge
   frame, so a rotated or mirrored panel shows the colours in the wrong corners;
2. chase: a dot runs along the LED chain in wiring order at a fixed pace, so serpentine, vertical,
   start corner and panel order show as the path it takes (its time gives the chain index, and
   the first LED of every panel is named in a hint);
3. coordinates: a colour ramp (x -> hue from red, y -> brightness from bright at the top) with the
   row letters A and P and the board's column tens marks, as the game draws them;
4. inputs: every button and joystick direction lights its own region and names itself, in text on
   the panel and in a hint line (with its GPIO pin), until Start is held 2 s or q is typed.

With a network driver (ddp, e131) the receiver is checked first (`receiver_check`): whether it
answers, and for a WLED what its JSON API says against the configuration: its LED count and
matrix, the realtime settings that decide what the bytes become (gamma, its own brightness, its
timeout against the keep-alive), its current limit against the console's, E1.31's universe and
DMX mode. `diag --receiver HOST` checks HOST alone (finding a WLED by its address).

A advances a stage; the first three also move on by themselves so that a box whose buttons do not
work yet still shows them all. The frames go through the normal output stage and driver, so
brightness, gamma and the power limiter apply as in a game. Drawing (`diag_frame`) is pure and
separate from the loop (`DiagApp`), which offers the interface `run_realtime` and `run_virtual`
drive: `start(now)`, `tick(now)`, `running`, `close()`.
"""

from __future__ import annotations

import colorsys
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

from console.play.app import BOOT_TO_FIRST_FRAME
from console.play.ports import InputSource
from console.commands.common import UsageError, write_output
from console.config.loader import Config, load_config
from console.view.font import GLYPH_HEIGHT, draw_text, text_width
from console.commands.session import interactive_driver, load_script, play_script, run_interactive, scripted
from console.commands.wiring import build_io, resolve_driver_name, store_for
from hal.drivers import NETWORK, Driver, DriverError
from hal.frame import RGB, Frame
from console.play.hold import Hold
from hal.inputs.events import BUTTONS, PRESS, QUIT, RELEASE, EventQueue, InputEvent
from hal.inputs.script import ScriptInput, Step
from hal.layout import Layout
from hal.output import OutputStage, Panel
from hal.picture import encode_png

# --- stages and timings ------------------------------------------------------------------------

CORNERS = "corners"
CHASE = "chase"
COORDINATES = "coordinates"
INPUTS = "inputs"
STAGES = (CORNERS, CHASE, COORDINATES, INPUTS)

NEXT_BUTTON = "a"  # advances the first three stages
CORNERS_S = 4.0  # the corners stage moves on by itself after this long
CHASE_LEDS_PER_S = 60.0  # pace of the running dot: one pass of the chain, then the next stage
CHASE_TAIL_LEDS = 6  # the dot and its fading tail
COORDINATES_S = 6.0
LIT_AFTER_PRESS_S = 0.5  # a terminal's press comes with an immediate release: keep it visible
FINISH_BUTTON = "start"
FINISH_HOLD_S = 2.0  # holding Start this long ends the input check


def stage_seconds(stage: str, led_count: int) -> float | None:
    """How long `stage` lasts without a press of A; None for the input check, which waits."""
    if stage == CORNERS:
        return CORNERS_S
    if stage == CHASE:
        return led_count / CHASE_LEDS_PER_S
    if stage == COORDINATES:
        return COORDINATES_S
    if stage == INPUTS:
        return None
    raise _no_such_stage(stage)


def _no_such_stage(stage: str) -> ValueError:
    return ValueError(f"no wiring check stage is called {stage!r} (they are {', '.join(STAGES)})")


def chase_head(t: float, led_count: int) -> int:
    """The chain position the running dot has reached `t` seconds into the chase."""
    return int(t * CHASE_LEDS_PER_S) % led_count


# --- colours and regions -----------------------------------------------------------------------

CORNER_COLOURS: tuple[RGB, RGB, RGB, RGB] = (
    (255, 0, 0),  # (0, 0)
    (0, 255, 0),  # (W-1, 0)
    (0, 0, 255),  # (0, H-1)
    (255, 255, 255),  # (W-1, H-1)
)
EDGE = (48, 48, 48)  # the dim frame; 48 still drives the LEDs at 2.2 gamma
LABEL = (255, 255, 255)
BUTTON_COLOURS: dict[str, RGB] = {
    "up": (255, 64, 64),
    "down": (64, 255, 64),
    "left": (64, 128, 255),
    "right": (255, 224, 32),
    "a": (255, 64, 255),
    "b": (32, 224, 255),
    "start": (255, 255, 255),
}
# An unlit region shows its colour dimmed, so the maker sees where to look.
UNLIT_COLOURS: dict[str, RGB] = {
    button: (r // 5, g // 5, b // 5) for button, (r, g, b) in BUTTON_COLOURS.items()
}

# The input check is drawn on a 32x16 area centred on the canvas: a joystick cross on the left,
# B, A and Start on the right, the name of the latest press along the bottom. (x, y, w, h).
DESIGN_SIZE = (32, 16)
INPUT_REGIONS: dict[str, tuple[int, int, int, int]] = {
    "up": (5, 0, 4, 3),
    "left": (1, 3, 4, 3),
    "right": (9, 3, 4, 3),
    "down": (5, 6, 4, 3),
    "b": (17, 0, 5, 5),
    "a": (24, 0, 5, 5),
    "start": (17, 6, 12, 3),
}
NAME_ROW = DESIGN_SIZE[1] - GLYPH_HEIGHT

# The coordinates stage labels the board as printed: rows A..P, columns 1..30.
ROW_LETTERS = "ABCDEFGHIJKLMNOP"
BOARD_COLUMNS = 30


def input_region(button: str, width: int, height: int) -> tuple[int, int, int, int]:
    """(x, y, w, h) of the panel region that lights while `button` is pressed."""
    x, y, w, h = INPUT_REGIONS[button]
    return x + (width - DESIGN_SIZE[0]) // 2, y + (height - DESIGN_SIZE[1]) // 2, w, h


def _fill_rect(frame: Frame, x: int, y: int, w: int, h: int, rgb: RGB) -> None:
    """Fill the rectangle, clipped at the frame's edges."""
    x0, x1 = max(x, 0), min(x + w, frame.width)
    if x1 <= x0:
        return
    row = bytes(rgb) * (x1 - x0)
    for yy in range(max(y, 0), min(y + h, frame.height)):
        start = (yy * frame.width + x0) * 3
        frame.pixels[start : start + len(row)] = row


# --- the pictures (pure) ------------------------------------------------------------------------


@lru_cache(maxsize=4)
def _corners(width: int, height: int) -> bytes:
    frame = Frame(width, height)
    _fill_rect(frame, 0, 0, width, 1, EDGE)
    _fill_rect(frame, 0, height - 1, width, 1, EDGE)
    _fill_rect(frame, 0, 0, 1, height, EDGE)
    _fill_rect(frame, width - 1, 0, 1, height, EDGE)
    spots = ((0, 0), (width - 1, 0), (0, height - 1), (width - 1, height - 1))
    for (x, y), rgb in zip(spots, CORNER_COLOURS):
        frame.set(x, y, rgb)
    return bytes(frame.pixels)


def _chase(frame: Frame, t: float, layout: Layout) -> None:
    steps = int(t * CHASE_LEDS_PER_S)
    for behind in range(min(CHASE_TAIL_LEDS, steps + 1)):
        level = 255 * (CHASE_TAIL_LEDS - behind) // CHASE_TAIL_LEDS
        logical = layout.logical_index[(steps - behind) % layout.led_count]
        i = logical * 3
        frame.pixels[i : i + 3] = bytes((level, level, level))


def _label(frame: Frame, x: int, y: int, text: str) -> None:
    """White text on a black box with a one-pixel margin, so it reads over the bright ramp."""
    _fill_rect(frame, x - 1, y - 1, text_width(text) + 2, GLYPH_HEIGHT + 2, (0, 0, 0))
    draw_text(frame, x, y, text, LABEL)


@lru_cache(maxsize=4)
def _coordinates(width: int, height: int) -> bytes:
    frame = Frame(width, height)
    for y in range(height):
        value = 1.0 - 0.75 * y / (height - 1)
        row = b"".join(
            bytes(round(255 * c) for c in colorsys.hsv_to_rgb(0.8 * x / (width - 1), 1.0, value))
            for x in range(width)
        )
        frame.pixels[y * width * 3 : (y + 1) * width * 3] = row
    _label(frame, 0, 0, ROW_LETTERS[0])
    last_row = min(height, len(ROW_LETTERS)) - 1
    _label(frame, 0, last_row - GLYPH_HEIGHT + 1, ROW_LETTERS[last_row])
    for column in range(10, min(width, BOARD_COLUMNS) + 1, 10):
        x = column - 1
        digit = str(column // 10)
        _label(frame, x - 1, 0, digit)
        frame.set(x, GLYPH_HEIGHT, LABEL)  # the tick under the tens digit points at the column
    return bytes(frame.pixels)


def _inputs(frame: Frame, lit: Sequence[str]) -> None:
    width, height = frame.width, frame.height
    for button in BUTTONS:
        rgb = BUTTON_COLOURS[button] if button in lit else UNLIT_COLOURS[button]
        _fill_rect(frame, *input_region(button, width, height), rgb)
    if lit:
        name = lit[-1].upper()
        x = (width - text_width(name)) // 2
        draw_text(frame, x, NAME_ROW + (height - DESIGN_SIZE[1]) // 2, name, BUTTON_COLOURS[lit[-1]])


def diag_frame(stage: str, t: float, layout: Layout, lit: Sequence[str] = ()) -> Frame:
    """The picture of `stage` at `t` seconds into it.

    `lit` (input check only) are the buttons whose regions light, oldest press first; the name
    of the last one is written on the panel.
    """
    width, height = layout.width, layout.height
    if stage == CORNERS:
        return Frame(width, height, bytearray(_corners(width, height)))
    if stage == COORDINATES:
        return Frame(width, height, bytearray(_coordinates(width, height)))
    frame = Frame(width, height)
    if stage == CHASE:
        _chase(frame, t, layout)
    elif stage == INPUTS:
        _inputs(frame, lit)
    else:
        raise _no_such_stage(stage)
    return frame


def stage_intro(stage: str, layout: Layout) -> str:
    """The hint shown as `stage` begins: what the maker should see."""
    number = f"{STAGES.index(stage) + 1}/{len(STAGES)}"
    if stage == CORNERS:
        return (f"{number} corners: red top left, green top right, blue bottom left, "
                f"white bottom right; A: next")
    if stage == CHASE:
        y, x = divmod(layout.logical_index[0], layout.width)
        return (f"{number} wiring order: a dot runs along the LED chain from LED 0 at x={x} y={y}, "
                f"{CHASE_LEDS_PER_S:g} LEDs/s; A: next")
    if stage == COORDINATES:
        return (f"{number} coordinates: red left to purple right, bright at the top, "
                f"A top left, P bottom left; A: next")
    return (f"{number} input check: press every button and direction; "
            f"hold {FINISH_BUTTON} {FINISH_HOLD_S:g} s to finish")


# --- the loop ----------------------------------------------------------------------------------


class DiagApp:
    """Runs the stages on the app's clock: inputs in, one frame out a tick (only when it changed).

    `pins` (button -> GPIO number) lets the input check's hints name the pin of each button.
    """

    def __init__(
        self,
        output: OutputStage,
        driver: Driver,
        events: EventQueue,
        sources: list[InputSource],
        *,
        hint: Callable[[str], None] | None = None,
        pins: Mapping[str, int] | None = None,
    ):
        self.panel = Panel(output, driver)
        self.events = events
        self.sources = sources
        self.hint = hint
        self.pins = dict(pins or {})
        self.running = True
        self.stage = STAGES[0]
        self._since = 0.0
        self._pressed_at: dict[str, float] = {}  # latest press of each button, oldest first
        self._held: set[str] = set()
        self._seen: set[str] = set()
        self._finish_hold = Hold()  # counts through a terminal's key repeat too
        self._chase_panel = 0

    @property
    def driver(self) -> Driver:
        return self.panel.driver

    @property
    def layout(self) -> Layout:
        return self.panel.layout

    def start(self, now: float) -> None:
        self._enter(STAGES[0], now)

    def stop(self) -> None:
        """End the loop from a signal handler, waking it if it waits."""
        self.running = False
        self.events.wake()

    def tick(self, now: float) -> float:
        """One frame; the check's patterns move all the time, so the next is due at once (the
        loop paces it to the frame rate)."""
        for source in self.sources:
            source.poll(now)
        for event in self.events.drain():
            self._on_event(event, now)
        limit = stage_seconds(self.stage, self.layout.led_count)
        if limit is not None and now - self._since >= limit:
            self._enter(STAGES[STAGES.index(self.stage) + 1], now)
        if _held_long_enough(self._finish_hold.seconds(now)):
            self._finish()
        self._push(now)
        return now

    def lit_buttons(self, now: float) -> tuple[str, ...]:
        """The buttons held, or pressed less than LIT_AFTER_PRESS_S ago, oldest press first."""
        return tuple(button for button, pressed in self._pressed_at.items()
                     if button in self._held or now - pressed < LIT_AFTER_PRESS_S)

    def close(self) -> None:
        self.panel.close()

    # --- inside ----------------------------------------------------------------------------

    def _say(self, text: str) -> None:
        if self.hint is not None:
            self.hint(text)

    def _enter(self, stage: str, now: float) -> None:
        self.stage = stage
        self._since = now
        self._chase_panel = 0
        self._say(stage_intro(stage, self.layout))

    def _on_event(self, event: InputEvent, now: float) -> None:
        button = event.button
        if button == QUIT:
            self.running = False
            return
        if self.stage != INPUTS:
            if button == NEXT_BUTTON and event.kind == PRESS:
                self._enter(STAGES[STAGES.index(self.stage) + 1], now)
            return
        if event.kind == PRESS:
            self._pressed_at.pop(button, None)
            self._pressed_at[button] = event.time
            self._held.add(button)
            self._seen.add(button)
            self._say(self._press_hint(button))
        elif event.kind == RELEASE:
            self._held.discard(button)
        if button == FINISH_BUTTON:
            if event.kind == RELEASE and _held_long_enough(event.time - (self._finish_hold.since or event.time)):
                self._finish()
            self._finish_hold.event(event.kind, event.time)

    def _press_hint(self, button: str) -> str:
        pin = self.pins.get(button)
        text = f"{button} pressed" + (f" (GPIO {pin})" if pin is not None else "")
        missing = [b for b in BUTTONS if b not in self._seen]
        if missing:
            return f"{text}; still to try: {', '.join(missing)}"
        return f"{text}; every button works: hold {FINISH_BUTTON} {FINISH_HOLD_S:g} s to finish"

    def _finish(self) -> None:
        if self.running:
            self.running = False
            self._say("wiring check finished")

    def _push(self, now: float) -> None:
        t = now - self._since
        self.panel.show(diag_frame(self.stage, t, self.layout, self.lit_buttons(now)))
        if self.stage == CHASE:
            self._name_panel_start(chase_head(t, self.layout.led_count))

    def _name_panel_start(self, head: int) -> None:
        options = self.layout.options
        panel = head // (options.panel_width * options.panel_height)
        if panel != self._chase_panel:
            self._chase_panel = panel
            first = panel * options.panel_width * options.panel_height
            y, x = divmod(self.layout.logical_index[first], self.layout.width)
            self._say(f"LED {first}, the first of panel {panel + 1}, is at x={x} y={y}")


def _held_long_enough(seconds: float) -> bool:
    """Compared to the microsecond, so that a script's `hold start 2` counts as two seconds."""
    return round(seconds, 6) >= FINISH_HOLD_S


# --- wiring it up ------------------------------------------------------------------------------


def build_diag(config: Config, driver_name: str,
               sources: Callable[[EventQueue], list[InputSource]],
               hint: Callable[[str], None] | None = None,
               pins: Mapping[str, int] | None = None) -> DiagApp:
    """The wiring check on one driver; `sources` makes the input sources on the shared queue."""
    return DiagApp(*build_io(config, driver_name, sources), hint=hint, pins=pins)


def scripted_diag(config: Config, steps: tuple[Step, ...],
                  hint: Callable[[str], None] | None = None) -> tuple[DiagApp, ScriptInput]:
    """The wiring check on the headless simulator, its inputs from script steps (virtual clock)."""
    return scripted(config, steps, lambda name, sources: build_diag(config, name, sources, hint))


def diag_main(config_path: str | None, simulator: bool, script: str | None, png: str | None) -> int:
    """`hues-console diag`: on the configured panel and buttons, in the terminal simulator
    (`simulator`), or headless from an input script with the last frame written to `png`."""
    config = load_config(config_path)
    if script is not None:
        return _run_scripted(config, script, png)
    if png is not None:
        raise UsageError("--png goes with diag --headless --script FILE")
    name = interactive_driver(config, simulator, "diag")
    print(boot_time_line(store_for(config, read_only=True).get_setting(BOOT_TO_FIRST_FRAME)), flush=True)
    if name in NETWORK:
        for line in receiver_check(config, name)[1]:
            print(line, flush=True)
    pins = dataclasses.asdict(config.input.pins)
    return run_interactive(
        config, name,
        lambda name, sources, hint, box: build_diag(config, name, sources, hint=hint, pins=pins if box else None))


# --- the receiver of a network driver ----------------------------------------------------------


WLED_MULTI_RGB = 4  # DMX_MODE_MULTIPLE_RGB, wled00/const.h:319: each LED its own three slots


def wled_findings(info: dict, cfg: dict | None, layout: Layout, driver: str, settings: Mapping[str, object],
                  supply_ma: float) -> list[str]:
    """What a WLED's /json/info and /json/cfg (the fields serializeInfo and serializeConfig
    write, wled00/json.cpp and cfg.cpp) say against the configuration: one line each, "ok:" or
    "fix:" first. Pure: the tests give it WLED's answers."""
    lines = []
    leds = info.get("leds") if isinstance(info.get("leds"), dict) else {}
    count, matrix = leds.get("count"), leds.get("matrix")
    lines.append(f"ok: WLED {info.get('ver', '?')} named {info.get('name', '?')!r}, {count} LEDs"
                 + (f" as a {matrix.get('w')}x{matrix.get('h')} matrix" if isinstance(matrix, dict) else ""))
    width, height = layout.width * layout.options.scale, layout.height * layout.options.scale
    if count != layout.led_count:
        lines.append(f"fix: WLED drives {count} LEDs, the panel section makes {layout.led_count}: set WLED's LED "
                     f"count (LED Preferences) or the console's panel size alike")
    if isinstance(matrix, dict) and sorted((matrix.get("w"), matrix.get("h"))) != sorted((width, height)):
        lines.append(f"fix: WLED's matrix is {matrix.get('w')}x{matrix.get('h')}, the console draws {width}x{height}: "
                     f"set WLED's 2D matrix (2D Configuration) to the panel's size")
    if info.get("live"):
        lines.append(f"ok: WLED is in realtime mode ({info.get('lm') or '?'} from {info.get('lip') or '?'})")
    maxpwr = leds.get("maxpwr")
    if isinstance(maxpwr, (int, float)) and maxpwr and abs(maxpwr - supply_ma) > 1:
        lines.append(f"fix: WLED limits the LEDs to {maxpwr} mA, the console's limiter counts on {supply_ma:g} mA "
                     f"(power.supply_amps): set WLED's maximum current (LED Preferences) to the supply's, as "
                     f"power.supply_amps says, or WLED dims frames the console let through")
    live = ((cfg or {}).get("if") or {}).get("live") if isinstance(cfg, dict) else None
    if not isinstance(live, dict):
        lines.append("note: WLED's settings (/json/cfg) did not come: its realtime settings are not checked")
        return lines
    if live.get("no-gc") is False:
        lines.append("fix: WLED corrects the realtime colours' gamma too (Sync Interfaces: tick \"Disable realtime "
                     "gamma correction\"): the console has done it, so they are corrected twice")
    if live.get("maxbri") is False:
        lines.append("fix: WLED scales the console's frames by its own brightness (Sync Interfaces: tick \"Force "
                     "max brightness\"): the console's brightness is the one to set")
    timeout = live.get("timeout")
    keepalive = settings.get("keepalive_ms")
    if isinstance(timeout, (int, float)) and isinstance(keepalive, int) and timeout * 100 <= 2 * keepalive:
        lines.append(f"fix: WLED leaves realtime mode after {timeout * 100:g} ms without frames, under two of the "
                     f"console's keep-alives ({keepalive} ms): raise WLED's realtime timeout or lower keepalive_ms")
    if live.get("offset"):
        lines.append(f"fix: WLED shifts realtime LEDs by {live.get('offset')} (Sync Interfaces: LED offset): "
                     f"set it to 0")
    if driver == "e131":
        dmx = live.get("dmx") if isinstance(live.get("dmx"), dict) else {}
        wanted = {"uni": settings.get("universe"), "addr": 1, "mode": WLED_MULTI_RGB}
        if live.get("port") != settings.get("port"):
            lines.append(f"fix: WLED takes E1.31 on port {live.get('port')}, the console sends to "
                         f"{settings.get('port')}")
        if {key: dmx.get(key) for key in wanted} != wanted:
            lines.append(f"fix: WLED reads E1.31 as universe {dmx.get('uni')}, start address {dmx.get('addr')}, DMX "
                         f"mode {dmx.get('mode')}: set universe {settings.get('universe')}, start address 1 and "
                         f"mode Multi RGB ({WLED_MULTI_RGB}) in Sync Interfaces")
    if not any(line.startswith("fix:") for line in lines):
        lines.append("ok: WLED's realtime settings suit the console (no gamma of its own, full brightness, "
                     "its timeout past the keep-alive)")
    return lines


def receiver_check(config: Config, driver: str, host: str | None = None) -> tuple[bool, list[str]]:
    """Whether the configured network driver's receiver (or `host`) answers, and what it says:
    (answered, lines). Asks over the network, for a few seconds at most: the command's, never a
    running console's."""
    from console.commands.wiring import driver_settings_for
    from hal.drivers import make_driver
    from hal.drivers.network import CONFIG_PATH, ask_json

    settings = driver_settings_for(config, driver)
    if host is not None:
        settings["host"] = host
    layout = Layout(config.panel)
    try:
        link = make_driver(driver, {**settings}, layout)
    except DriverError as error:
        raise UsageError(str(error)) from None
    try:
        watch = link.receiver  # its thread is not started: one look, here
        answered = watch.probe()
    finally:
        link.close()
    where = settings["host"]
    if watch.address and watch.address != where:
        where += f" ({watch.address})"
    if not answered:
        return False, [f"the LED matrix at {where} does not answer: {watch.problem or 'no answer'}; "
                       f"check that it is on and on this network (the console carries on, and shows the game "
                       f"once it answers)"]
    lines = [f"the LED matrix at {where} answers"]
    if watch.info is None:
        return True, lines + ["note: it is no WLED (no /json/info): its settings are not checked"]
    try:
        cfg = ask_json(watch.address, settings["http_port"], CONFIG_PATH, settings["host"])
    except OSError:
        cfg = None
    return True, lines + wled_findings(watch.info, cfg, layout, driver, settings,
                                       config.power.supply_amps * 1000)


def receiver_main(config_path: str | None, host: str) -> int:
    """`hues-console diag --receiver HOST`: check the receiver at HOST with the configured network
    driver's settings (ddp's when another driver is configured); 0 when it answers, else 1."""
    config = load_config(config_path)
    name = resolve_driver_name(config.driver.name)
    answered, lines = receiver_check(config, name if name in NETWORK else "ddp", host)
    for line in lines:
        print(line, flush=True)
    return 0 if answered else 1


def boot_time_line(seconds: object) -> str:
    """What diag says of the console's last start: how long from power-on to its first frame."""
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        return "boot to first frame: not measured yet (the console service logs it at its first frame)"
    return (f"boot to first frame: {seconds:.1f} s after the kernel started, at the console's last "
            f"start (the firmware adds 2-4 s before; goal: 10 s from power-on)")


def _run_scripted(config: Config, script_path: str, png: str | None) -> int:
    frame = play_script(config, *scripted_diag(config, load_script(script_path), hint=print))
    if png is not None:
        write_output(png, encode_png(frame))
    return 0

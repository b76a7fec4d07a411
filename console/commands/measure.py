"""`hues-console bench`: whether this machine keeps up, each figure beside its anchor.

A WS2812 LED takes 30 us on the wire (plus a 300 us latch a frame), so a 512-LED frame needs
15.4 ms: a frame's CPU time (render, output stage, layout, hand-off to a PixelStrip stand-in
with the real method names) is set against that. Then a press to the frame showing it in the
real-time loop (against the frame period), the loop's CPU on still screens (against a bare
60 Hz wait loop) and a phone's tap to its own view (against a websocket ping, `measure_phone`).
All in this process, in about a minute. The comparative lab (anchor servers, the console in
processes of its own, CPU quotas, attacks) runs from a checkout: `python -m bench`.
"""

from __future__ import annotations

import bisect
import json
import os
import platform
import random
import resource
import statistics
import threading
import time
from dataclasses import dataclass

from console.commands.measure_games import busy_game, percentile, reveal_game, started_app
from console.commands.measure_phone import round_trip_figures, serve_one_phone
from console.game.board import COLS, ROWS, Cell
from console.game.rules import GameState
from console.play.app import ConsoleApp
from console.play.loop import run_realtime
from console.store.games import GameStore
from console.view.boards import GLINT_STEP_S, GLINT_STEPS, IDLE_GLINT_S
from console.view.render import PAWN_S, render
from console.view.ui import Ui
from hal.drivers.ws281x import PixelStripStandIn, Ws281xDriver
from hal.inputs.events import PRESS, EventQueue, InputEvent
from hal.layout import Layout, LayoutOptions
from hal.output import OutputStage, PowerBudget

LED_WIRE_US = 30.0
LATCH_US = 300.0
SIZES = {"32x16": (2, 1), "64x32": (4, 2), "64x64": (4, 4)}  # 16x16 panels across, down
ANCHOR_LOOP = "bare 60 Hz wait loop (anchor)"


@dataclass(frozen=True)
class Samples:
    """How much each figure measures. `window_s` is how long a still screen is measured: the
    idle board always over one whole glint period (IDLE_GLINT_S) unless `quick`, which only
    shows that the command works (the test suite's run)."""

    frames: int = 600
    presses: int = 300
    window_s: float = 5.0
    taps: int = 200
    quick: bool = False


QUICK = Samples(frames=30, presses=20, window_s=0.3, taps=10, quick=True)


# --- a frame against the wire ----------------------------------------------------------------------


def pipeline(size: str) -> tuple[OutputStage, Ws281xDriver]:
    across, down = SIZES[size]
    layout = Layout(LayoutOptions(panels_across=across, panels_down=down))
    # a bigger panel comes with a supply sized like the default one: 4 A for 512 LEDs
    stage = OutputStage(layout, power=PowerBudget(supply_amps=4.0 * layout.led_count / 512))
    driver = Ws281xDriver(layout.led_count, strip_factory=PixelStripStandIn)
    return stage, driver


def frame_costs(size: str, state: GameState, ui: Ui, frames: int, start_t: float = 0.0) -> list[float]:
    """CPU milliseconds of each of `frames` frames at 60 fps animation time."""
    stage, driver = pipeline(size)
    width, height = stage.layout.width, stage.layout.height
    costs = []
    clock = time.thread_time_ns
    for i in range(frames):
        t = start_t + i / 60
        begin = clock()
        frame = render(state, ui, t, width, height)
        driver.show(stage.process(frame), frame)
        costs.append((clock() - begin) / 1e6)
    return costs


def wire_ms(leds: int) -> float:
    return (leds * LED_WIRE_US + LATCH_US) / 1000


def frame_figures(size: str, state: GameState, ui: Ui, frames: int = Samples.frames) -> dict:
    costs = frame_costs(size, state, ui, frames)
    leds = SIZES[size][0] * SIZES[size][1] * 256
    median = statistics.median(costs)
    return {
        "leds": leds,
        "frame_ms": {"median": round(median, 4), "p99": round(percentile(costs, 99), 4)},
        "wire_ms": round(wire_ms(leds), 3),
        "ratio": round(median / wire_ms(leds), 4),
        "frames": frames,
    }


# --- a press to its frame --------------------------------------------------------------------------


class _TimedDriver(Ws281xDriver):
    """Notes when each frame is handed over, to match input events with the frame showing them."""

    def __init__(self, led_count: int):
        super().__init__(led_count, strip_factory=PixelStripStandIn)
        self.shown_at: list[float] = []

    def show(self, leds, frame):
        super().show(leds, frame)
        self.shown_at.append(time.monotonic())


def latency_figures(presses: int = Samples.presses, fps: int = 60, web: bool = False) -> dict:
    """`presses` presses enter the queue at random moments (5 to 25 ms apart) from another
    thread while the real-time loop runs; latency is from each press to the first frame handed
    over after it was processed. `web`: with the phones' server on and a phone connected. The
    loop stops only once the last press's frame is out (or a second has gone by), so every
    press is counted; one that never reached the panel is reported as `unshown`, not dropped.

    The presses walk the cursor round a cycle through all 480 cells (`cursor_tour`), so every
    press changes the picture and two presses between frames never undo each other: random
    left/right presses did both (a press at the board's edge, or left then right within one
    frame, draws nothing, and its latency ran to the next press's frame: the p99 of 25-31 ms)."""
    state, _ = busy_game()
    layout = Layout(LayoutOptions())
    events = EventQueue()
    driver = _TimedDriver(layout.led_count)
    app = ConsoleApp(OutputStage(layout), driver, events, [], GameStore("memory://"))
    app.start(time.monotonic())
    stop_web = serve_one_phone(app) if web else None  # seated before the game: mid-game seats are the joystick's
    tour = cursor_tour()
    app.put_on(state, Ui(screen="play", cursor=tour[0][0]), time.monotonic())
    sent: list[float] = []

    def presser():
        rng = random.Random(1)
        for number in range(presses):
            time.sleep(rng.uniform(0.005, 0.025))
            now = time.monotonic()
            sent.append(now)
            events.put(InputEvent(tour[number % len(tour)][1], PRESS, now))
        deadline = time.monotonic() + 1.0
        while sent and _shown_after(driver.shown_at, sent[-1]) is None and time.monotonic() < deadline:
            time.sleep(0.002)
        app.stop()

    thread = threading.Thread(target=presser)
    thread.start()
    run_realtime(app, fps, start=False)
    thread.join()
    if stop_web is not None:
        stop_web()
    latencies = []
    for t in sent:
        after = _shown_after(driver.shown_at, t)
        if after is not None:
            latencies.append((after - t) * 1000)
    return {"p50": round(percentile(latencies, 50), 2), "p99": round(percentile(latencies, 99), 2),
            "events": len(latencies), "unshown": len(sent) - len(latencies),
            "frame_period_ms": round(1000 / fps, 2)}


def _shown_after(shown: list[float], t: float) -> float | None:
    """The first time in `shown` (in order, as the driver appends them) at or after `t`."""
    i = bisect.bisect_left(shown, t)
    return shown[i] if i < len(shown) else None


def cursor_tour() -> list[tuple[Cell, str]]:
    """A cycle through every cell of the board, each step to a neighbour: (cell, the button
    that moves the cursor on to the next). Row 0 left to right, the other rows column by column
    back, snaking down and up, then up column 0 home (16 rows: the snake ends at the bottom)."""
    cells = [Cell(0, col) for col in range(COLS)]
    for number, col in enumerate(range(COLS - 1, 0, -1)):
        rows = range(1, ROWS) if number % 2 == 0 else range(ROWS - 1, 0, -1)
        cells += [Cell(row, col) for row in rows]
    cells += [Cell(row, 0) for row in range(ROWS - 1, 0, -1)]
    names = {(0, 1): "right", (0, -1): "left", (1, 0): "down", (-1, 0): "up"}
    return [(cell, names[(after.row - cell.row, after.col - cell.col)])
            for cell, after in zip(cells, cells[1:] + cells[:1])]


# --- still screens ---------------------------------------------------------------------------------


def _usage() -> tuple[float, float, int]:
    """This process's clock, CPU so far and voluntary context switches (each a wake-up later)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return time.monotonic(), usage.ru_utime + usage.ru_stime, usage.ru_nvcsw


def _share(run, stop, seconds: float, settle_s: float) -> dict:
    """% of a core and wake-ups a second of this process over `seconds`, once `settle_s` have
    passed, while `run()` runs in this thread; `stop()` ends it (from a thread that sleeps)."""
    marks = []

    def window() -> None:
        time.sleep(settle_s)
        marks.append(_usage())
        time.sleep(seconds)
        marks.append(_usage())
        stop()

    watcher = threading.Thread(target=window)
    watcher.start()
    run()
    watcher.join()
    (start, cpu, sleeps), (end, cpu2, sleeps2) = marks
    return {"percent": round(100 * (cpu2 - cpu) / (end - start), 3),
            "wakes_per_s": round((sleeps2 - sleeps) / (end - start), 1),
            "seconds": round(seconds, 1), "settled_s": round(settle_s, 1)}


def still_share(app: ConsoleApp, seconds: float, settle_s: float = 0.0, fps: int = 60,
                clock=time.monotonic) -> dict:
    """What the real-time loop of `app` (started on `clock`, not running) costs this process on
    the screen it shows: `_share` (the window's thread wakes it twice, counted too)."""
    return _share(lambda: run_realtime(app, fps, clock=clock, start=False), app.stop, seconds, settle_s)


def bare_loop_share(seconds: float, settle_s: float = 0.5) -> dict:
    """The anchor: a loop that only waits 1/60 s at a time, what any 60 Hz loop costs here."""
    stop = threading.Event()
    return _share(lambda: _wait_until(stop), stop.set, seconds, settle_s)


def _wait_until(stop: threading.Event) -> None:
    while not stop.wait(1 / 60):
        pass


def still_figures(samples: Samples) -> dict:
    """The bare loop, the idle board and the guessing screen (the screens a party leaves up
    longest). The idle board is measured over one whole glint period (IDLE_GLINT_S; a shorter
    window reads its crossing or its stillness), after one crossing (the first fills the caches
    of its pictures: over the first period it read twice the next here); its clock is set so
    that the crossing begins as it starts, which saves waiting up to a period for one. The
    guessing screen after two of its beats (PAWN_S)."""
    quick = samples.quick
    anchor = bare_loop_share(samples.window_s, 0.0 if quick else 0.5)
    shift = IDLE_GLINT_S - time.monotonic() % IDLE_GLINT_S  # from now to the next crossing

    def idle_clock() -> float:  # the idle board's clock: a crossing begins now
        return time.monotonic() + shift

    idle = still_share(started_app(idle_clock()), samples.window_s if quick else IDLE_GLINT_S,
                       0.0 if quick else (GLINT_STEPS + 1) * GLINT_STEP_S + 1.0, clock=idle_clock)
    guessing = started_app()
    guessing.put_on(busy_game()[0], Ui(screen="play", cursor=Cell(3, 20)), time.monotonic())
    return {ANCHOR_LOOP: anchor, "idle board": idle,
            "guessing": still_share(guessing, samples.window_s, 0.0 if quick else 2 * PAWN_S + 1.0)}


# --- the command -----------------------------------------------------------------------------------


def run_measure(samples: Samples = Samples()) -> dict:
    busy, busy_ui = busy_game()
    reveal, reveal_ui = reveal_game()
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        "python": platform.python_version(),
        "quick": samples.quick,
        "sizes": {size: frame_figures(size, busy, busy_ui, samples.frames) for size in SIZES},
        "reveal": frame_figures("32x16", reveal, reveal_ui, samples.frames),
    }
    main = results["sizes"]["32x16"]
    results["frame_ms"] = main["frame_ms"]
    results["wire_ms"] = main["wire_ms"]
    results["ratio"] = main["ratio"]
    results["growth_64x64"] = round(
        results["sizes"]["64x64"]["frame_ms"]["median"] / main["frame_ms"]["median"], 2)
    results["latency_ms"] = latency_figures(samples.presses)
    results["still_screens"] = still_figures(samples)
    results["phone_round_trip_ms"] = round_trip_figures(samples.taps)
    return results


def _pressed(latency: dict) -> str:
    unshown = f" ({latency['unshown']} more never shown)" if latency["unshown"] else ""
    return f"{latency['events']} presses{unshown}"


def format_report(r: dict) -> str:
    lines = [f"machine: {r['machine']}", f"python: {r['python']}"]
    if r["quick"]:
        lines.append("--quick: small samples; they show the command works, not what this machine does")
    lines += ["", f"CPU per frame against the LED wire's time for it ({next(iter(r['sizes'].values()))['frames']} "
                  "frames each):"]
    for name, figures in [*r["sizes"].items(), ("reveal 32x16", r["reveal"])]:
        f = figures["frame_ms"]
        lines.append(f"{name:>13}: frame {f['median']:.3f} ms median, {f['p99']:.3f} ms p99; "
                     f"wire {figures['wire_ms']:.2f} ms; ratio {figures['ratio']:.4f}")
    lat = r["latency_ms"]
    lines += [
        f"64x64 costs {r['growth_64x64']}x the 32x16 frame",
        f"a press to its frame: {lat['p50']:.2f} ms p50, {lat['p99']:.2f} ms p99 over {_pressed(lat)} "
        f"(a frame every {lat['frame_period_ms']} ms at 60 fps)",
        "still screens, the loop's CPU in this process:",
    ]
    for name, s in r["still_screens"].items():
        lines.append(f"  {name}: {s['percent']:.3f} % of a core, {s['wakes_per_s']:g} wake-ups a second "
                     f"(over {s['seconds']:g} s, after {s['settled_s']:g} s on it)")
    rt = r["phone_round_trip_ms"]
    tap, ping = rt["tap"], rt["ping (anchor)"]
    lines.append(f"a phone's tap to its own view showing it: {tap['p50']:.2f} ms p50, {tap['p99']:.2f} ms p99 "
                 f"({tap['samples']} taps); a websocket ping on the same connection (anchor) {ping['p50']:.2f} / "
                 f"{ping['p99']:.2f} ms: the tap's p50 {rt['p50_ratio']}x the ping's")
    return "\n".join(lines)


def measure_main(as_json: bool, quick: bool = False) -> int:
    results = run_measure(QUICK if quick else Samples())
    print(json.dumps(results, indent=2) if as_json else format_report(results))
    return 0

"""`hues-console bench`: what a frame costs against the time the LED wire needs for it.

A WS2812 LED takes 30 us on the wire (plus a 300 us latch a frame), so a 512-LED frame needs
15.4 ms. The figures here are CPU time per frame (render, output stage, layout, hand-off to a
PixelStrip stand-in with the real method names), input-to-panel latency in the real-time loop,
start-up time and memory of the headless simulator, and the loop's CPU share on a still screen;
then the same with the phones' web server on (bench_web), and a tap's latency to every phone.
"""

from __future__ import annotations

import bisect
import json
import os
import platform
import random
import re
import tempfile
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import replace

from console.play.app import ConsoleApp
from console.play.loop import run_realtime
from console.commands.bench_games import busy_game, percentile, reveal_game, started_app, whole_game
from console.commands.bench_startup import startup_figures
from console.game.board import COLS, ROWS, Cell
from console.view.render import render
from console.game.rules import GameState
from console.store.games import GameStore
from console.view.ui import Ui
from hal.drivers.ws281x import PixelStripStandIn, Ws281xDriver
from hal.inputs.events import PRESS, EventQueue, InputEvent
from hal.layout import Layout, LayoutOptions
from hal.output import OutputStage, PowerBudget

LED_WIRE_US = 30.0
LATCH_US = 300.0
SIZES = {"32x16": (2, 1), "64x32": (4, 2), "64x64": (4, 4)}  # 16x16 panels across, down
FRAMES = 600


def pipeline(size: str) -> tuple[OutputStage, Ws281xDriver]:
    across, down = SIZES[size]
    layout = Layout(LayoutOptions(panels_across=across, panels_down=down))
    # a bigger panel comes with a supply sized like the default one: 4 A for 512 LEDs
    stage = OutputStage(layout, power=PowerBudget(supply_amps=4.0 * layout.led_count / 512))
    driver = Ws281xDriver(layout.led_count, strip_factory=PixelStripStandIn)
    return stage, driver


def frame_costs(size: str, state: GameState, ui: Ui, start_t: float = 0.0) -> list[float]:
    """CPU milliseconds of each of FRAMES frames at 60 fps animation time."""
    stage, driver = pipeline(size)
    width, height = stage.layout.width, stage.layout.height
    costs = []
    clock = time.thread_time_ns
    for i in range(FRAMES):
        t = start_t + i / 60
        begin = clock()
        frame = render(state, ui, t, width, height)
        driver.show(stage.process(frame), frame)
        costs.append((clock() - begin) / 1e6)
    return costs


def wire_ms(leds: int) -> float:
    return (leds * LED_WIRE_US + LATCH_US) / 1000


def frame_figures(size: str, state: GameState, ui: Ui) -> dict:
    costs = frame_costs(size, state, ui)
    leds = SIZES[size][0] * SIZES[size][1] * 256
    median = statistics.median(costs)
    return {
        "leds": leds,
        "frame_ms": {"median": round(median, 4), "p99": round(percentile(costs, 99), 4)},
        "wire_ms": round(wire_ms(leds), 3),
        "ratio": round(median / wire_ms(leds), 4),
    }


class _TimedDriver(Ws281xDriver):
    """Notes when each frame is handed over, to match input events with the frame showing them."""

    def __init__(self, led_count: int):
        super().__init__(led_count, strip_factory=PixelStripStandIn)
        self.shown_at: list[float] = []

    def show(self, leds, frame):
        super().show(leds, frame)
        self.shown_at.append(time.monotonic())


def latency_figures(presses: int = 1000, fps: int = 60, web: bool = False) -> dict:
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
    stop_web = _serve_one_phone(app) if web else None  # seated before the game: mid-game seats are the joystick's
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


def idle_cpu_figure(seconds: float = 3.0, fps: int = 60, web: bool = False) -> float:
    """CPU share of one core used by the loop on a still screen (nothing to redraw); `web`: the
    whole process's, with the phones' server on and a phone connected."""
    app = started_app()
    app.ui = replace(app.ui, screen="brightness")
    stop_web = _serve_one_phone(app) if web else None
    stop = threading.Timer(seconds, app.stop)
    wall, cpu = time.monotonic(), time.process_time()
    stop.start()
    run_realtime(app, fps, start=False)
    share = round((time.process_time() - cpu) / (time.monotonic() - wall), 4)
    if stop_web is not None:
        stop_web()
    return share


def run_bench(cpu_quota: float | None = None) -> dict:
    busy, busy_ui = busy_game()
    reveal, reveal_ui = reveal_game()
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        "python": platform.python_version(),
        "sizes": {size: frame_figures(size, busy, busy_ui) for size in SIZES},
        "reveal": frame_figures("32x16", reveal, reveal_ui),
    }
    main = results["sizes"]["32x16"]
    results["frame_ms"] = main["frame_ms"]
    results["wire_ms"] = main["wire_ms"]
    results["ratio"] = main["ratio"]
    results["growth_64x64"] = round(
        results["sizes"]["64x64"]["frame_ms"]["median"] / main["frame_ms"]["median"], 2)
    results["latency_ms"] = latency_figures()
    results.update(startup_figures())  # (bench_startup: the child imports only the console)
    results["idle_cpu"] = idle_cpu_figure()
    results["web"] = web_figures()
    from console.commands import bench_budget, bench_phones, bench_processes  # children of their own import this

    results["still_percent_of_a_core"] = bench_processes.still_figures()
    results["full_collection"] = bench_budget.collection_figures()
    results["phones_in_a_process"] = bench_phones.phone_figures()
    results["tap_opcodes"] = bench_phones.tap_opcodes()
    results["replay_video"] = replay_memory_figures()
    if cpu_quota is not None:
        results["cpu_quota"] = bench_budget.quota_figures(cpu_quota)
    return results


# The replay command, then its own peak RSS (VmHWM: that of the memory it has had since its exec).
# Not the ru_maxrss that wait4 gives: Linux keeps there the peak of the memory the child had before
# its exec too (exec_mmap), a forked copy of this benchmark's, so every replay "peaked" at the 57 MB
# the benchmark held by then.
_REPLAY_AND_PEAK = """import sys
from console.commands.main import main
code = main(sys.argv[1:])
peak = next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(f"peak_kb={peak}", file=sys.stderr, flush=True)
sys.exit(code)
"""


def replay_memory_figures(players: int = 10) -> dict:
    """Peak RSS and CPU of `replay --video` (APNG and WebP) on a whole game's record, each a
    process of its own (its peak as it reports it); the anchor is the same replay without a video."""
    out = {}
    with tempfile.TemporaryDirectory() as directory:
        record = os.path.join(directory, "game.jsonl")
        with open(record, "w") as file:
            file.writelines(json.dumps(action) + "\n" for action in whole_game(players))
        out["actions"] = len(whole_game(players))
        for name, extra in (("no video (anchor)", []), ("apng", ["--video", os.path.join(directory, "g.png")]),
                            ("webp", ["--video", os.path.join(directory, "g.webp")])):
            child = subprocess.Popen([sys.executable, "-c", _REPLAY_AND_PEAK, "replay", record, *extra],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            said = child.stderr.read()
            _, status, usage = os.wait4(child.pid, 0)  # this child's own CPU
            child.returncode = os.waitstatus_to_exitcode(status)
            if child.returncode != 0:
                raise RuntimeError(f"replay {' '.join(extra)} failed ({child.returncode}): {said.strip()[-300:]}")
            peak = re.search(r"^peak_kb=(\d+)$", said, re.M)
            if peak is None:
                raise RuntimeError(f"replay {' '.join(extra)} did not say its peak memory: {said.strip()[-300:]}")
            peak_kb = int(peak.group(1))
            out[name] = {"peak_rss_mb": round(peak_kb / 1024, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 2)}
            if extra:
                out[name]["bytes"] = os.path.getsize(extra[1])
    return out


def page_figures(presses: int = 200) -> dict:
    """A press from the `sim --web` page back to it as the changed frame, p50 and p99."""
    from console.commands.bench_panel import press_to_page_latencies

    latencies = press_to_page_latencies(started_app(), presses)
    return {"p50": round(percentile(latencies, 50), 2), "p99": round(percentile(latencies, 99), 2),
            "presses": presses}


def web_figures() -> dict:
    """With the phones' server on: what the server costs the panel, and a press on the sim --web
    page to its frame there (a tap to every phone is measured with the phones in a process of
    their own: `bench_phones`)."""
    startup = startup_figures(web=True)
    return {"page_latency_ms": page_figures(),
            "latency_ms": latency_figures(web=True),
            "idle_cpu": idle_cpu_figure(web=True), **startup}


def _serve_one_phone(app: ConsoleApp):
    from console.commands.bench_web import serve_one_phone

    return serve_one_phone(app)


def _pressed(latency: dict) -> str:
    unshown = f" ({latency['unshown']} more never shown)" if latency["unshown"] else ""
    return f"{latency['events']} presses{unshown}"


def _startup(r: dict) -> str:
    low, high = r["startup_range_s"]
    return (f"{r['startup_s']:.3f} s to the first frame (median of {r['startup_runs']} starts, "
            f"{low:.3f}-{high:.3f}), {r['rss_mb']} MB RSS")


def format_report(r: dict) -> str:
    lines = [f"machine: {r['machine']}", f"python: {r['python']}", ""]
    for name, figures in [*r["sizes"].items(), ("reveal 32x16", r["reveal"])]:
        f = figures["frame_ms"]
        lines.append(f"{name:>13}: frame {f['median']:.3f} ms median, {f['p99']:.3f} ms p99; "
                     f"wire {figures['wire_ms']:.2f} ms; ratio {figures['ratio']:.4f}")
    lat = r["latency_ms"]
    lines += [
        f"64x64 costs {r['growth_64x64']}x the 32x16 frame",
        f"latency: {lat['p50']:.2f} ms p50, {lat['p99']:.2f} ms p99 over {_pressed(lat)} at 60 fps",
        f"start-up: {_startup(r)}",
        f"idle loop: {100 * r['idle_cpu']:.2f} % of a core",
    ]
    w = r["web"]
    wl = w["latency_ms"]
    lines += [
        "with the phones' server on:",
        f"  a press on the sim --web page to its frame there: {w['page_latency_ms']['p50']:.2f} ms p50, "
        f"{w['page_latency_ms']['p99']:.2f} ms p99 ({w['page_latency_ms']['presses']} presses, loopback)",
        f"  latency: {wl['p50']:.2f} ms p50, {wl['p99']:.2f} ms p99 over {_pressed(wl)}, a phone connected",
        f"  idle: {100 * w['idle_cpu']:.2f} % of a core, a phone connected",
        f"  start-up: {_startup(w)}",
        "still screens, the console alone in a process, its CPU (low-high of the repeats):",
    ]
    for name, figure in r["still_percent_of_a_core"].items():
        low, high = figure["percent"]
        fewest, most = figure["wakes_per_s"]
        lines.append(f"  {name}: {low:.3f}-{high:.3f} % of a core, {fewest:g}-{most:g} wake-ups a second "
                     f"(over {figure['seconds']:g} s, after {figure['settled_s']:g} s on it)")
    g = r["full_collection"]
    lines.append(f"a full garbage collection in the console's process (guessing, a phone connected), median of "
                 f"{g['asks']}: {g['frozen_ms']} ms with what its start made frozen ({g['objects_frozen']} "
                 f"objects), {g['thawed_ms']} ms with them thawed")
    cores = {part: "?" if cpus is None else ", ".join(map(str, cpus)) for part, cpus in
             next(iter(r["phones_in_a_process"].values()), {}).get("cores", {}).items()}
    lines.append("a tap to every phone, console and phones in separate processes, beside a minimal "
                 "Starlette broadcast, the phones tapping the two in turn, the phones on CPU "
                 f"{cores.get('phones')}, the console on {cores.get('console')} and the anchor on "
                 f"{cores.get('anchor')} (p50/p99 ms):")
    for n, row in r["phones_in_a_process"].items():
        (c, a), (low, high) = (row["console"], row["anchor"]), row["p50_ratio_rounds"]
        lines.append(f"  {n} phones: console {c['p50']:.2f}/{c['p99']:.2f}, anchor {a['p50']:.2f}/{a['p99']:.2f} "
                     f"(p50 {row['p50_ratio']}x the anchor, its rounds {low:g}-{high:g}x, {c['samples']} samples)")
    o = r["tap_opcodes"]
    lines.append(f"a phone's cursor tap, the Python its server's thread runs (opcodes, median of {o['console']['taps']} "
                 f"taps): the console's own {o['console']['ours']} and the libraries' {o['console']['libraries']}; "
                 f"the anchor's own {o['anchor']['ours']} and the libraries' {o['anchor']['libraries']}; "
                 f"then the console's panel draws the tap: its own {o['panel']['ours']} and the libraries' "
                 f"{o['panel']['libraries']}")
    v = r["replay_video"]
    lines.append(f"replay --video of a {v['actions']}-action game, peak RSS: APNG {v['apng']['peak_rss_mb']} MB "
                 f"({v['apng']['cpu_s']} s CPU), WebP {v['webp']['peak_rss_mb']} MB ({v['webp']['cpu_s']} s), "
                 f"without a video {v['no video (anchor)']['peak_rss_mb']} MB")
    q = r.get("cpu_quota")
    if q is not None:
        f, t, d = q["frames_late_ms"], q["tap_to_every_phone_ms"], q["watchdog"]
        lines.append(f"in a cgroup with {100 * q['quota']:.0f} % of a core ({q['cgroup']}), {q['phones']} phones "
                     f"tapping {q['taps_per_s_each']:g}/s each for {q['seconds']:g} s: frames late p50 {f['p50']} "
                     f"p99 {f['p99']} ms ({f['frames']} frames), taps to every phone p50 {t['p50']} p99 {t['p99']} ms "
                     f"({t['samples']}), watchdog {d['pings']} pings, longest gap {d['longest_gap_s']} s, "
                     f"{d['missed']} missed; held back by the quota in {q['throttled']['held_back']} of its "
                     f"{q['throttled']['periods']} periods of 0.1 s")
    return "\n".join(lines)


def bench_main(as_json: bool, cpu_quota: float | None = None) -> int:
    results = run_bench(cpu_quota)
    print(json.dumps(results, indent=2) if as_json else format_report(results))
    return 0


if __name__ == "__main__":
    sys.exit(bench_main("--json" in sys.argv))

"""The lab's full run: `hues-console bench`'s figures with the lab's samples, then what only a
checkout measures: the panel with the phones' server on and a phone connected, the start to the
first frame, the still screens with the console in a process of its own, a full garbage
collection in it, a tap to every phone beside a minimal Starlette broadcast, the Python a tap
runs, `replay --video`'s memory, and (as root, with cgroups) the console in a CPU quota.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import replace

from bench import budget, opcodes, phones, processes
from bench.games import whole_game
from bench.panel import press_to_page_latencies
from bench.startup import startup_figures
from console.commands.measure import Samples, format_report as measured_report, latency_figures, run_measure, \
    still_share
from console.commands.measure_games import percentile, started_app
from console.commands.measure_phone import serve_one_phone

LAB = Samples(presses=1000, window_s=10.0)


def run_lab(cpu_quota: float | None = None) -> dict:
    results = run_measure(LAB)
    results.update(startup_figures())  # (bench.startup: the child imports only the console)
    results["web"] = web_figures()
    results["still_in_a_process"] = processes.still_figures()
    results["full_collection"] = budget.collection_figures()
    results["phones_in_a_process"] = phones.phone_figures()
    results["tap_opcodes"] = opcodes.tap_opcodes()
    results["replay_video"] = replay_memory_figures()
    if cpu_quota is not None:
        results["cpu_quota"] = budget.quota_figures(cpu_quota)
    return results


def idle_cpu_figure(seconds: float = 3.0, web: bool = False) -> float:
    """Share of one core this process uses on the brightness menu (nothing to redraw); `web`:
    with the phones' server on and a phone connected."""
    app = started_app()
    app.ui = replace(app.ui, screen="brightness")
    stop_web = serve_one_phone(app) if web else None
    try:
        return round(still_share(app, seconds)["percent"] / 100, 4)
    finally:
        if stop_web is not None:
            stop_web()


def page_figures(presses: int = 200) -> dict:
    """A press from the `sim --web` page back to it as the changed frame, p50 and p99."""
    latencies = press_to_page_latencies(started_app(), presses)
    return {"p50": round(percentile(latencies, 50), 2), "p99": round(percentile(latencies, 99), 2),
            "presses": presses}


def web_figures() -> dict:
    """With the phones' server on: what the server costs the panel, and a press on the sim --web
    page to its frame there (a tap to every phone is measured with the phones in a process of
    their own: `bench.phones`)."""
    startup = startup_figures(web=True)
    return {"page_latency_ms": page_figures(),
            "latency_ms": latency_figures(LAB.presses, web=True),
            "idle_cpu": idle_cpu_figure(web=True), **startup}


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


# --- the report ----------------------------------------------------------------------------------


def _pressed(latency: dict) -> str:
    unshown = f" ({latency['unshown']} more never shown)" if latency["unshown"] else ""
    return f"{latency['events']} presses{unshown}"


def _startup(r: dict) -> str:
    low, high = r["startup_range_s"]
    return (f"{r['startup_s']:.3f} s to the first frame (median of {r['startup_runs']} starts, "
            f"{low:.3f}-{high:.3f}), {r['rss_mb']} MB RSS")


def format_report(r: dict) -> str:
    lines = [measured_report(r), f"start-up: {_startup(r)}"]
    w = r["web"]
    wl = w["latency_ms"]
    lines += [
        "with the phones' server on:",
        f"  a press on the sim --web page to its frame there: {w['page_latency_ms']['p50']:.2f} ms p50, "
        f"{w['page_latency_ms']['p99']:.2f} ms p99 ({w['page_latency_ms']['presses']} presses, loopback)",
        f"  latency: {wl['p50']:.2f} ms p50, {wl['p99']:.2f} ms p99 over {_pressed(wl)}, a phone connected",
        f"  idle (the brightness menu): {100 * w['idle_cpu']:.2f} % of a core, a phone connected",
        f"  start-up: {_startup(w)}",
        "still screens, the console alone in a process, its CPU (low-high of the repeats):",
    ]
    for name, figure in r["still_in_a_process"].items():
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
    lines.append(format_opcodes(r["tap_opcodes"]))
    v = r["replay_video"]
    lines.append(f"replay --video of a {v['actions']}-action game, peak RSS: APNG {v['apng']['peak_rss_mb']} MB "
                 f"({v['apng']['cpu_s']} s CPU), WebP {v['webp']['peak_rss_mb']} MB ({v['webp']['cpu_s']} s), "
                 f"without a video {v['no video (anchor)']['peak_rss_mb']} MB")
    if "cpu_quota" in r:
        lines.append(format_quota(r["cpu_quota"]))
    return "\n".join(lines)


def format_opcodes(o: dict) -> str:
    return (f"a phone's cursor tap, the Python its server's thread runs (opcodes, median of {o['console']['taps']} "
            f"taps): the console's own {o['console']['ours']} and the libraries' {o['console']['libraries']}; "
            f"the anchor's own {o['anchor']['ours']} and the libraries' {o['anchor']['libraries']}; "
            f"then the console's panel draws the tap: its own {o['panel']['ours']} and the libraries' "
            f"{o['panel']['libraries']}")


def format_quota(q: dict) -> str:
    f, t, d = q["frames_late_ms"], q["tap_to_every_phone_ms"], q["watchdog"]
    return (f"in a cgroup with {100 * q['quota']:.0f} % of a core ({q['cgroup']}), {q['phones']} phones "
            f"tapping {q['taps_per_s_each']:g}/s each for {q['seconds']:g} s: frames late p50 {f['p50']} "
            f"p99 {f['p99']} ms ({f['frames']} frames), taps to every phone p50 {t['p50']} p99 {t['p99']} ms "
            f"({t['samples']}), watchdog {d['pings']} pings, longest gap {d['longest_gap_s']} s, "
            f"{d['missed']} missed; held back by the quota in {q['throttled']['held_back']} of its "
            f"{q['throttled']['periods']} periods of 0.1 s")

"""The lab's start-up figures: a fresh process with the default configuration,
headless, from its start to its first frame pushed, and its memory then (`--web`: with the
phones' server serving before that frame).

The child is this small module (`python -m bench.startup`), so it imports what the console
imports and nothing of the lab's own. Run with `python -X importtime` to see where
a start's time goes.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

from bench import CHECKOUT


def startup_figures(web: bool = False, runs: int = 9) -> dict:
    """Seconds from starting the child to its first frame (the median of `runs` starts, and
    their range: one start here varies by a third), and its RSS then."""
    times, rss = [], 0.0
    for _ in range(runs):
        begin = time.monotonic()
        out = subprocess.run([sys.executable, "-m", "bench.startup"] + (["--web"] if web else []),
                             capture_output=True, text=True, check=True, cwd=CHECKOUT).stdout
        probe = json.loads(out)
        times.append(probe["first_frame"] - begin)
        rss = max(rss, probe["rss_mb"])
    return {"startup_s": round(statistics.median(times), 3), "startup_range_s": [round(min(times), 3), round(max(times), 3)],
            "startup_runs": runs, "rss_mb": rss}


def first_frame_probe(web: bool) -> None:
    """In the child: the default configuration, headless, until the first frame is pushed."""
    from console.commands.wiring import attach_web, build_app
    from console.config.loader import load_config

    config = load_config()
    app = build_app(config, "sim-headless", lambda events: [])
    if web:
        from dataclasses import replace

        from console.commands.measure_phone import bench_web_config

        attach_web(replace(config, web=bench_web_config()), app)
    app.start(time.monotonic())
    app.tick(time.monotonic())
    shown = time.monotonic()
    rss_kb = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS"))
    print(json.dumps({"first_frame": shown, "rss_mb": round(rss_kb / 1024, 1)}), flush=True)
    app.close()


if __name__ == "__main__":
    first_frame_probe(web=sys.argv[1:] == ["--web"])

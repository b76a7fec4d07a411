"""The lab's runs about the box's budget, each with the console as a child process
(`bench.processes.Child`): the run in a cgroup with a Pi Zero 2 W's share of a core, and
a full garbage collection in the console's process as it runs.
"""

from __future__ import annotations

import os
import socket
import statistics
import tempfile
import threading
import time

from bench.processes import SETTLE_S, Child, Phones
from console.commands.measure_games import percentile


def quota_figures(quota: float, seconds: float = 60.0, phones: int = 10, taps_per_s: float = 10.0) -> dict:
    """The console in a cgroup with `quota` of one core (v2 cpu.max where mounted, else v1
    cpu.cfs_quota_us), `phones` phones each tapping `taps_per_s` (the guesser's taps move the
    cursor, the others' are refused): frames late, taps to every phone, watchdog pings. The
    guessing screen changes by itself 3 times a second: over 20 s the frames' p99 was their
    latest of 60, and one run's read 55 ms where the others' read under 1 ms; over 60 s it is
    the third latest of 180."""
    group = cpu_group(quota)
    with tempfile.TemporaryDirectory() as directory:
        address = os.path.join(directory, "notify")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        listener.bind(address)
        pings: list[float] = []

        def listen():
            while True:
                try:
                    data = listener.recv(4096)
                except OSError:
                    return
                if b"WATCHDOG=1" in data:
                    pings.append(time.monotonic())

        threading.Thread(target=listen, daemon=True).start()
        server = Child("console", "guessing", "--web", "--notify", address, preexec=group.enter)
        try:
            taps = int(seconds * taps_per_s)
            client = Phones(server.first, phones, taps=taps, every_s=1 / taps_per_s, others_tap=True)
            before = group.throttled()  # the phones are in: the taps begin
            latencies = client.read()["latencies_ms"]
            throttled = {key: n - before[key] for key, n in group.throttled().items()}
            client.close()
            late = server.ask("late")["late_ms"]
        finally:
            server.close()
            listener.close()
            group.remove()
    gaps = [b - a for a, b in zip(pings, pings[1:])]
    return {
        "quota": quota, "cgroup": group.kind, "seconds": seconds, "phones": phones, "taps_per_s_each": taps_per_s,
        "frames_late_ms": {"p50": round(percentile(late, 50), 2), "p99": round(percentile(late, 99), 2),
                           "frames": len(late)},
        "tap_to_every_phone_ms": {"p50": round(percentile(latencies, 50), 2),
                                  "p99": round(percentile(latencies, 99), 2), "samples": len(latencies)},
        "watchdog": {"pings": len(pings), "longest_gap_s": round(max(gaps, default=0.0), 2),
                     "missed": sum(gap > 2.0 for gap in gaps)},
        "throttled": throttled,
    }


class _CpuGroup:
    def __init__(self, path: str, kind: str) -> None:
        self.path, self.kind = path, kind

    def throttled(self) -> dict:
        """The quota's periods so far, and in how many the group used it all and was held back
        (cpu.stat, v1 and v2 alike): a frame late in one of those is the quota's doing."""
        with open(os.path.join(self.path, "cpu.stat")) as stat:
            counts = dict(line.split() for line in stat if line.strip())
        return {"periods": int(counts.get("nr_periods", 0)), "held_back": int(counts.get("nr_throttled", 0))}

    def enter(self) -> None:  # in the child, before it runs Python
        with open(os.path.join(self.path, "cgroup.procs"), "w") as procs:
            procs.write(str(os.getpid()))

    def remove(self) -> None:
        try:
            os.rmdir(self.path)
        except OSError:
            pass


def cpu_group(quota: float) -> _CpuGroup:
    period = 100_000
    name = f"hues-bench-{os.getpid()}"
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):  # cgroup v2 at the root
        path = os.path.join("/sys/fs/cgroup", name)
        os.mkdir(path)
        with open(os.path.join(path, "cpu.max"), "w") as limit:
            limit.write(f"{round(quota * period)} {period}")
        return _CpuGroup(path, "v2 cpu.max")
    path = os.path.join("/sys/fs/cgroup/cpu", name)
    os.mkdir(path)
    for key, value in (("cpu.cfs_period_us", period), ("cpu.cfs_quota_us", round(quota * period))):
        with open(os.path.join(path, key), "w") as setting:
            setting.write(str(value))
    return _CpuGroup(path, "v1 cpu.cfs_quota_us")


# --- a full garbage collection --------------------------------------------------------------------


def collection_figures(asks: int = 5) -> dict:
    """A full garbage collection in the console's process on the guessing screen, the web on and
    a phone connected: the median of `asks`, frozen as the console runs and thawed (a
    collection walks what it tracks: in a Pi Zero 2 W's 8 to 10 times that, a stalled panel)."""
    child = Child("console", "guessing", "--web")
    phone = Phones(child.first, 1, watch=True)
    try:
        time.sleep(SETTLE_S)
        times = [child.ask("gc") for _ in range(asks)]
    finally:
        phone.close()
        child.close()
    return {"frozen_ms": statistics.median(t["frozen_ms"] for t in times),
            "thawed_ms": statistics.median(t["thawed_ms"] for t in times),
            "objects_frozen": times[0]["objects_frozen"], "asks": asks}

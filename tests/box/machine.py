"""One box: the cached Bookworm root booted by systemd-nspawn with systemd 252 as PID 1, over an
overlay whose upper layer is the box's own disk (it outlives a power cut, the root stays clean).

How it is booted, and why:
- `unshare --mount` gives the overlay mount a namespace that ends with the box (nothing to
  unmount, even after SIGKILL), and `--time` sets CLOCK_BOOTTIME and CLOCK_MONOTONIC to about 0
  at the start, so the console's "first frame N s after the kernel started" counts from the box's
  power-on, as on the Pi;
- `--register=no --keep-unit`: this machine's PID 1 is not systemd (no machined to register with);
- `SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1` and `--system-call-filter=bpf`: the box's systemd gets a
  cgroup v2 tree and may load BPF programs, which IPAddressDeny= and DeviceAllow= need;
- `--private-network`: the box has only its loopback (and what a test adds to it).

Commands run in the box through nsenter into its namespaces (its systemctl, journalctl, redis-cli);
a power cut is SIGKILL to the box's PID 1, which ends every process in it at once.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

from tests.box.pins import EDGE_S
from tests.box.root import HOSTNAME, BoxError

NSPAWN_ENV = {"SYSTEMD_NSPAWN_UNIFIED_HIERARCHY": "1"}
CGROUP_TREES = ("systemd", "unified")  # this machine's cgroup v1 name=systemd tree and its cgroup v2 tree
BOOT_TIMEOUT_S = 60


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


class Box:
    """`root`: the cached root (read only); `disk`: the box's own directory (upper layer, logs);
    `binds`: (host path, box path) pairs bound at every boot."""

    def __init__(self, root: Path, disk: Path, binds: list[tuple[Path, str]], log):
        self.root, self.disk, self.binds, self.log = root, disk, binds, log
        self.upper = disk / "upper"
        for part in ("upper", "work", "merged"):
            (disk / part).mkdir(parents=True, exist_ok=True)
        self.process: subprocess.Popen | None = None
        self.cgroups = [Path("/sys/fs/cgroup", tree, f"hues-box-{os.getpid()}-{disk.name}") for tree in CGROUP_TREES]
        # nspawn keeps a directory per machine name in /run (its mount propagation): a name of
        # its own lets boxes of two stages, or two lanes of one, run side by side
        self.name = "huesbox-" + re.sub(r"[^a-z0-9]+", "-", f"{os.getpid()}-{disk.name}".lower()).strip("-")
        self.leader = 0
        self.boots = 0
        self.booted_at = 0.0  # time.monotonic() at the start of the last boot
        self.clock_start = 0.0  # the box's CLOCK_BOOTTIME at that moment (the offset is whole seconds)

    # --- power ------------------------------------------------------------------------------

    def boot(self, wait: bool = True) -> float:
        """Power on and (`wait`) wait until the box's systemd says the boot is over; returns the
        seconds."""
        if self.running():
            raise BoxError("the box is running already")
        self.boots += 1
        overlay = (f"lowerdir={self.root},upperdir={self.upper},workdir={self.disk / 'work'}")
        nspawn = ["systemd-nspawn", "--quiet", "--boot", "--register=no", "--keep-unit", "--private-network",
                  # CAP_SYS_RAWIO is not among the capabilities nspawn keeps: the ws281x drop-in's one
                  "--system-call-filter=bpf", "--capability=CAP_SYS_RAWIO", f"--directory={self.disk / 'merged'}", f"--machine={self.name}",
                  f"--hostname={HOSTNAME}",
                  *(f"--bind={host}:{inside}" for host, inside in self.binds)]
        # The box gets cgroups of its own in both hierarchies (nspawn makes its supervisor and
        # payload groups under them): what the box's systemd does to its cgroup tree, such as
        # killing all of it at shutdown, stays in the box.
        script = ('for tree in "$3" "$4"; do mkdir -p "$tree" && echo $$ > "$tree/cgroup.procs" || exit 1; done; '
                  'mount -t overlay overlay -o "$1" "$2" && shift 4 && exec "$@"')
        boottime, monotonic = time.clock_gettime(time.CLOCK_BOOTTIME), time.monotonic()
        command = ["unshare", "--mount", "--propagation", "private", "--time", "--fork",
                   "--boottime", str(-int(boottime)), "--monotonic", str(-int(monotonic)),
                   "sh", "-c", script, "box", overlay, str(self.disk / "merged"), *map(str, self.cgroups), *nspawn]
        self.clock_start = boottime - int(boottime)
        self.booted_at = time.monotonic()
        with open(self.disk / f"console-{self.boots}.log", "wb") as console:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=console,
                                            stderr=subprocess.STDOUT, env={**os.environ, **NSPAWN_ENV},
                                            start_new_session=True)
        self.leader = self._find_leader()
        deadline = time.monotonic() + BOOT_TIMEOUT_S
        while wait:
            state = self.run("systemctl", "is-system-running", "--wait", check=False, timeout=BOOT_TIMEOUT_S)
            if state.stdout.strip() in ("running", "degraded"):
                break
            if time.monotonic() > deadline or not self.running():
                raise BoxError(f"the box did not boot ({state.stdout.strip() or state.stderr.strip()}):\n"
                               + self.console_log()[-2000:])
            time.sleep(0.05)
        return time.monotonic() - self.booted_at

    def _find_leader(self) -> int:
        """The box's PID 1 as this machine sees it: unshare -> systemd-nspawn -> systemd."""
        deadline = time.monotonic() + BOOT_TIMEOUT_S
        while time.monotonic() < deadline and self.process.poll() is None:
            for nspawn in children(self.process.pid):
                for leader in children(nspawn):  # its first child forks PID 1 and exits
                    try:
                        if Path(f"/proc/{leader}/comm").read_text().strip() == "systemd":
                            return leader
                    except OSError:
                        pass
            time.sleep(0.01)
        raise BoxError("systemd-nspawn did not start the box:\n" + self.console_log()[-2000:])

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def cut_power(self) -> None:
        """SIGKILL to the box's PID 1: every process in it dies at once, as at a power cut."""
        try:
            os.kill(self.leader, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.wait_off(30)

    def wait_off(self, timeout: float) -> int | None:
        """The exit status of systemd-nspawn once the box is off (None: still on after `timeout`)."""
        if self.process is None:
            return 0
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        if self.running():
            self.cut_power()
        if self.running():
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
        for tree in self.cgroups:  # empty now: removed from the leaves up
            for path, _, _ in sorted(os.walk(tree), key=lambda entry: -len(entry[0])):
                try:
                    os.rmdir(path)
                except OSError:
                    pass

    def console_log(self) -> str:
        path = self.disk / f"console-{self.boots}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    # --- inside -------------------------------------------------------------------------------

    def command(self, *argv: str) -> list[str]:
        return ["nsenter", f"--target={self.leader}", "--all", "--", *argv]

    def run(self, *argv: str, check: bool = True, timeout: float = 60, input: str | None = None):
        result = subprocess.run(self.command(*argv), capture_output=True, text=True, timeout=timeout, input=input)
        if check and result.returncode != 0:
            raise BoxError(f"in the box: {' '.join(argv)} failed ({result.returncode}): "
                           f"{(result.stderr or result.stdout)[-3000:]}")
        return result

    def show(self, unit: str, *props: str) -> dict[str, str]:
        out = self.run("systemctl", "show", unit, *(f"--property={p}" for p in props)).stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def wait_for(self, what: str, test, timeout: float, poll_s: float = 0.1):
        """Poll `test()` until it returns something true; BoxError naming `what` after `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            found = test()
            if found:
                return found
            if time.monotonic() > deadline:
                raise BoxError(f"waited {timeout:g} s for {what}")
            time.sleep(poll_s)

    def file(self, path: str) -> Path:
        """A file of the box's disk as written so far (the upper layer; the root's own files are
        not there until the box changes them)."""
        return self.upper / path.lstrip("/")


class ConsoleLog:
    """The console's journal lines of this boot, as they arrive (journalctl -f in the box): each
    action the console logs once it is durable ("stored {...}") and the record a start offers for
    resume ("resumed [...]"), at HUES_LOG_LEVEL=debug (console/commands/session.py)."""

    def __init__(self, box: Box):
        import json

        self._json = json
        self.lines: list[str] = []
        self.stored: list[dict] = []
        self.resumed: list[list[dict]] = []
        self.changed = threading.Condition()
        self.process = subprocess.Popen(box.command("journalctl", "-b", "-f", "-n", "all", "-o", "cat",
                                                    "-u", "hues-console.service"),
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            line = line.rstrip("\n")
            with self.changed:
                self.lines.append(line)
                for kind, into in (("stored", self.stored), ("resumed", self.resumed)):
                    marker = f"hues-console: {kind} "
                    if marker in line:
                        into.append(self._json.loads(line.split(marker, 1)[1]))
                self.changed.notify_all()

    def wait(self, what: str, test, timeout: float):
        with self.changed:
            if not self.changed.wait_for(test, timeout):
                raise BoxError(f"waited {timeout:g} s for {what}; the console's last lines:\n"
                               + "\n".join(self.lines[-15:]))
            return test()

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(10)


class Presses:
    """The box's buttons, pressed from here: lines to the FIFO the container's pin factory reads
    (tests/box/pins.py). A tap is its two edges in one write: the reader in the box drives them
    EDGE_S apart (over the 20 ms debounce, far under the 350 ms auto-repeat), so a thread of this
    machine that the scheduler runs late cannot stretch a tap into a held, repeating direction; it
    leaves TAP_S before the next. A hold (Start) is timed here: it is seconds long.
    One lock keeps the FIFO's descriptor whole between a presser thread and `reset`."""

    TAP_S = 0.04

    def __init__(self, fifo: Path, pins: dict[str, int]):
        self.path, self.pins = fifo, pins
        self.fd: int | None = None
        self._lock = threading.Lock()

    def _write(self, text: str) -> None:
        with self._lock:
            if self.fd is None:
                self.fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO: no console reads
            os.write(self.fd, text.encode())

    def ready(self) -> bool:
        try:
            self._write("")
            return True
        except OSError:
            self.reset()
            return False

    def reset(self) -> None:
        with self._lock:
            if self.fd is not None:
                os.close(self.fd)
                self.fd = None

    def tap(self, button: str, count: int = 1) -> None:
        pin = self.pins[button]
        for _ in range(count):
            self._write(f"{pin} 0\n{pin} 1\n")
            time.sleep(EDGE_S + self.TAP_S)

    def hold(self, button: str, seconds: float) -> None:
        pin = self.pins[button]
        self._write(f"{pin} 0\n")
        time.sleep(seconds)
        self._write(f"{pin} 1\n")
        time.sleep(self.TAP_S)

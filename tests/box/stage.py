"""The container stage: `python -m tests.box.stage REPORT` builds (or takes from the cache) the
roots of tests/box/root.py, boots them, installs the box with the real `scripts/install-pi
--no-hardware`, and runs every check of tests/box/checks_*.py on them in order, writing REPORT
(JSON) after each one. Its parts, each named in the suite's closing lines (`lanes()`): the trixie
box (every check, on two boxes side by side), the bookworm install (the installer and the service
on the Raspberry Pi OS before it), and the Pi's processors, arm64 and armhf (tests/box/userland.py).

tests/conftest.py starts it in the background when the suite starts (it waits on the boxes, the
rest of the suite on the CPU), and tests/box/test_box.py, collected last, turns each check's entry
into a test of the same name. Alone: `sudo .venv/bin/python -m tests.box.stage /tmp/box.json`.

The stand-ins, and only these, differ from a Pi (each says what it follows):
- /dev/leds0 is a regular file of the gpio group, mode 0660, as the installer's udev rule makes
  the real node; each frame is written to it whole at offset 0, as the leds-dev driver writes the
  ws2812-pio device (hal/drivers/leds_dev.py), so the file holds the last frame;
- the buttons are gpiozero's MockFactory pins driven from a FIFO (tests/box/pins.py);
- the console is told its driver (x86 has no /proc/device-tree/model for `driver: auto`) and
  logs each durable action (HUES_LOG_LEVEL=debug): zz-box.conf and box.yaml, written before the
  installer runs and left alone by it;
- pip installs from the wheels beside the root (PIP_NO_INDEX, PIP_FIND_LINKS): the box has no network.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

from tests.box import root as roots
from tests.box.machine import Box, Presses
from tests.box.pins import ENTRY_POINTS, FIFO

REPO = roots.REPO
SOURCE = "/root/hues-console"
STORE_URL = "unix://hues@/run/redis/redis-server.sock?db=0"
BOX_CONFIG = "/etc/hues-console/box.yaml"
DROPIN = "/etc/systemd/system/hues-console.service.d/zz-box.conf"
LEDS = "/dev/leds0"
PIP_ENV = ("PIP_NO_INDEX=1", f"PIP_FIND_LINKS={roots.WHEELS}")
LED_COUNT = 32 * 16


def installed_config(default: str) -> str:
    """config/console.yaml as scripts/install-pi makes it (store on Redis's socket, the phones on
    every network): tests/box/checks_service.py checks the installed file against it."""
    text = re.sub(r"^(  url: +)memory://", rf"\g<1>{STORE_URL}", default, count=1, flags=re.M)
    web = text.index("\nweb:")
    head, tail = text[:web], text[web:]
    tail = re.sub(r"^(  enabled: *)false", r"\g<1>true ", tail, count=1, flags=re.M)
    tail = re.sub(r"^(  address: *)127\.0\.0\.1", r"\g<1>0.0.0.0  ", tail, count=1, flags=re.M)
    return head + tail


def box_config(installed: str) -> str:
    return re.sub(r"^(  name: *)auto ", r"\g<1>leds-dev ", installed, count=1, flags=re.M)


class Stage:
    """The report of every box's checks, written after each one (the boxes run side by side)."""

    def __init__(self, report: Path, log=print):
        self.report_path, self.log = report, log
        self.report = {"checks": {}, "figures": {}, "parts": {}, "finished": False, "error": None,
                       "started": time.time()}
        self.lock = threading.Lock()
        self.lanes: list[Lane] = []

    # --- the report ---------------------------------------------------------------------------

    def save(self) -> None:
        with self.lock:
            self.report["seconds"] = round(time.time() - self.report["started"], 1)
            new = self.report_path.with_suffix(f".new-{threading.get_ident()}")
            new.write_text(json.dumps(self.report, indent=1))
            new.replace(self.report_path)

    def figure(self, part: str, name: str, value) -> None:
        self.report["figures"].setdefault(part, {})[name] = value
        self.save()

    def root(self, lane: "Lane") -> Path:
        """The lane's root, built or taken from the cache (lanes of one root wait for one build)."""
        started = time.monotonic()
        path = roots.built_root(lane.root, self.log)
        lane.figure("root_seconds", round(time.monotonic() - started, 1))
        return path

    def lane_over(self, lane: "Lane") -> None:
        """A part's time is the stage's until the last of its lanes is over."""
        with self.lock:
            self.report["parts"].setdefault(lane.part, {})["seconds"] = round(time.time() - self.report["started"], 1)
        self.save()

    def check(self, name: str, function, lane: "Lane") -> bool:
        """Run one check on `lane`'s box: it returns what it proved (a line) or raises what it found."""
        started = time.monotonic()
        self.log(f"box {lane.name}: {name} ...")
        try:
            detail, ok = function(lane), True
        except Exception as error:  # a failed check is reported, and the next ones still run
            detail, ok = f"{type(error).__name__}: {error}\n{traceback.format_exc()[-2500:]}", False
        seconds = round(time.monotonic() - started, 1)
        self.report["checks"][name] = {"ok": ok, "detail": detail, "seconds": seconds, "box": lane.name,
                                       "part": lane.part}
        self.log(f"box {lane.name}: {name} {'ok' if ok else 'FAILED'} in {seconds} s: {detail[:300]}")
        self.save()
        return ok

    def run(self) -> int:
        """Every lane's box at once, each in a thread: the stage takes as long as its longest lane."""
        try:
            chosen = os.environ.get("HUES_BOX_CHECKS", "")  # a developer's: some checks only
            self.lanes = [kind(self, name, part, root,
                               [c for n, c in enumerate(checks) if not chosen or c[0] in chosen.split(",")
                                or n == 0 and any(other in chosen.split(",") for other, _ in checks)])
                          for kind, name, part, root, checks in lanes()]  # a lane's first check installs it
            for lane in self.lanes:
                if lane.checks:  # the parts in the order of lanes(), each with what it runs on
                    self.report["parts"][lane.part] = {"root": lane.root.describe()}
            threads = [threading.Thread(target=lane.run, name=f"box-{lane.name}", daemon=True)
                       for lane in self.lanes if lane.checks]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            errors = [lane.error for lane in self.lanes if lane.error]
            self.report["error"] = "\n".join(errors) or None
        except Exception as error:
            self.report["error"] = f"{type(error).__name__}: {error}\n{traceback.format_exc()[-2500:]}"
        self.report["finished"] = True
        self.save()
        return 0 if self.report["error"] is None and all(c["ok"] for c in self.report["checks"].values()) else 1

    def close(self) -> None:
        for lane in self.lanes:
            lane.close()


class Lane:
    """One box and the checks run on it, in order: the first installs it (a lane whose install
    fails runs nothing else). What a check uses of its box: `box`, `presses`, `install`, `leds`,
    `figure`."""

    def __init__(self, stage: Stage, name: str, part: str, root: roots.Root, checks: list[tuple[str, object]]):
        self.stage, self.name, self.part, self.root, self.checks = stage, name, part, root, checks
        self.box: Box | None = None
        self.presses: Presses | None = None
        self.error: str | None = None

    def figure(self, name: str, value) -> None:
        self.stage.figure(self.part, name, value)

    def run(self) -> None:
        disk = None
        try:  # the cache is made by the first root built: on a fresh machine it is not there yet
            roots.CACHE.mkdir(parents=True, exist_ok=True)
            disk = Path(tempfile.mkdtemp(prefix=f"run-{self.name}-", dir=roots.CACHE))
            self.start(self.stage.root(self), disk)
            for number, (name, function) in enumerate(self.checks):
                if not self.stage.check(name, function, self) and number == 0:
                    raise roots.BoxError(f"box {self.name} could not be installed: no other check of it can run")
        except Exception as error:
            self.error = f"box {self.name}: {type(error).__name__}: {error}\n{traceback.format_exc()[-2500:]}"
        finally:
            self.close()
            if disk is not None:
                shutil.rmtree(disk, ignore_errors=True)
            self.stage.lane_over(self)

    def start(self, root: Path, disk: Path) -> None:
        self.prepare(root, disk)
        binds = [(disk / "leds0", LEDS), (disk / "presses", str(Path(FIFO).parent)),
                 (roots.pip_cache(root) / self.name, "/root/.cache/pip")]  # a box's own: see prepare
        self.box = Box(root, disk, binds, self.stage.log)
        from console.config.loader import load_config
        from tests.box.game import button_pins

        pins = button_pins(load_config(str(REPO / "config/console.yaml"), environ={}))
        self.presses = Presses(disk / "presses" / Path(FIFO).name, pins)

    def close(self) -> None:
        if self.presses is not None:
            self.presses.reset()
        if self.box is not None:
            self.box.close()

    def prepare(self, root: Path, disk: Path) -> None:
        """The box's disk before its first boot: the checkout to install from, the stand-ins."""
        upper = disk / "upper"
        copy_checkout(upper)
        site = upper / "usr/lib/python3/dist-packages"
        site.mkdir(parents=True)
        shutil.copy(Path(__file__).with_name("pins.py"), site / "hues_box_pins.py")
        info = site / "hues_box_pins-0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hues-box-pins\nVersion: 0\n")
        (info / "entry_points.txt").write_text(ENTRY_POINTS)
        dropin = upper / DROPIN.lstrip("/")
        dropin.parent.mkdir(parents=True)
        dropin.write_text(
            "# tests/box: the stand-ins of the container (never on a Pi): the buttons from the\n"
            "# test's FIFO, the driver named, each durable action in the journal.\n"
            "[Service]\nEnvironment=GPIOZERO_PIN_FACTORY=box-fifo\n"
            f"Environment=HUES_CONFIG={BOX_CONFIG}\nEnvironment=HUES_LOG_LEVEL=DEBUG\n")
        config = upper / BOX_CONFIG.lstrip("/")
        config.parent.mkdir(parents=True)
        config.write_text(box_config(installed_config((REPO / "config/console.yaml").read_text())))
        leds = disk / "leds0"
        leds.write_bytes(b"")
        gpio = [line.split(":") for line in (root / "etc/group").read_text().splitlines()]
        os.chown(leds, 0, next(int(g[2]) for g in gpio if g[0] == "gpio"))
        os.chmod(leds, 0o660)
        (disk / "presses").mkdir()
        os.mkfifo(disk / "presses" / Path(FIFO).name, 0o644)
        # Each box its own pip cache: two boxes installing at once built rpi-ws281x side by side
        # in a shared one, and pip read the other's half-written origin.json (JSONDecodeError in
        # cache.record_download_origin: bookworm's pip 23.0 lets that error through, and writes the
        # file in place, not atomically).
        (roots.pip_cache(root) / self.name).mkdir(parents=True, exist_ok=True)

    def install(self, model: str, *options: str) -> str:
        result = self.box.run("env", *PIP_ENV, f"{SOURCE}/scripts/install-pi", "--no-hardware", model, *options,
                              check=False, timeout=600)
        output = result.stdout + result.stderr
        (self.box.disk / f"install-{len(list(self.box.disk.glob('install-*')))}.log").write_text(output)
        if result.returncode != 0:
            raise roots.BoxError(f"install-pi --no-hardware {model!r} {' '.join(options)} failed "
                                 f"({result.returncode}):\n{output[-3000:]}")
        return output

    def leds(self) -> bytes:
        return (self.box.disk / "leds0").read_bytes()


def copy_checkout(upper: Path) -> None:
    """The checkout to install from (what git has or would add) on a lane's disk, at SOURCE."""
    source = upper / SOURCE.lstrip("/")
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=REPO, capture_output=True, check=True).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in listed)):
        if (REPO / name).is_file() and not name.startswith(("tests/wled/", "docs/")):
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)


def lanes() -> list[tuple[type, str, str, roots.Root, list[tuple[str, object]]]]:
    """The lanes, each (kind, name, part, root, its checks in order; a lane's first installs it):
    the trixie box on two boxes, the power checks (most of their time spent waiting on boots and
    presses) on one of their own beside the others; the bookworm install; and the Pi's
    processors, whose checks' names start with their lane's."""
    from tests.box import checks_install, checks_network, checks_phones, checks_power, checks_service, userland

    install = checks_service.CHECKS[0][1]
    bookworm = checks_service.CHECKS[:4]  # what the OS changes: its Python, pip, gcc, systemd and Redis
    return [(Lane, "table", "trixie box", roots.TRIXIE, [*checks_service.CHECKS, *checks_phones.CHECKS,
                                                         *checks_network.CHECKS, *checks_install.CHECKS]),
            (Lane, "power", "trixie box", roots.TRIXIE, [("install_the_power_box", install), *checks_power.CHECKS]),
            (Lane, "bookworm", "bookworm install", roots.BOOKWORM, [(f"bookworm_{n}", c) for n, c in bookworm]),
            *((userland.Lane, arch, arch, roots.Root("trixie", arch), userland.checks(arch)) for arch in roots.QEMU_CPU)]


def all_checks() -> list[tuple[str, object]]:
    return [check for *_, checks in lanes() for check in checks]


def main(argv: list[str]) -> int:
    report = Path(argv[0])
    stage = Stage(report, log=lambda line: print(line, flush=True))

    def stop(signum, frame):  # the suite ends early: power the box off, leave nothing behind
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        return stage.run()
    finally:
        stage.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The Debian roots the stage runs from: trixie, the base of today's Raspberry Pi OS, and bookworm,
its base until October 2025 (Raspberry Pi OS Lite is Debian with the Pi's own packages on top); for
x86-64, booted by systemd-nspawn (tests/box/machine.py), and for the Pi's processors, arm64 and
armhf, run through qemu-user (tests/box/userland.py). Each is built by mmdebstrap once and kept in
CACHE under a key of everything it is made from, so a later run (CI on the same machine, a
developer's next run) takes it at once.

What makes it a Raspberry Pi OS root without a Pi:
- systemd as PID 1, D-Bus, logind, polkit, Redis and avahi from Debian, and what the installer asks
  apt for (the release is built here from requirements/pi.txt with the OS's gcc), so the
  installer's own apt-get finds everything installed; the root's apt has no sources, since the
  box has no network (apt-get update then reads nothing and succeeds);
- python3-lgpio, which Raspberry Pi OS ships and Debian does not: a package of the same upstream
  (joan2937/lg 0.2.2) built in the root from lgpio's source on PyPI with the root's swig and gcc,
  the lg library linked in as in PyPI's own wheels (PyPI has none for Python 3.13, nor for armhf);
- the gpio and spi groups Raspberry Pi OS has (raspberrypi-sys-mods), and a user `guest` whose
  session stands for another person logged in;
- the pinned, hashed packages of requirements/pi.txt downloaded beside it (/var/cache/hues-wheels),
  which the installer's pip takes instead of PyPI (PIP_NO_INDEX, PIP_FIND_LINKS).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shlex
import shutil
import sys
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("HUES_BOX_CACHE", "/var/cache/hues-console-box"))
PACKAGES = ("systemd", "systemd-sysv", "dbus", "libpam-systemd", "polkitd", "redis-server", "avahi-daemon",
            "python3", "python3-venv", "python3-yaml", "python3-pil", "python3-dev", "gcc", "libc6-dev")
BUILD_ONLY = ("swig",)  # builds python3-lgpio in the root, then goes
# The version of Raspberry Pi OS's python3-lgpio (0.2.2), its source as PyPI has it (pip hash).
LGPIO = "lgpio==0.2.2.0 --hash=sha256:11372e653b200f76a0b3ef8a23a0735c85ec678a9f8550b9893151ed0f863fff"
EXCLUDED = ("man", "doc", "info", "locale")  # under /usr/share: what no check reads
WHEELS = "/var/cache/hues-wheels"
HOSTNAME = "huesbox"
SOURCES = Path("/etc/apt/sources.list.d/debian.sources")  # this machine's Debian mirror
REQUIREMENTS = ("requirements/pi-build.txt", "requirements/pi.txt")
DOWNLOADS = CACHE / "downloads"  # the wheels and sdists pip fetched, kept: a rebuild fetches only what changed
BUILD_TIMEOUT_S = 1500  # an armhf root from nothing took 1250 s on the shared 2-core machine under load
UNUSED_S = 24 * 3600  # a root of an older key unused this long goes (another checkout may still boot it)
# qemu-user's processor for each of the Pi's architectures (QEMU_CPU). arm64: a Pi 4's Cortex-A72;
# bookworm's qemu 7.2 otherwise emulates `max`, whose pointer authentication makes Debian's arm64
# binaries about 7 times slower. armhf: a Cortex-A7 (a Pi 2's), the ARMv7 Debian's armhf is built
# for, so nothing newer slips in unnoticed.
QEMU_CPU = {"arm64": "cortex-a72", "armhf": "cortex-a7"}
LGPIO_BUILD = r"""set -e
cd /tmp/hues-lgpio
python3 -m venv venv
venv/bin/pip install --quiet --no-index --find-links . --require-hashes -r pi-build.txt
PYPI=1 venv/bin/pip wheel --quiet --no-deps --no-build-isolation --use-pep517 --no-index --wheel-dir out lgpio-*.tar.gz
target=deb/usr/lib/python3/dist-packages
mkdir -p "$target" deb/DEBIAN
python3 -m zipfile -e out/lgpio-*.whl "$target"
rm -rf "$target"/lgpio-*.dist-info
cat > deb/DEBIAN/control <<END
Package: python3-lgpio
Version: $VERSION-0hues1
Architecture: $(dpkg --print-architecture)
Maintainer: hues-console tests <tests@localhost>
Depends: python3
Description: lgpio for Python 3 (a stand-in for Raspberry Pi OS's package)
 Built by tests/box from lgpio's source on PyPI, the same joan2937/lg code.
END
dpkg-deb --root-owner-group --build deb python3-lgpio.deb >/dev/null
dpkg -i python3-lgpio.deb >/dev/null
"""


class BoxError(Exception):
    """The box cannot be built or booted here (a tool missing, a build that failed)."""


@dataclass(frozen=True)
class Root:
    """One root: a Debian suite for one architecture (Debian's names: amd64, arm64, armhf)."""

    suite: str
    arch: str = "amd64"

    @property
    def name(self) -> str:
        return f"{self.suite}-{self.arch}"

    def sources(self) -> str | None:
        """This machine's Debian mirror for the root's suite (its own suite's name swapped on the
        Suites: lines), or None: mmdebstrap's default."""
        if not SOURCES.exists():
            return None
        host = _codename()
        text = SOURCES.read_text()
        return re.sub(r"^(Suites:.*)$", lambda m: m.group(1).replace(host, self.suite), text, flags=re.M)

    def key(self) -> str:
        """Changes whenever what the root is made from changes: this recipe, the package lists,
        the pinned requirements, the suite, the architecture and the mirror."""
        digest = hashlib.sha256()
        for part in (Path(__file__).read_bytes(), " ".join(PACKAGES + BUILD_ONLY).encode(), LGPIO.encode(),
                     *(REPO.joinpath(path).read_bytes() for path in REQUIREMENTS),
                     self.name.encode(), (self.sources() or "").encode()):
            digest.update(hashlib.sha256(part).digest())
        return digest.hexdigest()[:16]

    def path(self) -> Path:
        return CACHE / f"root-{self.name}-{self.key()}"

    def describe(self) -> str:
        machine = f"{self.arch} under qemu-user -cpu {QEMU_CPU[self.arch]}" if self.arch in QEMU_CPU else self.arch
        return f"Debian {self.suite}, {machine}"

    def environ(self) -> dict[str, str]:
        return {"QEMU_CPU": QEMU_CPU[self.arch]} if self.arch in QEMU_CPU else {}


TRIXIE, BOOKWORM = Root("trixie"), Root("bookworm")


def _codename() -> str:
    for line in Path("/etc/os-release").read_text().splitlines():
        if line.startswith("VERSION_CODENAME="):
            return line.split("=", 1)[1].strip('"')
    raise BoxError("/etc/os-release names no VERSION_CODENAME: which Debian is this machine's mirror for?")


def pip_cache(path: Path) -> Path:
    """Where the boxes of the root at `path` keep pip's cache (its wheel of rpi-ws281x, built once
    with this root's gcc), one folder a lane: it goes with the root."""
    return CACHE / path.name.replace("root-", "pip-", 1)


def built_root(root: Root, log) -> Path:
    """The cached root for its key, built first when there is none. Two stages at once (a
    developer's and a landing's) build it once: the second waits. A root's last use is the time
    of its .complete."""
    path = root.path()
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f".lock-{root.name}", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (path / ".complete").exists():
            log(f"root: cached {path}")
        else:
            remove_unused(root)
            _build_root(root, path, log)
        (path / ".complete").touch()
    return path


def remove_unused(root: Root) -> None:
    """Roots of the same suite and architecture under other keys, with their pip caches, once
    nothing has used them for UNUSED_S: another checkout (a branch, an older main) may still
    boot one. The bookworm x86-64 roots of the stage before it was per suite are named
    root-KEY."""
    pattern = re.compile(rf"root-{re.escape(root.name)}-[0-9a-f]{{16}}" + (r"|root-[0-9a-f]{16}" if root == BOOKWORM else ""))
    for old in CACHE.glob("root-*"):
        if not pattern.fullmatch(old.name) or old == root.path():
            continue
        used = (old / ".complete") if (old / ".complete").exists() else old
        if time.time() - used.stat().st_mtime > UNUSED_S:
            remove(old)
            shutil.rmtree(pip_cache(old), ignore_errors=True)


def remove(path: Path) -> None:
    """A root, with what an interrupted mmdebstrap left mounted in it (its /proc, /sys, /dev/pts)."""
    points = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    for point in sorted((p for p in points if p.startswith(f"{path}/")), key=len, reverse=True):
        subprocess.run(["umount", "--lazy", point], capture_output=True)
    shutil.rmtree(path, ignore_errors=True)


def _build_root(root: Root, path: Path, log) -> None:
    remove(path)
    path.mkdir()
    started = time.monotonic()
    try:
        cpu = build(root, path, log)
    except BaseException:
        remove(path)  # nothing half-built stays behind
        raise
    said = f"built in {time.monotonic() - started:.1f} s (mmdebstrap {cpu:.0f} s of CPU)"
    (path / ".complete").write_text(said + "\n")
    log(f"root: {path} {said}")


def run(command: list[str], log, timeout: float, env: dict[str, str] | None = None) -> tuple[str, float]:
    """What `command` printed, and the CPU seconds it and every process under it took (its own
    rusage: another lane's build beside it is not counted)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env)
        late = threading.Event()
        timer = threading.Timer(timeout, lambda: (late.set(), process.kill()))
        timer.start()
        try:
            _, status, used = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if process.returncode != 0:
        said = f"did not finish in {timeout:g} s" if late.is_set() else f"failed ({process.returncode})"
        raise BoxError(f"{' '.join(command[:4])} ... {said}:\n{stderr[-3000:]}")
    return stdout, used.ru_utime + used.ru_stime


def build(root: Root, path: Path, log) -> float:
    """mmdebstrap (through qemu-user for the Pi's architectures, tests/box/userland.py registers
    it) with the pinned packages this machine's pip downloaded, python3-lgpio built inside; the
    CPU seconds it took."""
    if shutil.which("mmdebstrap") is None:
        raise BoxError("mmdebstrap is not installed (./scripts/test installs it: apt-get install mmdebstrap)")
    if root.arch in QEMU_CPU:
        from tests.box.userland import register_qemu

        register_qemu(root.arch)
    with tempfile.TemporaryDirectory(prefix="hues-box-build-") as scratch:
        scratch = Path(scratch)
        wheels, lgpio = download(scratch, log)
        mirror = []
        if root.sources() is not None:
            (scratch / "debian.sources").write_text(root.sources())
            mirror = [str(scratch / "debian.sources")]
        debs = CACHE / f"debs-{root.name}"
        debs.mkdir(parents=True, exist_ok=True)
        hooks = [
            # dpkg without fsync, and without the manuals, documents and translations no check
            # reads (under qemu each file and each man-db trigger costs the most).
            "--dpkgopt=force-unsafe-io", *(f"--dpkgopt=path-exclude=/usr/share/{part}/*" for part in EXCLUDED),
            # apt takes the cached .debs instead of downloading them (mmdebstrap(1), "--skip"),
            # and the ones it fetched go back to the cache for the next build.
            "--skip=download/empty", "--skip=essential/unlink",
            '--setup-hook=mkdir -p "$1"/var/cache/apt/archives/',
            f"--setup-hook=sync-in {debs} /var/cache/apt/archives/",
            f"--customize-hook=sync-out /var/cache/apt/archives {debs}",
            '--customize-hook=rm -f "$1"/var/cache/apt/archives/*.deb',
            '--customize-hook=chroot "$1" groupadd --system gpio',
            '--customize-hook=chroot "$1" groupadd --system spi',
            '--customize-hook=chroot "$1" useradd --create-home --shell /bin/bash guest',
            f'--customize-hook=echo {HOSTNAME} > "$1/etc/hostname"',
            f"--customize-hook=copy-in {lgpio} /tmp",
            f'--customize-hook=chroot "$1" env VERSION={LGPIO.split()[0].split("==")[1]} sh -c {shlex.quote(LGPIO_BUILD)}',
            f'--customize-hook=chroot "$1" apt-get purge --quiet --yes --autoremove {" ".join(BUILD_ONLY)} >/dev/null',
            f'--customize-hook=rm -rf "$1"/tmp/{lgpio.name}',
            # No network in the box: an apt without sources reads nothing and succeeds.
            '--customize-hook=rm -f "$1"/etc/apt/sources.list "$1"/etc/apt/sources.list.d/*',
        ]
        # Through qemu-user the build is the stage's heaviest work: the boxes' timed checks go first.
        nice = ["nice", "-n", "10"] if root.arch in QEMU_CPU else []
        _, cpu = run([*nice, "mmdebstrap", "--quiet", "--variant=apt", f"--architectures={root.arch}",
                      f"--include={','.join(PACKAGES + BUILD_ONLY)}", *hooks, root.suite, str(path), *mirror], log,
                     timeout=BUILD_TIMEOUT_S, env={**os.environ, **root.environ()})
        shutil.copytree(wheels, path / WHEELS.lstrip("/"))
        return cpu


def download(scratch: Path, log) -> tuple[Path, Path]:
    """The pinned packages (pip takes a file already in DOWNLOADS with its hash instead of
    fetching it again), and what builds python3-lgpio: lgpio's source and what the installer
    builds the release with (requirements/pi-build.txt).
    Stages building two roots at once take turns."""
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    pinned = scratch / "lgpio.txt"
    pinned.write_text(LGPIO + "\n")
    with open(CACHE / ".lock-downloads", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes", "--dest",
             str(DOWNLOADS), *(arg for path in REQUIREMENTS for arg in ("-r", str(REPO / path)))], log, timeout=300)
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes", "--no-binary=:all:",
             "--dest", str(DOWNLOADS), "-r", str(pinned)], log, timeout=300)
    wheels, lgpio = scratch / "wheels", scratch / "hues-lgpio"
    wheels.mkdir()
    lgpio.mkdir()
    for path in REQUIREMENTS:  # only what the requirements name goes into the root
        for line in REPO.joinpath(path).read_text().splitlines():
            name = line.split("==")[0].strip().lower().replace("-", "_") if "==" in line else ""
            for file in DOWNLOADS.iterdir():
                if name and file.name.split("-")[0].lower() == name:
                    shutil.copy2(file, wheels / file.name)
                    if path.endswith("pi-build.txt"):  # python3-lgpio is built as the release is
                        shutil.copy2(file, lgpio / file.name)
    shutil.copy2(REPO / "requirements/pi-build.txt", lgpio)
    name, version = LGPIO.split()[0].split("==")
    shutil.copy2(DOWNLOADS / f"{name}-{version}.tar.gz", lgpio)
    return wheels, lgpio

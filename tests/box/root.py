"""The Debian Bookworm root the box boots from (Raspberry Pi OS Lite is Bookworm with the Pi's own
packages on top), built by mmdebstrap once and kept in CACHE under a key of everything it is made
from, so a later run (CI on the same machine, a developer's next run) boots it at once.

What makes it a Raspberry Pi OS root without a Pi:
- systemd as PID 1, D-Bus, logind, polkit, Redis and avahi from Debian, and what the installer asks
  apt for (the release is built here from requirements/pi.txt with the OS's gcc), so the
  installer's own apt-get finds everything installed; the root's apt has no sources, since the
  container has no network (apt-get update then reads nothing and succeeds);
- python3-lgpio, which Raspberry Pi OS ships and Debian does not: a package of the same upstream
  (joan2937/lg 0.2.2) built here from PyPI's lgpio wheel for x86-64;
- the gpio and spi groups Raspberry Pi OS has (raspberrypi-sys-mods), and a user `guest` whose
  session stands for another person logged in;
- the pinned, hashed packages of requirements/pi.txt downloaded beside it (/var/cache/hues-wheels),
  which the installer's pip takes instead of PyPI (PIP_NO_INDEX, PIP_FIND_LINKS).
"""

from __future__ import annotations

import concurrent.futures
import fcntl
import hashlib
import os
import shutil
import sys
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("HUES_BOX_CACHE", "/var/cache/hues-console-box"))
SUITE = "bookworm"
PACKAGES = ("systemd", "systemd-sysv", "dbus", "libpam-systemd", "polkitd", "redis-server", "avahi-daemon",
            "python3", "python3-venv", "python3-yaml", "python3-pil", "python3-dev", "gcc", "libc6-dev")
LGPIO = "lgpio==0.2.2.0"  # the version of Raspberry Pi OS Bookworm's python3-lgpio (0.2.2)
WHEELS = "/var/cache/hues-wheels"
HOSTNAME = "huesbox"
SOURCES = Path("/etc/apt/sources.list.d/debian.sources")  # this machine's Debian mirror
REQUIREMENTS = ("requirements/pi-build.txt", "requirements/pi.txt")
DEBS = CACHE / "debs"  # the .debs of the last build: a rebuild (a new key) downloads only what changed
DOWNLOADS = CACHE / "downloads"  # the wheels and sdists pip fetched, kept for the same reason
PIP_CACHE = CACHE / "pip"  # the boxes' pip caches, one a box (its wheel of rpi-ws281x, built once)


class BoxError(Exception):
    """The box cannot be built or booted here (a tool missing, a build that failed)."""


def cache_key() -> str:
    """Changes whenever what the root is made from changes: this recipe, the package list, the
    pinned requirements and the mirror."""
    digest = hashlib.sha256()
    for part in (Path(__file__).read_bytes(), " ".join(PACKAGES).encode(), LGPIO.encode(),
                 *(REPO.joinpath(path).read_bytes() for path in REQUIREMENTS),
                 SOURCES.read_bytes() if SOURCES.exists() else b""):
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()[:16]


def built_root(log) -> Path:
    """The cached root for this key, built first when there is none; older roots are removed.
    Two stages at once (a developer's and a landing's) build it once: the second waits."""
    key = cache_key()
    root = CACHE / f"root-{key}"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (root / ".complete").exists():
            log(f"root: cached {root}")
        else:
            _build_root(root, log)
        (root / ".complete").touch()  # the newest root used besides this one is kept (it may be booted)
    return root


def _build_root(root: Path, log) -> None:
    others = sorted(CACHE.glob("root-*"), key=lambda p: (p / ".complete").stat().st_mtime
                    if (p / ".complete").exists() else 0)
    for old in others[:-1]:
        shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    started = time.monotonic()
    build(root, log)
    (root / ".complete").write_text(f"built in {time.monotonic() - started:.1f} s\n")
    log(f"root: built {root} in {time.monotonic() - started:.1f} s")


def run(command: list[str], log, **options) -> str:
    result = subprocess.run(command, capture_output=True, text=True, **options)
    if result.returncode != 0:
        raise BoxError(f"{' '.join(command[:4])} ... failed ({result.returncode}):\n{result.stderr[-3000:]}")
    return result.stdout


def build(root: Path, log) -> None:
    """mmdebstrap, while this machine's pip downloads what goes in beside (the two wait on the
    network, each on its own); then those are put in."""
    if shutil.which("mmdebstrap") is None:
        raise BoxError("mmdebstrap is not installed (./scripts/test installs it: apt-get install mmdebstrap)")
    with tempfile.TemporaryDirectory(prefix="hues-box-build-") as scratch:
        scratch = Path(scratch)
        downloads = concurrent.futures.ThreadPoolExecutor(1).submit(download, scratch, log)
        mirror = [str(SOURCES)] if SOURCES.exists() else []
        DEBS.mkdir(parents=True, exist_ok=True)
        hooks = [
            # apt takes the cached .debs instead of downloading them (mmdebstrap(1), "--skip"),
            # and the ones it fetched go back to the cache for the next build.
            "--skip=download/empty", "--skip=essential/unlink",
            '--setup-hook=mkdir -p "$1"/var/cache/apt/archives/',
            f"--setup-hook=sync-in {DEBS} /var/cache/apt/archives/",
            f"--customize-hook=sync-out /var/cache/apt/archives {DEBS}",
            '--customize-hook=rm -f "$1"/var/cache/apt/archives/*.deb',
            '--customize-hook=chroot "$1" groupadd --system gpio',
            '--customize-hook=chroot "$1" groupadd --system spi',
            '--customize-hook=chroot "$1" useradd --create-home --shell /bin/bash guest',
            f'--customize-hook=echo {HOSTNAME} > "$1/etc/hostname"',
            # No network in the container: an apt without sources reads nothing and succeeds.
            '--customize-hook=rm -f "$1"/etc/apt/sources.list "$1"/etc/apt/sources.list.d/*',
        ]
        run(["mmdebstrap", "--quiet", "--variant=apt", f"--include={','.join(PACKAGES)}", *hooks,
             SUITE, str(root), *mirror], log, timeout=900)
        lgpio, wheels = downloads.result()
        run(["dpkg", f"--root={root}", "--force-script-chrootless", "-i", str(lgpio)], log)
        shutil.copytree(wheels, root / WHEELS.lstrip("/"))


def download(scratch: Path, log) -> tuple[Path, Path]:
    """The pinned packages (pip takes a file already in DOWNLOADS with its hash instead of
    fetching it again) and python3-lgpio."""
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes", "--dest", str(DOWNLOADS),
         *(arg for path in REQUIREMENTS for arg in ("-r", str(REPO / path)))], log, timeout=300)
    wheels = scratch / "wheels"
    wheels.mkdir()
    for path in REQUIREMENTS:  # only what the requirements name goes into the root
        for line in REPO.joinpath(path).read_text().splitlines():
            name = line.split("==")[0].strip().lower().replace("-", "_") if "==" in line else ""
            for file in DOWNLOADS.iterdir():
                if name and file.name.split("-")[0].lower() == name:
                    shutil.copy2(file, wheels / file.name)
    return lgpio_package(scratch, log), wheels


def lgpio_package(scratch: Path, log) -> Path:
    """python3-lgpio as Raspberry Pi OS names it, from PyPI's wheel of the same code: its module
    and C extension (the lg library linked in) in Debian's dist-packages."""
    run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", "--python-version=3.11",
         "--dest", str(DOWNLOADS), LGPIO], log, timeout=300)
    version = LGPIO.split("==")[1]
    wheel = next(DOWNLOADS.glob(f"lgpio-{version}-cp311-*.whl"))
    tree = scratch / "lgpio-deb"
    target = tree / "usr/lib/python3/dist-packages"
    target.mkdir(parents=True)
    run(["python3", "-m", "zipfile", "-e", str(wheel), str(target)], log)
    for extra in target.glob("lgpio-*.dist-info"):
        shutil.rmtree(extra)
    (tree / "DEBIAN").mkdir()
    (tree / "DEBIAN/control").write_text(
        f"Package: python3-lgpio\nVersion: {version}-0hues1\nArchitecture: amd64\n"
        "Maintainer: hues-console tests <tests@localhost>\nDepends: python3\n"
        "Description: lgpio for Python 3 (a stand-in for Raspberry Pi OS's package)\n"
        " Built by tests/box from PyPI's lgpio wheel, the same joan2937/lg code.\n")
    package = scratch / f"python3-lgpio_{version}_amd64.deb"
    run(["dpkg-deb", "--root-owner-group", "--build", str(tree), str(package)], log)
    return package

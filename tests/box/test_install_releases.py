"""Releases beside each other: --rollback brings back the code *and* what the installer put on the
system with it (units, drop-ins, the phones' socket, udev and polkit rules, Redis settings), and no
install removes the release a console still runs from (a reboot is due, so it was not restarted).
Against a staging root as in tests/box/test_install.py; tests/box does both under a real systemd."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.box.test_install import ETC_CONFIG, PI5, REPO, FakePi, ok

MANAGED = ["etc/systemd/system/hues-console.service", "etc/systemd/system/hues-console.service.d/driver.conf",
           "etc/systemd/system/hues-console.service.d/web.conf", "etc/systemd/system/hues-console.socket",
           "etc/systemd/system/hues-console.socket.d/lan.conf",
           "etc/udev/rules.d/60-hues-console-leds.rules", "etc/polkit-1/rules.d/60-hues-console-poweroff.rules",
           "etc/redis/redis-hues.conf"]


def checkout(tmp_path: Path, name: str) -> Path:
    """A copy of this checkout whose release differs, with its own units and rules."""
    copy = tmp_path / name
    shutil.copytree(REPO, copy, ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", ".*cache"))
    mark = f"# changed in {name}\n"
    for path in ("console/__init__.py", "systemd/hues-console.service", "systemd/driver-leds-dev.conf",
                 "config/redis-hues.conf"):
        (copy / path).write_text((copy / path).read_text() + mark)
    installer = copy / "scripts/install-pi"
    installer.write_text(installer.read_text()
                         .replace("# hues-console: the ws2812-pio LED device", f"# {name}: the ws2812-pio LED device")
                         .replace("// hues-console: the console's service user", f"// {name}: the console's service user"))
    return copy


def install_from(pi: FakePi, source: Path, *args: str) -> list[str]:
    pi.log.write_text("")
    env = dict(os.environ, HUES_INSTALL_ROOT=str(pi.root), HUES_INSTALL_PYTHON=sys.executable,
               HUES_TEST_LOG=str(pi.log), HUES_TEST_SYSTEMD="252", PATH=f"{pi.bin}:{os.environ['PATH']}")
    return ok(subprocess.run([str(source / "scripts/install-pi"), *args], env=env, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=60))


def managed(pi: FakePi) -> dict[str, str | None]:
    return {path: pi.read(path) if (pi.root / path).exists() else None for path in MANAGED}


def test_rollback_brings_back_the_units_and_rules_of_the_release_before(tmp_path):
    pi = FakePi(tmp_path, PI5)
    pi.write(ETC_CONFIG, "web:\n  enabled: false\nstore:\n  url: unix://hues@/run/redis/redis-server.sock?db=0\n")
    ok(pi.install())
    first = managed(pi)
    assert first["etc/systemd/system/hues-console.socket"] is None  # the phones off: no socket
    pi.write(ETC_CONFIG, "web:\n  enabled: true\n  address: 0.0.0.0\n"
                         "store:\n  url: unix://hues@/run/redis/redis-server.sock?db=0\n")
    install_from(pi, checkout(tmp_path, "second"))
    second = managed(pi)
    assert all(second[path] is not None and second[path] != first[path] for path in MANAGED
               if "socket" not in path and "web.conf" not in path)
    assert second["etc/systemd/system/hues-console.socket"] is not None

    lines = ok(pi.install("--rollback"))
    assert managed(pi) == first  # the socket and web.conf gone again, the rest as release 1 had them
    assert any(line.startswith("==> back to release ") for line in lines)
    commands = pi.commands()
    assert commands.index("systemctl disable --now hues-console.socket") < commands.index("systemctl daemon-reload")
    for expected in ("udevadm control --reload-rules", "systemctl restart redis-server"):
        assert expected in commands
    assert commands[-1] == "systemctl restart hues-console.service"

    ok(pi.install("--rollback"))  # and forward again
    assert managed(pi) == second
    assert pi.commands()[-3:] == ["systemctl enable hues-console.socket", "systemctl restart hues-console.socket",
                                  "systemctl restart hues-console.service"]


def test_a_console_not_restarted_yet_keeps_its_release(tmp_path):
    """The Pi 5's overlay asks for a reboot, so the console is not restarted; installing again
    with newer code must not take the running release away (only `current` and `previous` were
    kept before). Once nothing runs from it, the next install removes it."""
    pi = FakePi(tmp_path, PI5)
    ok(pi.install())
    home = pi.root / "opt/hues-console"
    running = os.readlink(home / "current")
    python = f"{pi.root}{running}/bin/python"
    console = subprocess.Popen(["bash", "-c", f'exec -a "{python}" sleep 60'])  # as its #! line starts it
    try:
        install_from(pi, checkout(tmp_path, "second"))
        lines = install_from(pi, checkout(tmp_path, "third"))
        releases = sorted(p.name for p in (home / "releases").iterdir())
        assert len(releases) == 3 and running.rsplit("/", 1)[1] in releases
        assert f"keeping {running}: the console still runs from it (until it restarts)" in lines
    finally:
        console.kill()
        console.wait()
    install_from(pi, checkout(tmp_path, "fourth"))
    assert running.rsplit("/", 1)[1] not in [p.name for p in (home / "releases").iterdir()]

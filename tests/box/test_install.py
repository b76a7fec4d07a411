"""The Pi installer, the systemd unit and the maker's guide, checked on a machine that is not a Pi.

The installer runs against a staging root (HUES_INSTALL_ROOT) with a fake model file; the commands
it runs on a Pi (apt-get, systemctl, useradd, ...) are stand-ins on PATH that log their arguments.
shellcheck and systemd-analyze are used where installed (their tests are skipped without them).
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from console.play.app import ConsoleApp
from console.commands.common import EXIT_USAGE
from console.config.loader import load_config
from console.commands.wiring import resolve_driver_name
from hal.layout import Layout

REPO = Path(__file__).resolve().parents[2]
INSTALLER = REPO / "scripts" / "install-pi"
SYSTEMD = REPO / "systemd"
UNIT = SYSTEMD / "hues-console.service"
MAKERS = REPO / "docs" / "MAKERS.md"
DEFAULT = load_config(str(REPO / "config" / "console.yaml"))

PI4 = "Raspberry Pi 4 Model B Rev 1.4"
PI5 = "Raspberry Pi 5 Model B Rev 1.0"
ETC_CONFIG = "etc/hues-console/console.yaml"
BOOT_CONFIG = "boot/firmware/config.txt"
INCLUDE = "include /etc/redis/redis-hues.conf"
APT_PI4 = "redis-server python3-venv python3-lgpio python3-yaml python3-pil python3-dev gcc libc6-dev"
BOOT_CMDLINE = "boot/firmware/cmdline.txt"
CMDLINE = "console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait\n"
STORED_GAMES = "var/lib/redis/appendonlydir/appendonly.aof.1.incr.aof"
STORED_TEXT = "a game record that no install may touch\n"
# The commands the installer may run on a Pi; here each one only logs its arguments.
STAND_INS = ("apt-get", "systemctl", "useradd", "usermod", "udevadm", "python3", "id", "sync")
STAND_IN = """#!/bin/sh
echo "$(basename "$0") $*" >> "$HUES_TEST_LOG"
case "$(basename "$0") $1" in
  "systemctl --version") echo "systemd $HUES_TEST_SYSTEMD (test)" ;;
  "python3 -m") mkdir -p "$4/bin" && for f in pip python hues-console; do cp "$0" "$4/bin/$f"; done ;;  # -m venv
  "id "*) exit 1 ;;  # there is no user `hues` yet
esac
"""


class FakePi:
    """A staging root that looks like a fresh Raspberry Pi OS to the installer."""

    def __init__(self, tmp: Path, model: str):
        self.root = tmp / "root"
        self.log = tmp / "commands.log"
        self.bin = tmp / "bin"
        self.bin.mkdir()
        for name in STAND_INS:
            path = self.bin / name
            path.write_text(STAND_IN)
            path.chmod(path.stat().st_mode | stat.S_IXUSR)
        self.write("proc/device-tree/model", model + "\0")
        self.write(BOOT_CONFIG, "# Raspberry Pi OS\ndtparam=audio=on\n\n[cm4]\notg_mode=1\n")
        self.write(BOOT_CMDLINE, CMDLINE)
        self.write("boot/firmware/overlays/ws2812-pio.dtbo", "")  # kernels from December 2024
        self.write("etc/dphys-swapfile", "CONF_SWAPSIZE=100\n")
        self.write("etc/redis/redis.conf", "bind 127.0.0.1 -::1\nappendonly no\n\n")
        self.write(STORED_GAMES, STORED_TEXT)

    def write(self, path: str, text: str) -> None:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def read(self, path: str) -> str:
        return (self.root / path).read_text()

    def install(self, *args: str, systemd: int = 252, umask: int | None = None) -> subprocess.CompletedProcess:
        self.log.write_text("")
        env = dict(os.environ, HUES_INSTALL_ROOT=str(self.root), HUES_INSTALL_PYTHON=sys.executable,
                   HUES_TEST_LOG=str(self.log), HUES_TEST_SYSTEMD=str(systemd),
                   PATH=f"{self.bin}:{os.environ['PATH']}")
        env.pop("HUES_PI_MODEL_FILE", None)
        return subprocess.run([str(INSTALLER), *args], env=env, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=60,
                              preexec_fn=None if umask is None else (lambda: os.umask(umask)))

    def commands(self) -> list[str]:
        return self.log.read_text().splitlines()

    def snapshot(self) -> dict[str, str]:
        return {str(p.relative_to(self.root)): p.read_text() for p in sorted(self.root.rglob("*"))
                if p.is_file()}


@pytest.fixture
def pi4(tmp_path):
    return FakePi(tmp_path, PI4)


@pytest.fixture
def pi5(tmp_path):
    return FakePi(tmp_path, PI5)


def ok(result: subprocess.CompletedProcess) -> list[str]:
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.splitlines()


def release_lines(root: Path) -> tuple[str, list[str]]:
    """The release the installer builds from this checkout, and the pip lines that build it."""
    release = f"/opt/hues-console/releases/{release_id()}"
    pip = f"{root}{release}/bin/pip install --disable-pip-version-check --no-input"
    return release, [
        f"{pip} --require-hashes --no-deps -r {REPO}/requirements/pi-build.txt",
        f"{pip} --require-hashes --no-deps --no-build-isolation --use-pep517 -r {REPO}/requirements/pi.txt",
        f"{pip} --no-deps --no-index --no-build-isolation --use-pep517 {REPO}",
        f"{root}{release}/bin/python -c import console.commands.main, yaml, redis, fakeredis, gpiozero, "
        "lgpio, PIL.Image, rpi_ws281x",
    ]


def release_id() -> str:
    return subprocess.run(["bash", "-c", f"source <(sed -n '/^release_id()/,/^}}/p' {INSTALLER}); "
                           f"SRC={REPO} release_id"], capture_output=True, text=True, check=True).stdout.strip()


def overlay_line(config) -> str:
    width, height = config.panel.physical_size
    return f"dtoverlay=ws2812-pio,gpio={config.driver.leds_dev.pin},num_leds={width * height}"


# --- the script and its dry runs --------------------------------------------------------------


def test_installer_is_valid_bash():
    subprocess.run(["bash", "-n", str(INSTALLER)], check=True)


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_every_script_passes_shellcheck():
    scripts = [INSTALLER.parent / name for name in ("install-pi", "setup", "test", "play", "redis-repair-aof")]
    result = subprocess.run(["shellcheck", *map(str, scripts), str(INSTALLER.parent.parent / ".ci/run")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_dry_run_on_a_pi4_prints_every_step_and_changes_nothing(pi4):
    before = pi4.snapshot()
    lines = ok(pi4.install("--dry-run"))
    root = pi4.root
    release, pips = release_lines(root)
    config_read = next(line.split()[-1] for line in lines if " check-config " in line)
    for expected in [
        "would: apt-get update",
        f"would: apt-get install -y {APT_PI4}",
        f"would: python3 -m venv --system-site-packages {root}{release}",
        *(f"would: {line}" for line in pips),
        f"would: {root}{release}/bin/hues-console check-config {config_read}",
        f"would: ln -sfn {release} {root}/opt/hues-console/current.new",
        f"would: mv -T {root}/opt/hues-console/current.new {root}/opt/hues-console/current",
        f"would: ln -sfn /opt/hues-console/current/bin/hues-console {root}/usr/local/bin/hues-console",
        "would: write /etc/systemd/journald.conf.d/hues-console.conf",
        "would: systemctl disable --now dphys-swapfile.service",
        "would: write /etc/hues-console/console.yaml "
        "(from config/console.yaml, with store.url: unix://hues@/run/redis/redis-server.sock?db=0)",
        "LED driver: ws281x on GPIO 18, 512 LEDs (Raspberry Pi 4 Model B Rev 1.4)",
        "would: write /etc/redis/redis-hues.conf (from config/redis-hues.conf)",
        "would: write /etc/redis/redis.conf",
        f"    + {INCLUDE}",
        "would: systemctl restart redis-server",
        "would: write /etc/systemd/system/hues-console.service (from systemd/hues-console.service)",
        "would: write /etc/systemd/system/hues-console.service.d/driver.conf "
        "(from systemd/driver-ws281x.conf)",
        "would: apt-get install -y avahi-daemon",  # the phones' server is on: <hostname>.local
        "would: write /etc/systemd/system/hues-console.socket (from systemd/hues-console.socket, on 0.0.0.0:8080)",
        "would: write /etc/systemd/system/hues-console.service.d/web.conf (from systemd/web.conf)",
        "would: write /etc/systemd/system/hues-console.socket.d/lan.conf (from systemd/web-lan.conf)",
        "Turn the onboard sound off? [y/N] no (no terminal to ask; --yes accepts)",
        "would: systemctl daemon-reload",
        "would: systemctl enable hues-console.socket",
        "would: systemctl enable hues-console.service",
        "would: systemctl restart hues-console.socket",
        "would: systemctl restart hues-console.service",
        "Dry run done: nothing was changed.",
    ]:
        assert expected in lines
    text = "\n".join(lines)
    assert "ws2812-pio" not in text and "useradd" not in text and "polkitd" not in text
    assert "restart-backoff" not in text  # systemd 252 has no RestartSteps=
    assert "would: write /etc/modprobe.d" not in text and "+ dtparam=audio=off" not in text  # sound stays
    assert pi4.snapshot() == before
    assert pi4.commands() == ["systemctl --version"]  # only a question, nothing that changes


def test_dry_run_with_yes_turns_the_sound_off_and_asks_for_a_reboot(pi4):
    lines = ok(pi4.install("--dry-run", "--yes"))
    start = lines.index("Turn the onboard sound off? [y/N] yes (--yes)")
    assert lines[start + 1:start + 7] == [
        "would: write /etc/modprobe.d/hues-console-no-sound.conf",
        "    + # hues-console: the LEDs (rpi-ws281x) need the PWM that the onboard sound would take.",
        "    + blacklist snd_bcm2835",
        "would: write /boot/firmware/config.txt",
        "    - dtparam=audio=on",
        "    + dtparam=audio=off",
    ]
    assert "Reboot to finish (for the onboard sound switched off): sudo reboot" in lines
    assert "would: systemctl restart hues-console.service" not in lines


def test_dry_run_on_a_pi5_sets_up_the_overlay_and_the_unprivileged_service(pi5):
    lines = ok(pi5.install("--dry-run", systemd=257))
    assert "would: sync" in lines  # after editing the boot partition
    for expected in [
        f"would: apt-get install -y {APT_PI4} polkitd",
        f"LED driver: leds-dev on GPIO 18, 512 LEDs ({PI5})",
        "would: write /etc/systemd/system/hues-console.service.d/driver.conf "
        "(from systemd/driver-leds-dev.conf)",
        "would: write /etc/systemd/system/hues-console.service.d/restart-backoff.conf "
        "(from systemd/restart-backoff.conf)",
        "would: useradd --system --user-group --groups gpio --no-create-home --home-dir /nonexistent "
        "--shell /usr/sbin/nologin hues",
        "would: write /etc/udev/rules.d/60-hues-console-leds.rules",
        "would: write /etc/polkit-1/rules.d/60-hues-console-poweroff.rules",
        "would: write /boot/firmware/config.txt",
        "    + [all]",
        f"    + {overlay_line(DEFAULT)}",
        "Reboot to finish (for the ws2812-pio overlay that makes /dev/leds0): sudo reboot",
    ]:
        assert expected in lines
    assert not any("sound" in line for line in lines)
    assert "would: systemctl restart hues-console.service" not in lines


@pytest.mark.parametrize("model", [PI4, PI5, "Raspberry Pi 3 Model B Plus Rev 1.3", "Raspberry Pi 500",
                                   "Raspberry Pi Compute Module 5 Rev 1.0",
                                   "Raspberry Pi Zero 2 W Rev 1.0", "", "Dell Inc. XPS 13"])
def test_the_installer_picks_the_driver_auto_picks_and_refuses_a_non_pi(tmp_path, model):
    pi = FakePi(tmp_path, model)
    result = pi.install("--dry-run")
    expected = resolve_driver_name("auto", pi.root / "proc/device-tree/model")
    if expected == "sim-terminal":  # not a Pi: refused before anything runs
        assert result.returncode == 1 and result.stderr.startswith("install-pi: this is not a Raspberry Pi (")
        assert pi.commands() == []
    else:
        assert any(line.startswith(f"LED driver: {expected} on GPIO ") for line in ok(result))


# --- real runs into the staging root ---------------------------------------------------------


def test_install_on_a_pi5_then_again_keeps_everything(pi5):
    ok(pi5.install(systemd=257))
    commands = pi5.commands()
    release, pips = release_lines(pi5.root)
    assert f"apt-get install -y {APT_PI4} polkitd" in commands
    assert f"python3 -m venv --system-site-packages {pi5.root}{release}" in commands
    assert [c for c in commands if c.startswith(("pip ", "python -c"))] == [
        line.split("/bin/", 1)[1] for line in pips]
    assert f"hues-console check-config {pi5.root / ETC_CONFIG}" in commands
    assert os.readlink(pi5.root / "opt/hues-console/current") == release
    assert "systemctl restart redis-server" in commands
    assert "sync" in map(str.strip, commands)
    assert commands[-3:] == ["systemctl daemon-reload", "systemctl enable hues-console.socket",
                             "systemctl enable hues-console.service"]

    config = load_config(str(pi5.root / ETC_CONFIG))
    assert config.store.url == "unix://hues@/run/redis/redis-server.sock?db=0"  # the phones' server on
    assert (config.web.enabled, config.web.address) == (True, "0.0.0.0")  # the box's network, the rest as the default:
    assert dataclasses.replace(config, store=DEFAULT.store, web=DEFAULT.web, source=DEFAULT.source) == DEFAULT
    etc = pi5.root / "etc"
    assert (etc / "systemd/system/hues-console.service").read_text() == UNIT.read_text()
    dropins = etc / "systemd/system/hues-console.service.d"
    assert (dropins / "driver.conf").read_text() == (SYSTEMD / "driver-leds-dev.conf").read_text()
    assert (dropins / "restart-backoff.conf").read_text() == (SYSTEMD / "restart-backoff.conf").read_text()
    assert (etc / "redis/redis-hues.conf").read_text() == (REPO / "config/redis-hues.conf").read_text()
    assert pi5.read("etc/redis/redis.conf").rstrip().splitlines()[-1] == INCLUDE
    redis_dropin = etc / "systemd/system/redis-server.service.d/hues-console.conf"
    assert redis_dropin.read_text() == (SYSTEMD / "redis-server-hues.conf").read_text()
    repair = pi5.root / "usr/local/lib/hues-console/redis-repair-aof"
    assert repair.read_text() == (REPO / "scripts/redis-repair-aof").read_text() and repair.stat().st_mode & 0o111
    assert pi5.read(BOOT_CONFIG).splitlines()[-3:] == ["[all]", "# hues-console", overlay_line(DEFAULT)]

    first = pi5.snapshot()
    ok(pi5.install(systemd=257))
    assert pi5.snapshot() == first
    assert "systemctl restart redis-server" not in pi5.commands()  # its settings did not change


def test_a_rerun_keeps_the_hosts_config_and_moves_the_overlay_to_its_pin(pi5):
    ok(pi5.install())
    hosts_config = "driver:\n  leds_dev:\n    pin: 21\nstore:\n  url: redis://localhost:6379/3\n"
    pi5.write(ETC_CONFIG, hosts_config)
    lines = ok(pi5.install())
    assert "keeping /etc/hues-console/console.yaml (it is never overwritten)" in lines
    assert pi5.read(ETC_CONFIG) == hosts_config
    overlays = [line for line in pi5.read(BOOT_CONFIG).splitlines() if "ws2812-pio" in line]
    assert overlays == [overlay_line(load_config(str(pi5.root / ETC_CONFIG)))] and "gpio=21," in overlays[0]
    assert "systemctl restart hues-console.service" not in pi5.commands()  # the overlay needs a reboot

    pi5.write("dev/leds0", "")  # rebooted: the overlay made the device
    ok(pi5.install())
    assert pi5.commands()[-1] == "systemctl restart hues-console.service"
    assert pi5.read(STORED_GAMES) == STORED_TEXT


def test_install_on_a_pi4_with_yes_turns_the_sound_off_once(pi4):
    pi4.write("proc/modules", "snd_bcm2835 24576 1 - Live 0x0000000000000000\n")
    ok(pi4.install("--yes"))
    assert pi4.read("etc/modprobe.d/hues-console-no-sound.conf").splitlines()[-1] == "blacklist snd_bcm2835"
    boot = pi4.read(BOOT_CONFIG).splitlines()
    assert "dtparam=audio=off" in boot and "dtparam=audio=on" not in boot
    assert "[cm4]" in boot and not any("ws2812" in line for line in boot)
    assert (pi4.root / "etc/systemd/system/hues-console.service.d/driver.conf").read_text() == (
        SYSTEMD / "driver-ws281x.conf").read_text()
    assert not any(c.startswith(("useradd", "udevadm")) for c in pi4.commands())
    assert "systemctl restart hues-console.service" not in pi4.commands()

    pi4.write("proc/modules", "")  # rebooted: the sound module is gone
    first = pi4.snapshot()
    lines = ok(pi4.install())
    assert "the onboard sound is off already" in lines
    assert pi4.snapshot() == first
    assert pi4.commands()[-1] == "systemctl restart hues-console.service"


@pytest.mark.parametrize("model, name, message", [
    (PI5, "ws281x", "rpi-ws281x cannot drive LEDs on a Raspberry Pi 5"),
    (PI4, "leds-dev", "the leds-dev driver needs a Raspberry Pi 5"),
    (PI4, "sim-terminal", "driver.name is sim-terminal, a simulator"),
])
def test_a_driver_the_pi_cannot_use_stops_the_install(tmp_path, model, name, message):
    pi = FakePi(tmp_path, model)
    pi.write(ETC_CONFIG, f"driver:\n  name: {name}\n")
    result = pi.install()
    assert result.returncode == 1
    assert result.stderr.startswith(f"install-pi: {message}")
    assert "systemctl enable hues-console.service" not in pi.commands()


def test_a_bad_config_stops_the_install_and_names_the_line(pi4):
    pi4.write(ETC_CONFIG, "display:\n  fps: 500\n")
    result = pi4.install("--dry-run")
    assert result.returncode == 1
    assert f"{pi4.root / ETC_CONFIG}:2: display.fps: 500 is out of range" in result.stderr
    assert "install-pi: fix /etc/hues-console/console.yaml" in result.stderr


def test_installing_for_real_needs_root():
    """Run as an ordinary user (as root here: dropped to nobody with setpriv)."""
    drop = [] if os.geteuid() != 0 else ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if drop and shutil.which("setpriv") is None:
        pytest.skip("runs as root and setpriv is not installed")
    model = Path("/tmp") / f"hues-test-model-{os.getpid()}"  # readable by nobody, unlike tmp_path
    model.write_text(PI4 + "\0")
    model.chmod(0o644)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HUES_")}
    env["HUES_PI_MODEL_FILE"] = str(model)
    try:
        result = subprocess.run([*drop, "bash", str(INSTALLER)], env=env, capture_output=True, text=True)
    finally:
        model.unlink()
    if "Permission denied" in result.stderr:
        pytest.skip("the checkout is not readable by nobody")
    assert result.returncode == 1
    assert result.stderr.startswith("install-pi: installing needs root: run sudo ")


# --- the systemd unit ------------------------------------------------------------------------


def unit_keys(path: Path) -> dict[str, dict[str, list[str]]]:
    """Section -> key -> every value given (systemd keys may repeat, e.g. DeviceAllow=)."""
    sections: dict[str, dict[str, list[str]]] = {}
    section = None
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            section = sections.setdefault(line[1:-1], {})
        elif line and not line.startswith(("#", ";")):
            key, sep, value = line.partition("=")
            assert section is not None and sep, f"{path.name}: {line!r} is not key=value in a section"
            section.setdefault(key.strip(), []).append(value.strip())
    return sections


def one(sections, section: str, key: str) -> str:
    values = sections[section][key]
    assert len(values) == 1, f"{key} given {len(values)} times"
    return values[0]


def test_unit_runs_the_console_after_redis_restarts_it_and_stops_it_with_sigterm():
    unit = unit_keys(UNIT)
    assert "redis-server.service" in one(unit, "Unit", "After").split()
    assert "redis-server.service" in one(unit, "Unit", "Wants").split()
    home = re.search(r"^HOME_DIR=(\S+)$", INSTALLER.read_text(), re.M).group(1)
    assert re.search(r"^VENV=\$HOME_DIR/current\b", INSTALLER.read_text(), re.M)
    assert one(unit, "Service", "ExecStart") == f"{home}/current/bin/hues-console play"
    # Type=notify: ready at the first frame, killed and restarted if frames stop (the watchdog).
    assert one(unit, "Service", "Type") == "notify"
    assert 5 <= int(one(unit, "Service", "WatchdogSec")) <= 30
    assert "network-online.target" not in UNIT.read_text().replace("no network-online.target", "")
    assert one(unit, "Install", "WantedBy") == "multi-user.target"
    assert one(unit, "Service", "Restart") == "on-failure"
    assert int(one(unit, "Service", "RestartSec")) > 0
    assert int(one(unit, "Unit", "StartLimitIntervalSec")) > 0 < int(one(unit, "Unit", "StartLimitBurst"))
    assert one(unit, "Service", "RestartPreventExitStatus") == str(EXIT_USAGE)
    assert set(unit_keys(SYSTEMD / "restart-backoff.conf")["Service"]) == {"RestartSteps",
                                                                          "RestartMaxDelaySec"}
    assert one(unit, "Service", "KillSignal") == "SIGTERM"
    # SIGTERM clears the panel and flushes the store for up to flush_s before the console exits.
    flush_s = inspect.signature(ConsoleApp.close).parameters["flush_s"].default
    assert int(one(unit, "Service", "TimeoutStopSec")) > flush_s + 2
    assert one(unit, "Service", "StandardOutput") == "journal"


def test_unit_is_hardened_with_a_closed_device_list():
    service = unit_keys(UNIT)["Service"]
    for key, value in [("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"),
                       ("PrivateTmp", "yes"), ("ProtectKernelTunables", "yes"),
                       ("ProtectKernelModules", "yes"), ("DevicePolicy", "closed"),
                       ("CapabilityBoundingSet", "")]:
        assert service[key] == [value], key
    assert service["DeviceAllow"] == ["char-gpiochip rw"]  # the buttons; the LEDs come by drop-in
    # ProtectSystem=strict leaves only the runtime directory writable: lgpio's pipes go there.
    assert service["WorkingDirectory"] == [f"/run/{service['RuntimeDirectory'][0]}"]
    assert "User" not in service


def test_driver_drop_ins_grant_only_what_each_driver_needs():
    ws281x = unit_keys(SYSTEMD / "driver-ws281x.conf")["Service"]  # root for /dev/mem
    # No CAP_SYS_BOOT: logind powers off for root by its uid (the container stage shows it).
    assert ws281x["User"] == ["root"] and ws281x["CapabilityBoundingSet"] == ["CAP_SYS_RAWIO"]
    assert {"/dev/mem rw", "/dev/vcio rw"} <= set(ws281x["DeviceAllow"])
    assert not any("leds0" in d or "spidev" in d for d in ws281x["DeviceAllow"])  # spidev: SPI only
    spi = unit_keys(SYSTEMD / "driver-ws281x-spi.conf")["Service"]  # no root on SPI
    assert spi["User"] == ["hues"] and spi["DeviceAllow"] == ["/dev/spidev0.0 rw", "/dev/gpiomem rw"]
    assert "CapabilityBoundingSet" not in spi
    leds_dev = unit_keys(SYSTEMD / "driver-leds-dev.conf")
    service = leds_dev["Service"]  # no privilege at all
    assert service["User"] == ["hues"] and service["Group"] == ["gpio"]
    assert service["DeviceAllow"] == [f"{DEFAULT.driver.leds_dev.device} rw"]
    assert "CapabilityBoundingSet" not in service  # none, from the main unit
    # Other users show as nobody where there is no capability to lose; root keeps the host's
    # users, as a user namespace would void its CAP_SYS_RAWIO for /dev/mem.
    assert service["PrivateUsers"] == spi["PrivateUsers"] == ["yes"] and "PrivateUsers" not in ws281x
    # /dev/leds0 is made by udev after boot: the service follows its device unit.
    assert leds_dev["Unit"]["Wants"] == leds_dev["Unit"]["After"] == ["dev-leds0.device"]


# (driver, with the phones' server on (web.conf, hues-console.socket), the most exposure allowed).
# The ws281x driver runs as root for /dev/mem, which no setting a root process with CAP_SYS_RAWIO
# keeps can win back (PrivateUsers= and PrivateDevices= take that capability away). With the
# phones on, the service takes its socket from systemd and has no network (the goals of #19:
# 1.5 for ws281x, 1.0 for the others).
EXPOSURE = [("ws281x", False, 1.8), ("ws281x", True, 1.5), ("ws281x-spi", False, 1.1),
            ("ws281x-spi", True, 1.0), ("leds-dev", False, 1.1), ("leds-dev", True, 1.0)]


def lay_out_units(unit_dir: Path, driver: str, web: bool, exec_start: str | None = None) -> None:
    """The unit files as the installer lays them out in /etc/systemd/system for `driver`, with
    the phones on the network when `web` (ExecStart replaced when given: no venv here)."""
    dropins = unit_dir / "hues-console.service.d"
    dropins.mkdir(parents=True)
    unit = UNIT.read_text()
    if exec_start:
        unit = re.sub(r"^ExecStart=.*$", f"ExecStart={exec_start}", unit, flags=re.M)
    (unit_dir / UNIT.name).write_text(unit)
    shutil.copy(SYSTEMD / f"driver-{driver}.conf", dropins / "driver.conf")
    if web:
        shutil.copy(SYSTEMD / "web.conf", dropins / "web.conf")
        shutil.copy(SYSTEMD / "hues-console.socket", unit_dir)
        (unit_dir / "hues-console.socket.d").mkdir()
        shutil.copy(SYSTEMD / "web-lan.conf", unit_dir / "hues-console.socket.d/lan.conf")


def exposure(root: Path) -> tuple[float, str]:
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", f"--root={root}",
                             "hues-console.service"], capture_output=True, text=True, timeout=60)
    score = re.search(r"Overall exposure level for hues-console\.service: (\d+\.\d)", result.stdout)
    assert score, result.stdout + result.stderr
    return float(score.group(1)), result.stdout


@pytest.mark.parametrize("driver, web, most", EXPOSURE)
def test_the_shipped_unit_scores_as_promised_by_systemd_analyze_security(tmp_path, driver, web, most):
    """systemd-analyze security --offline=true on the files as the installer lays them out."""
    lay_out_units(tmp_path / "etc/systemd/system", driver, web)
    score, report = exposure(tmp_path)
    assert score <= most, report
    assert "Service defines IP address allow list with only localhost entries" in report
    network = "Service has no access to the host's network" if web else "Service has access to the host's network"
    assert network in report  # web.conf was read


@pytest.mark.parametrize("driver, web", [(driver, web) for driver, web, _ in EXPOSURE])
def test_systemd_analyze_verifies_the_unit_with_each_driver(tmp_path, driver, web):
    """The units as installed, with ExecStart pointed at /bin/true (the venv is not here)."""
    lay_out_units(tmp_path, driver, web, exec_start="/bin/true")
    version = subprocess.run(["systemctl", "--version"], capture_output=True, text=True).stdout.split()
    if len(version) > 1 and version[1].isdigit() and int(version[1]) >= 254:  # RestartSteps= exists
        shutil.copy(SYSTEMD / "restart-backoff.conf", tmp_path / "hues-console.service.d/restart-backoff.conf")
    units = [tmp_path / UNIT.name] + ([tmp_path / "hues-console.socket"] if web else [])
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", *map(str, units)],
                            capture_output=True, text=True, timeout=60)
    ours = [line for line in (result.stdout + result.stderr).splitlines() if str(tmp_path) in line]
    assert result.returncode == 0 and ours == [], result.stdout + result.stderr


# --- the maker's guide -----------------------------------------------------------------------

# BCM GPIO -> pin of the 40-pin header.
HEADER_PIN = {2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19,
              9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35,
              16: 36, 26: 37, 20: 38, 21: 40}
GROUND_PINS = {6, 9, 14, 20, 25, 30, 34, 39}
BUTTON_ROWS = {"up": "Joystick up", "down": "Joystick down", "left": "Joystick left",
               "right": "Joystick right", "a": "Button A", "b": "Button B", "start": "Start"}


def guide_section(heading: str) -> str:
    text = MAKERS.read_text()
    start = text.index(f"\n{heading}\n")
    level = heading.split(" ")[0]
    end = text.find(f"\n{level} ", start + len(heading) + 2)
    return text[start:end if end >= 0 else None]


def table_rows(section: str) -> dict[str, list[str]]:
    rows = {}
    for line in section.splitlines():
        if line.startswith("|") and not line.startswith("| ---"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows[cells[0]] = cells[1:]
    return rows


def row_for(rows: dict[str, list[str]], label: str) -> list[str]:
    matches = [cells for name, cells in rows.items() if name == label or name.startswith(label + " ")]
    assert len(matches) == 1, f"expected one pin table row for {label!r}"
    return matches[0]


def test_pin_table_matches_the_default_config_with_the_shutdown_hold():
    rows = table_rows(guide_section("### Pin table"))
    for button, label in BUTTON_ROWS.items():
        pin = getattr(DEFAULT.input.pins, button)
        gpio, header, other = row_for(rows, label)
        assert (gpio, header) == (f"GPIO {pin}", str(HEADER_PIN[pin])), label
        grounds = {int(n) for n in re.findall(r"header pin (\d+)", other)}
        assert grounds and grounds <= GROUND_PINS, label
    led_pin = DEFAULT.driver.ws281x.pin
    assert DEFAULT.driver.leds_dev.pin == led_pin, "the guide shows one LED data pin for every Pi"
    assert row_for(rows, "LED data")[:2] == [f"GPIO {led_pin}", str(HEADER_PIN[led_pin])]
    shutdown = DEFAULT.input.shutdown
    assert shutdown.enabled
    label = BUTTON_ROWS[shutdown.button]
    name = next(name for name in rows if name.startswith("Shutdown"))
    assert f"hold {label} for {shutdown.hold_s:g} s" in name
    pin = getattr(DEFAULT.input.pins, shutdown.button)
    assert rows[name][:2] == [f"GPIO {pin}", str(HEADER_PIN[pin])]


def drawing() -> str:
    section = guide_section("### The default wiring, drawn")
    return section.split("```")[1]


def test_drawing_shows_the_chain_order_and_data_pin_of_the_default_panels():
    """Each drawn panel row lists the chain positions at the panels' left and right edges, and
    its arrows point the way the chain runs."""
    layout = Layout(DEFAULT.panel)
    assert (layout.width, layout.height) == (32, 16) and DEFAULT.panel.panel_width == 16

    def chain(x: int, y: int) -> int:
        return layout.chain_index[y * layout.width + x]

    expected = {y: [chain(0, y), chain(15, y), chain(16, y), chain(31, y)] for y in range(16)}
    drawn_rows = set()
    for line in drawing().splitlines():
        numbers = [int(n) for n in re.findall(r"\d+", line)]
        if len(numbers) != 4 or "|" not in line:
            continue
        y = next((y for y, row in expected.items() if row == numbers), None)
        assert y is not None, f"drawn row {line.strip()!r} is not a row of the default panels"
        cells = [cell for cell in line.split("|") if re.search(r"\d", cell)]  # panel 1, panel 2
        for cell, left, right in zip(cells, (0, 16), (15, 31)):
            runs = "->" if chain(right, y) > chain(left, y) else "<-"
            assert set(re.findall(r"->|<-", cell)) == {runs}, f"row {y} runs {runs}: {line.strip()!r}"
        drawn_rows.add(y)
    assert {0, 1, 15} <= drawn_rows
    assert f"GPIO {DEFAULT.driver.ws281x.pin} (pin {HEADER_PIN[DEFAULT.driver.ws281x.pin]})" in drawing()

def test_guide_names_the_supply_and_the_pi5_overlay_of_the_default_config():
    text = MAKERS.read_text()
    assert f"5 V {DEFAULT.power.supply_amps:g} A" in text
    assert f"`pi_ma` = {DEFAULT.power.pi_ma:g} mA" in text
    assert overlay_line(DEFAULT) in text


# --- releases, umask, boot partition, SD card -------------------------------------------------


def test_under_umask_000_nothing_installed_is_world_writable(pi5):
    ok(pi5.install(umask=0o000))
    writable = [str(p.relative_to(pi5.root)) for p in pi5.root.rglob("*")
                if not p.is_symlink() and p.stat().st_mode & stat.S_IWOTH]
    assert writable == []


def test_a_new_release_is_swapped_in_and_the_old_one_can_come_back(pi4, tmp_path):
    ok(pi4.install())
    home = pi4.root / "opt/hues-console"
    first = os.readlink(home / "current")
    assert (pi4.root / first.lstrip("/") / ".complete").exists()
    # The next release: the same installer run from a changed checkout.
    checkout = tmp_path / "checkout"
    shutil.copytree(REPO, checkout, ignore=shutil.ignore_patterns(".venv", ".git", "__pycache__", ".*cache"))
    (checkout / "console/__init__.py").write_text((checkout / "console/__init__.py").read_text() + "\n")
    pi4.log.write_text("")
    env = dict(os.environ, HUES_INSTALL_ROOT=str(pi4.root), HUES_INSTALL_PYTHON=sys.executable,
               HUES_TEST_LOG=str(pi4.log), HUES_TEST_SYSTEMD="252", PATH=f"{pi4.bin}:{os.environ['PATH']}")
    result = subprocess.run([str(checkout / "scripts/install-pi")], env=env, stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=60)
    ok(result)
    second = os.readlink(home / "current")
    assert second != first and os.readlink(home / "previous") == first
    assert sorted(p.name for p in (home / "releases").iterdir()) == sorted([first[-12:], second[-12:]])

    lines = ok(pi4.install("--rollback"))
    assert os.readlink(home / "current") == first and os.readlink(home / "previous") == second
    assert f"==> back to release {first}" in lines
    assert pi4.commands()[-1] == "systemctl restart hues-console.service"


def test_rollback_without_an_earlier_release_says_so(pi4):
    ok(pi4.install())
    result = pi4.install("--rollback")
    assert result.returncode == 1 and "there is no earlier release to go back to" in result.stderr


def test_the_old_single_venv_layout_is_cleared_after_the_swap(pi4):
    pi4.write("opt/hues-console/pyvenv.cfg", "home = /usr/bin\n")
    pi4.write("opt/hues-console/bin/hues-console", "#!/bin/sh\n")
    ok(pi4.install())
    home = pi4.root / "opt/hues-console"
    assert sorted(p.name for p in home.iterdir()) == ["current", "releases"]


def test_a_pi5_whose_kernel_lacks_the_overlay_is_told_to_upgrade(pi5):
    (pi5.root / "boot/firmware/overlays/ws2812-pio.dtbo").unlink()
    result = pi5.install()
    assert result.returncode == 1
    assert "no ws2812-pio overlay" in result.stderr and "sudo apt full-upgrade" in result.stderr
    assert "systemctl enable hues-console.service" not in pi5.commands()


@pytest.mark.parametrize("model, clocks", [
    (PI4, ["core_freq=500", "core_freq_min=500"]),
    ("Raspberry Pi 3 Model B Plus Rev 1.3", ["core_freq=250"]),
])
def test_gpio_10_sets_up_spi_for_the_unprivileged_spi_variant(tmp_path, model, clocks):
    pi = FakePi(tmp_path, model)
    pi.write(ETC_CONFIG, "driver:\n  ws281x:\n    pin: 10\nstore:\n  url: redis://localhost:6379/0\n")
    lines = ok(pi.install())
    boot = pi.read(BOOT_CONFIG).splitlines()
    assert "dtparam=spi=on" in boot and all(clock in boot for clock in clocks)
    assert "dtparam=audio=on" in boot  # the sound stays
    assert pi.read(BOOT_CMDLINE) == CMDLINE.rstrip("\n") + " spidev.bufsiz=32768\n"
    assert (pi.root / "etc/systemd/system/hues-console.service.d/driver.conf").read_text() == (
        SYSTEMD / "driver-ws281x-spi.conf").read_text()
    assert "useradd --system --user-group --groups gpio,spi --no-create-home --home-dir /nonexistent " \
           "--shell /usr/sbin/nologin hues" in pi.commands()
    assert (pi.root / "etc/polkit-1/rules.d/60-hues-console-poweroff.rules").exists()
    assert "Reboot to finish (for SPI for the LEDs): sudo reboot" in lines
    assert "sync" in map(str.strip, pi.commands())
    first = pi.snapshot()
    ok(pi.install())
    assert pi.snapshot() == first  # cmdline.txt keeps one spidev.bufsiz


def test_the_sd_card_gets_a_bounded_journal_and_no_swap(pi4):
    ok(pi4.install())
    journal = pi4.read("etc/systemd/journald.conf.d/hues-console.conf")
    assert "SystemMaxUse=32M" in journal and "SyncIntervalSec=5min" in journal
    assert "systemctl disable --now dphys-swapfile.service" in pi4.commands()


def test_the_pinned_requirements_and_the_os_cover_every_dependency():
    """Each dependency of pyproject.toml (and the pi extra) is pinned with a hash in
    requirements/pi.txt or comes from Raspberry Pi OS (apt) as the installer says."""
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["pi"]
    names = {re.match(r"[A-Za-z0-9_.-]+", spec).group().lower().replace("_", "-") for spec in wanted}
    text = (REPO / "requirements/pi.txt").read_text()
    pinned = dict(re.findall(r"^([a-z0-9-]+)==(\S+) \\\n +--hash=sha256:[0-9a-f]{64}", text, re.M))
    from_apt = {"pyyaml": "python3-yaml", "pillow": "python3-pil"}
    apt = re.search(r"^APT_PACKAGES=\((.*)\)", INSTALLER.read_text(), re.M).group(1).split()
    assert all(package in apt for package in from_apt.values())
    assert names - set(pinned) - set(from_apt) == set()
    assert not any(line.strip() and not line.startswith(("#", " ")) and "==" not in line
                   for line in text.splitlines())  # every requirement is pinned


def test_a_pi3_the_binding_does_not_know_is_named_at_install_time(tmp_path):
    pi = FakePi(tmp_path, "Raspberry Pi 3 Model B Rev 1.2")
    (pi.root / "proc/device-tree/system").mkdir(parents=True)
    (pi.root / "proc/device-tree/system/linux,revision").write_bytes(bytes.fromhex("00a52082"))
    result = pi.install("--dry-run")
    assert result.returncode == 0
    assert "note: rpi-ws281x 5.0.0 does not know this board (Raspberry Pi 3 Model B Rev 1.2, " \
           "revision 0xa52082;" in result.stderr and "docs/MAKERS.md" in result.stderr


def test_the_sticker_works_on_the_installed_config(pi4, capsys):
    from console.commands.main import main

    ok(pi4.install())
    out = pi4.root / "sticker.svg"
    assert main(["sticker", "--config", str(pi4.root / ETC_CONFIG), "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"{out}: a QR code for http://") and out.exists()

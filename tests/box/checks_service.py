"""The box installed and running: the installer, Redis with the hues drop-in, the console READY
under its full hardening with each driver drop-in, the Pi's extension modules under the same
sandbox, systemd-analyze security on the running units, the phones' IP filter, and the time from
power-on to the first frame. Each function is one check of tests/box/stage.py: it returns what it
proved, in a line, or raises what it found."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
import time
from pathlib import Path

from tests.box.root import BoxError
from tests.box.stage import BOX_CONFIG, REPO, LED_COUNT, box_config, installed_config

PI5, PI4 = "Raspberry Pi 5", "Raspberry Pi 4 Model B"
REDIS_CLI = ("redis-cli", "-s", "/run/redis/redis-server.sock", "--user", "hues", "--pass", "-", "--no-auth-warning")
IMPORTS = "/usr/local/lib/hues-box/imports.py"
IMPORTS_DROPIN = "/etc/systemd/system/hues-console.service.d/zz-box-imports.conf"
# Exposure offline (tests/box/test_install.py, EXPOSURE: at most) for each variant with the phones on.
PROMISED = {"leds-dev": 1.0, "ws281x-spi": 1.0, "ws281x": 1.5, "network": 1.2}


def redis(stage, *command: str) -> str:
    return stage.box.run(*REDIS_CLI, *command).stdout.strip()


def console_up(stage, timeout: float = 60) -> dict:
    """Waits until hues-console.service is active (Type=notify: READY=1 came); its properties."""
    def up():
        shown = stage.box.show("hues-console.service", "ActiveState", "SubState", "MainPID", "NRestarts", "Result")
        if shown["ActiveState"] == "failed":
            raise BoxError("hues-console.service failed: " + journal(stage, 15))
        return shown if shown["ActiveState"] == "active" and shown["SubState"] == "running" else None
    return stage.box.wait_for("hues-console.service to be READY", up, timeout)


def journal(stage, lines: int, unit: str = "hues-console.service") -> str:
    return stage.box.run("journalctl", "-b", "-o", "cat", "-n", str(lines), "-u", unit, check=False).stdout


def process_status(stage, pid: str) -> dict[str, str]:
    text = stage.box.run("cat", f"/proc/{pid}/status").stdout
    return dict(line.split(":\t", 1) for line in text.splitlines() if ":\t" in line)


# --- the checks -----------------------------------------------------------------------------------

def install_without_hardware(stage) -> str:
    boot_s = stage.box.boot()
    stage.figure("first_boot_to_running_s", round(boot_s, 2))
    started = time.monotonic()
    output = stage.install(PI5)
    stage.figure("install_s", round(time.monotonic() - started, 1))
    assert f"No hardware (--no-hardware): installing for a {PI5}" in output, output[-2000:]
    assert "skipped (--no-hardware): on the Pi this step edits /boot/firmware" in output
    installed = stage.box.file("/etc/hues-console/console.yaml").read_text()
    assert box_config(installed) == stage.box.file(BOX_CONFIG).read_text(), "the installer's console.yaml changed"
    assert installed == installed_config((REPO / "config/console.yaml").read_text()), "install-pi's console.yaml changed"
    for path in ("/etc/systemd/system/hues-console.service", "/etc/systemd/system/hues-console.socket",
                 "/etc/udev/rules.d/60-hues-console-leds.rules", "/etc/polkit-1/rules.d/60-hues-console-poweroff.rules"):
        assert stage.box.file(path).exists(), f"{path} was not installed"
    assert not stage.box.file("/boot/firmware/config.txt").exists()
    console_up(stage)
    return (f"booted in {boot_s:.2f} s; install-pi --no-hardware '{PI5}' with pip offline took "
            f"{time.monotonic() - started:.0f} s, left /boot alone and started the console")


def redis_with_the_hues_dropin(stage) -> str:
    box = stage.box
    shown = box.show("redis-server.service", "ActiveState", "DropInPaths", "ExecStartPre", "TimeoutStopUSec")
    assert shown["ActiveState"] == "active", shown
    assert "/etc/systemd/system/redis-server.service.d/hues-console.conf" in shown["DropInPaths"], shown
    assert "/usr/local/lib/hues-console/redis-repair-aof" in shown["ExecStartPre"], shown
    assert shown["TimeoutStopUSec"] == "30s", shown
    conf = box.file("/etc/redis/redis.conf").read_text().rstrip("\n").splitlines()
    assert conf[-1] == "include /etc/redis/redis-hues.conf", conf[-3:]
    assert redis(stage, "PING") == "PONG"
    settings = {name: (redis(stage, "CONFIG", "GET", name).split("\n") + [""])[1]
                for name in ("appendonly", "appendfsync", "port", "unixsocketperm", "maxmemory-policy", "save")}
    assert settings == {"appendonly": "yes", "appendfsync": "always", "port": "0", "unixsocketperm": "770",
                        "maxmemory-policy": "noeviction", "save": ""}, settings
    for refused in (("KEYS", "*"), ("SCAN", "0"), ("DBSIZE",), ("SELECT", "1"), ("FLUSHALL",), ("CONFIG", "SET", "save", "1 1")):
        answer = redis(stage, *refused)
        assert "NOPERM" in answer, f"{' '.join(refused)} was not refused: {answer}"
    mode = box.run("stat", "-c", "%a %U %G", "/run/redis/redis-server.sock").stdout.split()
    assert mode == ["770", "redis", "redis"], mode
    listening = [line.split()[1] for line in box.run("cat", "/proc/net/tcp", "/proc/net/tcp6").stdout.splitlines()[1:]
                 if line.split()[3] == "0A"]
    assert all(address.endswith(":1F90") for address in listening), f"TCP listeners besides 8080: {listening}"
    manifest = box.run("cat", "/var/lib/redis/appendonlydir/appendonly.aof.manifest").stdout
    assert "type i" in manifest, manifest
    return ("redis-server runs with hues-console.conf (ExecStartPre repair, TimeoutStopSec=30) and "
            f"redis-hues.conf: {settings}; a unix socket 770 redis:redis, no TCP; the hues user is "
            "refused KEYS, SCAN, DBSIZE, SELECT, FLUSHALL and CONFIG SET; the AOF manifest is there")


def ready_under_full_hardening(stage, variant: str = "leds-dev") -> str:
    shown = console_up(stage)
    status = process_status(stage, shown["MainPID"])
    props = stage.box.show("hues-console.service", "User", "PrivateUsers", "PrivateNetwork", "ProtectSystem",
                           "MemoryDenyWriteExecute", "CapabilityBoundingSet", "DevicePolicy", "DropInPaths")
    assert "driver.conf" in props["DropInPaths"] and "web.conf" in props["DropInPaths"], props
    assert status["NoNewPrivs"].strip() == "1" and status["Seccomp"].strip() == "2", status
    expected_caps = {"ws281x": "0000000000020000"}.get(variant, "0000000000000000")  # CAP_SYS_RAWIO is bit 17
    assert status["CapBnd"].strip() == expected_caps, f"bounding set {status['CapBnd']} under {variant}"
    uid_map = stage.box.run("cat", f"/proc/{shown['MainPID']}/uid_map").stdout.split()
    if variant == "ws281x":
        assert props["User"] in ("", "root") and uid_map[:3] == ["0", "0", "4294967295"], (props, uid_map)
    else:
        assert props["User"] == "hues" and props["PrivateUsers"] == "yes" and len(uid_map) == 6, (props, uid_map)
    assert props["PrivateNetwork"] == "yes" and props["MemoryDenyWriteExecute"] == "yes", props
    assert props["ProtectSystem"] == "strict" and props["DevicePolicy"] == "closed", props
    stage.box.wait_for("a frame in /dev/leds0", lambda: len(stage.leds()) == LED_COUNT * 4 or None, 10)
    return (f"{variant}: READY (active/running), uid_map {' '.join(uid_map)}, CapBnd {status['CapBnd'].strip()}, "
            f"NoNewPrivs 1, seccomp on, PrivateNetwork, MemoryDenyWriteExecute; frames of {LED_COUNT * 4} bytes "
            f"reach the /dev/leds0 stand-in")


IMPORT_CHECK = r'''
import json, sys
found = {}
def attempt(name, how):
    try:
        found[name] = how()
    except ImportError as error:
        found[name] = f"not installed: {error}"
    except Exception as error:
        found[name] = f"{type(error).__name__}: {error}"
def lgpio_():
    import lgpio
    try:
        lgpio.gpiochip_open(0)
        return "imported; chip 0 opened"
    except lgpio.error as error:
        return f"imported, version {lgpio.LGPIO_PY_VERSION:#x}; gpiochip_open(0): {error} (no GPIO chip here)"
def ws281x_():
    import _rpi_ws281x as ws
    leds = ws.new_ws2811_t()
    channel = ws.ws2811_channel_get(leds, 0)
    ws.ws2811_channel_t_count_set(channel, 4)
    ws.ws2811_channel_t_gpionum_set(channel, 18)
    ws.ws2811_t_freq_set(leds, 800000)
    ws.ws2811_t_dmanum_set(leds, 10)
    code = ws.ws2811_init(leds)
    ws.delete_ws2811_t(leds)
    return f"imported; ws2811_init: {code} {ws.ws2811_get_return_t_str(code)!r} (no BCM283x peripherals on x86)"
def spidev_():
    import spidev
    return "imported"
def pillow():
    from PIL import Image, ImageDraw
    image = Image.new("RGB", (32, 16))
    ImageDraw.Draw(image).text((0, 0), "Hi", fill=(255, 0, 0))
    image.resize((320, 160), Image.LANCZOS).convert("P", palette=Image.ADAPTIVE).tobytes()
    import PIL
    return f"imported {PIL.__version__}; drew, resized and quantised a frame"
for name, how in (("lgpio", lgpio_), ("rpi_ws281x", ws281x_), ("spidev", spidev_), ("Pillow", pillow)):
    attempt(name, how)
print("hues-box-imports " + json.dumps(found), flush=True)
'''


def extension_modules(stage, variant: str = "leds-dev") -> str:
    """Each extension module the Pi's console imports, imported (and called) by an ExecStartPre= of
    the service itself: the unit's whole sandbox (MemoryDenyWriteExecute, PrivateUsers, the system
    call filter) and the driver drop-in's user."""
    box = stage.box
    script = box.file(IMPORTS)
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(IMPORT_CHECK)
    dropin = box.file(IMPORTS_DROPIN)
    dropin.write_text(f"[Service]\nExecStartPre=/opt/hues-console/current/bin/python {IMPORTS}\n")
    try:
        box.run("systemctl", "daemon-reload")
        box.run("systemctl", "restart", "hues-console.service", timeout=90)
        line = next(l for l in journal(stage, 400).splitlines() if l.startswith("hues-box-imports "))
    finally:
        dropin.unlink()
        box.run("systemctl", "daemon-reload")
    found = json.loads(line.split(" ", 1)[1])
    assert found["lgpio"].startswith("imported"), found
    assert found["rpi_ws281x"].startswith("imported; ws2811_init: -"), found
    assert found["Pillow"].startswith("imported"), found
    assert found["spidev"].startswith(("imported", "not installed")), found
    stage.figure(f"imports_{variant}", found)
    return f"{variant}: " + "; ".join(f"{name}: {what}" for name, what in found.items())


def exposure_online_and_offline(stage, variant: str = "leds-dev") -> str:
    """systemd-analyze security on the running unit in the box, and --offline on the same files
    here (tests/box/test_install.py's figures come from the offline one)."""
    box = stage.box
    online = box.run("systemd-analyze", "security", "--no-pager", "hues-console.service", check=False).stdout
    with tempfile.TemporaryDirectory() as scratch:
        units = Path(scratch, "etc/systemd/system")
        units.parent.mkdir(parents=True)
        subprocess.run(["cp", "-a", str(box.file("/etc/systemd/system")), str(units)], check=True)
        for name in ("hues-console.service", "hues-console.socket"):
            if not (units / name).exists():
                subprocess.run(["cp", str(stage.box.root / "etc/systemd/system" / name), str(units)], check=False)
        offline = subprocess.run(["systemd-analyze", "security", "--offline=true", f"--root={scratch}",
                                  "--no-pager", "hues-console.service"], capture_output=True, text=True).stdout

    def score(report: str) -> float:
        found = re.search(r"Overall exposure level for hues-console\.service: (\d+\.\d)", report)
        assert found, report[-2000:]
        return float(found.group(1))

    def marks(report: str) -> dict[str, str]:
        return {line[2:].split("  ")[0].strip(): line[:1] for line in report.splitlines() if line[:1] in "✓✗"}

    differ = {name: (mark, marks(offline).get(name)) for name, mark in marks(online).items()
              if marks(offline).get(name) != mark}
    stage.figure(f"exposure_{variant}", {"online": score(online), "offline": score(offline)})
    assert score(online) == score(offline), f"online {score(online)}, offline {score(offline)}: {differ}"
    assert not differ, differ
    assert score(online) <= PROMISED[variant], online
    return (f"{variant} with the phones on: {score(online)} on the running unit, {score(offline)} offline "
            f"(goal {PROMISED[variant]}), every line alike")


def other_drivers(stage) -> str:
    """The ws281x drop-ins (SPI as `hues`, PWM as root with CAP_SYS_RAWIO) installed by the real
    installer for a Pi 4: READY, imports and exposure under each; rpi-ws281x cannot start on x86,
    so the console drives the /dev/leds0 stand-in (box.yaml) under their sandbox. As root the
    Start hold powers the box off too, without CAP_SYS_BOOT (logind decides by the uid)."""
    config = stage.box.file("/etc/hues-console/console.yaml")
    original = config.read_text()
    said = []
    try:
        for variant, pin in (("ws281x-spi", 10), ("ws281x", 18)):
            config.write_text(re.sub(r"^(    pin: )18 ", rf"\g<1>{pin} ", original, count=1, flags=re.M))
            output = stage.install(PI4)
            assert f"systemd service ({variant} variant)" in output, output[-1500:]
            said.append(ready_under_full_hardening(stage, variant))
            said.append(extension_modules(stage, variant))
            said.append(exposure_online_and_offline(stage, variant))
        from tests.box.checks_power import hold_start_to_power_off

        said.append(hold_start_to_power_off(stage, "root", "0000000000020000"))  # CAP_SYS_RAWIO only
        stage.box.boot()
    finally:
        config.write_text(original)
        if not stage.box.running():
            stage.box.boot()
        stage.install(PI5)
    console_up(stage)
    return " | ".join(said)


CHECKS = [
    ("install_without_hardware", install_without_hardware),
    ("redis_with_the_hues_dropin", redis_with_the_hues_dropin),
    ("ready_under_full_hardening", ready_under_full_hardening),
    ("extension_modules_under_the_sandbox", extension_modules),
    ("exposure_online_agrees_with_offline", exposure_online_and_offline),
    ("other_driver_dropins", other_drivers),
]

"""The unprivileged drivers' device nodes, made by udev some time after boot: the service may only
open a node that exists when it starts (DeviceAllow= lists only those), so each drop-in wants and
follows the device unit of every node it allows, and the installer's udev rule tags each such node
for systemd (TAG+="systemd"), without which that unit never appears. A node that is still late is
exit 75 (tests/hal/test_drivers.py), which systemd restarts. (The root ws281x variant's /dev/mem,
/dev/vcio and /dev/gpiomem are the kernel's own, there before any service starts.)"""

from __future__ import annotations

import fnmatch
import re
import subprocess

import pytest

from tests.box.test_install import ETC_CONFIG, PI4, PI5, SYSTEMD, FakePi, ok, unit_keys

# (model, the console.yaml the host has, the drop-in, the installer's udev rule)
VARIANTS = [
    (PI5, None, "driver-leds-dev.conf", "etc/udev/rules.d/60-hues-console-leds.rules"),
    (PI4, "driver:\n  ws281x:\n    pin: 10\n", "driver-ws281x-spi.conf", "etc/udev/rules.d/60-hues-console-spi.rules"),
]
# The nodes' udev match as the kernel names them: the ws2812-pio class (drivers/misc/ws2812-pio-rp1.c),
# spidev's class, the gpiomem driver's (bcm2835-gpiomem or rpi-gpiomem; Raspberry Pi OS's
# 99-com.rules matches both as *gpiomem*).
KERNEL_NAMES = {"/dev/leds0": ("ws2812-pio-rp1", "leds0"), "/dev/spidev0.0": ("spidev", "spidev0.0"),
                "/dev/gpiomem": ("rpi-gpiomem", "gpiomem")}


def device_unit(path: str) -> str:
    return subprocess.run(["systemd-escape", "--path", "--suffix=device", path], capture_output=True,
                          text=True, check=True).stdout.strip()


def rule_tags(rule: str, subsystem: str, kernel: str) -> bool:
    """Whether a line of the udev rule matches the node and adds the systemd tag (udev's glob)."""
    for line in rule.splitlines():
        if line.startswith("#") or 'TAG+="systemd"' not in line:
            continue
        keys = dict(re.findall(r'(SUBSYSTEM|KERNEL)=="([^"]+)"', line))
        if fnmatch.fnmatch(subsystem, keys.get("SUBSYSTEM", "*")) and fnmatch.fnmatch(kernel, keys.get("KERNEL", "*")):
            return True
    return False


@pytest.mark.parametrize("model, config, dropin, rule_path", VARIANTS)
def test_the_service_waits_for_every_node_it_may_open(tmp_path, model, config, dropin, rule_path):
    pi = FakePi(tmp_path, model)
    if config:
        pi.write(ETC_CONFIG, config)
    ok(pi.install())
    assert pi.read("etc/systemd/system/hues-console.service.d/driver.conf") == (SYSTEMD / dropin).read_text()
    keys = unit_keys(SYSTEMD / dropin)
    nodes = [entry.split()[0] for entry in keys["Service"]["DeviceAllow"] if entry.startswith("/dev/")]
    assert nodes
    wants = " ".join(keys["Unit"]["Wants"]).split()
    after = " ".join(keys["Unit"]["After"]).split()
    rule = pi.read(rule_path)
    for node in nodes:
        assert device_unit(node) in wants and device_unit(node) in after, node
        assert rule_tags(rule, *KERNEL_NAMES[node]), f"{rule_path} does not tag {node} for systemd"
    assert "udevadm control --reload-rules" in pi.commands()


def test_the_gpiomem_rule_matches_both_kernel_drivers():
    installer = (SYSTEMD.parent / "scripts" / "install-pi").read_text()
    rule = "\n".join(line for line in installer.splitlines() if line.startswith("SUBSYSTEM==") and "gpiomem" in line)
    assert rule_tags(rule, "bcm2835-gpiomem", "gpiomem") and rule_tags(rule, "rpi-gpiomem", "gpiomem")

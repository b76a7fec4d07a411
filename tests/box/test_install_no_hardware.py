"""The installer's mode for a root without the Pi's hardware (`--no-hardware MODEL`): the same
install as on that Pi, without the boot partition and without probing the machine. The bookworm
container stage (tests/box) installs with it; here it runs against a staging root as in
tests/box/test_install.py."""

from __future__ import annotations

import shutil

import pytest

from tests.box.test_install import PI4, PI5, FakePi, ok

HARDWARE = ("boot/", "proc/")  # what only a Pi has: its boot partition and its device tree


def staged(path, model: str) -> FakePi:
    path.mkdir()
    return FakePi(path, model)


def without_hardware(pi: FakePi) -> None:
    for top in HARDWARE:
        shutil.rmtree(pi.root / top)


def files(snapshot: dict[str, str]) -> dict[str, str]:
    return {path: text for path, text in snapshot.items() if not path.startswith(HARDWARE)}


@pytest.mark.parametrize("model", [PI4, PI5])
def test_no_hardware_installs_what_the_pi_gets_but_the_boot_partition(tmp_path, model):
    pi = staged(tmp_path / "pi", model)
    ok(pi.install(systemd=252))
    on_the_pi = pi.snapshot()
    pi_commands = pi.commands()
    box = staged(tmp_path / "box", model)
    without_hardware(box)
    lines = ok(box.install("--no-hardware", model, systemd=252))
    assert files(box.snapshot()) == files(on_the_pi)
    assert not (box.root / "boot").exists() and not (box.root / "proc").exists()
    assert any(line.startswith(f"No hardware (--no-hardware): installing for a {model}") for line in lines)
    assert "skipped (--no-hardware): on the Pi this step edits /boot/firmware and the onboard sound" in lines
    # The Pi 5's overlay asks for a reboot; without a boot partition to change, the console (and
    # the phones' socket, new) start at once.
    restarts = ["systemctl restart hues-console.socket", "systemctl restart hues-console.service"]
    commands = [c.replace(str(box.root), "ROOT") for c in box.commands()]
    assert [c for c in commands if c not in restarts] == [
        c.replace(str(pi.root), "ROOT") for c in pi_commands
        if c.strip() not in (*restarts, "sync") and not c.startswith("udevadm")]
    # No udev runs without the hardware (a container, a card being prepared): its rules are
    # installed alike and apply at the Pi's boot.
    assert ("udev not asked (--no-hardware): the rules apply when the Pi boots" in lines) == (model == PI5)
    assert commands[-2:] == restarts


def test_no_hardware_needs_a_pi_model(tmp_path):
    box = FakePi(tmp_path, PI5)
    without_hardware(box)
    result = box.install("--no-hardware", "Dell Inc. XPS 13")
    assert result.returncode == 1 and "names no Raspberry Pi" in result.stderr
    result = box.install("--no-hardware")
    assert result.returncode == 1 and "--no-hardware needs the model" in result.stderr
    assert box.commands() == []

"""The installer on a box that runs: installed again twice before a reboot while a command still
runs from the first release (that release survives until nothing runs from it), and --rollback,
which brings back the release before with its own units, udev rules and polkit rule."""

from __future__ import annotations

from tests.box.checks_service import PI5, console_up
from tests.box.stage import SOURCE

RELEASES = "/opt/hues-console/releases"
MARKED = {  # what release C changes beside its code: a line of each system file it brings
    "systemd/hues-console.service": ("[Unit]\n", "[Unit]\n# release C\n"),
    "scripts/install-pi": ("# hues-console: the ws2812-pio LED device", "# hues-console (release C): the ws2812-pio LED device"),
}
SYSTEM = ("/etc/systemd/system/hues-console.service", "/etc/udev/rules.d/60-hues-console-leds.rules")


def live(stage) -> str:
    return stage.box.run("readlink", "/opt/hues-console/current").stdout.strip()


def runs_from(stage) -> str:
    """The release the console's process runs (its python is the release's own)."""
    pid = console_up(stage)["MainPID"]
    return stage.box.run("cat", f"/proc/{pid}/cmdline").stdout.split("\0")[0].split("/bin/")[0]


def new_release(stage, mark: str, system_files: bool = False) -> None:
    """Changes the checkout in the box so that the installer builds another release."""
    code = stage.box.file(f"{SOURCE}/console/__init__.py")
    code.write_text(code.read_text() + f"# {mark}\n")
    if system_files:
        for name, (old, new) in MARKED.items():
            path = stage.box.file(f"{SOURCE}/{name}")
            text = path.read_text()
            assert old in text, f"{name} has no {old!r} to change"
            path.write_text(text.replace(old, new, 1))


def installer_twice_before_a_reboot(stage) -> str:
    box = stage.box
    first = live(stage)
    box.run("systemd-run", "--unit=terminal-command", "--uid=guest", f"{first}/bin/python", "-c",
            "import time; time.sleep(600)")  # a command a host left running in a terminal
    new_release(stage, "release B")
    stage.install(PI5)
    second = live(stage)
    new_release(stage, "release C", system_files=True)
    output = stage.install(PI5)
    third = live(stage)
    assert len({first, second, third}) == 3, (first, second, third)
    listed = set(box.run("ls", RELEASES).stdout.split())
    assert {p.rsplit("/", 1)[1] for p in (first, second, third)} <= listed, listed
    assert f"keeping {first}: the console still runs from it (until it restarts)" in output, output[-1500:]
    assert box.show("terminal-command.service", "SubState")["SubState"] == "running"
    assert runs_from(stage) == third
    box.run("systemctl", "stop", "terminal-command.service")
    stage.install(PI5)  # the same release again: nothing to build, and the old one can go now
    left = set(box.run("ls", RELEASES).stdout.split())
    assert left == {second.rsplit("/", 1)[1], third.rsplit("/", 1)[1]}, left
    for path in SYSTEM:
        assert "release C" in box.file(path).read_text(), path
    return (f"installed twice more while a command ran from {first.rsplit('/', 1)[1]}: it stayed (said so) "
            f"beside the live {third.rsplit('/', 1)[1]} and the previous {second.rsplit('/', 1)[1]}, "
            "and went at the next install once nothing ran from it; the console runs the new release")


def rollback(stage) -> str:
    box = stage.box
    before = box.run("readlink", "/opt/hues-console/previous").stdout.strip()
    output = stage.install(PI5, "--rollback")
    assert live(stage) == before, (live(stage), before)
    for path in SYSTEM:
        text = box.file(path).read_text()
        assert "release C" not in text, f"{path} still has release C's"
        assert text == box.file(f"{before}/system{path}").read_text(), path
    polkit = "/etc/polkit-1/rules.d/60-hues-console-poweroff.rules"
    assert box.file(polkit).read_text() == box.file(f"{before}/system{polkit}").read_text()
    assert runs_from(stage) == before, "the console was not restarted on the release before"
    assert f"back to release {before}" in output
    return (f"--rollback: {before.rsplit('/', 1)[1]} is live again, the console restarted on it, and the "
            "unit, the udev rule and the polkit rule are its own again (release C's lines gone)")


CHECKS = [
    ("installer_twice_before_a_reboot", installer_twice_before_a_reboot),
    ("rollback_restores_units_udev_polkit", rollback),
]

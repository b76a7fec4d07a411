"""The console on the Pi's processors (tests/box/userland.py): the release built by the real
installer with the OS's gcc for arm64 or armhf, every module of console/ and hal/ imported, the
extension modules loaded and called, and whole games played by the headless simulator to the
state the rules engine planned. Each function is one check of tests/box/stage.py: it returns what
it proved, in a line, or raises what it found."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.box.checks_service import IMPORT_CHECK
from tests.box.root import BoxError
from tests.box.stage import REPO, SOURCE

# The Pi each userland installs for, as /proc/device-tree/model names it: a Pi 4 (QEMU_CPU is its
# core) on the 64-bit OS; a Zero 2 W, a board the 32-bit OS is often flashed for.
MODELS = {"arm64": "Raspberry Pi 4 Model B Rev 1.5", "armhf": "Raspberry Pi Zero 2 W Rev 1.0"}
MACHINES = {"arm64": ("aarch64", "ELF64 AArch64"), "armhf": ("armv7l", "ELF32 ARM hard-float")}
PYTHON = "/opt/hues-console/current/bin/python"
GAMES = [(3, "cards", None, 1), (6, "free", 2, 2)]  # tests/play/test_whole_games.py's first two
IMPORT_ALL = r'''
import importlib, json, pkgutil, platform, warnings
import console, hal
names = ["console", "hal"] + sorted(m.name for p in (console, hal) for m in pkgutil.walk_packages(p.__path__, p.__name__ + "."))
failed = {}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as error:
            failed[name] = f"{type(error).__name__}: {error}"
print(json.dumps({"machine": platform.machine(), "python": platform.python_version(), "modules": names,
                  "failed": failed, "warnings": sorted({f"{w.category.__name__}: {w.message}" for w in caught})}))
'''
EXTENSIONS = r'''
import json, os, _lgpio, _rpi_ws281x, PIL._imaging, websockets.speedups
print(json.dumps({m.__name__: os.path.realpath(m.__file__) for m in (_lgpio, _rpi_ws281x, PIL._imaging, websockets.speedups)}))
'''


def elf(path: Path) -> str:
    """What an ELF file was built for, as `file` says it: class, machine, and ARM's float ABI."""
    head = path.read_bytes()[:40]
    if head[:4] != b"\x7fELF":
        raise BoxError(f"{path} is not an ELF file")
    machine = {3: "x86", 40: "ARM", 62: "x86-64", 183: "AArch64"}.get(int.from_bytes(head[18:20], "little"), "other")
    described = f"ELF{32 * head[4]} {machine}"
    if machine == "ARM":  # e_flags: EF_ARM_ABI_FLOAT_HARD (0x400), Raspberry Pi OS's and Debian's armhf ABI
        described += " hard-float" if int.from_bytes(head[36:40], "little") & 0x400 else " soft-float"
    return described


def modules_of_the_checkout() -> list[str]:
    """Every module of console/ and hal/, as the import check names them."""
    names = []
    for top in ("console", "hal"):
        for path in sorted((REPO / top).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(names)


def python(lane, script: str, marker: str = "") -> dict:
    """What `script`, run by the release's Python, printed as JSON on its last line (after `marker`)."""
    return json.loads(lane.land.run(PYTHON, "-c", script).stdout.strip().splitlines()[-1].removeprefix(marker))


# --- the checks -----------------------------------------------------------------------------------

def install(lane) -> str:
    model = MODELS[lane.arch]
    started = time.monotonic()
    output = lane.install(model)
    seconds = time.monotonic() - started
    lane.figure("install_s", round(seconds, 1))
    assert f"No hardware (--no-hardware): installing for a {model}" in output, output[-2000:]
    release = Path(os.readlink(lane.land.file("/opt/hues-console/current")))
    assert lane.land.file(f"{release}/.complete").exists(), f"{release} is not marked complete"
    built = sorted(lane.land.file(f"{release}/lib").rglob("*.so"))
    names = {path.name.split(".")[0]: elf(path) for path in built}
    assert {"_rpi_ws281x", "speedups"} <= set(names), f"the release's C extensions: {names}"
    assert set(names.values()) == {MACHINES[lane.arch][1]}, names
    gcc = lane.land.run("gcc", "-dumpfullversion").stdout.strip()
    compiled = "built now" if "Building wheel for rpi-ws281x" in output else "from this root's pip cache"
    return (f"install-pi --no-hardware '{model}' in {seconds:.0f} s: release {release.name} built and checked "
            f"(check-config); rpi-ws281x's and websockets' C extensions ({compiled}) by gcc {gcc}: "
            f"{MACHINES[lane.arch][1]}")


def every_module_imports(lane) -> str:
    found = python(lane, IMPORT_ALL)
    lane.figure("modules", len(found["modules"]))
    assert found["machine"] == MACHINES[lane.arch][0], found["machine"]
    assert not found["failed"], found["failed"]
    assert sorted(found["modules"]) == modules_of_the_checkout(), \
        set(found["modules"]) ^ set(modules_of_the_checkout())
    return (f"Python {found['python']} on {found['machine']}: all {len(found['modules'])} modules of console/ and "
            f"hal/ imported; warnings: {'; '.join(found['warnings']) or 'none'}")


def extension_modules(lane) -> str:
    found = python(lane, IMPORT_CHECK, "hues-box-imports ")
    assert found["lgpio"].startswith("imported"), found
    assert found["rpi_ws281x"].startswith("imported; ws2811_init: -"), found
    assert found["Pillow"].startswith("imported"), found
    files = python(lane, EXTENSIONS)
    machines = {name: elf(lane.land.file(path)) for name, path in files.items()}
    assert set(machines.values()) == {MACHINES[lane.arch][1]}, machines
    lane.figure("extensions", found)
    return ("; ".join(f"{name}: {what}" for name, what in found.items())
            + f"; each loaded from {MACHINES[lane.arch][1]} code ({', '.join(sorted(machines))})")


def whole_games(lane) -> str:
    from console.game import rules
    from console.game.record import state_json
    from tests.play.test_whole_games import first_card_cell, near_guesser, some_cell
    from tests.scripting import plan_game

    played = []
    for players, variant, first_giver, seed in GAMES:
        script, expected, record = plan_game(players, variant, first_giver, seed,
                                             target=first_card_cell if variant == "cards" else some_cell,
                                             guess=near_guesser(seed), passes=lambda s: s.round % 3 == 0)
        assert rules.is_terminal(expected)
        path = f"/root/games/{seed}"
        lane.land.file(path).mkdir(parents=True, exist_ok=True)
        lane.land.file(f"{path}/script.txt").write_text(script.text())
        started = time.monotonic()
        lane.land.run("/opt/hues-console/current/bin/hues-console", "sim", "--config",
                      f"{SOURCE}/config/console.yaml", "--headless", "--script", f"{path}/script.txt",
                      "--state-json", f"{path}/state.json", "--seed", str(seed))
        got = json.loads(lane.land.file(f"{path}/state.json").read_text())
        assert got == state_json(expected), f"game {seed}: the simulator ended elsewhere than the engine"
        played.append(f"{players} players, {variant}: {len(record)} actions in {time.monotonic() - started:.0f} s")
    return f"whole games by their input scripts, each ended in the engine's state: {'; '.join(played)}"


CHECKS = [
    ("install", install),
    ("every_module_imports", every_module_imports),
    ("extension_modules", extension_modules),
    ("whole_games", whole_games),
]

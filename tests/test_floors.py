"""pyproject.toml's floors are true: with every runtime dependency (the `pi` extra's too) at the
lowest version pyproject.toml allows, in a venv of its own, every module of the product imports, a
whole game plays headless and its replay is drawn, the sticker is made, and phones (the tests'
and the product's own client) join through the web companion and are sent their views.

The venv is built once for each pyproject.toml and kept in CACHE, as the box's root is
(tests/box/root.py): a later run, CI's on the same machine or a developer's next, finds it ready.
The floors are installed with the package from a copy of this checkout, so pip itself checks them
against the package's requirements; what runs is this checkout's code (`python -m` from it puts it
first on sys.path), so a change to the code needs no new venv, and one to pyproject.toml builds
the next. The first build needs PyPI (about 30 s; rpi-ws281x's wheel comes from pip's cache once
./scripts/setup test has built it).
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import pytest
from PIL import Image

from console.game import rules
from console.game.record import dumps_record, state_json
from tests.phones import Phone, SimWeb
from tests.play.test_whole_games import first_card_cell, near_guesser
from tests.scripting import plan_game

ROOT = Path(__file__).resolve().parents[1]
RECIPE = "1"  # raise to build the venvs anew when how they are built changes
BUILD_TIMEOUT_S = 600
RUN_TIMEOUT_S = 60


def cache_dir() -> Path:
    """HUES_FLOORS_CACHE, else /var/cache/hues-console-floors where this user may write (root: CI,
    the box's stage), else the user's cache."""
    if os.environ.get("HUES_FLOORS_CACHE"):
        return Path(os.environ["HUES_FLOORS_CACHE"])
    if os.access("/var/cache", os.W_OK):
        return Path("/var/cache/hues-console-floors")
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "hues-console-floors"


PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
SPECS = [spec.strip() for spec in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["pi"]]
FLOOR = re.compile(r"([A-Za-z0-9_.-]+)>=([0-9][^,;\s]*)")
FLOORS = {match[1]: match[2] for match in map(FLOOR.fullmatch, SPECS) if match}
"""Each runtime dependency's floor, by name: the version after its `>=`."""


def test_every_runtime_dependency_has_a_floor():
    """name>=version, and nothing else: a floor this test can install."""
    assert [spec for spec in SPECS if not FLOOR.fullmatch(spec)] == []


def cache_key() -> str:
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes())
    digest.update(f"{RECIPE} {sys.version_info[:3]} {sys.platform}".encode())
    return digest.hexdigest()[:16]


@pytest.fixture(scope="module")
def floor_python() -> Path:
    """The python of the floors' venv, built first when there is none for this pyproject.toml;
    older ones are removed but the newest (another checkout may use it). Two runs at once (xdist's
    workers, a developer's and CI's) build it once: the second waits."""
    cache = cache_dir()
    venv = cache / f"venv-{cache_key()}"
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".complete").exists():
            others = sorted((p for p in cache.glob("venv-*") if p != venv),
                            key=lambda p: p.stat().st_mtime)
            for old in others[:-1]:
                shutil.rmtree(old, ignore_errors=True)
            build(venv)
    return venv / "bin" / "python"


def build(venv: Path) -> None:
    """A venv with the floors pinned (==) and the package installed from a copy of the checkout
    (a build in place would leave build/ in it), with the `pi` extra."""
    shutil.rmtree(venv, ignore_errors=True)  # what an interrupted build left
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    pins = venv / "floors.txt"
    pins.write_text("".join(f"{name}=={version}\n" for name, version in FLOORS.items()))
    with tempfile.TemporaryDirectory(prefix="hues-floors-") as scratch:
        checkout = Path(scratch) / "checkout"
        checkout.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy(ROOT / name, checkout / name)
        for name in ("console", "hal"):
            shutil.copytree(ROOT / name, checkout / name, ignore=shutil.ignore_patterns("__pycache__"))
        done = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                               "--quiet", "--disable-pip-version-check", "--no-input", "--constraint", str(pins),
                               f"{checkout}[pi]"], capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    if done.returncode != 0:
        pytest.fail(f"the floors' venv could not be built (pip, {done.returncode}):\n{done.stderr[-3000:]}",
                    pytrace=False)
    # compiled once, as pip compiles the console's own modules on the box (not every start)
    subprocess.run([str(venv / "bin" / "python"), "-m", "compileall", "-q", str(venv / "lib")],
                   capture_output=True, check=True, timeout=BUILD_TIMEOUT_S)
    (venv / ".complete").write_text(f"built in {time.monotonic() - started:.1f} s\n")


def run(python: Path, *argv: str, **options) -> subprocess.CompletedProcess:
    """`python argv...` from the checkout, its output as text; it must succeed and say nothing on
    stderr."""
    env = dict(os.environ, **options.pop("env", {}))
    env.pop("HUES_DEBUG", None)
    done = subprocess.run([str(python), *argv], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, **options)
    assert (done.returncode, done.stderr) == (0, ""), f"{' '.join(argv[:4])}: exit {done.returncode}\n{done.stderr}"
    return done


def hues_console(python: Path, *argv: str, config: Path) -> subprocess.CompletedProcess:
    return run(python, "-m", "console.commands.main", *argv, env={"HUES_CONFIG": str(config)})


@pytest.fixture
def config(tmp_path) -> Path:
    path = tmp_path / "console.yaml"
    path.write_text("# nothing from this machine's /etc\ndisplay:\n  brightness: 0.5\n")
    return path


IMPORT_EVERYTHING = """
import importlib, json, pkgutil, sys
from importlib import metadata
import console, hal
modules = [m.name for package in (console, hal) for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
for name in modules:
    importlib.import_module(name)
import rpi_ws281x  # the ws281x driver's, imported only when LEDs are driven
print(json.dumps({"modules": modules, "console": console.__file__,
                  "versions": {name: metadata.version(name) for name in sys.argv[1:]}}))
"""


def test_the_floors_are_installed_and_every_module_imports_with_them(floor_python):
    said = json.loads(run(floor_python, "-c", IMPORT_EVERYTHING, *FLOORS).stdout)
    assert said["versions"] == FLOORS
    assert Path(said["console"]).parent == ROOT / "console"  # this checkout's code, not the copy's
    assert {"console.web.guard", "console.commands.measure_phone", "hal.apng", "hal.inputs.gpio",
            "console.commands.sticker", "console.store.writer"} <= set(said["modules"])


def test_a_whole_game_plays_headless_and_its_replay_is_drawn_at_the_floors(floor_python, config, tmp_path):
    script, expected, actions = plan_game(3, "cards", 0, 5, target=first_card_cell, guess=near_guesser(5),
                                          passes=lambda state: state.round % 3 == 0)
    assert rules.is_terminal(expected)
    (tmp_path / "inputs.txt").write_text(script.text())
    hues_console(floor_python, "sim", "--headless", "--script", str(tmp_path / "inputs.txt"), "--seed", "5",
                 "--state-json", str(tmp_path / "state.json"), "--png", str(tmp_path / "last.png"), config=config)
    assert json.loads((tmp_path / "state.json").read_text()) == state_json(expected)
    assert Image.open(tmp_path / "last.png").size == (32 * 20, 16 * 20)
    (tmp_path / "game.jsonl").write_text(dumps_record(actions))
    hues_console(floor_python, "replay", str(tmp_path / "game.jsonl"), "--video", str(tmp_path / "game.png"),
                 "--scale", "1", "--fps", "5", config=config)
    video = Image.open(io.BytesIO((tmp_path / "game.png").read_bytes()))
    assert video.format == "PNG" and video.size == (32, 16) and video.n_frames > 100


def pdf_objects(pdf: bytes) -> list[bytes]:
    """What each entry of a PDF's cross-reference table points at (the start of its object)."""
    at = int(re.search(rb"startxref\s+(\d+)\s+%%EOF\s*$", pdf)[1])
    table = re.match(rb"xref\s+0 (\d+)\s+", pdf[at:])
    entries = re.findall(rb"(\d{10}) \d{5} n", pdf[at + table.end():])
    assert len(entries) == int(table[1]) - 1  # entry 0 is the free list's head
    return [pdf[int(offset):int(offset) + 16] for offset in entries]


def test_the_sticker_is_made_at_the_floors(floor_python, config, tmp_path):
    """As a PNG, and as a PDF whose every object is where its cross-reference table says (segno
    before 1.6.4 listed one more, which pointed at the table itself)."""
    for name in ("sticker.png", "sticker.pdf"):
        said = hues_console(floor_python, "sticker", "--out", str(tmp_path / name), "--url", "http://hues.local:8080/",
                            config=config)
        assert said.stdout.startswith(f"{tmp_path / name}: a QR code for http://hues.local:8080/")
    assert Image.open(tmp_path / "sticker.png").format == "PNG"
    objects = pdf_objects((tmp_path / "sticker.pdf").read_bytes())
    assert objects and all(start.startswith(b"%d 0 obj" % n) for n, start in enumerate(objects, 1)), objects


PRODUCT_PHONE = """
import json, sys
from console.commands.measure_phone import BenchPhone
phone = BenchPhone(sys.argv[1], sys.argv[2], seat=1, source="127.0.0.2")
phone.wait_for(lambda message: message["t"] == "view" and message["seat"] == 1)
phone.close()
print(json.dumps([message["t"] for _, message in phone.received]))
"""


def test_phones_join_through_the_web_companion_at_the_floors(floor_python, config):
    """The server at the floors (uvicorn, Starlette, websockets' protocol, h11), a phone of the
    tests' joining from this process, and the product's own client (the bench's phone, at the
    websockets floor) from the floors' venv."""
    with SimWeb(config, python=str(floor_python)) as sim:
        phone = Phone(sim.base).join(sim.code, seat=0)
        assert phone.seat == 0 and phone.view(lambda view: view["seat"] == 0)
        kinds = json.loads(run(floor_python, "-c", PRODUCT_PHONE, sim.base, sim.code).stdout)
        assert kinds[0] == "board" and {"admitted", "seated", "view"} <= set(kinds)
        phone.close()
        assert sim.stop() == 0
    assert sim.errors() == ""

"""The installed package is the product: the wheel built from pyproject.toml, as the box's release
is built (no build isolation), holds the console and hal with their data, and no module of the lab (bench/: anchor
servers, attackers, opcode tracing, quota runs), which runs from a checkout only. Nor may the
product import the lab: a box does not have it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path, PurePosixPath

from tests.test_architecture import imported_names

ROOT = Path(__file__).resolve().parents[2]
LEFT_OUT = (".git", ".venv", "node_modules", "__pycache__", "*.pyc", "*.egg-info", "build", ".pytest_cache",
            ".hypothesis")


def lab_module(name: str) -> bool:
    path = PurePosixPath(name)
    return path.parts[0] == "bench" or (path.suffix == ".py" and path.name.startswith(("bench", "attack")))


def test_the_wheel_holds_the_product_and_no_lab_code(tmp_path):
    source = tmp_path / "checkout"  # a copy: a build in place would leave build/ in the checkout
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*LEFT_OUT))
    assert (source / "bench" / "__main__.py").is_file()  # the lab is there beside the product
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                    "--disable-pip-version-check", "--quiet", "--wheel-dir", str(tmp_path / "wheels"), str(source)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = (tmp_path / "wheels").glob("hues_console-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert [name for name in names if lab_module(name)] == []
    assert not [name for name in names if name.startswith("tests/")]
    assert {"console/commands/main.py", "console/commands/measure.py", "console/commands/measure_phone.py",
            "hal/layout.py", "console/bots/data/knowledge.tsv", "console/bots/data/SOURCES.md"} <= set(names)
    assert not [name for name in names if name.startswith("lexicon/")]  # the knowledge's sources stay in a checkout
    words = ROOT / "console" / "game" / "clue_words"  # the clue check's words, their sources and licences
    assert {f"console/game/clue_words/{path.name}" for path in words.iterdir()} <= set(names)


def test_no_module_of_the_product_imports_the_lab():
    files = sorted((ROOT / "console").rglob("*.py")) + sorted((ROOT / "hal").rglob("*.py"))
    assert files
    reaching = [f"{path.relative_to(ROOT)} imports {name}" for path in files for name in sorted(imported_names(path))
                if name == "bench" or name.startswith("bench.")]
    assert reaching == []

"""The two import rules the design rests on, checked on the source itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
PURE_ENGINE = ("console/rules.py", "console/board.py", "console/deck.py")
ENGINE_MAY_IMPORT = {"__future__", "dataclasses", "functools", "typing", "console.board", "console.deck"}


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module or "")
    return names


@pytest.mark.parametrize("path", sorted((ROOT / "hal").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_hal_never_imports_console(path):
    assert not {name for name in imports(path) if name.split(".")[0] == "console"}


@pytest.mark.parametrize("name", PURE_ENGINE)
def test_the_rules_engine_imports_no_io_clock_randomness_or_hal(name):
    assert imports(ROOT / name) <= ENGINE_MAY_IMPORT

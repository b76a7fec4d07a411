"""The layers the design rests on, checked on the source itself: which folder may import which, no
I/O, clock or randomness in the pure layers, and no import cycle anywhere in `console/` or `hal/`.

The graph is computed from every import statement (also those inside functions: a lazy import is
still a dependency), so a new circle or a layer breach fails the suite. The checks are plain
functions over a graph, and the last tests show that they do catch a synthetic breach and cycle.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

# For each layer, the project layers it may import (itself always). `hal.frame` is the only piece
# of hal the pure view may see; `commands` may import anything and nothing imports it.
MAY_IMPORT = {
    "console.game": set(),
    "console.view": {"console.game", "hal.frame"},
    "console.store": {"console.game"},
    "console.config": {"console.game", "hal"},
    "console.bots": {"console.game", "console.view", "hal.frame"},
    "console.play": {"console.game", "console.view", "console.bots", "console.store", "hal"},
    "console.web": {"console.game", "console.view", "console.bots", "console.play", "console.store", "console.config",
                    "hal"},
    "console.commands": {"console", "hal"},
    "hal": set(),
}
# The pure layers: what they may not import from the standard library (I/O, clock, randomness,
# processes, threads), so that the same state always gives the same result.
PURE_LAYERS = ("console.game", "console.view", "console.bots")
IMPURE_MODULES = {"os", "sys", "io", "time", "datetime", "random", "secrets", "socket", "pathlib",
                  "subprocess", "threading", "asyncio", "logging", "shutil", "tempfile", "signal",
                  "uuid", "select", "selectors"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_names(path: Path) -> set[str]:
    """Every module a file imports, absolute; `from pkg import mod` names `pkg.mod` when that is a
    module of the project."""
    tree = ast.parse(path.read_text(), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module_name(path).split(".")
                if path.name != "__init__.py":
                    package.pop()
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            names.add(base)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                if project_file(candidate) is not None:
                    names.add(candidate)
    return names


def project_file(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def project_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports, over console/ and hal/."""
    files = sorted((ROOT / "console").rglob("*.py")) + sorted((ROOT / "hal").rglob("*.py"))
    modules = {module_name(path): path for path in files}
    return {name: {dep for dep in imported_names(path) if dep in modules and dep != name}
            for name, path in modules.items()}


def layer_of(module: str) -> str | None:
    """The longest layer name the module sits in (console.game.rules -> console.game)."""
    matches = [layer for layer in MAY_IMPORT if module == layer or module.startswith(layer + ".")]
    return max(matches, key=len, default=None)


def within(module: str, allowed: set[str]) -> bool:
    return any(module == a or module.startswith(a + ".") for a in allowed)


def layer_breaches(graph: dict[str, set[str]]) -> list[str]:
    """Every import that crosses a layer the wrong way, as 'a imports b'."""
    breaches = []
    for module, deps in sorted(graph.items()):
        layer = layer_of(module)
        if layer is None:
            if module not in ("console",):
                breaches.append(f"{module} is in no layer")
            continue
        allowed = MAY_IMPORT[layer] | {layer}
        for dep in sorted(deps):
            if dep == "console":  # the top package's docstring module
                continue
            if not within(dep, allowed):
                breaches.append(f"{module} imports {dep}")
            elif within(dep, {"console.commands"}) and layer != "console.commands":
                breaches.append(f"{module} imports {dep}")
    return breaches


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [a, b, ..., a], or None: a depth-first search for a back edge."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return path[path.index(dep):] + [dep]
            if dep not in state and (found := visit(dep)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


GRAPH = project_graph()


def test_the_graph_sees_the_layers():
    assert {"console.game.rules", "console.view.render", "console.play.app", "console.store.games",
            "console.commands.main", "hal.output"} <= set(GRAPH)
    assert "console.game.board" in GRAPH["console.game.rules"]


def test_no_import_crosses_a_layer_the_wrong_way():
    assert layer_breaches(GRAPH) == []


def test_no_import_cycle_anywhere():
    assert find_cycle(GRAPH) is None


@pytest.mark.parametrize("layer", PURE_LAYERS)
def test_the_pure_layers_do_no_io_read_no_clock_draw_no_randomness(layer):
    folder = ROOT.joinpath(*layer.split("."))
    bad = {}
    for path in sorted(folder.rglob("*.py")):
        outside = {name for name in imported_names(path)
                   if name.split(".")[0] in IMPURE_MODULES or name.split(".")[0] in {"redis", "yaml", "gpiozero"}}
        if outside:
            bad[str(path.relative_to(ROOT))] = sorted(outside)
    assert bad == {}


def test_the_game_imports_only_the_standard_library_and_itself():
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for path in sorted((ROOT / "console" / "game").rglob("*.py")):
        for name in imported_names(path):
            assert name.split(".")[0] in stdlib or within(name, {"console.game"}), f"{path}: {name}"


# --- the checks themselves catch what they are for ----------------------------------------------


def test_a_synthetic_layer_breach_is_caught():
    graph = {
        "console.game.rules": {"console.view.render"},       # the game may not see the view
        "console.view.render": {"console.game.rules", "hal.output"},  # only hal.frame is allowed
        "console.store.games": {"console.commands.common"},  # nothing imports commands
        "hal.output": {"console.game.board"},                # hal never imports console
        "console.play.app": {"console.view.ui", "hal.frame"},  # fine
    }
    assert layer_breaches(graph) == [
        "console.game.rules imports console.view.render",
        "console.store.games imports console.commands.common",
        "console.view.render imports hal.output",
        "hal.output imports console.game.board",
    ]


def test_a_synthetic_cycle_is_caught_and_named():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    assert find_cycle({"a": {"a"}}) == ["a", "a"]


def test_a_lazy_import_inside_a_function_counts(tmp_path):
    module = tmp_path / "lazy.py"
    module.write_text("def f():\n    from console.commands import main\n")
    assert "console.commands.main" in imported_names(module)


# --- ARCHITECTURE.md's table "where each rule lives" stays true ---------------------------------


def rule_table() -> list[tuple[str, list[str], list[str]]]:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    section = text.split("## Where each rule lives", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].startswith("`console."):
            rows.append((cells[0], re.findall(r"`([^`]+)`", cells[1]), re.findall(r"`([^`]+)`", cells[2])))
    return rows


def test_the_rule_table_covers_the_readmes_rules():
    readme = (ROOT / "README.md").read_text()
    rules = readme.split("## The rules, as the console plays them", 1)[1].split("\n## ", 1)[0]
    assert len(rule_table()) >= rules.count("\n- **") + rules.count("\n  1. ") + 10


@pytest.mark.parametrize("rule, functions, tests", rule_table(), ids=[row[0][:40] for row in rule_table()])
def test_each_rule_names_a_function_and_a_test_that_exist(rule, functions, tests):
    assert functions and tests
    for dotted in functions:
        module, name = dotted.rsplit(".", 1)
        assert hasattr(importlib.import_module(module), name), dotted
    for test in tests:
        path, name = test.split("::")
        assert re.search(rf"^def {name}\(", (ROOT / path).read_text(), re.M), test


def test_the_readmes_commands_section_names_every_command_and_where_it_lives():
    """A new user reads the Quick start and the Commands list, not `--help`: every command of
    the CLI is listed there, and the Quick start says where `hues-console` is."""
    from console.commands.main import build_parser

    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = readme.split("## Commands", 1)[1].split("\n## ", 1)[0]
    assert ".venv/bin/hues-console" in quick
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    listed = set(re.findall(r"^hues-console ([a-z-]+)", commands, re.M))
    assert set(sub.choices) == listed


# --- ARCHITECTURE.md's module tables name every module, and only modules that exist -------------


def needs_a_row(path: Path) -> bool:
    """Every module but a package's `__init__.py` that only re-exports (imports and `__all__`)."""
    if path.name != "__init__.py":
        return True
    body = ast.parse(path.read_text()).body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return any(not isinstance(node, (ast.Import, ast.ImportFrom)) and not (
        isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"])
        for node in body)


def test_the_module_tables_name_every_module():
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    section = text.split("## Every module", 1)[1]
    named = set(re.findall(r"^\| ([^|]+) \|", section, re.M))
    listed = {path for cell in named for path in re.findall(r"`([\w/]+\.py)`", cell)}
    tree = {str(path.relative_to(ROOT)) for folder in ("console", "hal", "bench")
            for path in (ROOT / folder).rglob("*.py") if needs_a_row(path)}
    assert sorted(tree - listed) == [], "modules without a row in docs/ARCHITECTURE.md"
    assert sorted(listed - tree) == [], "rows for modules that do not exist"

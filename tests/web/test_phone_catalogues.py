"""The phone pages' words: one catalogue per language, every key in every language with the same
placeholders, and every key the pages or the server ask for in the catalogues."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from console.game.clue import REFUSAL_KEYS
from console.view.palette import PAWN_COLORS
from console.web.phones import LANGUAGES, languages_json

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "console" / "web" / "static"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
KEY = re.compile(r"""["'`]([a-z]+(?:\.[a-z_0-9]+)+)["'`]""")


def catalogue(code: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / f"{code}.json").read_text(encoding="utf-8"))


def refusal_keys() -> set[str]:
    """Every key a refusal from the server can carry: `Refusal(key, ...)`, and `SeatError(text,
    key, ...)` and the engine's `RuleError(text, key, ...)` anywhere in the console, the two
    the phones' room names itself, and the clue check's (a verdict's key, one per rule)."""
    keys = {"slow_down", "bad_message", *REFUSAL_KEYS}
    for path in (ROOT / "console").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                where = {"Refusal": 0, "SeatError": 1, "RuleError": 1}.get(node.func.id)
                if where is not None and len(node.args) > where and isinstance(node.args[where], ast.Constant):
                    keys.add(node.args[where].value)
    return keys


def used_keys() -> set[str]:
    """The keys the pages name: data-i18n attributes, and every string in their scripts that
    looks like a key (`t("btn.place")`, `{ key: "line.pending" }`); the colour and refusal keys
    they build from the server's words."""
    keys = set()
    for name in ("phone.html", "rules.html"):
        keys |= set(re.findall(r'data-i18n(?:-label|-placeholder)?="([^"]+)"', (STATIC / name).read_text()))
    for name in ("phone.js", "board.js", "rules.js", "i18n.js"):
        keys |= {k for k in KEY.findall((STATIC / name).read_text()) if not k.endswith((".js", ".json", ".css"))}
    keys |= {f"color.{name}" for name in PAWN_COLORS}
    keys |= {f"refused.{key}" for key in refusal_keys()}
    return keys


def test_there_is_a_catalogue_for_english_and_each_language_of_the_rules():
    assert set(LANGUAGES) == {"en", "it", "cs", "ro", "es", "vi"}
    assert sorted(p.stem for p in (STATIC / "i18n").glob("*.json")) == sorted(LANGUAGES)
    names = [entry["name"] for entry in json.loads(languages_json())]
    assert names == ["English", "Italiano", "Čeština", "Română", "Español", "Tiếng Việt"]


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_every_key_is_in_every_language_with_the_same_placeholders(code):
    english, other = catalogue("en"), catalogue(code)
    assert sorted(set(english) - set(other)) == [], f"{code}.json lacks these keys"
    assert sorted(set(other) - set(english)) == [], f"{code}.json has keys English does not"
    for key, text in english.items():
        assert set(PLACEHOLDER.findall(other[key])) == set(PLACEHOLDER.findall(text)), f"{code}.json {key}"
        assert other[key].strip(), f"{code}.json {key} is empty"


def test_every_key_the_pages_and_the_server_use_is_in_the_catalogue():
    missing = sorted(used_keys() - set(catalogue("en")))
    assert missing == []


def test_no_key_is_left_unused():
    unused = sorted(set(catalogue("en")) - used_keys() - {"lang.name"})
    assert unused == []

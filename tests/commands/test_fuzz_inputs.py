"""Fuzz tests for every command that reads input (a record, an input script, a time, a
configuration, a damaged store): whatever it is given, it ends with exit 0, or with exit 2 and
exactly one printable line on stderr, never a traceback.

The commands run in-process (`cli.main`) on small inputs. Each call is checked against a generous
time bound only as a sanity limit (a runaway shows as a failure, not a hang); performance itself is
measured by `hues-console bench`.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import unittest.mock
import time

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from console.commands import main as cli
from console.config import loader as config_loader
from console.config.schema import setting_paths
from console.game.record import MAX_RECORD_BYTES
from hal.inputs.events import BUTTONS
from tests.commands.test_cli import isolated  # noqa: F401 (a fixture: no /etc or $HUES_CONFIG leaks in)
from tests.game.test_record import EXAMPLE

SANITY_S = 10.0
fuzz = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
START = "\n".join(EXAMPLE.splitlines()[:3]) + "\n"  # new_game, choose_target, clue: guessing next


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    started = time.perf_counter()
    code = cli.main(argv)
    elapsed = time.perf_counter() - started
    out, err = capsys.readouterr()
    assert elapsed < SANITY_S, (argv, elapsed)
    assert "Traceback" not in err and "hues-console: unexpected" not in err, err
    return code, out, err


def refused(capsys, argv: list[str]) -> str:
    """Run a command that must refuse its input: exit 2, one printable line on stderr."""
    code, _, err = run(capsys, argv)
    assert code == 2, (argv, err)
    assert err.endswith("\n") and err.count("\n") == 1 and err[:-1].isprintable(), err
    return err[:-1]


def replayed_or_refused(capsys, argv: list[str]) -> int:
    code, _, err = run(capsys, argv)
    assert code in (0, 2), (argv, err)
    if code == 2:
        assert err.count("\n") == 1 and err[:-1].isprintable(), err
    return code


# --- the classes of bad input, each through every command that reads that kind of file -------

BAD_RECORDS = {
    "action is a list": START + '{"action": ["clue"]}\n',
    "action is an object": START + '{"action": {}}\n',
    "deep nesting": START + "[" * 100_000 + "\n",
    "deep nesting in an object": START + '{"a": ' * 50_000 + "\n",
    "integer over 4300 digits": START + '{"action": "place", "cell": "A2", "player": ' + "9" * 5000 + "}\n",
    "superscript digit": START + '{"action": "place", "cell": "H²"}\n',
    "arabic-indic digits": START + '{"action": "place", "cell": "H١٥"}\n',
    "full-width digits": START + '{"action": "place", "cell": "H１５"}\n',
    "key given twice": START + '{"action": "place", "cell": "A2", "cell": "A3"}\n',
    "NaN": START + '{"action": "place", "cell": "A2", "player": NaN}\n',
    "off-board cell": START + '{"action": "place", "cell": "Z99"}\n',
    "player true": START + '{"action": "place", "cell": "A2", "player": true}\n',
    "first_giver true": '{"action": "new_game", "players": 3, "first_giver": true}\n',
    "4000-digit player count": '{"action": "new_game", "players": ' + "9" * 4000 + "}\n",
    "4000-digit first giver": '{"action": "new_game", "players": 3, "first_giver": ' + "9" * 4000 + "}\n",
    "4000-digit player": START + '{"action": "place", "cell": "A2", "player": ' + "9" * 4000 + "}\n",
    "long unknown colour": '{"action": "new_game", "players": 3, "colors": ["' + "x" * 5000 + '", "red", "blue"]}\n',
    "escape sequence": START + '{"action": "\\u001b[2J\\u001b]0;pwned\\u0007"}\n',
    "raw control characters": START + '{"action": "\x1b[2J\x07"}\n',
    "u2028 inside a line": START + '{"action": "clue"}\u2028{"action": "clue"}\n',
    "NUL bytes": "\0" * 1000,
    "not UTF-8": b"\xff\xfe\x00{",
    "empty": "",
    "only a BOM": "\ufeff",
    "larger than the limit": '{"action": "clue"}\n' * (MAX_RECORD_BYTES // 19 + 1),
}
SPECIAL_FILES = ["fifo", "/dev/zero", "directory", "missing", ""]


def _write(tmp_path, content: str | bytes, name: str = "input") -> str:
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def _special(tmp_path, kind: str) -> str:
    if kind == "fifo":  # nobody ever writes: an open() that blocks would hang the test
        path = tmp_path / "fifo"
        os.mkfifo(path)
        return str(path)
    return {"directory": str(tmp_path), "missing": str(tmp_path / "missing")}.get(kind, kind)


def _record_commands(path: str, tmp_path) -> list[list[str]]:
    return [["replay", path], ["replay", path, "--json"],
            ["render", "--record", path, "--png", str(tmp_path / "o.png")]]


@pytest.mark.parametrize("kind", BAD_RECORDS)
def test_every_bad_record_is_refused_by_replay_and_render_in_one_line(isolated, tmp_path, capsys, kind):
    path = _write(tmp_path, BAD_RECORDS[kind])
    for argv in _record_commands(path, tmp_path):
        line = refused(capsys, argv)
        assert line.startswith(path + ":"), line
        assert len(line) < 300


@pytest.mark.parametrize("kind", ["escape sequence", "deep nesting", "not UTF-8", "empty"])
def test_a_bad_record_on_stdin_is_refused_the_same_way(isolated, capsys, monkeypatch, kind):
    content = BAD_RECORDS[kind]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        content if isinstance(content, bytes) else content.encode())))
    assert refused(capsys, ["replay", "-"]).startswith("<stdin>:")


@pytest.mark.parametrize("command", ["sim", "diag"])
def test_a_script_on_stdin_is_read_and_its_lines_named(isolated, capsys, monkeypatch, command):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbfa\nwait 1e12\n")))
    assert refused(capsys, [command, "--headless", "--script", "-"]).startswith("<stdin>:2: a duration")


def test_a_record_on_stdin_is_replayed(isolated, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(("\ufeff" + EXAMPLE).encode())))
    code, out, _ = run(capsys, ["replay", "-", "--json"])
    assert code == 0 and json.loads(out)["scores"] == [2, 2, 3, 0]


@pytest.mark.parametrize("kind", SPECIAL_FILES)
def test_no_command_waits_on_or_swallows_a_special_file(isolated, tmp_path, capsys, kind):
    path = _special(tmp_path, kind)
    for argv in _record_commands(path, tmp_path) + [
            ["sim", "--headless", "--script", path], ["diag", "--headless", "--script", path],
            ["check-config", path], ["palette", "--config", path]]:
        refused(capsys, argv)


@pytest.mark.parametrize("option", [["render", "--record", "R", "--png", ""],
                                    ["render", "--record", "R", "--json", ""],
                                    ["sim", "--headless", "--script", "S", "--png", ""],
                                    ["sim", "--headless", "--script", "S", "--state-json", ""],
                                    ["diag", "--headless", "--script", "S", "--png", ""]])
def test_an_empty_output_path_is_refused(isolated, tmp_path, capsys, option):
    record, script = _write(tmp_path, EXAMPLE, "r.jsonl"), _write(tmp_path, "a\n", "s.txt")
    argv = [{"R": record, "S": script}.get(word, word) for word in option]
    assert "output file name is empty" in refused(capsys, argv)


@pytest.mark.parametrize("kind", ["fifo", "directory", "missing folder", "/dev/full"])
def test_an_output_that_cannot_be_written_is_refused_without_waiting(isolated, tmp_path, capsys, kind):
    record, script = _write(tmp_path, EXAMPLE, "r.jsonl"), _write(tmp_path, "a\n", "s.txt")
    out = {"missing folder": str(tmp_path / "no" / "x.png")}.get(kind) or _special(tmp_path, kind)
    for argv in (["render", "--record", record, "--png", out], ["render", "--record", record, "--json", out],
                 ["sim", "--headless", "--script", script, "--png", out],
                 ["bot", "play", "--players", "3", "--seed", "1", "--record", out]):
        assert refused(capsys, argv).startswith(f"{out}: cannot be written")


def test_outputs_go_to_stdout_for_a_dash(isolated, tmp_path, capsysbinary):
    record = _write(tmp_path, EXAMPLE, "r.jsonl")
    assert cli.main(["render", "--record", record, "--png", "-"]) == 0
    assert capsysbinary.readouterr().out.startswith(b"\x89PNG")


@pytest.mark.parametrize("argv", [["export", "game\udcff"], ["sticker", "--out", "OUT", "--url", "http://\udcff/"],
                                  ["palette", "--driver", "ws\udc81"]])
def test_a_text_argument_that_is_not_utf8_is_refused(isolated, tmp_path, capsys, argv):
    """Bytes that are not UTF-8 on the command line reach Python as lone surrogates (PEP 383)."""
    argv = [str(tmp_path / "x.svg") if word == "OUT" else word for word in argv]
    assert "is not UTF-8 text" in refused(capsys, argv)


@pytest.mark.parametrize("time_text", ["nan", "inf", "-inf", "1e308", "-1", "86401", "soon", "", "0x10"])
def test_render_refuses_a_time_that_is_no_animation_time(isolated, tmp_path, capsys, time_text):
    record = _write(tmp_path, EXAMPLE)
    assert "--time" in refused(capsys, ["render", "--record", record, f"--time={time_text}"])


@pytest.mark.parametrize("number", ["١٠", "1_0", "１０", " 10", "0x10", "infinity"])
def test_a_number_on_the_command_line_is_ascii_digits(isolated, tmp_path, capsys, number):
    record, script = _write(tmp_path, EXAMPLE, "r.jsonl"), _write(tmp_path, "a\n", "s.txt")
    video = str(tmp_path / "v.png")
    for argv in (["render", "--record", record, f"--time={number}"], ["replay", record, "--video", video, f"--fps={number}"],
                 ["replay", record, "--video", video, f"--scale={number}"],
                 ["sim", "--headless", "--script", script, f"--seed={number}"],
                 ["bot", "play", f"--players={number}", "--seed=1"],
                 ["bot", "play", "--players=3", f"--seed={number}"]):
        refused(capsys, argv)


BAD_SCRIPT_LINES = ["right 100000000", "hold a 1e8", "wait 1e12", "wait nan", "hold a inf", "right 0",
                    "right ١", "wait ٣", "jump", "\x1b[2J", "hold", "hold q 1", "a 1 2", "wait -1",
                    "wait 1_0", "hold a 0_5", "wait infinity", "right\u00a02", "wait\u20281", "a\x1c2"]


@pytest.mark.parametrize("line", BAD_SCRIPT_LINES)
def test_every_bad_script_line_is_refused_with_file_and_line(isolated, tmp_path, capsys, line):
    path = _write(tmp_path, "# a game\nright 2\n\n" + line + "\na\n")
    for command in ("sim", "diag"):
        assert refused(capsys, [command, "--headless", "--script", path]).startswith(f"{path}:4: ")


def test_a_script_too_long_in_all_is_refused_before_it_runs(isolated, tmp_path, capsys):
    path = _write(tmp_path, "wait 3600\n" * 2)
    assert "the script is too long" in refused(capsys, ["sim", "--headless", "--script", path])


BAD_CONFIG_VALUES = ["!!bool 2", "!!int", "!!float", "!!binary é", "!!timestamp 2001-13-45", "nan",
                     "!!python/object:os.system ls", "*nothing", "[" * 1000, "'\x1b[2J'", "!!int " + "9" * 5000]


@pytest.mark.parametrize("value", BAD_CONFIG_VALUES)
def test_a_bad_config_value_is_one_line_for_check_config_and_every_command(isolated, tmp_path, capsys, value):
    path = _write(tmp_path, f"display:\n  fps: {value}\n", "c.yaml")
    assert refused(capsys, ["check-config", path]).startswith(path + ":")
    assert refused(capsys, ["palette", "--config", path]).startswith(path + ":")


BAD_STORE_URLS = ['"redis://\\udcff/0"', '"redis://\\x00/0"', "redis://localhost/0?ssl_cert_reqs=none",
                  "redis://localhost/0?socket_timeout=3600", "unix:///run/r.sock?bogus=1", "redis://localhost/-1",
                  "redis://localhost:99999999/0"]


@pytest.mark.parametrize("url", BAD_STORE_URLS)
def test_a_store_url_that_cannot_work_is_one_line_naming_the_file_not_an_outage(isolated, tmp_path, capsys, url):
    """Not taken for an outage (exit 1) or a crash when the first command connects: redis-py
    accepts these and fails only then (an unknown option is a TypeError, a host idna cannot
    encode a UnicodeError), and a URL's timeout would override the console's own."""
    path = _write(tmp_path, f"store:\n  url: {url}\n", "c.yaml")
    for argv in (["history", "--config", path], ["export", "--config", path],
                 ["sim", "--headless", "--config", path, "--script", _write(tmp_path, "a\n", "s.txt")]):
        for line in refused_by_both_parsers(capsys, argv, url):
            assert line.startswith(f"{path}: store URL ") or line.startswith(f"{path}:2: store.url: "), line


@pytest.mark.parametrize("setting", ['store:\n  state_dir: "/tmp/a\\0b"', 'store:\n  state_dir: "/tmp/\\ud800"',
                                     'driver:\n  sim_png:\n    path: "a\\0.png"',
                                     'driver:\n  leds_dev:\n    device: "/dev/leds\\0"',
                                     "store:\n  url: unix:///r.sock\n  state_dir: ~no-such-user-here/state",
                                     'store:\n  prefix: "\\ud800"', 'web:\n  address: "\\udcff"'])
def test_a_file_name_or_text_no_file_can_have_is_one_line_naming_it(isolated, tmp_path, capsys, setting):
    """A NUL is a ValueError in Python, not an OSError; `~user` of no user a RuntimeError."""
    path = _write(tmp_path, setting + "\n", "c.yaml")
    argv = ["sim", "--headless", "--config", path, "--script", _write(tmp_path, "a\n", "s.txt")]
    for line in refused_by_both_parsers(capsys, argv, setting):
        assert any(name in line for name in ("state_dir", "path", "device", "prefix", "address")), line


def refused_by_both_parsers(capsys, argv: list[str], text: str) -> list[str]:
    """The command's one line of refusal, under the libyaml parser the console reads with and
    under PyYAML's own (where PyYAML lacks libyaml). Where the text escapes a lone surrogate
    (no Unicode text can hold one), libyaml refuses it as it parses: a syntax error on its
    line; the settings' checks name the key under PyYAML's own, which reads it as a string."""
    line = refused(capsys, argv)
    with unittest.mock.patch.object(config_loader, "_Loader", yaml.SafeLoader):
        pure = refused(capsys, argv)
    if re.search(r"\\u[dD][89a-fA-F]", text):
        assert re.match(r".*:2: YAML syntax error: .*invalid Unicode character escape code$", line), line
        return [pure]
    assert line == pure
    return [line]


def test_a_5_mb_config_is_refused_before_it_is_parsed(isolated, tmp_path, capsys):
    path = _write(tmp_path, "a: [" + "1, " * 1_700_000 + "]\n", "c.yaml")
    assert refused(capsys, ["check-config", path]) == f"{path}: is larger than 64 KiB: this cannot be the right file"


# --- hypothesis: random inputs of each kind ----------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["action", "cell", "player", "players", "seed", "variant", "colors", "x"]),
        inner, max_size=4),
    max_leaves=12)
_cells = st.sampled_from(["H15", "h15", "A1", "P30", "Q1", "A0", "H²", "H١٥", "H１５", " G14 "])
_action_lines = st.one_of(
    _json.map(json.dumps),
    st.builds(lambda name, cell: json.dumps({"action": name, "cell": cell}),
              st.sampled_from(["place", "choose_target", "clue", "take_back", "next", "skip_clue"]), _cells),
    st.text(max_size=30),
    st.sampled_from(EXAMPLE.splitlines()),
)


@fuzz
@given(lines=st.lists(_action_lines, max_size=8), bom=st.booleans(),
       separator=st.sampled_from(["\n", "\r\n", "\n\n"]))
def test_any_record_is_replayed_or_refused_in_one_line(isolated, tmp_path, capsys, lines, bom, separator):
    path = _write(tmp_path, ("\ufeff" if bom else "") + START + separator.join(lines) + "\n")
    replayed_or_refused(capsys, ["replay", path, "--json"])


def _an_unknown_input(line: str) -> bool:
    words = line.split("#")[0].split()
    return bool(words) and words[0].lower() not in BUTTONS + ("hold", "wait")


_words = st.one_of(st.sampled_from(BUTTONS + ("hold", "wait", "#", "1", "0.5")),
                   st.text(st.characters(codec="utf-8", exclude_characters="\n"), min_size=1, max_size=6))
_good_lines = st.one_of(st.sampled_from(BUTTONS), st.builds("{} {}".format, st.sampled_from(BUTTONS),
                                                              st.integers(1, 3)))
_bad_lines = st.one_of(
    st.builds("{} {}".format, st.sampled_from(BUTTONS), st.integers(1001, 10**30) | st.integers(-10**6, 0)),
    st.builds("hold {} {}".format, st.sampled_from(BUTTONS),
              st.floats(60.001) | st.floats(max_value=0) | st.sampled_from(["nan", "inf", "-0", "1e999"])),
    st.builds("wait {}".format, st.floats(3600.001) | st.just("nan") | st.just("1e999")),
    st.lists(_words, min_size=1, max_size=4).map(" ".join).filter(_an_unknown_input),
)



@fuzz
@given(before=st.lists(_good_lines, max_size=5), bad=_bad_lines, command=st.sampled_from(["sim", "diag"]))
def test_any_script_with_a_bad_line_is_refused_naming_it(isolated, tmp_path, capsys, before, bad, command):
    path = _write(tmp_path, "\n".join(before + [bad, "a"]) + "\n")
    assert refused(capsys, [command, "--headless", "--script", path]).startswith(f"{path}:{len(before) + 1}: ")


@settings(fuzz, max_examples=30)
@given(st.one_of(st.floats(), st.text(max_size=10)))
def test_render_takes_any_time_from_0_to_a_day_and_refuses_the_rest(isolated, tmp_path, capsys, t):
    record = _write(tmp_path, EXAMPLE)
    text = repr(t) if isinstance(t, float) else t
    code = replayed_or_refused(capsys, ["render", "--record", record, f"--time={text}", "--json", os.devnull])
    try:  # ASCII digits only: float() also reads '1_0' and '١'
        valid = text.isascii() and "_" not in text and 0 <= float(text) <= cli.MAX_TIME_S
    except ValueError:
        valid = False
    assert code == (0 if valid else 2)


_settings = st.sampled_from(sorted(".".join(map(str, path)) for path in setting_paths()))
_yaml_values = st.one_of(
    st.sampled_from(BAD_CONFIG_VALUES + ["", "~", "[]", "{}", "-1", "1e999", "yes", "0x1F", "&a 1", "*a"]),
    st.builds("{} {}".format, st.sampled_from(["!!bool", "!!int", "!!float", "!!str", "!!null", "!!seq", "!!map",
                                               "!!binary", "!!timestamp", "!!set", "!foo"]),
              st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=6)),
    st.text(max_size=12),
)


@fuzz
@given(setting=_settings, value=_yaml_values)
def test_any_config_value_is_checked_in_lines_naming_the_file(isolated, tmp_path, capsys, setting, value):
    *sections, key = setting.split(".")
    text = "".join(f"{'  ' * depth}{name}:\n" for depth, name in enumerate(sections))
    path = _write(tmp_path, text + "  " * len(sections) + f"{key}: {value}\n", "c.yaml")
    code, _, err = run(capsys, ["check-config", path])
    assert code in (0, 2)
    for line in err.splitlines():
        assert line.startswith(path) and line.isprintable(), line


@fuzz
@given(st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_any_config_file_is_checked_in_lines_naming_the_file(isolated, tmp_path, capsys, content):
    path = _write(tmp_path, content, "c.yaml")
    code, _, err = run(capsys, ["check-config", path])
    assert code in (0, 2)
    assert code == 0 or err
    for line in err.splitlines():
        assert line.startswith(path) and line.isprintable(), line


_bot_words = st.one_of(st.text(max_size=8), st.just("\udcff"), st.just("\x1b[2J"))
_bot_numbers = st.one_of(st.integers(-10**40, 10**40).map(str), st.integers(0, 12).map(str),
                         st.integers(0, 2**31 + 1).map(str), st.text(max_size=6))


@settings(fuzz, max_examples=30)
@given(players=_bot_numbers, seed=_bot_numbers, level=st.sampled_from(["expert", "child"]) | _bot_words,
       lang=st.sampled_from(["en", "it", "cs", "ro", "es", "vi"]) | _bot_words,
       variant=st.sampled_from(["cards", "free"]) | _bot_words)
def test_bot_play_plays_a_game_or_refuses_its_arguments_in_one_line(isolated, capsys, players, seed, level, lang,
                                                                    variant):
    argv = ["bot", "play", f"--players={players}", f"--seed={seed}", f"--level={level}", f"--lang={lang}",
            f"--variant={variant}"]
    code = replayed_or_refused(capsys, argv)
    whole = re.compile(r"[-+]?[0-9]{1,30}")  # ASCII digits: int() also reads '1_0' and '١'
    valid = (whole.fullmatch(players) is not None and 3 <= int(players) <= 10
             and whole.fullmatch(seed) is not None and 0 <= int(seed) < 2**31
             and level in ("expert", "child") and lang in ("en", "it", "cs", "ro", "es", "vi")
             and variant in ("cards", "free"))
    assert code == (0 if valid else 2), argv

"""`hues-console clue`: the phones' clue check on the command line, and the README's table of the
words it knows."""

from __future__ import annotations

import pytest

from console.commands import main as cli
from console.commands.clue import clue_table
from console.game.clue import LANGUAGES, RULES
from tests.commands.test_cli import ROOT, isolated  # noqa: F401 (a fixture)


def run(capsys, *argv):
    status = cli.main(["clue", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("argv", [["--lang", "en", "pig"], ["--lang", "it", "--second", "zucchero", "filato"],
                                  ["--lang", "vi", "con lợn"], ["--second", "--lang", "es", "algodón de azúcar"]])
def test_a_clue_that_keeps_the_rules_prints_ok(isolated, capsys, argv):
    assert run(capsys, *argv) == (0, "ok\n", "")


@pytest.mark.parametrize("argv, line", [
    (["--lang", "en", "sky-blue"], "colour_name: “sky-blue” names a basic colour: say it another way\n"),
    (["--lang", "it", "rosso"], "colour_name: «rosso» è un colore di base: dillo in un altro modo\n"),
    (["--lang", "cs", "h 15"], "coordinate: „h 15“ ukazuje na řady nebo sloupce plánu\n"),
    (["--lang", "ro", "--second", "mai închis"], "comparative: „mai” compară cu primele ghiciri: nu se poate\n"),
    (["--lang", "es", "algodón de azúcar"], "too_many_words: «algodón de azúcar»: demasiadas palabras "
                                            "(primero una, luego una o dos)\n"),
    (["--lang", "vi", "màu đỏ"], "colour_name: “màu đỏ” là màu cơ bản: hãy nói cách khác\n"),
    (["--lang", "en", "x" * 41], "too_long: Too long: a clue has 40 characters at most\n"),
])
def test_a_clue_that_breaks_a_rule_is_one_line_naming_the_rule_and_the_word_exit_2(isolated, capsys, argv, line):
    assert run(capsys, *argv) == (2, line, "")


@pytest.mark.parametrize("text", ["pi\u200bg\nred", "\x1b[2J", "<script>", "\u202ered"])
def test_a_refusal_prints_one_printable_line_whatever_was_typed(isolated, capsys, text):
    status, out, _ = run(capsys, "--lang", "en", text)
    assert status == 2 and out.endswith("\n") and out.count("\n") == 1 and out[:-1].isprintable()
    assert out.split(":")[0] in RULES


@pytest.mark.parametrize("argv, says", [
    (["--lang", "fr", "pig"], "invalid choice"), (["pig"], "clue needs --lang"), (["--lang", "en"], "clue needs --lang"),
    (["--table", "--lang", "en"], "clue --table"), (["--table", "pig"], "clue --table"),
])
def test_bad_arguments_are_one_line_exit_2(isolated, capsys, argv, says):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and err.count("\n") == 1 and says in err


def test_the_readmes_table_is_the_commands(isolated, capsys):
    assert run(capsys, "--table") == (0, clue_table(), "")
    table = clue_table()
    assert table in (ROOT / "README.md").read_text(encoding="utf-8")
    assert [line.split(" | ")[0] for line in table.splitlines()[2:]] == [f"| {lang}" for lang in LANGUAGES]

"""`hues-console bot guess|clue`, as an outside check runs them: cells one a line, a word, one
line and exit status 2 for an unknown word, a bad cell or a bad language, under a second each."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from console.commands import main as cli
from console.game.board import parse_cell

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    status = cli.main(["bot", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_guess_prints_cells_best_first_one_a_line(capsys):
    status, out, err = run(capsys, "guess", "--lang", "es", "plátano")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 10 and len(set(lines)) == 10
    assert all(str(parse_cell(line)) == line for line in lines)
    status, again, _ = run(capsys, "guess", "--lang", "es", "--count", "480", "platano")
    assert again.splitlines()[:10] == lines and len(again.splitlines()) == 480


def test_guess_reads_two_words_and_a_vietnamese_phrase(capsys):
    status, out, _ = run(capsys, "guess", "--lang", "vi", "bầu", "trời")
    assert status == 0
    status, two, _ = run(capsys, "guess", "--lang", "en", "banana", "sky")
    assert status == 0 and two != out


@pytest.mark.parametrize("argv, said", [
    (["guess", "--lang", "en", "qwertyuiop"], "'qwertyuiop' is not a word the expert knows in en"),
    (["guess", "--lang", "en", "--level", "child", "espresso"], "not a word the child knows"),
    (["guess", "--lang", "xx", "banana"], "invalid choice: 'xx'"),
    (["guess", "--lang", "en", "banana", "sky", "grass"], "a clue is one or two words"),
    (["guess", "--lang", "en", "--count", "0", "banana"], "--count must be from 1 to 480"),
    (["clue", "--lang", "en", "Q1"], "'Q1' is not a cell on the board"),
    (["clue", "--lang", "en", "H"], "'H' is not a cell on the board"),
    (["clue", "--lang", "klingon", "H15"], "invalid choice: 'klingon'"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, said):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert said in err and err.count("\n") == 1


def test_clue_from_a_file_prints_one_of_its_words_as_written(capsys, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("Banana\nsky\n\n  GRASS  \nqwertyuiop\ntomato\n")
    status, out, _ = run(capsys, "clue", "--lang", "en", "--words", str(words), "H12")
    assert status == 0 and out == "GRASS\n"
    status, out, _ = run(capsys, "clue", "--lang", "en", "--words", str(words), "C8")
    assert out == "Banana\n"


def test_clue_from_a_file_of_unknown_words_is_one_line(capsys, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("qwertyuiop\nasdfghjkl\n")
    status, out, err = run(capsys, "clue", "--lang", "it", "--words", str(words), "H12")
    assert status == 2 and "none of the words" in err and err.count("\n") == 1
    status, out, err = run(capsys, "clue", "--lang", "it", "--words", str(tmp_path / "missing.txt"), "H12")
    assert status == 2 and "missing.txt" in err


def test_clue_from_everything_it_knows_is_no_colour_name(capsys):
    from console.bots.knowledge import knowledge

    for cell in ("A1", "H15", "P30", "D8"):
        status, out, _ = run(capsys, "clue", "--lang", "cs", cell)
        found = knowledge().lookup("cs", out.strip())
        assert status == 0 and found is not None and found.kind != "colour"


@pytest.mark.parametrize("argv", [["guess", "--lang", "vi", "chuối"], ["clue", "--lang", "ro", "H15"]])
def test_each_command_answers_in_under_a_second(argv):
    """A fresh process, as an outside check starts it: import, load the knowledge, answer. Its CPU
    time is measured, which other work on a shared machine does not stretch as it does the wall
    clock's."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "console.commands.main", "bot", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=30)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 0 and done.stdout.strip()
    assert (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime) < 1.0

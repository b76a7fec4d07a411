"""`hues-console bot guess|clue|play`, as an outside check runs them: cells one a line, a word, one
line and exit status 2 for an unknown word, a bad cell or a bad language, under a second each; a
whole game of computer players, the same for the same seed, whose record replays to its end."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from console.commands import main as cli
from console.bots.player import game_alone, move
from console.game import rules
from console.game.board import parse_cell
from console.game.record import parse_record

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


def test_clue_from_a_file_names_the_words_it_left_out_in_one_line_beside_its_answer(capsys, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("banana\nqwertyuiop\n\x1b[31mred\n" + "x" * 5000 + "\n" + "".join(f"zz{i}\n" for i in range(9)))
    status, out, err = run(capsys, "clue", "--lang", "en", "--words", str(words), "C8")
    assert status == 0 and out == "banana\n"
    assert err.startswith("bot clue: left out 12 word(s) the expert does not know in en: 'qwertyuiop', ")
    assert err.endswith(" and 7 more\n") and err.count("\n") == 1 and "\x1b" not in err and len(err) < 400
    words.write_text("banana\nsky\n")
    assert run(capsys, "clue", "--lang", "en", "--words", str(words), "C8")[2] == ""


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


# --- bot play ---------------------------------------------------------------------------------


def test_play_prints_each_round_then_the_scores_and_winners(capsys):
    status, out, err = run(capsys, "play", "--players", "4", "--seed", "11", "--lang", "it")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "4 computer players (expert, it), cards variant, seed 11"
    rounds = [line for line in lines if line.startswith("round ")]
    assert len(rounds) >= rules.regular_rounds(4) and len(lines) == len(rounds) + 3
    colors = rules.DEFAULT_COLOR_NAMES[:4]
    first_giver = 11 % 4  # the seed chooses the first cue giver
    for number, line in enumerate(rounds, 1):  # its giver, a written first clue, the target, everyone's points
        head, target, points = line.split("; ")
        giver = colors[(first_giver + number - 1) % 4]
        assert head.startswith(f"round {number}: {giver} gives \"") or head.startswith(f"round {number} (tie-break): ")
        assert target.startswith("target ") and str(parse_cell(target[7:])) == target[7:]
        assert points == "points " + ", ".join(f"{color} {p}" for color, p in zip(colors, _ints(points)))
    totals = lines[-2].removeprefix("scores: ").split(", ")
    assert [t.split()[0] for t in totals] == list(colors)
    assert sum(int(t.split()[1]) for t in totals) == sum(sum(_ints(line.split("; ")[2])) for line in rounds)
    best = max(int(t.split()[1]) for t in totals)
    assert lines[-1] == "winner: " + next(t.split()[0] for t in totals if int(t.split()[1]) == best)


def _ints(points: str) -> list[int]:
    return [int(word.rstrip(",")) for word in points.split()[2::2]]


def test_play_is_the_same_game_for_the_same_seed_and_another_for_another(capsys):
    argv = ["play", "--players", "3", "--seed", "2024", "--level", "child", "--lang", "cs", "--variant", "free"]
    first = run(capsys, *argv)
    assert first == run(capsys, *argv) and first[0] == 0
    other = run(capsys, *argv[:4], "2025", *argv[5:])
    assert other[0] == 0 and other[1].splitlines()[1:] != first[1].splitlines()[1:]


@pytest.mark.parametrize("players, level, lang, variant", [(10, "expert", "ro", "cards"), (3, "child", "vi", "free")])
def test_the_record_of_play_replays_to_its_end(capsys, tmp_path, players, level, lang, variant):
    record = tmp_path / "game.jsonl"
    status, out, _ = run(capsys, "play", "--players", str(players), "--seed", "5", "--level", level,
                         "--lang", lang, "--variant", variant, "--record", str(record))
    assert status == 0
    actions = [action for _, action in parse_record(record.read_text())]
    assert actions[0].computers == (f"{level}:{lang}",) * players  # the record names every computer player
    assert game_alone(players, 5, level, lang, variant) == actions
    assert cli.main(["replay", str(record), "--json"]) == 0
    replayed = json.loads(capsys.readouterr().out)
    assert replayed["phase"] == "game_over"
    printed = out.splitlines()
    assert printed[-2] == "scores: " + ", ".join(f"{color} {score}" for color, score in
                                                 zip(rules.DEFAULT_COLOR_NAMES, replayed["scores"]))
    assert printed[-1].split(": ")[1].split(", ") == [rules.DEFAULT_COLOR_NAMES[p] for p in replayed["winners"]]


def test_a_guesser_is_never_given_the_rounds_secret():
    seen_by = []

    def spy(seen, seat, level, lang):
        seen_by.append((seat == seen.giver, seen.target, seen.card, seen.deck))
        return move(seen, seat, level, lang)

    assert game_alone(3, 9, "expert", "en", mover=spy) == game_alone(3, 9, "expert", "en")
    givers = [entry for entry in seen_by if entry[0]]
    guessers = [entry for entry in seen_by if not entry[0]]
    assert guessers and all(target is None and card is None and deck == () for _, target, card, deck in guessers)
    assert givers and all(card is not None for _, _, card, _ in givers)


@pytest.mark.parametrize("argv, said", [
    (["--players", "2", "--seed", "1"], "bot play: --players must be from 3 to 10, not 2"),
    (["--players", "11", "--seed", "1"], "bot play: --players must be from 3 to 10, not 11"),
    (["--players", "3", "--seed", "-1"], "bot play: --seed must be from 0 to 2147483647, not -1"),
    (["--players", "3", "--seed", "2147483648"], "bot play: --seed must be from 0 to 2147483647, not 2147483648"),
    (["--players", "3", "--seed", "9" * 31], "expected a whole number in digits 0-9"),
    (["--players", "3"], "the following arguments are required: --seed"),
    (["--players", "3", "--seed", "1", "--level", "master"], "invalid choice: 'master'"),
    (["--players", "3", "--seed", "1", "--lang", "fr"], "invalid choice: 'fr'"),
    (["--players", "3", "--seed", "1", "--variant", "dice"], "invalid choice: 'dice'"),
    (["--players", "3", "--seed", "1", "--record", "-"], "bot play: --record needs a file"),
    (["--players", "3", "--seed", "1", "--record", ""], "the output file name is empty"),
])
def test_play_refuses_bad_arguments_in_one_line(capsys, argv, said):
    status, out, err = run(capsys, "play", *argv)
    assert status == 2 and out == ""
    assert said in err and err.count("\n") == 1


def test_play_says_nothing_but_the_one_line_when_its_record_cannot_be_written(capsys, tmp_path):
    status, out, err = run(capsys, "play", "--players", "3", "--seed", "1", "--record", str(tmp_path / "no" / "g"))
    assert status == 2 and out == ""
    assert err == f"{tmp_path / 'no' / 'g'}: cannot be written (No such file or directory)\n"

"""Game records: the JSON-lines format, replay, and the `hues-console replay` command."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, strategies as st

from console.commands import main as cli
from console.game.record import RecordError, action_from_json, dumps_record, json_value, parse_record, replay_record
from console.game.rules import ChooseTarget, Clue, NewGame, Next, Place, SkipClue, TakeBack
from tests.gameplay import c

EXAMPLE = """\
{"action": "new_game", "players": 4, "seed": 7, "first_giver": 0, "variant": "free"}
{"action": "choose_target", "cell": "H15"}
{"action": "clue"}
{"action": "place", "cell": "G14", "player": 1}
{"action": "place", "cell": "h15"}
{"action": "place", "cell": "A1", "player": 3}
{"action": "skip_clue"}
"""


def test_record_vocabulary_round_trips():
    actions = [NewGame(4, 7, 1, "cards", ("red", "blue", "green", "pink")), ChooseTarget(c("H15")),
               Clue(), Place(c("G14"), 1), TakeBack(), Place(c("A2")), SkipClue(), Next()]
    assert [a for _, a in parse_record(dumps_record(actions))] == actions


def test_new_game_defaults():
    assert action_from_json({"action": "new_game", "players": 3}) == NewGame(3, 0, 0, "cards", None)


def test_replay_reaches_the_scored_round():
    state = replay_record(EXAMPLE)
    assert state.phase == "round_over" and state.scores == (2, 2, 3, 0)


def test_a_take_back_returns_the_pawn_and_the_turn():
    lines = EXAMPLE.splitlines()
    lines.insert(6, '{"action": "take_back"}')  # player 3's A1 goes back: the round is unscored
    lines.insert(7, '{"action": "place", "cell": "H14", "player": 3}')
    state = replay_record("\n".join(lines))
    assert state.phase == "round_over" and state.scores == (3, 2, 3, 2)
    before_take_back = replay_record("\n".join(lines[:6]))
    assert before_take_back.phase == "clue2" and before_take_back.scores == (0, 0, 0, 0)


def test_a_record_from_before_take_back_still_replays():
    assert replay_record(EXAMPLE).scores == (2, 2, 3, 0)


@pytest.mark.parametrize("upto, extra, problem", [
    (3, ['{"action": "take_back"}'], "take_back only follows a place"),  # right after the clue
    (7, ['{"action": "take_back"}'], "take_back only follows a place"),  # after skip_clue
    (4, ['{"action": "take_back"}', '{"action": "take_back"}'], "take_back only follows a place"),
    (4, ['{"action": "take_back", "cell": "A1"}'], "take_back has an unknown field 'cell'"),
])
def test_a_take_back_without_a_place_just_before_is_refused(upto, extra, problem):
    lines = EXAMPLE.splitlines()[:upto] + extra
    with pytest.raises(RecordError, match=problem) as caught:
        replay_record("\n".join(lines), "game.jsonl")
    assert str(caught.value).startswith(f"game.jsonl:{len(lines)}:")


@pytest.mark.parametrize("line, problem", [
    ("{nope", "not valid JSON"),
    ('["clue"]', "must be a JSON object"),
    ('{"action": "jump"}', "unknown action 'jump'"),
    ('{"action": "place", "player": 1}', "place needs a 'cell' field"),
    ('{"action": "place", "cell": "Z9"}', "'Z9' is not a cell"),
    ('{"action": "place", "cell": "A2", "player": "one"}', "player must be a whole number"),
    ('{"action": "place", "cell": "A2", "colour": "red"}', "unknown field 'colour'"),
    ('{"action": "place", "cell": "G14"}', "G14 already has a pawn"),
    ('{"action": "next"}', "next is not possible now"),
])
def test_bad_line_is_reported_with_file_and_line(line, problem):
    text = "\n".join(EXAMPLE.splitlines()[:4] + [line]) + "\n"
    with pytest.raises(RecordError) as err:
        replay_record(text, "game.jsonl")
    assert str(err.value).startswith("game.jsonl:5: ")
    assert problem in str(err.value)


def test_empty_record_is_an_error():
    with pytest.raises(RecordError, match="g.jsonl:1: the record is empty"):
        replay_record("\n", "g.jsonl")


def test_replay_command_json(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text(EXAMPLE)
    assert cli.main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {
        "phase": "round_over", "round": 1, "tiebreak": False, "giver": 0, "scores": [2, 2, 3, 0],
        "winners": [], "card": None, "target": "H15", "last_round_points": [2, 2, 3, 0],
        "pawns": [{"player": 1, "cell": "G14"}, {"player": 2, "cell": "H15"}, {"player": 3, "cell": "A1"}],
        "clues": [{"words": []}],  # spoken: the console did not hear it
    }


def test_replay_command_hides_the_target_until_scored(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(EXAMPLE.splitlines()[:3]))
    assert cli.main(["replay", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["target"] is None


def test_replay_command_summary(tmp_path, capsys):
    path = tmp_path / "game.jsonl"
    path.write_text(EXAMPLE)
    assert cli.main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "round 1 of 8, phase round_over" in out and "player 2 (yellow): 3" in out


@pytest.mark.parametrize("content, message", [
    (EXAMPLE + '{"action": "clue"}\n', ":8: clue is not possible now"),
    (None, ": no such file"),
])
def test_replay_command_bad_record_exit_2_one_line_nothing_on_stdout(tmp_path, capsys, content, message):
    path = tmp_path / "bad.jsonl"
    if content is not None:
        path.write_text(content)
    assert cli.main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and message in err and err.startswith(str(path))


@pytest.mark.parametrize("line, problem", [
    ('{"action": ["clue"]}', "unknown action ['clue']"),
    ('{"action": {}}', "unknown action {}"),
    ('{"action": null}', "unknown action None"),
    ("[" * 100_000, "not valid JSON (nested too deeply)"),
    ('{"action": "place", "cell": "A2", "player": ' + "9" * 4301 + "}", "not valid JSON (Exceeds the limit"),
    ('{"action": "place", "cell": "H²"}', "'H²' is not a cell"),
    ('{"action": "place", "cell": "H١٥"}', "'H١٥' is not a cell"),
    ('{"action": "place", "cell": "H１５"}', "'H１５' is not a cell"),
    ('{"action": "place", "cell": "A2", "cell": "A3"}', "the key 'cell' is given twice"),
    ('{"action": "place", "cell": "A2", "player": NaN}', "NaN is not a JSON number"),
    ('{"action": "place", "cell": "' + "A" * 10_000 + '"}', "'AAAAAAAA"),
])
def test_hostile_line_is_one_short_line_naming_file_and_line(line, problem):
    text = "\n".join(EXAMPLE.splitlines()[:4] + [line]) + "\n"
    with pytest.raises(RecordError) as err:
        replay_record(text, "game.jsonl")
    assert str(err.value).startswith("game.jsonl:5: ") and problem in str(err.value)
    assert len(str(err.value)) < 200 and "\n" not in str(err.value)


def test_a_utf8_bom_is_skipped():
    assert replay_record("\ufeff" + EXAMPLE).scores == (2, 2, 3, 0)


@pytest.mark.parametrize("separator", ["\x0c", "\x85", "\u2028", "\x1c", "\r"])
def test_only_newline_ends_a_line(separator):
    """Other characters that str.splitlines() takes for line breaks do not shift line numbers."""
    lines = EXAMPLE.splitlines()
    text = "\n".join(lines[:2] + [lines[2] + separator] + lines[3:4] + ['{"action": "next"}']) + "\n"
    with pytest.raises(RecordError) as err:
        replay_record(text, "g")
    if separator == "\r":  # JSON white space: the line is fine, the error is the illegal next
        assert str(err.value).startswith("g:5: next is not possible now")
    else:
        assert str(err.value).startswith("g:3: not valid JSON")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12)
SPACE = st.text(" \t\r\n", max_size=3)


@given(JSON_VALUES, st.sampled_from([(",", ":"), (", ", ": ")]), SPACE, SPACE)
def test_a_line_reads_the_same_with_space_around_its_value_or_none(value, separators, before, after):
    """A line as the writers make it is read by the scanner alone, one with space around it by the
    whole decoder: the same value either way."""
    text = json.dumps(value, separators=separators)
    assert json_value(text) == value == json_value(before + text + after)


@pytest.mark.parametrize("text, problem", [
    ('{"a":1,"a":2}', "the key 'a' is given twice"),
    ('[{"b":[{"c":0,"c":0}]}]', "the key 'c' is given twice"),
    ('{"a":NaN}', "NaN is not a JSON number"),
    ('[-Infinity]', "-Infinity is not a JSON number"),
    ('{"a":1}x', "Extra data at column 8"),
    ("", "Expecting value at column 1"),
])
def test_a_line_without_space_is_refused_as_with_it(text, problem):
    for line in (text, f" {text} "):
        with pytest.raises(ValueError) as err:
            json_value(line)
        assert problem.split(" at column")[0] in str(err.value)

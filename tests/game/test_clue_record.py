"""Clues in the engine and the record: a written clue's words, language and check kept as an action
of the round and in the state until the next round; a spoken one as records always had it, so a
record written before written clues reads, replays and writes back byte for byte as it was."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from console.game import rules
from console.game.record import (RecordError, action_from_json, action_to_json, dumps_record, parse_record,
                                 replay_record, state_json)
from console.game.rules import MAX_CLUE_TEXT, ChooseTarget, Clue, NewGame, Next, RuleError, SkipClue
from tests.gameplay import c, play_round

# A whole game of three players written before clues had words: spoken clues, a take-back, a
# pass, the next rounds (the shape every stored game of earlier versions has).
OLD = """\
{"action": "new_game", "players": 3, "seed": 7, "first_giver": 0, "variant": "free"}
{"action": "choose_target", "cell": "H15"}
{"action": "clue"}
{"action": "place", "cell": "G14", "player": 1}
{"action": "place", "cell": "H16", "player": 2}
{"action": "clue"}
{"action": "place", "cell": "A1", "player": 2}
{"action": "take_back"}
{"action": "place", "cell": "H14", "player": 2}
{"action": "place", "cell": "P30", "player": 1}
{"action": "next"}
{"action": "choose_target", "cell": "C3"}
{"action": "clue"}
{"action": "place", "cell": "C4", "player": 2}
{"action": "place", "cell": "D4", "player": 0}
{"action": "skip_clue"}
{"action": "next"}
"""

SKY = Clue(("sky",), "en", True)
TWO = Clue(("cielo", "sereno"), "it", False)


def written_round() -> rules.GameState:
    state = rules.apply(None, NewGame(players=3, seed=1, variant="free"))
    state = rules.apply(rules.apply(state, ChooseTarget(c("H15"))), SKY)
    state = rules.apply(rules.apply(state, rules.Place(c("A1"), 1)), rules.Place(c("A2"), 2))
    state = rules.apply(state, TWO)
    return rules.apply(rules.apply(state, rules.Place(c("A3"), 2)), rules.Place(c("A4"), 1))


def test_an_old_record_reads_replays_and_writes_back_byte_for_byte():
    numbered = parse_record(OLD)
    actions = [action for _, action in numbered]
    assert [a for a in actions if isinstance(a, Clue)] == [Clue()] * 3  # spoken, as they were
    assert dumps_record(actions) == OLD
    state = replay_record(OLD)
    assert (state.round, state.phase, state.scores) == (3, "choose_target", (8, 6, 6))
    assert state.clues == ()  # the next round started: the last one's clues went with it
    assert state_json(replay_record("".join(OLD.splitlines(True)[:16])))["clues"] == [{"words": []}]


def test_written_clues_round_trip_through_the_record():
    actions = [NewGame(3, 1, 0, "free"), ChooseTarget(c("H15")), SKY, rules.Place(c("A1"), 1),
               rules.Place(c("A2"), 2), TWO, rules.Place(c("A3"), 2), rules.Place(c("A4"), 1), Next()]
    text = dumps_record(actions)
    assert '{"action": "clue", "words": ["sky"], "lang": "en", "checked": true}' in text.splitlines()
    assert '{"action": "clue", "words": ["cielo", "sereno"], "lang": "it", "checked": false}' in text.splitlines()
    assert [a for _, a in parse_record(text)] == actions


def test_the_state_keeps_the_rounds_clues_until_the_next_round():
    scored = written_round()
    assert scored.phase == "round_over" and scored.clues == (SKY, TWO)
    assert state_json(scored)["clues"] == [{"words": ["sky"], "lang": "en", "checked": True},
                                           {"words": ["cielo", "sereno"], "lang": "it", "checked": False}]
    assert rules.apply(scored, Next()).clues == ()


def test_a_pass_keeps_the_first_clue_alone_and_a_take_back_keeps_the_clues():
    state = rules.apply(None, NewGame(players=3, variant="free"))
    state = rules.apply(rules.apply(state, ChooseTarget(c("B2"))), SKY)
    state = rules.apply(rules.apply(state, rules.Place(c("A1"), 1)), rules.Place(c("A2"), 2))
    assert rules.apply(state, rules.TakeBack()).clues == (SKY,)
    assert rules.apply(state, SkipClue()).clues == (SKY,)


def test_the_engine_does_not_check_the_words_again():
    """A clue the check of some version let through replays whatever the word lists say now:
    the record is history, not a question."""
    state = rules.apply(None, NewGame(players=3, variant="free"))
    state = rules.apply(state, ChooseTarget(c("B2")))
    for clue in (Clue(("red",), "en", True), Clue(("H15",), "en", False), Clue(("a", "b", "c"), "vi", True)):
        assert rules.apply(state, clue).clues == (clue,)


@pytest.mark.parametrize("clue, problem", [
    (Clue(("",), "en", True), "a word of a written clue is blank"),
    (Clue(("sky", " "), "en", True), "a word of a written clue is blank"),
    (Clue(("x" * (MAX_CLUE_TEXT + 1),), "en", True), f"at most {MAX_CLUE_TEXT} characters"),
    (Clue(("sky",), None, True), "needs the language"),
    (Clue(("sky",), "", False), "needs the language"),
    (Clue((), "en", False), "a spoken clue"),
    (Clue((), None, True), "a spoken clue"),
    (Clue(["sky"], "en", True), "words must be a list of words"),
    (Clue(("sky", 3), "en", True), "words must be a list of words"),
    (Clue(("sky",), 3, True), "lang must be text or None"),
    (Clue(("sky",), "en", 1), "checked must be true or false"),
])
def test_a_clue_whose_fields_disagree_is_refused(clue, problem):
    state = rules.apply(rules.apply(None, NewGame(players=3, variant="free")), ChooseTarget(c("B2")))
    with pytest.raises(RuleError, match=problem):
        rules.apply(state, clue)


@pytest.mark.parametrize("line, problem", [
    ('{"action": "clue", "words": "sky", "lang": "en", "checked": true}', "words must be a list of words"),
    ('{"action": "clue", "words": [1], "lang": "en", "checked": true}', "words must be a list of words"),
    ('{"action": "clue", "words": ["sky"], "lang": 1, "checked": true}', "lang must be text"),
    ('{"action": "clue", "words": ["sky"], "lang": "en", "checked": 1}', "checked must be true or false"),
    ('{"action": "clue", "words": ["sky"], "checked": true}', "needs the language"),
    ('{"action": "clue", "text": "sky"}', "clue has an unknown field 'text'"),
])
def test_a_bad_clue_line_names_the_file_line_and_field(line, problem):
    text = OLD.splitlines()[:2] + [line]
    with pytest.raises(RecordError, match=problem) as caught:
        replay_record("\n".join(text), "game.jsonl")
    assert str(caught.value).startswith("game.jsonl:3: ")


WORDS = st.lists(st.text(min_size=1, max_size=12).filter(str.strip), min_size=1, max_size=4).filter(
    lambda words: sum(map(len, words)) <= MAX_CLUE_TEXT)


@settings(max_examples=200, deadline=None)
@given(WORDS, st.sampled_from(["en", "it", "cs", "ro", "es", "vi"]), st.booleans())
def test_any_written_clue_comes_back_from_its_record_line_as_it_went_in(words, lang, checked):
    """Markup, emoji, bidi controls, lone surrogates' neighbours: the record is JSON, and what
    it keeps is what was shown."""
    clue = Clue(tuple(words), lang, checked)
    line = json.dumps(action_to_json(clue))
    assert action_from_json(json.loads(line)) == clue
    state = rules.apply(rules.apply(None, NewGame(players=3, variant="free")), ChooseTarget(c("B2")))
    assert rules.apply(state, clue).clues == (clue,)


def test_play_round_still_gives_spoken_clues():
    assert play_round(rules.apply(None, NewGame(players=3))).clues == (Clue(),)

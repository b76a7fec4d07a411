"""Whatever a phone sends as a clue, through the message check and the one handler, with the clue
check on and off: the console never fails (a refusal with a key, or a clue), and a clue it takes
holds nothing markup, a terminal or a page could act on: what every phone and /panel shows is text.

The texts are any Unicode (beyond the surrogates, which a message refuses) and texts made of what
is used to slip something past a check or into a page: markup, quotes, entities, bidi controls,
zero-width characters, variation selectors, combining marks stacked, look-alike letters of other
alphabets, fullwidth and mathematical letters, emoji, line breaks."""

from __future__ import annotations

import json
import random
import unicodedata
from dataclasses import replace

from hypothesis import HealthCheck, given, settings, strategies as st

from console.game import rules
from console.game.board import ALL_CELLS
from console.game.clue import LANGUAGES
from console.game.rules import ChooseTarget, NewGame, RuleError
from console.game.seating import Seating, dealt
from console.play.intents import Player
from console.play.table import act, screen_for
from console.view.ui import Ui
from console.web.messages import MessageError, parse_message
from console.web.views import seat_view

TRICKS = ["<", ">", "&", '"', "'", "`", "/", "=", "<script>", "<img src=x onerror=alert(1)>", "&lt;", "&#60;",
          "\u202e", "\u2066", "\u200b", "\u200d", "\ufeff", "\u00ad", "\ufe0f", "\U000e0041", "\u0301\u0301\u0301",
          "\u0430", "\u043e", "\u0435", "\u03bf", "\u0131", "\uff52\uff45\uff44", "\U0001d42b", "\U0001f600",
          "\u2028", "\n", "\t", "\x00", "\x1b[31m", "red", "blu", "e", "sky", "H", "15", " ", "-", "’", "đỏ", "ç"]
WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzàèéìòùăâîșțčřšžđơưếệ -'’", max_size=30)
TEXTS = st.one_of(st.text(max_size=80), st.lists(st.sampled_from(TRICKS), max_size=12).map("".join), WORDS,
                  st.text(alphabet=st.characters(codec="utf-8"), min_size=60, max_size=600))
ACTIVE = set("<>&\"'`=;{}()[]\\")  # what markup, an attribute or a template could act on


def phases() -> tuple[rules.GameState, rules.GameState]:
    first = rules.apply(rules.apply(None, NewGame(players=3, seed=4, variant="free")), ChooseTarget(ALL_CELLS[5]))
    second = rules.apply(first, rules.Clue())
    for seat in (1, 2):
        second = rules.apply(second, rules.Place(ALL_CELLS[seat], seat))
    return first, second


FIRST, SECOND = phases()


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXTS, st.sampled_from(LANGUAGES), st.booleans(), st.booleans())
def test_any_text_sent_as_a_clue_is_a_refusal_or_a_clue_of_plain_words(text, lang, is_second, check):
    game = SECOND if is_second else FIRST
    try:
        message = parse_message(json.dumps({"t": "clue", "n": 1, "text": text, "lang": lang}), 0)
    except MessageError:
        return
    ui = replace_seating(screen_for(game, Ui(clue_check=check), 1.0), game)
    try:
        step = act(game, ui, Player("g" * 64, 0), message.intent, 2.0, random.Random(0))
    except RuleError as refused:
        assert refused.key.startswith("clue_") and isinstance(refused.params.get("word", ""), str)
        json.dumps(refused.params)
        return
    clue = step.game.clues[-1]
    assert clue.written and clue.checked is check and clue.lang == lang
    for word in clue.words:
        assert word and word == word.strip()
        for ch in word:
            assert ch not in ACTIVE, (text, word)
            assert unicodedata.category(ch)[0] not in "CZ" or ch == " ", (text, word)
    view = json.loads(json.dumps(seat_view(step.game, step.ui, None)))
    assert view["game"]["clues"][-1]["words"] == list(clue.words)


def replace_seating(ui: Ui, game: rules.GameState) -> Ui:
    return replace(ui, seating=dealt(game, Seating(holders=((0, "g" * 64),))))


def test_a_lone_surrogate_is_refused_by_the_message_check():
    for escaped in ('"\\ud800"', '"a\\udfffb"'):
        raw = '{"t": "clue", "n": 1, "lang": "en", "text": ' + escaped + "}"
        try:
            parse_message(raw, 0)
        except MessageError as exc:
            assert "surrogate" in str(exc)
        else:
            raise AssertionError(f"{escaped} was taken")

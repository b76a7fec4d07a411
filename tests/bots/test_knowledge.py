"""The shipped knowledge: it loads, is what lexicon/ builds, every concept speaks all six
languages, and every form a guest may type (case, diacritics, spacing) folds to its concept."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from console.bots.knowledge import (KINDS, LANGUAGES, KnowledgeError, UnknownWord, knowledge, parse_table)
from console.bots.words import bare_key, exact_key

ROOT = Path(__file__).resolve().parents[2]
K = knowledge()


def test_the_knowledge_loads_with_thousands_of_concepts_of_every_kind():
    assert len(K.concepts) >= 3000
    assert {c.kind for c in K.concepts} == set(KINDS)
    assert sum(c.child for c in K.concepts) >= 100


def test_the_shipped_table_is_what_the_lexicon_builds():
    done = subprocess.run([sys.executable, str(ROOT / "lexicon" / "build.py"), "--check"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_concept_has_words_in_every_language_and_its_forms_fold_to_it(lang):
    wrong = []
    for concept in K.concepts:
        assert concept.words[lang] and all(w.strip() for w in concept.words[lang])
        for form in concept.words[lang]:
            found = K.lookup(lang, form)
            # A form two concepts share (orange the fruit, orange the colour) leads to one of them.
            if found is None or (found.id != concept.id and exact_key(form) not in
                                 {exact_key(w) for w in found.words[lang]}):
                wrong.append((concept.id, form))
    assert wrong == []


@pytest.mark.parametrize("lang, typed, concept", [
    ("vi", "CHUỐI", "banana"), ("vi", "chuoi", "banana"), ("vi", "bau troi", "sky"), ("vi", "bầutrời", "sky"),
    ("cs", "trava", "grass"), ("cs", "JAHODY", "strawberry"), ("ro", "tomate", "tomato"), ("ro", "căpşuni", "strawberry"),
    ("es", "limon", "lemon"), ("es", "limones", "lemon"), ("es", "fresas", "strawberry"), ("it", "pomodori", "tomato"),
    ("it", "fragole", "strawberry"), ("en", "Tomatoes", "tomato"), ("en", "strawberries", "strawberry"),
    ("en", "Spider-Man", "spiderman"), ("en", "spider man", "spiderman"), ("en", "ＢＡＮＡＮＡ", "banana"),
])
def test_typed_forms_fold_to_their_concept(lang, typed, concept):
    assert K.lookup(lang, typed).id == concept


def test_the_exact_form_wins_over_a_bare_one():
    # Vietnamese: cà (eggplant, cà tím) and cá (fish) differ only in their marks.
    assert K.lookup("vi", "cà chua").id == "tomato"
    assert K.lookup("vi", "cá vàng").id == "goldfish"


def test_a_vietnamese_tone_mark_on_either_vowel_is_one_word():
    """Phones write hòa or hoà, thủy or thuỷ: the clue check's syllable key makes them one."""
    assert K.lookup("vi", "thuỷ tinh").id == K.lookup("vi", "thủy tinh").id
    assert K.lookup("vi", "thuỷ tinh") is not None
    assert exact_key("hoà", "vi") == exact_key("hòa", "vi") != exact_key("hoa", "vi")


def test_a_stray_mark_on_a_word_without_marks_still_finds_it():
    """The bare index holds only forms with marks; a word typed with a mark its form has not is
    found through the exact index's bare key."""
    assert K.lookup("en", "bananá").id == "banana"
    assert K.lookup("es", "limón").id == K.lookup("es", "limon").id == "lemon"


@pytest.mark.parametrize("lang", ["cs", "vi"])
def test_several_concepts_on_one_bare_key_give_the_childs_first(lang):
    """Vietnamese do, đỏ, đó: a bare key leads to every concept with one of those forms, the ones
    a child knows first, then the table's order, whichever index each came from."""
    shared = 0
    for key, found in K._bare[lang].items():
        numbers = set(found if isinstance(found, tuple) else (found,))
        also = K._exact[lang].get(key, ())
        numbers |= set(also if isinstance(also, tuple) else (also,))
        if len(numbers) > 1 and K._exact[lang].get(exact_key(key, lang)) is None:
            shared += 1
            first = min(numbers, key=lambda i: (not K.concepts[i].child, i))
            assert K.lookup(lang, key) is K.concepts[first], key
    assert shared > 0


def test_a_clue_reads_as_its_longest_phrases():
    assert [c.id for c in K.read("vi", ["bầu", "trời", "chuối"])] == ["sky", "banana"]
    assert [c.id for c in K.read("en", ["light", "green"])] == ["light-green"]
    with pytest.raises(UnknownWord) as raised:
        K.read("en", ["banana", "qwertyuiop"])
    assert raised.value.word == "qwertyuiop"


def test_a_child_knows_a_subset():
    child = [c for c in K.concepts if c.child]
    assert 0 < len(child) < len(K.concepts) / 2
    assert K.lookup("en", "banana", child_only=True).id == "banana"
    expert_only = next(c for c in K.concepts if not c.child)
    assert K.lookup("en", expert_only.word("en"), child_only=True) is None or \
        K.lookup("en", expert_only.word("en"), child_only=True).child


@given(st.text(max_size=40))
def test_the_keys_are_stable_and_the_bare_key_has_no_marks(text):
    key = exact_key(text)
    assert exact_key(key) == key
    assert bare_key(key) == bare_key(text)
    assert bare_key(bare_key(text)) == bare_key(text)
    assert all(ch.isalnum() for ch in key)


@given(st.text(max_size=60))
def test_any_typed_text_is_found_or_not_never_an_error(text):
    for lang in LANGUAGES:
        found = K.lookup(lang, text)
        assert found is None or found.id in K.by_id


@pytest.mark.parametrize("table, problem", [
    ("id\tkind\n", "header"),
    ("id\tkind\tchild\tspread\tcolours\ten\tit\tcs\tro\tes\tvi\nx\tfood\t1\t50\t#ff0000\ta\tb\tc\td\te\n", "fields"),
    ("id\tkind\tchild\tspread\tcolours\ten\tit\tcs\tro\tes\tvi\nx\tspaceship\t1\t50\t#ff0000\ta\tb\tc\td\te\tf\n",
     "kind"),
    ("id\tkind\tchild\tspread\tcolours\ten\tit\tcs\tro\tes\tvi\nx\tfood\t1\t50\tred\ta\tb\tc\td\te\tf\n", "colours"),
    ("id\tkind\tchild\tspread\tcolours\ten\tit\tcs\tro\tes\tvi\nx\tfood\t1\t50\t#ff0000*0.5\ta\tb\tc\td\te\tf\n",
     "sharing"),
    ("id\tkind\tchild\tspread\tcolours\ten\tit\tcs\tro\tes\tvi\nx\tfood\t1\t50\t#ff0000\ta||b\tb\tc\td\te\tf\n",
     "empty"),
])
def test_a_broken_table_is_refused_naming_what(table, problem):
    with pytest.raises(KnowledgeError, match=problem):
        parse_table(table)

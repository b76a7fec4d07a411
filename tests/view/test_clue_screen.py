"""The panel's clue screens, drawn by the renderer: a clue written on the giver's phone fills the
panel with its words when it is given, in the 3x5 font, every letter of the six languages folded to
one the font draws; a word wider than the panel is cut into lines it holds, two lines a page; the
board comes back once the pages are shown, and the words come again at the reveal. The hints name
the clue."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import replace
from importlib import resources

import pytest
from hypothesis import given, settings, strategies as st

from console.commands.screens import CLUES
from console.game import rules
from console.game.board import parse_cell
from console.game.clue import LANGUAGES, check_clue, word_list, forms
from console.game.rules import ChooseTarget, Clue, NewGame, Place
from console.view import font
from console.view.hints import describe
from console.view.render import render, render_timed
from console.view.screens import (CLUE_COLORS, CLUE_LINE_YS, CLUE_PAGE_S, PANEL_W, centred_text, clue_lines,
                                  clue_seconds)
from console.view.ui import REVEAL_POINTS_S, Ui
from hal.frame import Frame

# Every letter each language writes (Vietnamese: every vowel with every tone, and đ).
_TONES = ("", "\u0301", "\u0300", "\u0309", "\u0303", "\u0323")
ALPHABETS = {
    "en": "abcdefghijklmnopqrstuvwxyz",
    "it": "àèéìíîòóùú",
    "cs": "áčďéěíňóřšťúůýž",
    "ro": "ăâîșțşţ",
    "es": "áéíñóúü",
    "vi": "đ" + "".join(unicodedata.normalize("NFC", base + tone) for base in "aăâeêioôơuưy" for tone in _TONES),
}


def base_letter(letter: str) -> str:
    return "D" if letter in "đĐ" else unicodedata.normalize("NFD", letter)[0].upper()


@pytest.mark.parametrize("lang", ALPHABETS)
def test_every_letter_of_each_language_folds_to_the_letter_the_font_draws(lang):
    for letter in ALPHABETS[lang] + ALPHABETS[lang].upper():
        folded = font.fold(letter)
        assert folded == base_letter(letter) and folded in font.GLYPHS, (lang, letter, folded)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_word_the_check_knows_folds_without_a_letter_left_out(lang):
    words = word_list(lang)
    known = [form for _, entries in words.colours for entry in entries for form in forms(entry, words)]
    known += list(words.modifiers) + list(words.comparatives)
    if words.syllable_words:
        known += (resources.files("console.game") / "clue_words" / "vi-words.txt").read_text("utf-8").split()
    unknown = {word for word in known if "?" in font.fold(word)}
    assert unknown == set()


def test_what_the_font_cannot_draw_is_a_question_mark_and_what_is_invisible_is_left_out():
    assert font.fold("l’arancia") == "L'ARANCIA" and font.fold("Straße") == "STRASSE"
    assert font.fold("a\u200bb\u202e") == "AB" and font.fold("ｓｋｙ") == "SKY"
    assert font.fold("небо 🙂") == "???? ?"


def clued(words: tuple[str, ...], lang: str = "en") -> rules.GameState:
    state = rules.apply(None, NewGame(players=4, seed=2, first_giver=1, variant="free"))
    return rules.apply(rules.apply(state, ChooseTarget(parse_cell("H15"))), Clue(words, lang, True))


def band(frame: Frame, y: int) -> bytes:
    return bytes(frame.pixels[y * frame.width * 3:(y + font.GLYPH_HEIGHT) * frame.width * 3])


def shows(frame: Frame, y: int, text: str, rgb) -> bool:
    """Whether the frame's five rows at y are `text`, centred, and nothing else."""
    expected = Frame(frame.width, frame.height)
    centred_text(expected, y, text, rgb)
    return band(frame, y) == band(expected, y)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_clue_screen_in_each_language_shows_the_folded_words_then_the_board(lang):
    verdict = check_clue(CLUES[lang], lang, second=False)
    assert verdict.ok  # the README's pictures show clues the check lets through
    state = clued(verdict.words, lang)
    ui = Ui(screen="play", since=10.0, clue_screen=clue_seconds(state.clues))
    lines = clue_lines(verdict.words)
    assert lines and all(font.text_width(line) <= PANEL_W for line in lines)
    frame = render(state, ui, 10.1)
    assert all(shows(frame, y, line, CLUE_COLORS[0]) for line, y in zip(lines, CLUE_LINE_YS[len(lines)]))
    board = render(state, replace(ui, clue_screen=0.0), 10.1)
    assert frame != board
    end = ui.clue_ends()
    assert render_timed(state, ui, 10.1)[1] <= end and render(state, ui, end) == render(state, replace(ui, clue_screen=0.0), end)


def test_a_long_word_is_cut_into_even_pieces_over_two_lines_and_the_pages_follow():
    assert clue_lines(("melocotón",)) == ["MELOC-", "OTON"]
    assert clue_lines(("hoa hồng",)) == ["HOA HONG"]  # a Vietnamese word: its syllables on one line
    assert clue_lines(("cà phê sữa đá",)) == ["CA PHE", "SUA DA"]
    long = ("supercalifragilistic", "expialidocious")
    lines = clue_lines(long)
    assert len(lines) == 5 and all(font.text_width(line) <= PANEL_W for line in lines)
    state = clued(long)
    ui = Ui(screen="play", since=0.0, clue_screen=clue_seconds(state.clues))
    assert ui.clue_screen == 3 * CLUE_PAGE_S
    pages = [render(state, ui, 0.1 + CLUE_PAGE_S * i) for i in range(3)]
    assert len(set(map(bytes, (p.pixels for p in pages)))) == 3
    assert shows(pages[2], CLUE_LINE_YS[1][0], lines[4], CLUE_COLORS[0])


LETTERS = "".join(ALPHABETS.values()) + "ABCXYZ-'’ "


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=LETTERS, max_size=40).filter(str.strip), min_size=1, max_size=3))
def test_a_clue_of_any_words_is_cut_into_lines_the_panel_holds_and_no_letter_is_lost(words):
    lines = clue_lines(tuple(words))
    assert lines and all(0 < font.text_width(line) <= PANEL_W for line in lines)
    squeeze = lambda text: text.replace("-", "").replace(" ", "")  # noqa: E731
    assert squeeze("".join(lines)) == squeeze("".join(font.fold(word) for word in words))


def test_the_second_clue_shows_alone_in_gold_and_the_reveal_shows_both_a_page_each():
    state = clued(("sunset",))
    for seat in (2, 3, 0):
        state = rules.apply(state, Place(parse_cell(f"A{seat + 1}"), seat))
    state = rules.apply(state, Clue(("ripe", "peach"), "en", True))
    ui = Ui(screen="play", since=0.0, clue_screen=clue_seconds(state.clues[1:]))
    frame = render(state, ui, 0.1)
    assert shows(frame, CLUE_LINE_YS[2][0], "RIPE", CLUE_COLORS[1]) and shows(frame, CLUE_LINE_YS[2][1], "PEACH", CLUE_COLORS[1])
    for seat in (0, 3, 2):
        state = rules.apply(state, Place(parse_cell(f"B{seat + 1}"), seat))
    reveal = Ui(screen="reveal", since=0.0, reveal_clues=clue_seconds(state.clues))
    assert reveal.reveal_clues == 2 * CLUE_PAGE_S
    first, second = (render(state, reveal, REVEAL_POINTS_S + 0.1 + CLUE_PAGE_S * i) for i in range(2))
    assert shows(first, CLUE_LINE_YS[1][0], "SUNSET", CLUE_COLORS[0])
    assert shows(second, CLUE_LINE_YS[2][0], "RIPE", CLUE_COLORS[1])
    assert reveal.reveal_stage(REVEAL_POINTS_S + reveal.reveal_clues) == "points"


def test_the_hint_names_the_clue_while_guessing_and_at_the_reveal():
    state = clued(("cielo",), "it")
    assert describe(state, Ui(screen="play")).endswith(', clue "cielo"')
    for seat in (2, 3, 0):
        state = rules.apply(state, Place(parse_cell(f"A{seat + 1}"), seat))
    state = rules.apply(state, rules.SkipClue())
    assert 'clue "cielo"' in describe(state, Ui(screen="reveal"))
    spoken = rules.apply(rules.apply(rules.apply(None, NewGame(players=3, variant="free")),
                                     ChooseTarget(parse_cell("A1"))), Clue())
    assert "clue" not in describe(spoken, Ui(screen="play")).split("(A places)")[1]


def test_markup_in_a_record_is_drawn_as_the_letters_it_is_made_of():
    """A record is any JSON: its words reach the panel as the font's letters, nothing else."""
    state = clued(("<b>", "&amp;"))
    assert clue_lines(state.clues[0].words) == ["?B?", "?AMP?"]
    json.dumps(describe(state, Ui(screen="play")))

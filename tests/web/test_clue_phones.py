"""A round with typed clues on 390x844 touch phones in the system Chromium: the giver types each
clue in their phone's language and taps Send, a clue that breaks a rule comes back in that language
naming the word (the text kept to mend), every phone shows the clues from the moment each is given,
the reveal shows the target beside both, the giver may still say a clue aloud, and the host's
house rule takes clues as written. A guest's words are text on every page, never markup. axe-core
finds nothing serious on the new screens, and their pictures are kept for the README."""

from __future__ import annotations

import pytest

from console.game import rules
from console.game.board import Cell
from console.game.rules import ChooseTarget, Clue, NewGame
from console.view.screens import clue_seconds
from console.view.ui import Ui
from tests.phone_pages import axe_problems, command, new_round, small_targets, wait_line
from tests.web.test_phone_languages import catalogue
from tests.web.test_phone_page import screens_seen, seated_room


@pytest.fixture(scope="module")
def room(browser, tmp_path_factory):
    """The console and three seated phones: red (the host, the first giver), orange, yellow."""
    yield from seated_room(browser, tmp_path_factory, seed=4, seats=3)


def chosen(table, phones) -> str:
    """A new 3-player round, red giving from its phone: the target chosen on the card."""
    new_round(table, 3, 0)
    giver = phones[0]
    giver.locator("#card .swatch").first.wait_for()
    target = giver.locator("#card .swatch").nth(2).get_attribute("data-cell")
    giver.locator("#card .swatch").nth(2).tap()
    giver.wait_for_selector("#clue-sheet:not([hidden])")
    return target


def checked(page) -> None:
    """A screen with no picture in the README: axe-core finds nothing serious, targets are 44 px."""
    assert axe_problems(page) == [] and small_targets(page) == []


def said(lang: str, key: str, word: str) -> str:
    """A refusal as the phone says it: its language's sentence, the word in it."""
    text = catalogue(lang)[f"refused.{key}"].replace("{word}", word)
    return text[0].upper() + text[1:]


def send_clue(page, text: str) -> None:
    page.locator("#clue-text").fill(text)
    page.locator("#clue-send").tap()


def chip(page) -> list[str]:
    return page.locator("#clue-now .clue-words").all_text_contents()


def test_a_round_of_typed_clues_checked_in_the_givers_language_and_shown_on_every_phone(room):
    table, phones = room
    red, orange, yellow = phones
    red.select_option("#lang", "it")
    red.wait_for_selector("html[lang=it]")
    try:
        target = chosen(table, phones)
        assert wait_line(red, "line.clue1_giver_typed") == "Scrivi il primo indizio (una parola), poi Invia"
        assert red.locator("#clue-send").is_disabled()  # nothing typed yet
        assert red.locator("#clue").is_hidden() and red.locator("#aloud").is_visible()
        send_clue(red, "Rosso")
        assert wait_line(red, "refused.clue_colour_name") == said("it", "clue_colour_name", "Rosso")
        assert red.locator("#clue-text").input_value() == "Rosso"  # kept, to be mended
        assert table.app.game.phase == "clue1"
        screens_seen("clue-refused", [red], ("giver",))
        send_clue(red, "tramonto")
        for page in phones:
            page.wait_for_selector("#clue-now:not([hidden])")
            assert chip(page) == ["tramonto"]
        assert red.locator("#clue-sheet").is_hidden()
        assert table.app.ui.clue_screen > 0  # the panel shows the words before the board
        assert table.app.game.clues == (Clue(("tramonto",), "it", True),)
        orange.locator("#board [data-cell='C3']").tap()
        wait_line(orange, "line.guess_picked")
        checked(orange)
        orange.locator("#place").tap()
        orange.locator("#confirm").tap()
        assert command(table, "place", 2, Cell(12, 20)) is None
        wait_line(red, "line.clue2_giver_typed")
        assert red.locator("#clue-text").input_value() == ""  # a new clue starts empty
        send_clue(red, "più chiaro")
        assert wait_line(red, "refused.clue_comparative") == said("it", "clue_comparative", "più")
        send_clue(red, "cielo sereno")
        for page in phones:
            page.wait_for_selector("#clue-now .clue-words.second")
            assert chip(page) == ["tramonto", "cielo sereno"]
        assert command(table, "place", 2, Cell(13, 21)) is None
        assert command(table, "place", 1, Cell(14, 22)) is None
        assert command(table, "confirm", 1) is None
        for page in phones:  # the reveal: the target beside both clues
            page.wait_for_selector("#reveal-clues:not([hidden])")
            words = page.locator("#reveal-clues .clue-words").all_text_contents()
            assert words == ["tramonto", "cielo sereno"]
            assert target in page.locator("#reveal-clues").inner_text()
        checked(red)
        screens_seen("reveal-clues", [orange], ("guesser",))
    finally:
        red.select_option("#lang", "en")


def test_the_giver_may_still_say_a_clue_aloud(room):
    table, phones = room
    red, orange = phones[0], phones[1]
    chosen(table, phones)
    red.locator("#aloud").tap()
    wait_line(red, "line.clue1_giver")
    assert red.locator("#clue-sheet").is_hidden() and red.locator("#typed").is_visible()
    red.locator("#clue").tap()
    orange.wait_for_selector("#clue-now .clue-words.aloud")
    assert chip(orange) == ["said aloud"]
    assert table.app.game.clues == (Clue(),)
    red.locator("#typed").wait_for(state="hidden")
    assert red.locator("#clue-sheet").is_hidden()
    assert command(table, "place", 1, Cell(1, 1)) is None
    assert command(table, "place", 2, Cell(2, 2)) is None
    wait_line(red, "line.clue2_giver")  # still aloud this game, until Type it instead
    red.locator("#typed").tap()
    red.wait_for_selector("#clue-sheet:not([hidden])")
    send_clue(red, "salt")
    orange.wait_for_selector("#clue-now .clue-words.second")
    assert chip(orange) == ["said aloud", "salt"]


def test_the_hosts_house_rule_takes_clues_as_written_and_the_record_says_so(room):
    table, phones = room
    red = phones[0]
    chosen(table, phones)
    red.locator("#menu").tap()
    assert red.locator("#h-check").get_attribute("aria-pressed") == "true"
    red.locator("#h-check").tap()
    table.wait_until(lambda: table.app.ui.clue_check is False)
    red.wait_for_selector("#h-check[aria-pressed=false]")
    screens_seen("house-rule", [red], ("host",))
    red.locator("#menu-close").tap()
    send_clue(red, "red")
    table.wait_until(lambda: table.app.game.phase == "guess1")
    assert table.record()[-1] == {"action": "clue", "words": ["red"], "lang": "en", "checked": False}
    red.locator("#menu").tap()
    red.locator("#h-check").tap()
    table.wait_until(lambda: table.app.ui.clue_check is True)
    red.locator("#menu-close").tap()


MARKUP = '<img src=x onerror="window.__pwned=1">'


def test_words_from_a_record_are_text_on_every_phone_never_markup(room):
    """The check lets no markup through, but a record is any JSON: put on as the panel would show
    it, its words are set as text, and nothing in them runs."""
    table, phones = room
    game = rules.apply(None, NewGame(players=3, seed=2, variant="free"))
    game = rules.apply(rules.apply(game, ChooseTarget(Cell(3, 3))), Clue((MARKUP, "&amp;"), "en", False))
    ui = table.app.ui
    table.app.put_on(game, Ui(screen="play", since=0.0, seating=ui.seating, colors=ui.colors,
                              clue_screen=clue_seconds(game.clues)), 0.0)
    for page in phones:
        table.wait_until(lambda: chip(page) == [f"{MARKUP} &amp;"])
        assert page.locator("#clue-now img").count() == 0 and page.locator("img").count() == 0
        assert page.evaluate("window.__pwned === undefined")

"""The phone pages in the six languages: the browser's language picks the catalogue, the switch
changes it (and the phone keeps the choice), every string fits its box on a 320 px phone, and
/rules reads in each language without scrolling sideways."""

from __future__ import annotations

import functools

import json
from pathlib import Path

import pytest

from console.bots.names import cell_colour_names
from console.game.clue import MAX_CLUE_CHARS, word_list
from console.game.clue_text import SHOWN_CHARS
from console.web.phones import LANGUAGES
from tests import browser as browsers
from tests.phone_pages import axe_problems, open_phone, wait_line
from tests.phones import PhoneTable
from tests.web.test_web_layout import OVERFLOW

STATIC = Path(__file__).resolve().parents[2] / "console" / "web" / "static"
SMALL = {"viewport": {"width": 320, "height": 568}}

# Where each kind of string is shown, the box it must fit: the one line (two lines high), a button
# of the bar when it holds three, a seat tile, the colour chip, the sheets (they scroll down but
# must never be cut at the side), the colour's name under the board.
BOXES = {"line": "#line", "button": "#bar button", "seat": "#seat-list .seat", "me": "#me", "sheet": ".sheet-title",
         "colour-name": "#colour-name"}
MEASURE = """([selector, texts, showBar]) => {
  if (showBar) {  // the bar at its fullest: three buttons side by side
    const bar = document.getElementById('bar');
    [...bar.children].forEach((b, i) => { b.hidden = i > 2; });
  }
  const el = document.querySelector(selector), kept = el.textContent, out = [];
  const sheet = el.closest('.sheet');
  if (sheet) sheet.hidden = false;
  el.hidden = false;  // the colour's name: shown where the phone names colours
  for (const text of texts) {
    el.textContent = text;
    if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1 ||
        el.getBoundingClientRect().right > innerWidth) out.push(text);
  }
  el.textContent = kept;
  return out;
}"""


def catalogue(code: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / f"{code}.json").read_text(encoding="utf-8"))


def box_of(key: str) -> str | None:
    if key.startswith(("line.", "refused.", "status.")) or key in ("join.line", "seats.line", "scores.round", "scores.tiebreak"):
        return "line"
    if key.startswith("btn."):
        return "button"
    if key.startswith("color.") or key in ("seats.taken", "seats.computer"):
        return "seat"
    if key.startswith("names.cell") or key == "names.loading":
        return "colour-name"
    if key.startswith("me."):
        return "me"
    if key.startswith(("host.", "menu.", "card.", "points.", "target.", "clue.", "names.")) or key == "leave":
        return "sheet"
    return None  # parts of other strings, the rules page, the language's name, the page's title


@functools.cache
def longest_colour_name(code: str) -> str:
    """The longest name a board colour has in `code` (naming the board takes a tenth of a second:
    once a language, not once a string)."""
    return max(cell_colour_names(code), key=len)


def worst_case(messages: dict[str, str], key: str, code: str) -> str:
    """The string as long as a game makes it: the language's longest colour names (a player's: a
    computer player's, of the longer level; without it in a list of players), two-digit numbers,
    the longest cell name, a refused clue's word as long as it is shown back, the longest name of
    a board colour."""
    colours = sorted((v for k, v in messages.items() if k.startswith("color.")), key=len, reverse=True)
    level = max((v for k, v in messages.items() if k.startswith("computer.level.")), key=len)
    players = [messages["computer.name"].format(color=colour, level=level) for colour in colours[:3]]
    short = [messages["computer.short"].format(color=colour) for colour in colours[:3]]  # in a list, without the level
    names = messages["list.join"].format(first=", ".join(short[:2]), last=short[2])
    values = {"color": colours[0], "host": colours[0], "giver": players[0], "player": players[0], "names": names,
              "level": level, "name": longest_colour_name(code),
              "cell": "P30", "round": "10", "rounds": "10", "players": "10", "phones": "32", "points": "30", "total": "30",
              "seconds": "60", "first": colours[0], "last": colours[1],
              "word": "W" * SHOWN_CHARS + "…", "limit": str(MAX_CLUE_CHARS)}
    return messages[key].format(**values)


@pytest.fixture(scope="module")
def table():
    with PhoneTable(seed=5) as t:
        yield t


def test_the_browsers_language_picks_the_catalogue_and_the_switch_changes_it(browser, table):
    italian = open_phone(browser, table, locale="it-IT")
    german = open_phone(browser, table, locale="de-DE")
    try:
        assert wait_line(italian, "join.line") == "Scrivi il codice della stanza mostrato sul pannello"
        assert italian.evaluate("document.documentElement.lang") == "it"
        assert wait_line(german, "join.line") == "Type the room code the panel shows"  # no German: English
        italian.select_option("#lang", "cs")
        italian.wait_for_selector("html[lang=cs]")
        assert wait_line(italian, "join.line") == "Napiš kód místnosti, který ukazuje panel"
        italian.reload()
        italian.wait_for_selector("html[lang=cs]")
        assert wait_line(italian, "join.line") == "Napiš kód místnosti, který ukazuje panel"  # kept
        assert italian.locator("#lang").input_value() == "cs"
    finally:
        italian.context.close()
        german.context.close()


def test_no_string_overflows_its_box_on_a_320_px_phone(browser, table):
    seats = open_phone(browser, table, **SMALL)
    seated = open_phone(browser, table, 0, **SMALL)
    seats.fill("#code", table.code)
    seats.click("#code-form button")
    wait_line(seats, "seats.line")
    try:
        too_long = {}
        for code in LANGUAGES:
            messages = catalogue(code)
            for page in (seats, seated):
                page.select_option("#lang", code)
                page.wait_for_selector(f"html[lang={code}]")
            by_box: dict[str, list[str]] = {}
            for key in messages:
                box = box_of(key)
                if box is not None:
                    by_box.setdefault(box, []).append(worst_case(messages, key, code))
            for box, texts in by_box.items():
                page = seats if box == "seat" else seated
                wrong = page.evaluate(MEASURE, [BOXES[box], texts, box == "button"])
                if wrong:
                    too_long[f"{code} {box}"] = wrong
            assert seated.evaluate(OVERFLOW)["wide"] == [] and seats.evaluate(OVERFLOW)["wide"] == []
        assert too_long == {}
    finally:
        seats.context.close()
        seated.context.close()


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_rules_page_in_each_language(browser, table, code):
    page = browsers.new_page(browser, viewport={"width": 320, "height": 568})
    try:
        page.add_init_script(f"localStorage.setItem('hues-lang', '{code}')")
        page.goto(table.url + "/rules")
        page.wait_for_selector(f"body[data-lang={code}]")
        messages = catalogue(code)
        assert page.locator("h1").inner_text() == messages["rules.title"]
        assert page.locator("li").nth(0).inner_text() == messages["rules.board"]
        page.wait_for_selector("#clue-words-lists p")  # the words the clue check knows: this language's and English
        shown = page.locator("#clue-words-lists").inner_text()
        for lang in {code, "en"}:
            words = word_list(lang)
            assert all(entries[0] in shown for _, entries in words.colours) and words.comparatives[0] in shown
        assert messages["rules.words_comparatives"] in shown
        got = page.evaluate(OVERFLOW)
        assert got["scrollWidth"] <= 320 and got["wide"] == []
        assert axe_problems(page) == []
    finally:
        page.context.close()

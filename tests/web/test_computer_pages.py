"""The phone's page with computer players, as guests hold it (390x844 touch phones in the system
Chromium): the host sets up a game with computer players from the phone (how many, their level,
the language of their clues, their pace), and every other phone names those seats as computer
players; and a guest who cannot tell the colours apart has each colour touched named. axe-core
finds nothing serious on these screens."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from console.game.board import parse_cell
from console.bots.names import cell_colour_names
from tests.phone_pages import AXE, AXE_HINT, axe_problems, new_round, open_phone, small_targets, wait_line
from tests.phones import PhoneTable

# A computer player's first move waits for its knowledge to be read (a second here, on a busy
# machine more) and a person's pace: longer than a page's own answers (tests/browser.TIMEOUT_MS).
COMPUTER_MS = 30_000


@pytest.fixture(autouse=True)
def axe_installed():
    if not AXE.exists():
        pytest.fail(AXE_HINT, pytrace=False)


def seen_well(page, what: str, picture: str = "") -> None:
    """`page` passes axe-core and has no target under 44 px; its `picture` goes to HUES_PHONE_SHOTS
    when that is set (docs/phone holds the README's)."""
    assert axe_problems(page) == [], what
    assert small_targets(page) == [], what
    if picture and os.environ.get("HUES_PHONE_SHOTS"):
        page.screenshot(path=str(Path(os.environ["HUES_PHONE_SHOTS"]) / f"{picture}.png"))


def scores(page) -> list[str]:
    return [text.strip() for text in page.locator("#scores .score").all_inner_texts()]


def test_the_host_sets_up_two_computer_players_and_every_phone_names_their_seats(browser):
    with PhoneTable(seed=4) as table:
        host = open_phone(browser, table, 0, locale="it-IT")  # their clues: in the host phone's language
        guest = open_phone(browser, table, 1)
        pages = [host, guest]
        try:
            host.wait_for_selector("#host-setup:not([hidden])")
            host.select_option("#h-players", "3")
            # three players, two phones seated: one computer player at most
            assert host.locator("#h-computers option").all_inner_texts() == ["0", "1"]
            host.select_option("#h-players", "4")
            assert host.locator("#h-computers option").all_inner_texts() == ["0", "1", "2"]
            assert host.locator("#h-level-field").is_hidden() and host.locator("#h-pace").is_hidden()
            host.select_option("#h-computers", "2")
            host.select_option("#h-level", "child")
            assert host.locator("#h-clang").input_value() == "it"
            assert host.locator("#h-who").inner_text() == (
                "Giocano: rosso, arancione, computer giallo (bambino) e computer verde (bambino).")
            seen_well(host, "the host's set-up", "computers-host")
            pace = host.locator("#h-pace")  # the pace: quick, then a person's again
            pace.tap()
            table.wait_until(lambda: table.app.ui.fast_computers)
            host.wait_for_selector("#h-pace[aria-pressed=true]")
            pace.tap()
            table.wait_until(lambda: not table.app.ui.fast_computers)
            host.select_option("#h-first", "0")
            host.locator("#h-start").tap()
            table.wait_until(lambda: table.app.game is not None)
            assert table.app.game.computers == ("", "", "child:it", "child:it")

            assert wait_line(guest, "line.choosing") == "Red is choosing the target on their phone"
            assert scores(guest) == ["Round 1 of 8", "red 0", "orange 0", "yellow computer 0", "green computer 0"]
            host.wait_for_selector("#card .swatch")
            host.locator("#card .swatch").nth(0).tap()
            host.locator("#clue-text").fill("tramonto")
            host.locator("#clue-send").tap()
            wait_line(guest, "line.guess_me")
            guest.locator("#board [data-cell='C3']").tap()
            guest.locator("#place").tap()
            guest.locator("#confirm").tap()
            # yellow's turn: a computer player, at a person's pace
            guest.wait_for_selector("#line[data-key='line.guess_other']", timeout=COMPUTER_MS)
            assert guest.locator("#line").inner_text() == "Yellow computer (child) is guessing"
            seen_well(guest, "a computer player guesses", "computers-guest")
            watcher = open_phone(browser, table)  # the seats, as a phone coming in sees them
            pages.append(watcher)
            watcher.fill("#code", table.code)
            watcher.click("#code-form button")
            wait_line(watcher, "seats.line")
            tiles = [watcher.locator(f"#seat-list [data-seat='{seat}']") for seat in (2, 3)]
            assert [tile.inner_text().split("\n") for tile in tiles] == [
                ["yellow", "computer player (child)"], ["green", "computer player (child)"]]
            assert all(tile.is_disabled() for tile in tiles)
            seen_well(watcher, "the seats")
            # the computer players guess on; the host passes; the reveal names them too
            host.wait_for_selector("#pass:not([hidden])", timeout=2 * COMPUTER_MS)
            host.locator("#pass").tap()
            guest.wait_for_selector("#points-sheet:not([hidden])")
            names = guest.locator("#points .points-row > span:nth-child(2)").all_inner_texts()
            assert names == ["red", "orange", "yellow computer (child)", "green computer (child)"]
            seen_well(guest, "the reveal")
        finally:
            for page in pages:
                page.context.close()


def test_a_guest_who_has_the_colours_named_sees_the_name_of_each_colour_touched(browser):
    with PhoneTable(seed=6) as table:
        host, guest = open_phone(browser, table, 0), open_phone(browser, table, 1)
        try:
            new_round(table, 3, 0)
            guest.wait_for_selector("#line[data-key='line.choosing']")
            assert guest.locator("#colour-name").is_hidden()
            guest.locator("#menu").tap()
            switch = guest.locator("#names-switch")
            assert switch.inner_text() == "Name the colours I touch: off"
            switch.tap()
            guest.wait_for_selector("#names-switch[aria-pressed=true]")
            guest.locator("#menu-close").tap()
            english = cell_colour_names("en")
            guest.locator("#board [data-cell='H15']").tap()
            guest.wait_for_selector(f"#colour-name:has-text('H15: {english[parse_cell('H15').index]}')",
                                    timeout=COMPUTER_MS)  # the names are built when first asked
            seen_well(guest, "a colour named")
            guest.locator("#board [data-cell='A1']").tap()
            assert guest.locator("#colour-name").inner_text() == f"A1: {english[0]}"
            guest.reload()  # kept on the phone, like its language
            guest.wait_for_selector("#play:not([hidden]) #colour-name:not([hidden])")
            guest.select_option("#lang", "vi")
            guest.wait_for_selector("html[lang=vi]")
            guest.locator("#board [data-cell='P30']").tap()
            vietnamese = cell_colour_names("vi")[parse_cell("P30").index]
            guest.wait_for_selector(f"#colour-name:has-text('P30: {vietnamese}')", timeout=COMPUTER_MS)
            assert guest.locator("#colour-name").evaluate("e => e.children.length") == 0  # text, never markup
            guest.locator("#menu").tap()
            guest.locator("#names-switch").tap()
            guest.wait_for_selector("#colour-name", state="hidden")
            assert host.locator("#colour-name").is_hidden()  # another phone's setting
        finally:
            host.context.close()
            guest.context.close()

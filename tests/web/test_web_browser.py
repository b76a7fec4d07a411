"""Phones in a real browser (the system's Chromium through Playwright), with the console's panel:
the giver's card on the giver's phone only, a pawn placed from a phone in the panel's frame, a
round played from phones recorded exactly as the same round played on the joystick, and seats
that survive a reload and a console restart."""

from __future__ import annotations

from console.game.board import parse_cell
from console.view.render import _INK_BYTES
from tests import browser as browsers
from tests.phones import PhoneTable
from tests.scripting import card_path


def open_phone(browser, table: PhoneTable, seat: int | None = None):
    page = browsers.new_page(browser, viewport={"width": 390, "height": 844})
    page.goto(table.url + "/")
    if seat is not None:
        page.fill("#code", table.code)
        page.click("#code-form button")
        page.click(f"#seat-list [data-seat='{seat}']")
        page.wait_for_selector(f"#me:has-text('You: {table.app.colors[seat]}')")
    return page


def panel_shows(table: PhoneTable, cell: str, color: str) -> bool:
    c = parse_cell(cell)
    return table.app.driver.last_frame.get(c.col, c.row) == tuple(_INK_BYTES[color])


def joystick_round(table: PhoneTable, card_index: int, guesses: list[str]) -> None:
    """The same round on the joystick: set-up for 3 players with red first, the card's colour
    `card_index`, a clue, the guesses, then pass, and the reveal skipped to the next round."""
    table.press("a")  # the idle board: set-up
    for button in ("left", "a", "a", "a", "right", "a", "a"):  # 3 players, no computer players, cards, red first, GO
        table.press(button)
    table.press("a", 2)  # the hand-off: the giver takes the controls, A twice
    table.wait_until(lambda: table.app.ui.screen == "secret")
    for button in card_path(table.app.game.card_cells, card_index):  # to the card's colour
        table.press(button)
    table.press("a")  # the target
    table.press("a")  # the clue given
    cursor = parse_cell("H15")
    for cell in map(parse_cell, guesses):
        table.press("up" if cell.row < cursor.row else "down", abs(cell.row - cursor.row))
        table.press("left" if cell.col < cursor.col else "right", abs(cell.col - cursor.col))
        table.press("a")
        cursor = cell
    table.press("a")  # lets the last pawn stand: the giver's turn
    table.press("right")  # PASS
    table.press("a")
    table.press("a", 3)  # the reveal: frame, points, scoreboard, next round
    table.wait_until(lambda: table.app.game is not None and table.app.game.round == 2)


def test_a_round_from_phones_is_private_shown_on_the_panel_and_recorded_as_on_the_joystick(browser):
    with PhoneTable(seed=11) as table:
        phones = [open_phone(browser, table, seat) for seat in range(3)]
        giver, left, right = phones
        try:
            giver.wait_for_selector("#host-setup:not([hidden])")  # the host's menu opens by itself
            giver.select_option("#h-players", "3")
            giver.select_option("#h-first", "0")
            giver.click("#h-start")
            swatches = giver.locator("#card .swatch")
            swatches.first.wait_for()
            card = [swatches.nth(i).get_attribute("data-cell") for i in range(4)]
            assert [swatches.nth(i).inner_text() for i in range(4)] == card  # with their coordinates
            first_color = swatches.nth(0).evaluate("e => getComputedStyle(e).backgroundColor")
            assert first_color == left.locator(f"#board [data-cell='{card[0]}']").evaluate(
                "e => getComputedStyle(e).backgroundColor")  # the palette's sRGB, as on the board
            for other in (left, right):
                other.wait_for_selector("#line:has-text('Red is choosing the target on their phone')")
                assert other.locator("#card .swatch").count() == 0 and other.locator("#card-sheet").is_hidden()
            swatches.nth(1).click()
            giver.click("#show-target")
            giver.wait_for_selector(f"#target:has-text('{card[1]}')")
            giver.click("#aloud")  # said aloud, as on the joystick: a tap
            giver.click("#clue")
            left.wait_for_selector("#line:has-text('Your turn')")
            right.locator("#board [data-cell='B2']").click()
            right.wait_for_selector("#line.refused:has-text(\"It is orange's turn, not yours\")")
            left.locator("#board [data-cell='C3']").click()
            left.wait_for_selector("#board [data-cell='C3'].selected")
            left.wait_for_selector("#board [data-cell='C3'].cursor")  # the panel's cursor, from the console
            left.click("#place")
            table.wait_until(lambda: panel_shows(table, "C3", "orange"))  # the pawn in the panel's frame
            right.locator("#board [data-cell='C3']").click()
            right.wait_for_selector("#line.refused:has-text('C3 already has a pawn')")
            right.locator("#board [data-cell='M20']").click()
            right.click("#place")
            right.wait_for_selector("#take-back:not([hidden])")
            giver.click("#pass")
            left.wait_for_selector("#line:has-text('the target was')")
            assert left.locator(f"#board [data-cell='{card[1]}'].target").count() == 1
            left.click("#next")  # one tap: the next round
            table.wait_until(lambda: table.app.game.round == 2)
            phone_record = table.record()
        finally:
            for page in phones:
                page.context.close()
    with PhoneTable(seed=11) as table:
        joystick_round(table, 1, ["C3", "M20"])
        assert table.record() == phone_record


def test_a_reload_and_a_console_restart_keep_the_seats(browser, redis_server):
    table = PhoneTable(store_url=redis_server.url)
    port = table.web.server.port
    phone = open_phone(browser, table, 2)
    other = open_phone(browser, table, 4)
    try:
        token = phone.evaluate("localStorage.getItem('hues-seat-token')")
        assert len(token) == 32 and token not in phone.url
        phone.reload()
        phone.wait_for_selector("#me:has-text('You: yellow, host')")
        table.wait_until(lambda: table.app.store.get_setting("phone_seats") is not None)
        table.close()
        table = PhoneTable(store_url=redis_server.url, port=port)
        phone.wait_for_selector("#me:has-text('You: yellow, host')")  # reconnected by itself
        other.wait_for_selector("#me:has-text('You: cyan')")
        assert other.locator("#me").inner_text() == "You: cyan"
    finally:
        phone.context.close()
        other.context.close()
        table.close()

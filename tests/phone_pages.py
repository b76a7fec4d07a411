"""Phones held the way guests hold them, for the browser tests of the phone's page: 390x844 touch
screens in the system Chromium, each seated at the real console (tests/phones.py), with what the
page asks of the phone (vibration, the screen wake lock) recorded instead of done.

The game is moved along either by the phones' own buttons or, where a test only needs to be
somewhere, by requests put straight on the app's queue (`command`): the intents a phone's taps become, made
by whoever holds that seat.
"""

from __future__ import annotations

import threading
from pathlib import Path

from console.play.intents import Player
from console.play.ports import Request
from console.web.messages import Message
from tests import browser as browsers
from tests.phones import WAIT_S, PhoneTable

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "device_scale_factor": 1}
AXE = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"
AXE_HINT = "axe-core is not installed: ./scripts/test installs it (npm ci, from package.json)"
# What the page asks of the phone, kept for the test: navigator.vibrate and navigator.wakeLock.
RECORDER = """
window.__buzz = []; window.__wake = [];
Object.defineProperty(navigator, 'vibrate', {value: (p) => { window.__buzz.push(p); return true; }});
Object.defineProperty(navigator, 'wakeLock', {value: {request: async (kind) => {
  window.__wake.push(kind);
  return {release: async () => { window.__wake.push('release'); }, addEventListener() {}};
}}});
"""
# Every touch target the page shows: buttons, selects, links, the card's swatches, the seats.
TARGETS = """() => [...document.querySelectorAll('button, select, a, input, .swatch')]
  .filter(e => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden')
  .map(e => { const b = e.getBoundingClientRect(); return [e.id || e.className || e.tagName, b.width, b.height]; })"""


def open_phone(browser, table: PhoneTable, seat: int | None = None, **options):
    """A phone on the page; with `seat`, joined with the room code and seated there."""
    page = browsers.new_page(browser, **{**PHONE, **options})
    page.add_init_script(RECORDER)
    page.goto(table.url + "/")
    page.wait_for_selector("body[data-connected=yes]")
    if seat is not None:
        page.fill("#code", table.code)
        page.click("#code-form button")
        page.locator(f"#seat-list [data-seat='{seat}']").tap()
        page.wait_for_selector("#play:not([hidden])")
    return page


def command(table: PhoneTable, verb: str, seat: int = 0, cell=None, options: tuple = ()) -> str | None:
    """A request as the player holding `seat` makes it (the host's: a phone, or the joystick); the
    refusal's text, or None."""
    done, answer = threading.Event(), []

    def reply(why) -> None:
        answer.append(None if why is None else str(why))
        done.set()

    fields = {"cell": cell} if cell is not None else {}
    if verb == "new_game":
        fields = dict(zip(("players", "variant", "first_giver"), options))
    elif verb == "brightness":
        fields = {"delta": options[0]}
    player = Player(table.app.ui.seating.holder(seat), seat, host=True)  # that seat's holder
    table.app.events.put(Request(player, Message(verb, 1, fields).intent, reply))
    assert done.wait(WAIT_S), f"{verb} was never answered"
    return answer[0]


def new_round(table: PhoneTable, players: int = 4, first: int = 0, variant: str = "cards") -> None:
    """A new game at its first hand-off: the game under way (if any) abandoned first."""
    game = table.app.game
    if game is not None and game.phase != "game_over" and table.app.ui.screen not in ("idle", "setup"):
        assert command(table, "abandon") is None
    assert command(table, "new_game", options=(players, variant, first)) is None


def line(page) -> tuple[str, str]:
    """The one line: its catalogue key and its text."""
    el = page.locator("#line")
    return el.get_attribute("data-key"), el.inner_text()


def wait_line(page, key: str) -> str:
    page.wait_for_selector(f"#line[data-key='{key}']")
    return page.locator("#line").inner_text()


def board_box(page) -> dict:
    return page.locator("#board").bounding_box()


def small_targets(page) -> list:
    """Touch targets under 44 px either way."""
    return [t for t in page.evaluate(TARGETS) if t[1] < 44 or t[2] < 44]


def axe_problems(page) -> list[str]:
    """axe-core's serious and critical violations on the page as it is now (axe is evaluated in
    the page over the DevTools protocol, which the page's Content-Security-Policy does not cover)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))
    found = page.evaluate("""async () => {
      const result = await axe.run(document, {resultTypes: ['violations']});
      return result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '));
    }""")
    return found

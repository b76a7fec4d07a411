"""The panel in a real browser (Debian's Chromium under Playwright): `sim --web`'s page plays the
console with the terminal simulator's keys and on-screen buttons and draws every LED in the
colours the LEDs show; /panel follows the console read-only; /replay plays a stored game."""

from __future__ import annotations

import json

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from console.game.board import Cell
from console.game.record import action_to_json
from console.play.ports import Chore
from console.view.timeline import replay_timeline
from console.web.replay import timeline_json
from console.view.ui import CENTRE, SetupChoices
from console.web.panel import live_view
from hal.inputs.script import parse_script
from tests.browser_console import BrowserConsole, dots
from tests.phones import WAIT_S
from tests.scripting import Script, plan_game, script_for, setup_presses
from tests.play.test_whole_games import first_card_cell, near_guesser


@pytest.fixture
def console(browser):
    with BrowserConsole(browser) as c:
        yield c


def to_first_guess(console, page) -> None:
    """From the idle board to the first guesser's turn, from the page's keys."""
    _, _, record = plan_game(3, "cards", 0, 7, target=first_card_cell, guess=near_guesser(7),
                             passes=lambda state: True)
    script = Script()
    setup_presses(script, SetupChoices(3, "cards", 0))
    script_for(record[:3], 1, script)  # the hand-off, the target, the first clue
    console.play(page, parse_script(script.text()))
    assert console.app.game.phase == "guess1"


def test_the_page_draws_every_led_as_the_leds_show_it_with_the_boards_coordinates(console):
    page = console.page()
    console.wait_for_dots(page, console.expected_dots())  # the idle board
    console.press(page, "start")
    assert console.app.ui.screen == "setup"
    console.wait_for_dots(page, console.expected_dots())
    labels = page.evaluate("[...document.querySelectorAll('#board .label')].map(l => l.textContent)")
    top = labels[1:31]
    assert top == [str(n) for n in range(1, 31)]
    assert labels.count("A") == 2 and labels.count("P") == 2  # row letters on both sides
    assert len(dots(page)) == 32 * 16


def test_keys_and_on_screen_buttons_move_the_cursor(console):
    page = console.page()
    to_first_guess(console, page)
    assert console.app.ui.cursor == CENTRE
    console.press(page, "right", 2)
    console.press(page, "down")
    assert console.app.ui.cursor == Cell(CENTRE.row + 1, CENTRE.col + 2)
    expected = console.events.put_count + 2
    page.keyboard.press("w")  # WASD too
    console.settle(expected)
    expected += 2
    page.click("[data-button=left]")  # the on-screen pad: press on pointer down, release on up
    console.settle(expected)
    assert console.app.ui.cursor == Cell(CENTRE.row, CENTRE.col + 1)
    console.wait_for_dots(page, console.expected_dots())  # the cursor where the renderer drew it


def test_a_whole_game_played_from_the_page(console):
    script, final, record = plan_game(3, "cards", 0, 7, target=first_card_cell, guess=near_guesser(7),
                                      passes=lambda state: state.round % 2 == 0)
    page = console.page()
    console.play(page, parse_script(script.text()))
    assert console.app.game == final
    stored = console.app.store.history(1)[0]
    assert stored["scores"] == list(final.scores) and stored["status"] == "finished"
    assert console.app.store.export(stored["game_id"]) == [action_to_json(a) for a in record]


def test_the_spectator_page_follows_the_console_and_cannot_drive_it(console):
    player, spectator = console.page(), console.page("/panel")
    assert spectator.locator("#controls").is_hidden()
    console.press(player, "start")
    console.wait_for_dots(spectator, console.expected_dots(spectator=True))
    console.wait_for_dots(player, console.expected_dots())
    before = console.events.put_count
    spectator.keyboard.press("Enter")
    spectator.wait_for_timeout(50)
    assert console.events.put_count == before and console.app.ui.screen == "setup"
    hint = spectator.locator("#hint").text_content()
    assert hint.startswith("Set-up:")


def test_frames_are_sent_only_when_they_change(console):
    with connect(console.url.replace("http", "ws") + "/panel/ws", origin=console.url, open_timeout=WAIT_S) as ws:
        first = ws.recv(timeout=WAIT_S)
        hint = ws.recv(timeout=WAIT_S)
        assert isinstance(first, bytes) and first[:4] == b"L\x02\x20\x10" and len(first) == 4 + 3 * 512
        assert json.loads(hint)["t"] == "hint"
        with pytest.raises(TimeoutError):
            ws.recv(timeout=0.3)  # the clock stands still: the idle board does not change
        console.clock.sleep(1.0)  # the idle wave moves on
        assert isinstance(ws.recv(timeout=WAIT_S), bytes)
        ws.send(json.dumps({"press": "start"}))
        assert json.loads(ws.recv(timeout=WAIT_S)) == {"t": "refused", "why": "this panel is read-only"}


REFUSED = [
    ("not json", "must be JSON"),
    (json.dumps({"press": "fire"}), "no button is called 'fire'"),
    (json.dumps({"hold": "a"}), "is not press, repeat or release"),
    (json.dumps({"press": "a", "release": "a"}), "one of press, repeat or release"),
    (json.dumps(["press", "a"]), "one of press, repeat or release"),
]


def test_the_sim_page_refuses_what_is_not_a_press(console):
    before = console.events.put_count
    with connect(console.url.replace("http", "ws") + "/sim/ws", origin=console.url, open_timeout=WAIT_S) as ws:
        for message, why in REFUSED:
            ws.send(message)
            while True:
                reply = ws.recv(timeout=WAIT_S)
                if isinstance(reply, str) and json.loads(reply)["t"] == "refused":
                    break
            assert why in json.loads(reply)["why"], message
    assert console.events.put_count == before


def test_another_sites_page_cannot_open_the_stream(console):
    with pytest.raises(InvalidStatus):
        connect(console.url.replace("http", "ws") + "/sim/ws", origin="http://evil.test", open_timeout=WAIT_S)


def test_live_view_is_wleds_matrix_layout():
    assert live_view(2, 1, bytes([1, 2, 3, 4, 5, 6])) == b"L\x02\x02\x01\x01\x02\x03\x04\x05\x06"
    with pytest.raises(ValueError):
        live_view(256, 1, bytes(768))


# --- /replay/<game id> ----------------------------------------------------------------------------


@pytest.fixture
def stored_game(console):
    """A finished game in the console's store (written in the app's thread), and its record."""
    _, final, record = plan_game(3, "free", 1, 3, target=lambda s: Cell(s.round % 16, 3 * s.round),
                                 guess=near_guesser(3), passes=lambda state: True)
    ids = []

    def store(store):
        ids.append(store.start_game(action_to_json(record[0])))
        for action in record[1:]:
            store.append(action_to_json(action))
        store.finish({"players": 3, "colors": list(final.colors), "scores": list(final.scores),
                      "winners": list(final.winners), "winner_colors": [final.colors[w] for w in final.winners]})

    before = console.events.put_count
    console.events.put(Chore(store))
    console.settle(before + 1)
    return ids[0], replay_timeline(record)


# (Polled from here: the page's own script may not `eval`, so Playwright's wait_for_function,
# which polls with eval inside the page, is refused by its Content-Security-Policy.)


def seen(console, frame):
    shown = console.app.stage.seen(frame)
    return [tuple(shown[i : i + 3]) for i in range(0, len(shown), 3)]


def shown_at(page) -> float:
    page.wait_for_selector("body[data-shown]")
    return float(page.evaluate("document.body.dataset.shown"))


def test_a_stored_game_step_by_step(console, stored_game):
    game_id, timeline = stored_game
    page = console.page(f"/replay/{game_id}")
    page.wait_for_selector("body[data-shown='0']")
    console.wait_for_dots(page, seen(console, timeline.frame(0.0)))
    assert page.locator("#caption").text_content() == timeline.scenes[0].caption
    for index in (1, 2, 3):
        page.click("#next")
        page.wait_for_selector(f"body[data-scene='{index}']")
        scene = timeline.scenes[index]
        console.wait_until(lambda: abs(shown_at(page) - scene.start) < 0.026)
        console.wait_for_dots(page, seen(console, timeline.frame(shown_at(page))))
        assert page.locator("#caption").text_content() == scene.caption
    page.click("#previous")
    page.wait_for_selector("body[data-scene='2']")
    assert page.locator("#controls").is_hidden()


def test_a_stored_game_in_real_time(console, stored_game):
    game_id, timeline = stored_game
    page = console.page(f"/replay/{game_id}")
    page.wait_for_selector("body[data-shown='0']")
    page.click("#play")
    console.wait_until(lambda: shown_at(page) >= 1.0)
    page.click("#play")  # pause
    at = shown_at(page)
    page.wait_for_timeout(100)
    assert shown_at(page) == at  # paused: no more frames asked for
    assert 1.0 <= at < 3.0
    console.wait_for_dots(page, seen(console, timeline.frame(at)))


def test_the_timeline_the_page_gets(console, stored_game):
    game_id, timeline = stored_game
    page = console.page("/panel")
    answer = page.request.get(f"{console.url}/replay/{game_id}/timeline")
    assert answer.ok and answer.json() == json.loads(json.dumps(timeline_json(timeline)))


def test_the_last_finished_game_needs_no_id(console, stored_game):
    """On `memory://` no other process can list the games: /replay/last is the last one, and the
    browser simulator's address line names it."""
    _, timeline = stored_game
    page = console.page("/replay/last")
    page.wait_for_selector("body[data-shown='0']")
    console.wait_for_dots(page, seen(console, timeline.frame(0.0)))
    assert page.locator("#caption").text_content() == timeline.scenes[0].caption
    answer = page.request.get(f"{console.url}/replay/last/timeline")
    assert answer.ok and answer.json() == json.loads(json.dumps(timeline_json(timeline)))


def test_no_last_game_says_so(console):
    page = console.page("/panel")
    answer = page.request.get(f"{console.url}/replay/last/timeline")
    assert answer.status == 404 and answer.json()["error"] == "no finished game is stored in memory:// yet"


@pytest.mark.parametrize("game_id, why", [
    ("20240101-000000-beef", "no game"),
    ("bad%20id!", "is not a game id"),
])
def test_a_game_that_is_not_there_says_so(console, game_id, why):
    page = console.page("/panel")
    answer = page.request.get(f"{console.url}/replay/{game_id}/timeline")
    assert answer.status == 404 and why in answer.json()["error"]
    page.goto(f"{console.url}/replay/{game_id}")
    console.wait_until(lambda: why in page.locator("#status").text_content())
    assert why in page.locator("#status").text_content()


def test_a_replay_asks_for_moments_as_numbers(console, stored_game):
    game_id, timeline = stored_game
    with connect(f"{console.url.replace('http', 'ws')}/replay/{game_id}/ws", origin=console.url,
                 open_timeout=WAIT_S) as ws:
        for bad in ("{}", '{"t": "soon"}', '{"t": NaN}', "[1]", '{"t": true}'):
            ws.send(bad)
            assert json.loads(ws.recv(timeout=WAIT_S))["t"] == "refused"
        ws.send(json.dumps({"t": 1e9}))  # past the end: the last moment
        frame = ws.recv(timeout=WAIT_S)
        assert json.loads(ws.recv(timeout=WAIT_S)) == {"t": "shown", "at": timeline.duration}
        assert frame == live_view(32, 16, console.app.stage.seen(timeline.frame(timeline.duration)))
        ws.send(json.dumps({"t": timeline.duration}))
        assert json.loads(ws.recv(timeout=WAIT_S))["t"] == "shown"  # the same frame is not sent again


def test_on_the_box_the_panel_is_served_but_not_the_simulators_controls(browser):
    with BrowserConsole(browser, controls=False) as box:  # what `play` serves with web.enabled
        page = box.page("/panel")
        box.wait_for_dots(page, box.expected_dots(spectator=True))
        assert page.request.get(f"{box.url}/sim").status == 404
        with pytest.raises(InvalidStatus):
            connect(box.url.replace("http", "ws") + "/sim/ws", origin=box.url, open_timeout=WAIT_S)

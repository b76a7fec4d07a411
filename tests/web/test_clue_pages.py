"""/panel and /replay show the round's clues as text beside the board: /panel as they are given,
/replay at the moment they were given in the stored game, with the panel's clue screen in its
frames. Words that look like markup (a record is any JSON) are text there, and nothing in them runs."""

from __future__ import annotations

import pytest

from console.game import rules
from console.game.board import Cell
from console.game.record import action_to_json
from console.game.rules import ChooseTarget, Clue, NewGame, Next, Place
from console.play.ports import Chore
from console.view.screens import clue_seconds
from console.view.timeline import replay_timeline
from console.view.ui import Ui
from tests.browser_console import BrowserConsole
from tests.web.test_web_panel import seen, shown_at

MARKUP = '<img src=x onerror="window.__pwned=1">'


@pytest.fixture
def console(browser):
    with BrowserConsole(browser) as c:
        yield c


def a_round() -> list:
    actions = [NewGame(3, 5, 0, "free"), ChooseTarget(Cell(4, 4)), Clue(("tramonto",), "it", True),
               Place(Cell(0, 0), 1), Place(Cell(0, 1), 2), Clue((MARKUP, "&amp;"), "en", False),
               Place(Cell(1, 0), 2), Place(Cell(1, 1), 1), Next()]
    rules.replay(actions)
    return actions


def clues_shown(page) -> list[str]:
    return page.locator("#clues .clue").all_text_contents()


def no_markup_ran(page) -> bool:
    return page.locator("#clues img").count() == 0 and page.evaluate("window.__pwned === undefined")


def test_the_panel_page_shows_the_clues_as_text_beside_the_board(console):
    page = console.page("/panel")
    game = rules.replay(a_round()[:6])  # the second clue just given
    ui = Ui(screen="play", since=console.clock(), clue_screen=clue_seconds(game.clues[1:]))
    console.app.put_on(game, ui, console.clock())
    console.wait_until(lambda: clues_shown(page) == ["First clue tramonto", f"Second clue {MARKUP} &amp;"])
    assert no_markup_ran(page)
    console.wait_for_dots(page, console.expected_dots(spectator=True))  # the clue screen, drawn by the renderer
    spoken = rules.apply(rules.apply(rules.apply(None, NewGame(3, variant="free")), ChooseTarget(Cell(2, 2))), Clue())
    console.app.put_on(spoken, Ui(screen="play", since=console.clock()), console.clock())
    console.wait_until(lambda: clues_shown(page) == ["First clue said aloud"])


def test_a_replay_shows_each_clue_from_the_moment_it_was_given(console):
    actions = a_round()
    ids = []

    def store(store):
        ids.append(store.start_game(action_to_json(actions[0])))
        for action in actions[1:]:
            store.append(action_to_json(action))

    before = console.events.put_count
    console.events.put(Chore(store))
    console.settle(before + 1)
    timeline = replay_timeline(actions)
    page = console.page(f"/replay/{ids[0]}")
    page.wait_for_selector("body[data-shown='0']")
    given = [i for i, scene in enumerate(timeline.scenes) if "clue:" in scene.caption]
    assert len(given) == 2
    for index, expected in zip(given, (["First clue tramonto"], ["First clue tramonto", f"Second clue {MARKUP} &amp;"])):
        while int(page.evaluate("document.body.dataset.scene")) < index:
            page.click("#next")
        page.wait_for_selector(f"body[data-scene='{index}']")
        assert clues_shown(page) == expected
        assert page.locator("#caption").text_content().startswith("Red gives the")
        scene = timeline.scenes[index]
        console.wait_until(lambda: abs(shown_at(page) - scene.start) < 0.026)
        console.wait_for_dots(page, seen(console, timeline.frame(shown_at(page))))  # the panel's clue screen
        assert scene.ui.shows_clue(shown_at(page))
    page.click("#previous")
    page.wait_for_selector(f"body[data-scene='{given[1] - 1}']")
    assert clues_shown(page) == ["First clue tramonto"]
    assert no_markup_ran(page)

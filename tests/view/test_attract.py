"""The idle board's attract loop: after a while untouched it plays the last stored game's
reveals, a touch brings the board back, and a game that cannot be replayed leaves the board
breathing as before."""

from __future__ import annotations

import random

import pytest

from console.commands.session import play_script, scripted
from console.commands.wiring import build_app, build_io
from console.config.loader import load_config
from console.game.record import action_to_json
from console.play.app import ConsoleApp
from console.play.computers import Computers
from console.store.games import GameStore
from console.view import font
from console.view.render import ROOM_CODE_Y, render, render_timed
from console.view.screens import RIPPLE_CALM_SPEED, RIPPLE_SPEED
from console.view.timeline import ATTRACT_AFTER_S, attract_frame, replay_timeline
from console.view.ui import Ui
from hal.inputs.events import PRESS, InputEvent
from hal.inputs.script import parse_script
from tests.fakes import InlineThinker
from tests.scripting import plan_game
from tests.play.test_whole_games import first_card_cell, near_guesser


@pytest.fixture(scope="module")
def game():
    script, final, record = plan_game(3, "cards", 0, 9, target=first_card_cell, guess=near_guesser(9),
                                      passes=lambda state: True)
    return script, final, record


@pytest.fixture
def config(tmp_path):
    return load_config(None, environ={}, etc_path=str(tmp_path / "none.yaml"))


def stored(record, final) -> GameStore:
    store = GameStore("memory://")
    store.start_game(action_to_json(record[0]))
    for action in record[1:]:
        store.append(action_to_json(action))
    store.finish({"players": final.players, "colors": list(final.colors), "scores": list(final.scores),
                  "winners": list(final.winners), "winner_colors": [final.colors[w] for w in final.winners]})
    return store


def console(config, store) -> ConsoleApp:
    stage, driver, events, sources = build_io(config, "sim-headless", lambda queue: [])
    return ConsoleApp(stage, driver, events, sources, store, colors=config.players.colors,
                      computers=Computers(events, InlineThinker()))


def test_the_idle_board_plays_the_last_games_reveals_then_breathes_again(config, game):
    _, final, record = game
    app = console(config, stored(record, final))
    app.start(0.0)
    assert app.pictures.attract is None  # nothing read from the store at start (it may be down, or slow)
    reveals = replay_timeline(record).reveals()
    idle = render(None, app.ui, 1.0)
    app.tick(1.0)
    assert app.driver.last_frame == idle
    for t in (0.5, 3.7, reveals.duration - 0.1):
        app.tick(ATTRACT_AFTER_S + t)
        assert app.driver.last_frame == reveals.frame(t)
    later = 2 * ATTRACT_AFTER_S + reveals.duration - 1
    app.tick(later)
    assert app.driver.last_frame == render(None, app.ui, later)
    assert app.ui.screen == "idle"  # the loop changed what was drawn, not the console's state


def test_the_room_code_for_the_phones_stays_on_during_the_loop(config, game):
    _, final, record = game
    reveals = replay_timeline(record).reveals()
    ui = Ui(room_code="HKPR")
    t = ATTRACT_AFTER_S + 1.0
    frame = attract_frame(reveals, ui, t)
    scene = reveals.frame(1.0)
    idle = render(None, ui, t)  # the idle board shows the code in the same box
    box = font.text_width("HKPR") + 2
    x0, y0 = (30 - box) // 2, ROOM_CODE_Y - 1
    inside = {(x, y) for x in range(x0, x0 + box) for y in range(y0, y0 + font.GLYPH_HEIGHT + 2)}
    for y in range(16):
        for x in range(32):
            assert frame.get(x, y) == (idle if (x, y) in inside else scene).get(x, y), (x, y)
    assert attract_frame(reveals, ui, 1.0) is None  # the board itself for the first ATTRACT_AFTER_S


def test_the_room_code_never_covers_the_numbers_or_the_winners(config):
    """Five players fill both lines of the points and the scoreboard: the room code's box (rows
    9-15) would hide the second line, and on the last scene the winners' colours."""
    _, final, record = plan_game(5, "cards", 0, 4, target=first_card_cell, guess=near_guesser(4),
                                 passes=lambda state: True)
    reveals = replay_timeline(record).reveals()
    ui = Ui(room_code="HKPR")
    texts = 0
    for i in range(int(reveals.duration * 4)):
        t = i / 4
        scene = reveals.scene_at(t)
        if scene.ui.screen == "game_over" or scene.ui.reveal_stage(t) != "frame":
            texts += 1
            assert attract_frame(reveals, ui, ATTRACT_AFTER_S + t) == reveals.frame(t), t
    assert texts > reveals.duration  # the points, scores and winners were looked at


def test_a_touch_stops_the_attract_loop(config, game):
    _, final, record = game
    app = console(config, stored(record, final))
    app.start(0.0)
    t = ATTRACT_AFTER_S + 2
    app.tick(t)
    assert app.driver.last_frame != render(None, app.ui, t)
    app.events.put(InputEvent("left", PRESS, t + 0.1))
    app.tick(t + 0.1)
    assert app.ui.screen == "idle" and app.driver.last_frame == render(None, app.ui, t + 0.1)


def test_a_game_finished_on_the_console_becomes_the_attract_loop(config, game):
    script, final, record = game
    app, inputs = scripted(config, parse_script(script.text() + f"wait {ATTRACT_AFTER_S + 1:g}\n"),
                           lambda name, sources: build_app(config, name, sources, rng=random.Random(9)))
    play_script(config, app, inputs)
    assert app.game == final and app.pictures.attract is not None
    assert app.pictures.attract == replay_timeline(record).reveals()


def test_a_stored_game_that_cannot_be_replayed_gives_way_to_a_game_of_computer_players(config, game, caplog):
    _, final, record = game
    store = stored(record[:1] + record[2:], final)  # a choose_target missing: the clue is illegal
    app = console(config, store)
    app.start(0.0)
    app.tick(ATTRACT_AFTER_S + 5)  # the record is read when the loop is first due
    assert app.pictures.attract is None and "no attract loop" in caplog.text
    assert app.driver.last_frame == render(None, app.ui, ATTRACT_AFTER_S + 5)
    app.tick(ATTRACT_AFTER_S + 6)  # nothing to show: the computer players play a game of their own instead
    assert computers_alone(app.pictures.attract)


def computers_alone(reveals) -> bool:
    """Whether `reveals` are of a game every seat of which a computer player played."""
    if reveals is None:
        return False
    state = reveals.scenes[0].game
    return all(state.computer(seat) for seat in range(state.players))


def test_with_no_game_ended_on_the_box_the_idle_board_plays_a_game_of_computer_players(config):
    app = console(config, GameStore("memory://"))
    app.start(0.0)
    assert app.pictures.attract is None
    app.tick(ATTRACT_AFTER_S + 5)
    assert app.driver.last_frame == render(None, Ui(since=0.0, brightness=app.ui.brightness), ATTRACT_AFTER_S + 5)
    app.tick(ATTRACT_AFTER_S + 6)  # their game, worked out on their thread, wakes the loop
    assert computers_alone(app.pictures.attract)
    app.tick(ATTRACT_AFTER_S + 7)
    assert app.driver.last_frame != render(None, Ui(since=0.0, brightness=app.ui.brightness), ATTRACT_AFTER_S + 7)


def test_the_loop_plays_the_game_over_calmly_and_the_replay_with_the_cheer(game):
    """Nobody cheers at a box left idle: the attract loop's game over spreads its ripples at the
    calm speed (each step is 128 LEDs and a wake-up), where the replay video keeps the cheer."""
    _, _, record = game
    timeline = replay_timeline(record)
    for scenes, speed in ((timeline.reveals().scenes, RIPPLE_CALM_SPEED), (timeline.scenes, RIPPLE_SPEED)):
        over = next(s for s in scenes if s.ui.screen == "game_over")
        t, changes = over.start, 0
        while True:
            _, until = render_timed(over.game, over.ui, t)
            if until >= over.end:
                break
            changes, t = changes + 1, until
        assert changes <= speed * over.duration + 1
        assert changes >= speed * over.duration - 1

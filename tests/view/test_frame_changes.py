"""The renderer says when its frame next changes, and the loop sleeps until then.

`render_timed` returns the frame at t and the first later time at which it can differ; the app
loop ticks at that time (or at an input) instead of 60 times a second. Checked against `render`
itself: for any state, UI and time the frame is the same on [t, until), the ulp before `until`
included, and on the screens a party looks at the wake-ups are the frame's changes, no more.
The loop test runs `run_realtime` on an injected clock (the queue's wait moves it), so the time
a frame reaches the panel is read without any wall clock.
"""

from __future__ import annotations

import bisect
import math
import random
from typing import Callable
from dataclasses import replace

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from console.commands.measure_games import busy_game, reveal_game
from console.game import rules
from console.game.board import ALL_CELLS, ROWS, distance
from console.game.rules import ChooseTarget, Clue, NewGame, Place, SkipClue
from console.play import controller
from console.play import pictures as pictures_module
from console.play.app import ConsoleApp
from console.play.pictures import REEL_MOST
from console.play.loop import run_realtime
from console.store.games import GameStore
from console.store.writer import FIRST_RETRY_S
from console.view.moment import Moment, Reel, first_change
from console.view.palette import board_colors
from console.view.render import AMBER, PAWN_LIT, PAWN_S, next_change, render, render_timed
from console.view.timeline import attract_frame, attract_timed, replay_timeline
from console.view.screens import CHEER_S, clue_seconds
from console.game.seating import PANEL, Seating
from console.view.ui import REVEAL_POINTS_S, SETUP_ITEMS, Cursor, SetupChoices, Ui
from hal.drivers.sim_headless import HeadlessDriver
from hal.inputs.events import EventQueue
from hal.layout import Layout, LayoutOptions
from hal.output import OutputStage
from tests.gameplay import c, play_round

BUTTONS = ["up", "down", "left", "right"] * 3 + ["a"] * 6 + ["b", "start"]


def states_from_presses(presses, gaps, seed):
    """Every (game, ui, t) a press sequence passes through, as the controller makes them."""
    game, ui, t, rng = None, Ui(), 0.0, random.Random(seed)
    seen = []
    for i, button in enumerate(presses):
        t += gaps[i % len(gaps)]
        step = controller.handle(game, ui, button, t, rng)
        if step.stop:
            break
        game, ui = step.game, step.ui
        seen.append((game, ui, t))
    return seen


decorations = st.fixed_dictionaries({
    "store_online": st.booleans(), "disk_full": st.booleans(),
    "hold_progress": st.sampled_from([0.0, 0.3, 1.0]), "room_code": st.sampled_from(["", "K7QX"]),
    "refused_in": st.one_of(st.none(), st.floats(-1.0, 1.0)),
    "armed_in": st.one_of(st.none(), st.floats(-4.0, 1.0)),
    "remote": st.booleans(),
})


def decorated(game, ui, t, d):
    changes = dict(store_online=d["store_online"], disk_full=d["disk_full"],
                   hold_progress=d["hold_progress"], room_code=d["room_code"])
    if d["refused_in"] is not None:
        changes.update(refused=ui.cursor, refused_at=t + d["refused_in"])
    if d["armed_in"] is not None:
        changes.update(armed_at=t + d["armed_in"])
    if d["remote"]:
        changes.update(remote_cursors=(Cursor("blue", c("B3")), Cursor("white", ui.cursor)))
    return replace(ui, **changes)


def assert_still_until(game, ui, t, probes):
    """The frame at t is the frame everywhere in [t, until), the ulp before until included."""
    frame, until = render_timed(game, ui, t)
    assert until > t
    assert frame == render(game, ui, t)
    horizon = min(until, t + 30.0)
    for fraction in probes:
        s = t + (horizon - t) * fraction
        if s < until:
            assert render(game, ui, s) == frame, (ui.screen, t, s, until)
    if until < math.inf:
        assert render(game, ui, math.nextafter(until, -math.inf)) == frame, (ui.screen, t, until)
    return until


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(presses=st.lists(st.sampled_from(BUTTONS), min_size=1, max_size=120),
       gaps=st.lists(st.floats(0.0, 3.0), min_size=1, max_size=50), seed=st.integers(0, 1000),
       later=st.lists(st.floats(0.0, 20.0), min_size=1, max_size=4),
       probes=st.lists(st.floats(0.0, 1.0), min_size=3, max_size=10), d=decorations)
def test_the_frame_holds_still_until_the_time_render_timed_gives(presses, gaps, seed, later, probes, d):
    for game, ui, t in states_from_presses(presses, gaps, seed)[-6:]:
        ui = decorated(game, ui, t, d)
        for dt in later:
            assert_still_until(game, ui, t + dt, probes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(presses=st.lists(st.sampled_from(BUTTONS), min_size=1, max_size=120),
       gaps=st.lists(st.floats(0.0, 3.0), min_size=1, max_size=50), seed=st.integers(0, 1000),
       count=st.integers(1, 16), end=st.one_of(st.just(math.inf), st.floats(0.01, 3.0)),
       probes=st.lists(st.floats(-0.5, 4.0), min_size=1, max_size=12), d=decorations)
def test_a_reel_drawn_ahead_gives_at_each_time_the_frame_render_gives(presses, gaps, seed, count, end, probes, d):
    for game, ui, t in states_from_presses(presses, gaps, seed)[-3:]:
        ui = decorated(game, ui, t, d)
        reel = Reel(lambda x: render_timed(game, ui, x), t, count, t + end)
        assert 1 <= len(reel) <= count and reel.untils[-1] <= t + end
        for dt in sorted(probes) + sorted(probes):  # and again after the reel has moved on
            shown = reel.at(t + dt)
            if t + dt < t or t + dt >= reel.untils[-1]:
                assert shown is None
                continue
            frame, until = shown
            assert t + dt < until <= t + end
            assert frame == render(game, ui, t + dt) == render(game, ui, math.nextafter(until, -math.inf))
        for start, until in zip(reel.starts, reel.untils):  # at each change, the new frame
            assert reel.at(start) == (render(game, ui, start), until)


def walk(game, ui, start, seconds, step_ms=1):
    """Follow the horizons from `start` for `seconds`, checking against a render every
    millisecond: returns (wake-ups, changes of the sampled frame)."""
    t, wakes = start, []
    changes = 0
    sample = start
    while True:
        shown, until = render_timed(game, ui, t)
        assert shown == render(game, ui, t)
        while sample < min(until, start + seconds):
            assert render(game, ui, sample) == shown, (ui.screen, sample, t, until)
            sample += step_ms / 1000
        if until >= start + seconds:
            return wakes, changes
        wakes.append(until)
        changes += render(game, ui, until) != shown
        t = until


def four_players_in_the_reveal():
    game = rules.apply(None, NewGame(players=4, seed=3, first_giver=0, variant="free"))
    return play_round(game, target=c("H15"))


def ten_players_in_the_reveal():
    game, _ = reveal_game()
    return game


def written_clues_in_the_reveal():
    game = rules.apply(None, NewGame(players=4, seed=3, first_giver=0, variant="free"))
    game = rules.apply(rules.apply(game, ChooseTarget(c("H15"))), Clue(("supercalifragilistic",), "en", True))
    for seat in (1, 2, 3):
        game = rules.apply(game, Place(c(f"A{seat}"), seat))
    game = rules.apply(game, Clue(("ripe", "peach"), "en", True))
    for seat in (3, 2, 1):
        game = rules.apply(game, Place(c(f"B{seat}"), seat))
    return game


def a_long_clue_given():
    game = rules.apply(None, NewGame(players=4, seed=3, first_giver=0, variant="free"))
    return rules.apply(rules.apply(game, ChooseTarget(c("H15"))), Clue(("supercalifragilistic", "expialidocious"), "en", True))


SCREENS = {
    "guessing": lambda: (busy_game()[0], Ui(screen="play", cursor=c("D21"))),
    "idle board": lambda: (None, Ui(screen="idle", room_code="K7QX", last_winners=("red",))),
    "set-up, GO blinking": lambda: (None, Ui(screen="setup", room_code="K7QX", since=1000.3, setup=SetupChoices(item=SETUP_ITEMS.index("start")))),
    "reveal, scoreboard paged": lambda: (ten_players_in_the_reveal(), Ui(screen="reveal", since=1000.0)),
    "reveal, one page": lambda: (four_players_in_the_reveal(), Ui(screen="reveal", since=1000.0)),
    "store offline": lambda: (busy_game()[0], Ui(screen="play", store_online=False)),
    "idle board, disk full": lambda: (None, Ui(screen="idle", room_code="K7QX", disk_full=True)),
    "secret choice, a card": lambda: (rules.apply(None, NewGame(players=5, seed=11, first_giver=0, variant="cards")),
                                      Ui(screen="secret", card_choice=1, seating=Seating(secret=PANEL))),
    "game over": lambda: (replace(four_players_in_the_reveal(), phase="game_over", winners=(1,)),
                          Ui(screen="game_over", since=1000.0)),
    "tie-break": lambda: (replace(four_players_in_the_reveal(), tied=(1, 2)), Ui(screen="tiebreak", since=1000.0)),
    "a written clue's pages, then the board": lambda: (
        a_long_clue_given(), Ui(screen="play", since=1000.0, clue_screen=clue_seconds(a_long_clue_given().clues))),
    "reveal, written clues": lambda: (
        written_clues_in_the_reveal(),
        Ui(screen="reveal", since=1000.0, reveal_clues=clue_seconds(written_clues_in_the_reveal().clues))),
}


@pytest.mark.parametrize("name", SCREENS)
def test_the_wake_ups_on_a_screen_are_its_frame_changes(name):
    game, ui = SCREENS[name]()
    wakes, changes = walk(game, ui, 1000.05, 12.0)
    assert wakes and changes >= len(wakes) - 2  # a wake-up without a change is rare (an expiry)


def changed_pixels(a, b) -> int:
    return sum(a.pixels[i:i + 3] != b.pixels[i:i + 3] for i in range(0, len(a.pixels), 3))


@pytest.mark.parametrize("name, per_second, pixels", [
    ("guessing", 3, 26),  # one beat: 17 pawns, the cursor and the acting swatch (8) change together
    ("idle board", 1.25, 6 * ROWS),  # a glint crossing the board two diagonals at a time, then stillness
])
def test_a_still_screen_changes_a_few_times_a_second_and_a_few_pixels_at_a_time(name, per_second, pixels):
    """What a room reads at a glance need not be redrawn whole 8 times a second: each wake-up
    costs the box a render, the output stage and a driver call per changed LED."""
    game, ui = SCREENS[name]()
    wakes, _ = walk(game, ui, 1000.05, 20.0, step_ms=10)
    assert len(wakes) <= per_second * 20
    frames = [render(game, ui, t) for t in [1000.05, *wakes]]
    assert max(changed_pixels(a, b) for a, b in zip(frames, frames[1:])) <= pixels


@pytest.mark.parametrize("shift", [0.0, 0.13, 0.55])
@pytest.mark.parametrize("name", SCREENS)
def test_a_screen_left_up_wakes_the_box_at_most_3_times_a_second(name, shift):
    """A wake-up after a sleep costs the box about as much again as the frame it shows (its
    caches are cold), so a screen nobody touches changes at most 3 times a second, in any 10 s
    of it, from its first frame on and wherever it opened against the play screens' beat
    (`shift`: what keeps time from the moment a screen opened and what keeps the beat must
    share their edges): the secret choice's card blinks on the cursor's beat, the game over's
    ripples slow down once the room has cheered (CHEER_S), and the idle board's glint crosses
    in 24 steps (in 48 it made 10 s that held them 4.8 a second)."""
    game, ui = SCREENS[name]()
    ui = replace(ui, since=ui.since + shift)
    start = max(1000.05, ui.since) + CHEER_S if name == "game over" else ui.since
    wakes, _ = walk(game, ui, start, 30.0, step_ms=10)
    assert max((bisect.bisect_left(wakes, at + 10.0) - i for i, at in enumerate(wakes)), default=0) <= 3 * 10


@pytest.mark.parametrize("name", ["guessing", "secret choice, a card"])
def test_a_cursors_beat_wakes_the_box_3_times_a_second(name):
    """The screens a round leaves up longest, with a cursor on them, change 3 times a second:
    the pawns light, the cursor shows its colour, then the contrast. A third flicker step cost
    a fourth wake-up, and it was what took these screens past 0.15 % of a core here."""
    game, ui = SCREENS[name]()
    wakes, changes = walk(game, ui, 1000.05, 10.0, step_ms=10)
    assert len(wakes) == changes == 3 * 10


@pytest.mark.parametrize("shift", [0.0, 0.13, 0.55])
@pytest.mark.parametrize("name", SCREENS)
def test_an_outage_shown_wakes_the_box_no_more_often(name, shift):
    """The dot that says the store is offline (or the disk full) blinks on the beat where the
    screen keeps it and is steady elsewhere: on the set-up, the reveal, the tie-break and the
    game over, which keep time from when they opened, a dot on the beat doubled their wake-ups
    (47 in 12 s where they make 23), and it woke the idle board twice a second more."""
    game, ui = SCREENS[name]()
    ui = replace(ui, since=ui.since + shift)
    for outage in (dict(store_online=False), dict(disk_full=True)):
        assert walk(game, replace(ui, **outage), ui.since, 12.0, step_ms=20)[0] == walk(game, ui, ui.since, 12.0, step_ms=20)[0]


@pytest.mark.parametrize("screen", ["brightness", "host", "confirm", "resume"])
def test_a_menu_never_changes_by_itself(screen):
    game = four_players_in_the_reveal() if screen in ("host", "confirm") else None
    ui = Ui(screen=screen, menu_return=("reveal", 0.0) if game else None, menu_item=1)
    assert next_change(game, ui, 123.4) == math.inf
    offline = Ui(screen="brightness", store_online=False)
    assert next_change(None, offline, 1.0) == math.inf and render(None, offline, 1.0).get(31, 15) == AMBER


def test_the_scoreboard_of_one_page_holds_still_after_its_reveal():
    game, ui = four_players_in_the_reveal(), Ui(screen="reveal", since=5.0)
    assert next_change(game, ui, 20.0) == math.inf
    assert next_change(ten_players_in_the_reveal(), ui, 20.0) < 22.5  # paged: the next page


def test_a_blink_edge_is_found_to_the_ulp():
    at = Moment(0.3)
    assert at.blink(1 / PAWN_S, PAWN_LIT) is True
    edge = at.until
    assert (edge / PAWN_S) % 1.0 >= PAWN_LIT and (math.nextafter(edge, 0) / PAWN_S) % 1.0 < PAWN_LIT
    assert 1.5 <= first_change(lambda t: t >= 2.0, 1.0, False, 1.5) < 2.0  # far too soon: wake early
    assert first_change(lambda t: t >= 2.0, 1.0, False, 2.5) == 2.0  # too late: bisected back
    assert first_change(lambda t: t >= 2.0, 1.0, False, math.nextafter(2.0, 0)) == 2.0  # an ulp off
    assert first_change(lambda t: t >= 2.0, 1.0, False, math.inf) == math.inf


def test_the_attract_loop_says_when_it_turns_and_when_its_scenes_change():
    record = [NewGame(players=4, seed=3, first_giver=0, variant="free")]
    state = rules.apply(None, record[0])
    for action in (ChooseTarget(c("H15")), Clue(), Place(c("H16")), Place(c("A1")), Place(c("P30")), SkipClue()):
        state = rules.apply(state, action)
        record.append(action)
    reveals = replay_timeline(record).reveals()
    ui = Ui(screen="idle", room_code="K7QX")
    since = 17.0
    t = since
    for _ in range(40):
        frame, until = attract_timed(reveals, ui, t, since)
        assert frame == attract_frame(reveals, ui, t - since)
        for s in (t + (until - t) * f for f in (0.25, 0.5, 0.99)):
            assert attract_frame(reveals, ui, s - since) == frame
        assert attract_frame(reveals, ui, math.nextafter(until, 0) - since) == frame
        t = until
    assert t > since + 45.0  # the board, then the reveals


def test_video_frames_are_the_frames_of_every_sample():
    """`Timeline.frames` skips the samples the horizons say repeat: the same output as drawing
    every sample."""
    record = [NewGame(players=3, seed=1, first_giver=0, variant="cards")]
    state = rules.apply(None, record[0])
    while not rules.is_terminal(state) and len(record) < 40:
        action = rules.legal_actions(state)[-1]
        state = rules.apply(state, action)
        record.append(action)
    timeline = replay_timeline(record)
    fps = 20
    naive, shown, at, i, ms = [], None, 0, 0, 0
    end = round(timeline.duration * 1000)
    while ms < end:
        frame = timeline.frame(ms / 1000)
        if frame != shown:
            if shown is not None:
                naive.append((shown, at, ms - at))
            shown, at = frame, ms
        i += 1
        ms = round(i * 1000 / fps)
    naive.append((shown, at, end - at))
    assert list(timeline.frames(fps)) == naive


class VirtualQueue(EventQueue):
    """The app's queue on a virtual clock: waiting moves the clock to the timeout (no input
    ever comes), or to the first of `later`'s (time, what another thread does then), done then:
    a wake-up it calls ends the wait. Each tick costs `tick_cost_s` of it, as the CPU would."""

    def __init__(self, clock: list[float]) -> None:
        super().__init__()
        self.clock = clock
        self.waits = 0
        self.later: list[tuple[float, Callable[[], None]]] = []

    def wait(self, timeout: float) -> bool:
        self.waits += 1
        self.later.sort(key=lambda item: item[0])
        if self.later and self.later[0][0] <= self.clock[0] + timeout:
            at, happen = self.later.pop(0)
            self.clock[0] = max(self.clock[0], at)
            happen()
            return not self._queue.empty()
        self.clock[0] += timeout
        return False


class TimedDriver(HeadlessDriver):
    def __init__(self, clock, width=32, height=16):
        super().__init__(width, height)
        self.clock, self.times = clock, []

    def show(self, leds, frame):
        super().show(leds, frame)
        self.times.append((self.clock[0], frame))


def app_on_a_virtual_clock(tick_cost_s=0.0005):
    clock = [1000.0]
    events = VirtualQueue(clock)
    driver = TimedDriver(clock)
    app = ConsoleApp(OutputStage(Layout(LayoutOptions())), driver, events, [], GameStore("memory://"))
    real_tick = app.tick

    def tick(now):
        clock[0] += tick_cost_s  # what the tick itself takes
        if clock[0] > 1010.0:
            app.stop()
        return real_tick(now)

    app.tick = tick
    events.later.append((1010.0, app.stop))  # a still screen's loop sleeps until then
    return app, clock, driver


def test_the_frame_at_a_blink_edge_reaches_the_panel_within_2_ms_and_the_loop_sleeps_between():
    app, clock, driver = app_on_a_virtual_clock()
    state, _ = busy_game()
    app.start(clock[0])
    app.put_on(state, Ui(screen="play", cursor=c("D21")), clock[0])
    reels = []
    pictures_module.Reel = lambda *args: reels.append(Reel(*args)) or reels[-1]
    try:
        run_realtime(app, 60, clock=lambda: clock[0], start=False)
    finally:
        pictures_module.Reel = Reel
    shown = driver.times
    assert len(reels) <= 5 + len(shown) / REEL_MOST  # drawn ahead in batches, not a render a wake-up
    assert len(shown) >= 29  # the beat: 3 changes a second for 10 s
    for (before, old), (at, frame) in zip(shown, shown[1:]):
        edge = first_change(lambda t: render(app.game, app.ui, t), before, old, at)  # when it changed
        assert render(app.game, app.ui, edge) == frame
        assert 0 <= at - edge <= 0.002, (edge, at)
    assert app.events.waits <= len(shown) + 3  # a wait per change


def test_a_still_screen_does_not_wake_the_loop():
    app, clock, driver = app_on_a_virtual_clock()
    app.start(clock[0])
    app.ui = replace(app.ui, screen="brightness")
    run_realtime(app, 60, clock=lambda: clock[0], start=False)
    assert len(driver.times) == 1
    assert app.events.waits <= 2  # 600 at 60 frames a second; 10 with a look at the store a second


def test_started_is_called_once_when_the_first_frame_is_out():
    app, clock, driver = app_on_a_virtual_clock()
    app.start(clock[0])
    app.put_on(busy_game()[0], Ui(screen="play", cursor=c("D21")), clock[0])  # a frame every beat
    calls = []
    run_realtime(app, 60, clock=lambda: clock[0], start=False, started=lambda: calls.append(len(driver.times)))
    assert calls == [1] and len(driver.times) >= 29


@pytest.mark.parametrize("screen", ["play", "brightness"])
def test_the_store_going_offline_and_back_wakes_the_loop_at_once(screen):
    """What the store's side finds (Redis gone, then back after its back-off) is on the panel
    at once, on a blinking screen and on a still one: the store wakes the loop for it, and its
    retry is one of the loop's timers."""
    app, clock, driver = app_on_a_virtual_clock()
    app.start(clock[0])
    app.put_on(busy_game()[0], Ui(screen=screen, cursor=c("D21")), clock[0])
    seen, tick = [], app.tick

    def watched(now):
        due = tick(now)
        seen.append((now, app.ui.store_online))
        return due

    app.tick = watched
    app.events.later.append((1004.0, lambda: app.store._fail(redis.ConnectionError("Redis stopped"))))
    run_realtime(app, 60, clock=lambda: clock[0], start=False)
    gone = next(now for now, online in seen if not online)
    back = next(now for now, online in seen if online and now > gone)
    assert 1004.0 <= gone <= 1004.0 + 0.002
    assert 1004.0 + FIRST_RETRY_S <= back <= 1004.0 + FIRST_RETRY_S + 0.002
    if screen == "brightness":
        assert app.events.waits <= 6  # start, gone, the retry, back and the end


@pytest.mark.parametrize("since", [1000.0, 1000.13, 1000.3, 1000.55, 1000.81])
def test_the_reveals_frame_flashes_on_shared_edges(since):
    """The scoring ring, the pawns and the target blink on one set of edges (the target twice
    as fast), from when the frame opened, so it wakes the box 4 times a second wherever it
    opened against the play screens' beat: the attract loop plays it over and over (at 2 and 3
    Hz it woke the box 9 times a second; with the pawns on the play screens' beat, 5 or 6)."""
    game, ui = four_players_in_the_reveal(), Ui(screen="reveal", since=since)
    wakes, changes = walk(game, ui, since, REVEAL_POINTS_S - 0.01, step_ms=10)
    assert len(wakes) == changes <= 4 * REVEAL_POINTS_S
    target, pawn = game.target_revealed, game.pawns[0].cell
    ring = next(cell for cell in ALL_CELLS if distance(cell, target) == 2 and not game.occupied(cell))
    seen = [render(game, ui, since + i / 20) for i in range(int(REVEAL_POINTS_S * 20))]
    ring_lit = [f.get(ring.col, ring.row) != board_colors()[ring.index] for f in seen]
    pawns_lit = [f.get(pawn.col, pawn.row) != (0, 0, 0) for f in seen]
    assert ring_lit == pawns_lit and ring_lit[0] and not all(ring_lit)  # together, from the frame's first moment

"""The hub between the app loop and the server, the room code on the panel, and `play` with the
phones' server on."""

from __future__ import annotations

import asyncio
import socket

from PIL import Image

from console.commands import main as cli
from console.game import rules
from console.view.render import render
from console.view.screens import GOLD
from console.view.ui import SetupChoices, Ui
from console.web.hub import Hub
from hal.frame import Frame
from tests.phones import in_own_loop


def test_subscribers_are_woken_on_their_loop_for_what_they_asked():
    hub = Hub()
    woken = []

    async def listen():
        loop = asyncio.get_running_loop()
        states = hub.subscribe(lambda: woken.append("state"), frames=False)
        frames = hub.subscribe(lambda: woken.append("frame"), loop, states=False, frames=True)
        # From another thread, as the app loop publishes. Each wake is queued on this loop by
        # call_soon_threadsafe before the worker returns, and the worker's future is settled on
        # this loop by a later call_soon_threadsafe (asyncio/futures.py, _chain_future): the
        # loop runs its callbacks in order, so the wake has run when the await returns.
        await loop.run_in_executor(None, hub.publish_state, None, Ui(), 1.0)
        await loop.run_in_executor(None, hub.publish_frame, Frame(32, 16))
        await asyncio.sleep(0)
        states()
        hub.publish_state(None, Ui(), 2.0)
        await asyncio.sleep(0)  # one turn of the loop: a wake queued by that publish would run
        frames()
        return hub.subscribers

    assert in_own_loop(listen()) == 0
    assert woken == ["state", "frame"]
    assert hub.snapshot.version == 2 and hub.snapshot.time == 2.0 and hub.frame_version == 1


class CountingLoop:
    """A server loop as the hub sees it: counts the calls into it (each one a self-pipe write
    on the app loop's thread), runs them when told."""

    def __init__(self):
        self.calls = []

    def call_soon_threadsafe(self, callback, *args):
        self.calls.append((callback, args))

    def run(self):
        calls, self.calls = self.calls, []
        for callback, args in calls:
            callback(*args)


def test_a_change_wakes_the_server_loop_once_however_many_phones_listen():
    hub, loop, woken = Hub(), CountingLoop(), []
    for phone in range(32):
        hub.subscribe(lambda phone=phone: woken.append(phone), loop, frames=False)
    hub.subscribe(lambda: woken.append("panel"), loop, states=False, frames=True)
    hub.publish_state(None, Ui(), 1.0)
    hub.publish_frame(Frame(32, 16), 1.0)
    assert len(loop.calls) == 1  # one call for both publishes and all 33 subscribers (was 34)
    loop.run()
    assert sorted(map(str, woken)) == sorted(map(str, [*range(32), "panel"]))
    woken.clear()
    hub.publish_frame(Frame(32, 16), 2.0)  # a frame alone: only the panel's subscriber
    loop.run()
    assert woken == ["panel"]


def test_a_closed_loop_does_not_stop_the_publisher():
    hub = Hub()
    loop = asyncio.new_event_loop()
    hub.subscribe(lambda: None, loop)
    loop.close()
    hub.publish_state(None, Ui(), 0.0)  # nothing raised in the app's thread


def gold_cells(frame) -> int:
    return sum(frame.get(x, y) == GOLD for x in range(30) for y in range(16))


def test_the_room_code_is_on_the_idle_board_and_in_set_up():
    assert gold_cells(render(None, Ui(room_code="KPRT"), 1.0)) > 20
    assert gold_cells(render(None, Ui(), 1.0)) == 0
    # for the whole set-up, on every item, at every instant (it blinked 2 s in every 5)
    setup = [render(None, Ui(screen="setup", room_code="KPRT", setup=SetupChoices(item=item)), t / 4)
             for t in range(24) for item in range(4)]
    assert all(gold_cells(f) > 20 for f in setup)
    game = rules.apply(None, rules.NewGame(players=3))
    assert gold_cells(render(game, Ui(screen="handoff", room_code="KPRT"), 1.0)) == 0  # not during a game


def test_play_with_the_web_on_serves_while_it_runs_and_stops_with_it(tmp_path, monkeypatch):
    from console.commands import session
    from hal.inputs.events import PRESS, QUIT, InputEvent

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    answered = []

    class KeyboardThatChecksThePage:
        def __init__(self, events):
            self.events, self.polls = events, 0

        def poll(self, now):
            self.polls += 1
            if self.polls == 2:
                import urllib.request

                answered.append(urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).status)
                self.events.put(InputEvent(QUIT, PRESS, now))

        def next_poll(self, now):
            return now  # like the terminal: looked at every frame

    picture = tmp_path / "panel.png"
    config = tmp_path / "console.yaml"
    config.write_text(f"store:\n  url: memory://\nweb:\n  enabled: true\n  port: {port}\n"
                      f"driver:\n  name: sim-png\n  sim_png:\n    path: {picture}\n    scale: 1\n")
    monkeypatch.setattr(session, "need_terminal", lambda name, command: None)  # the keys are faked
    monkeypatch.setattr(session, "open_keyboard", KeyboardThatChecksThePage)
    assert cli.main(["play", "--config", str(config)]) == 0
    assert answered == [200]
    with socket.socket() as again:  # nobody listens there any more: the server stopped with the console
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # (a closed connection may linger)
        again.bind(("127.0.0.1", port))
    with Image.open(picture) as image:
        assert image.size == (32, 16)


def test_each_frame_reaches_the_hub_with_the_state_it_was_drawn_from():
    """The spectator view hides the secret screen by the state paired with each frame: at every
    change (into the secret screen and out of it) that state must be the one the frame shows."""
    from tests.play.test_panel_app import Player

    player, hub = Player(), Hub()
    player.app.publisher = hub
    publish_frame, screens = hub.publish_frame, []

    def checked(frame: Frame, now: float) -> None:
        publish_frame(frame, now)
        shown, snapshot, t = hub.shown()
        screens.append(snapshot.ui.screen)
        assert shown is frame and t == now and render(snapshot.game, snapshot.ui, t) == frame

    hub.publish_frame = checked
    # through set-up (no computer players) to GO, the hand-off, the secret choice and the play screen
    for button in ("start", "a", "a", "a", "a", "a", "a", "a", "right", "a", "b", "a", "a"):
        player.tap(button)
        player.run(0.5)  # past the grace after a screen that changed by itself
    assert {"setup", "handoff", "secret", "play"} <= set(screens)


def test_the_server_thread_has_no_timer_of_its_own_while_nobody_is_connected():
    """uvicorn's own main loop wakes ten times a second to look whether it should stop; on a
    still screen the server's thread must sleep until something comes (a connection, stop())."""
    from console.web.server import WebServer, build_web_app

    server = WebServer(build_web_app([]), "127.0.0.1", 0)
    server.start()
    try:
        async def timers():
            loop = asyncio.get_running_loop()
            return [h.when() - loop.time() for h in loop._scheduled if not h.cancelled()]  # asyncio's timer heap

        assert asyncio.run_coroutine_threadsafe(timers(), server._loop).result(5) == []
    finally:
        server.stop()
    assert not server._thread.is_alive()

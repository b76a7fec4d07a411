"""No store call on the frame loop's thread: a slow or stalled Redis never holds up the panel.

Every command the console sends to a real redis-server is recorded with the thread that sent it,
while the console starts (brightness, last winners, a game to resume), offers and resumes a game,
plays, idles into the attract loop (the last game's record) and has a stored game set aside: the
frame loop's thread sends none. And a Redis stalled at boot for longer than the client's timeout
no longer hides the stored game: it is offered once Redis answers again.
"""

from __future__ import annotations

import signal
import threading
import time

import redis

from console.play.app import ConsoleApp
from console.commands.wiring import build_output
from console.config.loader import load_config
from console.game.record import action_to_json
from console.store.games import GameStore
from console.store.writer import connect
from console.view.timeline import ATTRACT_AFTER_S
from hal.inputs.events import EventQueue
from tests.scripting import plan_game
from tests.play.test_whole_games import first_card_cell, near_guesser
from tests.store.test_store import MOVES, SUMMARY, play
from tests.store.test_store_startup import press, tick_until


class _Senders:
    """The threads that sent each command, recorded by the connection itself (pipelines too)."""

    def __init__(self):
        self.threads: list[str] = []

    def connection_class(self):
        senders = self

        class Recording(redis.UnixDomainSocketConnection):
            def send_packed_command(self, command, check_health=True):
                senders.threads.append(threading.current_thread().name)
                return super().send_packed_command(command, check_health)

        return Recording


def watched_console(tmp_path, redis_server, senders: _Senders, name: str = "console") -> ConsoleApp:
    """The console as `play` builds it (journal, writer thread) on a client that records senders."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"store:\n  url: {redis_server.url}\n  state_dir: {tmp_path / name}\n")
    config = load_config(str(path), environ={})
    client = connect(redis_server.url, 3.0)
    client.connection_pool.connection_class = senders.connection_class()
    store = GameStore(redis_server.url, client=client, state_dir=tmp_path / name, background=True)
    stage, driver = build_output(config, "sim-headless")
    return ConsoleApp(stage, driver, EventQueue(), [], store)


def test_the_frame_loops_thread_sends_redis_no_command(redis_server, tmp_path):
    earlier = GameStore(redis_server.url, owner="gone")
    play(earlier, MOVES[:2])
    earlier.finish(SUMMARY)
    left = play(earlier, MOVES[:1])  # unfinished, its console gone
    earlier.set_setting("brightness", 0.5)
    earlier.close()
    redis_server.client().delete(f"hues:game:{left}:lease")
    senders = _Senders()
    app = watched_console(tmp_path, redis_server, senders)
    loop = threading.current_thread().name
    app.start(0.0)
    t = tick_until(app, lambda: app.ui.screen == "resume")
    assert abs(app.ui.brightness - 0.5) < 0.01 and app.ui.last_winners == ("red",)
    press(app, "a", t=t + 1)  # resume it
    assert app.ui.screen != "resume" and app.game is not None and app.store.flush(3.0)
    app.close()
    assert senders.threads and loop not in senders.threads, "a store call ran on the frame loop's thread"


def test_the_attract_loop_reads_the_last_game_off_the_loops_thread(redis_server, tmp_path):
    _, _, record = plan_game(3, "cards", 0, 9, target=first_card_cell, guess=near_guesser(9), passes=lambda s: True)
    earlier = GameStore(redis_server.url, owner="gone")
    earlier.start_game(action_to_json(record[0]))
    for action in record[1:]:
        earlier.append(action_to_json(action))
    earlier.finish(SUMMARY)
    earlier.close()
    senders = _Senders()
    app = watched_console(tmp_path, redis_server, senders)
    app.start(0.0)
    tick_until(app, lambda: app.pictures.attract is not None, ATTRACT_AFTER_S)
    app.close()
    assert threading.current_thread().name not in senders.threads


def test_a_redis_stalled_at_boot_longer_than_its_timeout_still_offers_the_stored_game(redis_server, tmp_path):
    earlier = GameStore(redis_server.url, owner="gone")
    game_id = play(earlier, MOVES[:3])
    earlier.close()
    redis_server.client().delete(f"hues:game:{game_id}:lease")
    senders = _Senders()
    redis_server.process.send_signal(signal.SIGSTOP)  # Redis waits on a stalled SD card
    try:
        app = watched_console(tmp_path, redis_server, senders)
        app.start(0.0)
        t = 0.0
        for _ in range(40):  # the panel goes on meanwhile
            t += 0.1
            app.tick(t)
        time.sleep(3.5)  # the stall itself, longer than the client's 3 s timeout
    finally:
        redis_server.process.send_signal(signal.SIGCONT)
    tick_until(app, lambda: app.ui.screen == "resume", t)
    assert app.store.unfinished()[0] == game_id
    app.close()
    assert threading.current_thread().name not in senders.threads

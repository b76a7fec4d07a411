"""Starting the console on a store that is down, busy, slow, shared or not persisting; game ids,
the order of games and how many are kept."""

from __future__ import annotations

import logging
import signal
import time

from console.config.loader import load_config
from console.play.app import ConsoleApp
from console.commands.wiring import build_output, store_for
from console.store.games import GameStore
from hal.inputs.events import EventQueue, InputEvent
from tests.store.test_store import MOVES, NEW_GAME, SUMMARY, play

SETUP_GO = ("start", "down", "down", "down", "down", "a")  # past the computer players (none), GO


def console_on(tmp_path, url: str, name: str = "console") -> ConsoleApp:
    """The console as `play` builds its store (journal in its own state directory, writer thread)."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"store:\n  url: {url}\n  state_dir: {tmp_path / name}\n")
    config = load_config(str(path), environ={})
    stage, driver = build_output(config, "sim-headless")
    return ConsoleApp(stage, driver, EventQueue(), [], store_for(config))


def wait_online(store: GameStore, limit_s: float = 5.0) -> None:
    """Until the store's writer thread has reached Redis again (its back-off is at most 2 s)."""
    deadline = time.monotonic() + limit_s
    while not store.online:
        assert time.monotonic() < deadline, "the store never came back online"
        time.sleep(0.02)  # waiting for the writer thread, not timing anything


def tick_until(app: ConsoleApp, done, t: float = 0.5, limit_s: float = 10.0) -> float:
    """Frames on a virtual clock (half a second apart) until `done()`: the store answers the
    loop's questions from its own thread."""
    deadline = time.monotonic() + limit_s
    while not done():
        assert time.monotonic() < deadline, "the console never got there"
        t += 0.5
        app.tick(t)
        time.sleep(0.01)  # the store's thread answers meanwhile; nothing is timed
    return t


def press(app: ConsoleApp, *buttons: str, t: float = 1.0) -> None:
    for button in buttons:
        app.events.put(InputEvent(button, "press", t))
    app.tick(t)


def started_without_redis(redis_server, tmp_path) -> tuple[str, ConsoleApp]:
    """An unfinished game left by a console that is gone, then the console started with Redis down."""
    earlier = GameStore(redis_server.url, owner="gone")
    game_id = play(earlier, MOVES[:1])
    earlier.close()
    redis_server.client().delete(f"hues:game:{game_id}:lease")
    redis_server.stop()
    app = console_on(tmp_path, redis_server.url)
    app.start(0.0)
    return game_id, app


def test_redis_down_at_start_the_stored_game_is_offered_when_it_is_back(redis_server, tmp_path):
    game_id, app = started_without_redis(redis_server, tmp_path)
    assert app.ui.screen == "idle" and not app.store.online and not app.store.resume_checked
    redis_server.start()
    wait_online(app.store)
    tick_until(app, lambda: app.ui.screen == "resume")
    assert app.store.unfinished()[0] == game_id
    app.close()


def test_a_new_game_begun_while_redis_was_down_leaves_the_stored_one_for_the_host(redis_server, tmp_path):
    old, app = started_without_redis(redis_server, tmp_path)
    press(app, *SETUP_GO)  # the host starts a game: the store could not offer the old one
    assert app.game is not None
    redis_server.start()
    wait_online(app.store)
    assert app.store.flush(3.0)
    app.tick(1.5)
    assert app.ui.screen != "resume"  # a game is under way: no offer in the middle of it
    admin = redis_server.client()
    assert admin.hget(f"hues:game:{old}:meta", "status") == "playing"
    assert old in admin.zrange("hues:playing", 0, -1)
    app.close()


def test_two_consoles_on_one_store_leave_each_others_game_alone(redis_server, tmp_path, caplog):
    service = console_on(tmp_path, redis_server.url, "service")
    service.start(0.0)
    press(service, *SETUP_GO)
    assert service.store.flush(3.0)
    [served] = redis_server.client().zrange("hues:playing", 0, -1)
    with caplog.at_level(logging.WARNING):
        beside = console_on(tmp_path, redis_server.url, "beside")  # `hues-console sim` on the same Pi
        beside.start(0.0)
    assert beside.ui.screen == "idle"
    assert any(served in r.getMessage() and "another console" in r.getMessage() for r in caplog.records)
    assert not beside.store.resume_checked  # it looks again now and then: that console may stop
    press(beside, *SETUP_GO)
    press(service, "a", t=2.0)  # each plays on: the handoff (A twice), then the target
    press(service, "a", t=2.05)
    press(service, "a", t=2.1)
    assert service.store.flush(3.0) and beside.store.flush(3.0)
    admin = redis_server.client()
    assert admin.keys("hues:quarantine:*") == [] and len(admin.zrange("hues:playing", 0, -1)) == 2
    assert admin.llen(f"hues:game:{served}:record") == 2
    service.close()
    beside.close()


def test_a_two_second_stall_of_redis_holds_up_no_frame_and_is_no_outage(redis_server, tmp_path, caplog):
    store = GameStore(redis_server.url, state_dir=tmp_path / "state", background=True)
    game_id = store.start_game(NEW_GAME)
    assert store.flush(3.0)
    redis_server.process.send_signal(signal.SIGSTOP)  # a slow SD card: Redis waits on its fsync
    try:
        slowest = 0.0
        for move in MOVES:
            started = time.monotonic()
            store.append(move)  # durable in the journal; the writer waits on Redis, not the frame loop
            store.tick(started)
            slowest = max(slowest, time.monotonic() - started)
        time.sleep(2.0)  # the stall itself
        assert store.online
    finally:
        redis_server.process.send_signal(signal.SIGCONT)
    assert store.flush(3.0)
    assert slowest < 0.1, f"a store call held the frame loop for {slowest * 1000:.0f} ms"
    assert not [r for r in caplog.records if "unreachable" in r.getMessage()]
    assert redis_server.client().llen(f"hues:game:{game_id}:record") == 1 + len(MOVES)
    store.close()


def test_a_redis_that_does_not_persist_every_write_is_warned_about_once(redis_server_off, caplog):
    redis_server_off.extra = ("--appendfsync", "everysec")
    redis_server_off.start()
    with caplog.at_level(logging.WARNING):
        store = GameStore(redis_server_off.url)
        store.start_game(NEW_GAME)
        store.history()
    [warning] = [r.getMessage() for r in caplog.records if "fsync" in r.getMessage()]
    assert "'everysec'" in warning and "power cut" in warning


def test_the_pis_redis_persists_and_lets_nobody_in_as_the_default_user(redis_server, caplog):
    import redis

    with caplog.at_level(logging.WARNING):
        GameStore(redis_server.url).history()
    assert not caplog.records
    anonymous = redis.Redis(unix_socket_path=str(redis_server.socket))
    try:
        anonymous.ping()
        raise AssertionError("the default user could run a command")
    except redis.AuthenticationError:
        pass


def test_a_redis_still_loading_its_data_at_start_is_asked_again_when_it_is_ready(rig, tmp_path):
    import fakeredis
    import redis

    class Loading(fakeredis.FakeRedis):
        """A Redis still loading its append-only file: every command is refused until `ready`."""

        ready = False

        def execute_command(self, *args, **options):
            if not self.ready:
                raise redis.BusyLoadingError("Redis is loading the dataset in memory")
            return super().execute_command(*args, **options)

    game_id = play(rig.store(owner="gone"), MOVES[:1])
    rig.redis.delete(f"hues:game:{game_id}:lease")
    client = Loading(server=rig.server, decode_responses=True)
    store = rig.store(client)
    assert not store.online and store.unfinished() is None and not store.resume_checked
    client.ready = True
    store.tick(0.0)
    store.tick(0.5)
    assert store.online and store.unfinished() == (game_id, [NEW_GAME, *MOVES[:1]])


def test_game_ids_are_random_128_bits_and_the_order_of_games_ignores_the_clock(rig):
    store = rig.store()
    ids = []
    for ended in (5000.0, 1000.0, 3000.0):  # a Pi without a clock: time goes back after a power cut
        rig.wall.now = 1000.0
        ids.append(play(store, MOVES[:1]))
        rig.wall.now = ended
        store.finish(SUMMARY)
    assert len(set(ids)) == 3 and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
    assert [e["game_id"] for e in store.history()] == ids[::-1]


def test_only_the_newest_keep_games_closed_games_are_kept(rig):
    store = rig.store(keep_games=2)
    ids = []
    for _ in range(3):
        ids.append(play(store, MOVES[:1]))
        store.finish(SUMMARY)
    assert [e["game_id"] for e in store.history()] == ids[:0:-1]
    assert rig.redis.keys(f"hues:game:{ids[0]}:*") == []


def test_the_reading_commands_change_nothing_in_a_damaged_store(rig):
    store = rig.store()
    bad = play(store)
    store.finish(SUMMARY)
    rig.redis.hset(f"hues:game:{bad}:meta", "summary", "{nope")
    rig.redis.rpush("hues:settings", "wrong type")
    before = {key: rig.redis.dump(key) for key in rig.redis.keys("*")}
    reader = rig.store(read_only=True)
    assert reader.history() == [] and reader.get_setting("brightness", 1) == 1
    assert reader.export(bad) == [NEW_GAME, *MOVES]
    assert {key: rig.redis.dump(key) for key in rig.redis.keys("*")} == before


def test_the_first_frame_needs_neither_redis_nor_fakeredis_imported():
    """Importing redis-py (and its asyncio client) and fakeredis was a third of a start: what
    the console imports before its first frame leaves them to the store's own thread."""
    import subprocess
    import sys

    code = ("import sys; import console.commands.wiring, console.config.loader, console.play.app, "
            "console.commands.session; print(sorted(m for m in sys.modules if 'redis' in m))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_store_that_keeps_nothing_is_made_while_the_first_frame_is_drawn():
    """The memory store opens on a thread of its own: the first frame comes before it is made,
    the questions asked meanwhile are answered on the loop's thread once it is, and a move
    waits for it."""
    import threading

    from console.play.opening import OpeningStore

    made = threading.Event()
    events = EventQueue()

    def make():
        made.wait(10)
        return GameStore("memory://")

    store = OpeningStore(make, "memory://", events)
    stage, driver = build_output(load_config(None, environ={}, etc_path="/nonexistent"), "sim-headless")
    app = ConsoleApp(stage, driver, events, [], store)
    app.start(0.0)
    app.tick(0.0)
    assert app.stats.frames_pushed == 1 and store.online and store.journal_ok and not made.is_set()
    assert app.answers.asking("winners")
    made.set()
    tick_until(app, lambda: not app.answers.asking("winners") and not app.answers.asking("brightness"))
    assert store.opened.online
    for button in SETUP_GO:
        app.events.put(InputEvent(button, "press", 100.0))
    app.tick(100.0)
    assert app.game is not None and store.opened.unfinished()[1][0]["action"] == "new_game"  # stored

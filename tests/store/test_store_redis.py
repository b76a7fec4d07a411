"""The game store against a real redis-server run with config/redis-hues.conf: crashes, restarts, AOF."""

from __future__ import annotations

import json
import shutil
import signal
import time

import pytest

from console.store.games import GameStore

NEW_GAME = {"action": "new_game", "players": 3, "seed": 11, "first_giver": 2, "variant": "cards"}
MOVES = [{"action": "choose_target", "cell": "C7"}, {"action": "clue"},
         {"action": "place", "cell": "D8", "player": 0}, {"action": "place", "cell": "B6", "player": 1},
         {"action": "skip_clue"}, {"action": "next"}]
SUMMARY = {"players": 2, "colors": ["red", "cyan"], "scores": [3, 5], "winners": [1],
           "winner_colors": ["cyan"]}


def store_on(server, **options) -> GameStore:
    """The console's store on the real server (each call like a new process of the same console)."""
    return GameStore(server.url, owner="the-console-under-test", **options)


def stored_record(server, game_id: str) -> list[dict]:
    client = server.client()
    try:
        return [json.loads(line.partition(" ")[2])
                for line in client.lrange(f"hues:game:{game_id}:record", 0, -1)]
    finally:
        client.close()


def back_online(store: GameStore) -> None:
    """Run the app's frames until the store's back-off lets it retry (two frames, 2 s apart)."""
    store.tick(0.0)
    store.tick(2.0)
    assert store.online


def test_round_trip_with_every_write_fsynced(redis_server):
    client = redis_server.client()
    assert client.config_get("appendonly") == {"appendonly": "yes"}
    assert client.config_get("appendfsync") == {"appendfsync": "always"}
    store = store_on(redis_server)
    game_id = store.start_game(NEW_GAME)
    for move in MOVES:
        store.append(move)
    store.set_setting("brightness", 0.35)
    store.finish(SUMMARY)
    reader = store_on(redis_server)
    assert reader.export(game_id) == [NEW_GAME, *MOVES]
    [entry] = reader.history()
    assert (entry["game_id"], entry["winner_colors"], entry["actions"]) == (game_id, ["cyan"], 7)
    assert reader.get_setting("brightness") == 0.35
    assert reader.unfinished() is None
    client.close()


def test_the_record_survives_a_crash_of_redis_through_its_append_only_file(redis_server):
    store = store_on(redis_server)
    game_id = store.start_game(NEW_GAME)
    for move in MOVES[:4]:
        store.append(move)
    redis_server.kill()  # SIGKILL, snapshots off: only the fsynced AOF can bring the game back
    redis_server.start()
    assert store_on(redis_server).unfinished() == (game_id, [NEW_GAME, *MOVES[:4]])


def test_redis_killed_mid_game_then_restarted_loses_and_repeats_nothing(redis_server):
    store = store_on(redis_server)
    game_id = store.start_game(NEW_GAME)
    for move in MOVES[:2]:
        store.append(move)
    redis_server.kill()
    started = time.monotonic()
    for move in MOVES[2:]:
        store.append(move)
    assert time.monotonic() - started < 1.0  # a dead Redis does not freeze the game loop
    assert not store.online
    assert store.unfinished() == (game_id, [NEW_GAME, *MOVES])
    redis_server.start()
    back_online(store)
    assert stored_record(redis_server, game_id) == [NEW_GAME, *MOVES]
    store.finish(SUMMARY)
    assert store_on(redis_server).history()[0]["game_id"] == game_id


def test_redis_down_at_start_then_started_keeps_both_games_unfinished(redis_server):
    earlier = store_on(redis_server)
    old = earlier.start_game(NEW_GAME)
    earlier.append(MOVES[0])
    redis_server.stop()
    store = store_on(redis_server)
    assert not store.online and store.unfinished() is None
    new = store.start_game(NEW_GAME)
    for move in MOVES:
        store.append(move)
    store.tick(0.0)
    store.tick(0.5)  # the first retry: Redis is still down
    assert not store.online
    redis_server.start()
    back_online(store)
    assert stored_record(redis_server, new) == [NEW_GAME, *MOVES]
    assert stored_record(redis_server, old) == [NEW_GAME, MOVES[0]]
    reader = store_on(redis_server)
    assert reader.unfinished() == (new, [NEW_GAME, *MOVES])
    assert reader.history() == []  # the old game is only closed by the host's choice
    reader.abandon()
    assert store_on(redis_server).unfinished() == (old, [NEW_GAME, MOVES[0]])


def test_a_hung_redis_costs_one_timeout_and_its_late_writes_are_not_duplicated(redis_server):
    store = store_on(redis_server)
    game_id = store.start_game(NEW_GAME)
    redis_server.process.send_signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        store.append(MOVES[0])
        store.append(MOVES[1])
        assert time.monotonic() - started < 2.0  # one 0.5 s socket timeout, then the backlog
        assert not store.online
    finally:
        redis_server.process.send_signal(signal.SIGCONT)
    store.append(MOVES[2])
    back_online(store)
    assert stored_record(redis_server, game_id) == [NEW_GAME, *MOVES[:3]]


def test_a_redis_that_refuses_writes_is_treated_like_an_outage(redis_server):
    client = redis_server.client()
    store = store_on(redis_server)
    game_id = store.start_game(NEW_GAME)
    client.config_set("min-replicas-to-write", 1)  # every write now fails with NOREPLICAS, as MISCONF would
    store.append(MOVES[0])
    assert not store.online
    client.config_set("min-replicas-to-write", 0)
    back_online(store)
    assert stored_record(redis_server, game_id) == [NEW_GAME, MOVES[0]]
    client.close()


@pytest.mark.parametrize("how", ["stop", "kill"])
def test_a_finished_game_and_settings_survive_a_restart(redis_server, how):
    store = store_on(redis_server)
    game_id = store.start_game(NEW_GAME)
    store.append(MOVES[0])
    store.finish(SUMMARY)
    store.set_setting("brightness", 0.6)
    getattr(redis_server, how)()
    redis_server.start()
    reader = store_on(redis_server)
    assert [entry["game_id"] for entry in reader.history()] == [game_id]
    assert reader.export() == [NEW_GAME, MOVES[0]]
    assert reader.get_setting("brightness") == 0.6


def test_a_redis_that_lost_its_data_gets_the_whole_game_back(redis_server):
    store = store_on(redis_server)
    game_id = store.start_game(NEW_GAME)
    store.append(MOVES[0])
    redis_server.kill()
    shutil.rmtree(redis_server.directory / "appendonlydir")  # as if the AOF were lost
    redis_server.start()
    store.append(MOVES[1])
    back_online(store)
    assert stored_record(redis_server, game_id) == [NEW_GAME, *MOVES[:2]]
    assert store_on(redis_server).unfinished() == (game_id, [NEW_GAME, *MOVES[:2]])

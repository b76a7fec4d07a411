"""Counters, like values, are damage to set aside and rebuild, never a reason to stop writing.

A `hues:order` counter that is not a number, not UTF-8, at int64's end or past what a score can
hold, of the wrong type, or missing beside history scores of 1e300 or +-infinity: before, Redis
never took another write (INCR refused for good, the store "unreachable" while moves piled up in
the journal), and an infinite score killed the writer thread with an OverflowError. Now the bad
counter is set aside under quarantine, rebuilt above the good scores, the bad scores renumbered,
and the writes go on. Against a real redis-server (set up as the installer does).
"""

from __future__ import annotations

import pytest
import redis

from console.store.games import GameStore
from console.store.redis_games import MAX_ORDER, RedisGames
from tests.store.test_store import MOVES, SUMMARY, play

DAMAGED_COUNTERS = {
    "text": "abc",
    "not UTF-8": b"\xff\xfe\x01",
    "int64's end": "9223372036854775807",
    "past a score's whole numbers": str(MAX_ORDER),
    "negative": "-12",
    "empty": "",
    "a float": "3.5",
}
DAMAGED_SCORES = {"1e300": 1e300, "+inf": float("inf"), "-inf": float("-inf")}


def raw_client(redis_server) -> redis.Redis:
    """The tests' own client, answering bytes (a value that is not UTF-8 as it is)."""
    return redis.Redis(unix_socket_path=str(redis_server.socket), username="admin", password="x")


def store_on(redis_server, tmp_path) -> GameStore:
    return GameStore(redis_server.url, state_dir=tmp_path / "state", background=True)


def plays_on(redis_server, tmp_path) -> str:
    """A whole game (and one more begun) through a console's store: every write reaches Redis."""
    store = store_on(redis_server, tmp_path)
    finished = play(store, MOVES)
    store.finish(SUMMARY)
    begun = play(store, MOVES[:2])
    assert store.flush(5.0), "the store stopped writing"
    assert store._writer.is_alive()
    store.close()
    admin = redis_server.client()
    assert admin.llen(f"hues:game:{finished}:record") == 1 + len(MOVES)
    assert admin.zrevrange("hues:history", 0, 0) == [finished]
    assert admin.zrevrange("hues:playing", 0, 0) == [begun] and admin.llen(f"hues:game:{begun}:record") == 3
    return finished


@pytest.mark.parametrize("damage", DAMAGED_COUNTERS)
def test_a_damaged_order_counter_is_set_aside_and_rebuilt(redis_server, tmp_path, damage):
    admin = redis_server.client()
    earlier = GameStore(redis_server.url, owner="earlier")
    old = play(earlier, MOVES[:1])
    earlier.finish(SUMMARY)
    earlier.close()
    admin.set("hues:order", DAMAGED_COUNTERS[damage])
    plays_on(redis_server, tmp_path)
    [aside] = admin.keys("hues:quarantine:order@*:value")  # the bad value is kept for inspection
    stored = DAMAGED_COUNTERS[damage]
    assert raw_client(redis_server).get(aside) == (stored if isinstance(stored, bytes) else stored.encode())
    order = int(admin.get("hues:order"))
    assert 0 < order < MAX_ORDER and admin.zrange("hues:history", 0, -1)[0] == old


def test_an_order_counter_of_the_wrong_type_is_set_aside_too(redis_server, tmp_path):
    redis_server.client().rpush("hues:order", "1")
    plays_on(redis_server, tmp_path)
    assert any(key.endswith(":key") for key in redis_server.client().keys("hues:quarantine:order@*"))


@pytest.mark.parametrize("score", DAMAGED_SCORES)
def test_a_missing_counter_beside_a_history_score_no_counter_can_follow(redis_server, tmp_path, score):
    admin = redis_server.client()
    admin.zadd("hues:history", {"from-another-version": DAMAGED_SCORES[score]})
    admin.hset("hues:game:from-another-version:meta", mapping={"version": "2", "started": "1", "status": "finished", "ended": "2"})
    finished = plays_on(redis_server, tmp_path)
    history = admin.zrange("hues:history", 0, -1, withscores=True)
    assert [game_id for game_id, _ in history][-1] == finished  # the newest game is the last, as it should be
    assert all(0 <= order < MAX_ORDER for _, order in history)


def test_an_infinite_score_in_the_playing_set_is_renumbered(redis_server, tmp_path):
    redis_server.client().zadd("hues:playing", {"elsewhere": float("-inf")})
    plays_on(redis_server, tmp_path)
    assert all(0 <= order < MAX_ORDER for _, order in redis_server.client().zrange("hues:playing", 0, -1, withscores=True))


def test_no_error_ends_the_writer_thread(redis_server, tmp_path, monkeypatch, caplog):
    """Whatever a write raises (here an OverflowError, as an infinite score once did), the writer
    logs it, backs off and tries again: the thread never dies with the moves stuck in the journal."""
    real, failures = RedisGames.write_record, []

    def failing_once(self, game):
        if not failures:
            failures.append(game.id)
            raise OverflowError("cannot convert float infinity to integer")
        return real(self, game)

    monkeypatch.setattr(RedisGames, "write_record", failing_once)
    plays_on(redis_server, tmp_path)
    assert failures and any("OverflowError" in r.getMessage() for r in caplog.records)

"""A move is shown only once it is on disk somewhere: with the journal's disk full, only a write
Redis has fsynced counts. Against a real redis-server set up as the installer sets it up.

The first move after the journal's disk filled was shown and then lost at the next power cut:
the store queued it before the game held it, so the writer thread, busy with the move before,
took the queued write for one already in Redis (its AOF ended with INCRBY hues:order and no RPUSH).
"""

from __future__ import annotations

import threading
import time

import pytest

from console.store.format import NotDurableError
from console.store.games import GameStore
from console.store.redis_games import RedisGames
from tests.test_store import MOVES, NEW_GAME
from tests.test_store_journal import full_disk  # noqa: F401  (the fixture)


def stored_moves(redis_server, game_id: str) -> int:
    return redis_server.client().llen(f"hues:game:{game_id}:record") - 1


def test_the_first_move_after_the_journal_fills_is_in_redis_when_it_is_shown(redis_server, tmp_path, full_disk,
                                                                              monkeypatch):
    store = GameStore(redis_server.url, state_dir=tmp_path / "state", background=True)
    game_id = store.start_game(NEW_GAME)
    assert store.flush(3.0)
    gate, busy = threading.Event(), threading.Event()
    real = RedisGames.write_record

    def slow_write(self, game):  # the writer is in the middle of the move before
        if not gate.is_set():
            busy.set()
            gate.wait(5)
        return real(self, game)

    monkeypatch.setattr(RedisGames, "write_record", slow_write)
    store.append(MOVES[0])  # journalled; the writer takes it and waits at the gate
    assert busy.wait(5)
    full_disk["full"] = True
    shown = threading.Thread(target=store.append, args=(MOVES[1],))
    shown.start()
    deadline = time.monotonic() + 0.5
    while len(store._backlog) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)  # let the move reach the queue (where the old store put it first)
    gate.set()
    shown.join(10)
    assert not shown.is_alive()
    assert stored_moves(redis_server, game_id) == 2, "the move was shown before Redis held it"
    full_disk["full"] = False
    store.close()


def test_with_the_journal_full_a_redis_that_does_not_fsync_each_write_is_no_disk(redis_server_off, tmp_path,
                                                                                   full_disk):
    redis_server_off.extra = ("--appendfsync", "everysec")  # an acknowledged write may still be in memory
    redis_server_off.start()
    store = GameStore(redis_server_off.url, state_dir=tmp_path / "state")
    game_id = store.start_game(NEW_GAME)
    store.append(MOVES[0])
    full_disk["full"] = True
    with pytest.raises(NotDurableError):
        store.append(MOVES[1])
    assert stored_moves(redis_server_off, game_id) == 1 and store.export(game_id)[-1] == MOVES[0]
    full_disk["full"] = False
    store.append(MOVES[1])  # the card has room again: the move is taken
    assert store.flush(2.0) and stored_moves(redis_server_off, game_id) == 2
    store.close()

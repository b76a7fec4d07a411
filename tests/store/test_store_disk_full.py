"""A move is shown only once it is on disk somewhere: with the journal's disk full, only a write
Redis has fsynced counts. Against a real redis-server set up as the installer sets it up.

The first move after the journal's disk filled was shown and then lost at the next power cut:
the store queued it before the game held it, so the writer thread, busy with the move before,
took the queued write for one already in Redis (its AOF ended with INCRBY hues:order and no RPUSH).
And the moves Redis alone took (the journal full) were lost at the next start: the console resumed
from its journal, which ended where the disk filled (40 of 40 runs; both disks full, 26 of 40).
"""

from __future__ import annotations

import os
import threading
import time

import pytest

from console.store.format import NotDurableError
from console.store.games import GameStore
from console.store.redis_games import RedisGames
from tests.redis_server import RedisServer
from tests.store.test_store import MOVES, NEW_GAME
from tests.store.test_store_journal import crash, full_disk  # noqa: F401  (the fixture)

RUNS = int(os.environ.get("HUES_DISK_FULL_RUNS", "6"))
"""Power cuts after the disks filled, each run after a different number of moves: 6 in the
suite, more by hand (HUES_DISK_FULL_RUNS=100)."""


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


@pytest.mark.parametrize("redis_full", [False, True], ids=["journal-full", "both-full"])
def test_no_acknowledged_move_is_lost_when_the_disks_fill(redis_server_off, tmp_path, full_disk, redis_full):
    """Over repeated runs: the journal's disk fills (and Redis's too) mid-game, the console plays
    on, the power goes. What the console acknowledged (append returned) is all offered again at the
    next start: a move Redis could not take was refused, never shown (12 of 12 runs lost the first
    move after the journal filled; with both full, 12 of 24 runs lost one)."""
    lost, refused = [], 0
    for run in range(RUNS):
        server = RedisServer(redis_server_off.binary, tmp_path / f"redis-{run}")
        server.start()
        store = GameStore(server.url, state_dir=tmp_path / f"state-{run}", background=True)
        game_id = store.start_game(NEW_GAME)
        acknowledged = [NEW_GAME]
        before = 1 + run % (len(MOVES) - 1)
        for number, move in enumerate(MOVES * 2):
            if number == before:
                full_disk["full"] = True
            if redis_full and number == before + run % 3:  # Redis's card fills with it, or a move or two later
                server.fill_the_disk()
            try:
                store.append(move)
            except NotDurableError:
                refused += 1
                continue
            acknowledged.append(move)
        server.kill()  # the power goes
        crash(store)
        full_disk["full"] = False  # and comes back with room on the cards
        server = RedisServer(redis_server_off.binary, tmp_path / f"redis-{run}")
        server.start()
        again = GameStore(server.url, state_dir=tmp_path / f"state-{run}")
        found = again.unfinished()
        offered = found[1] if found and found[0] == game_id else []
        if offered[:len(acknowledged)] != acknowledged:
            lost.append((run, len(acknowledged) - next(
                (n for n, (a, b) in enumerate(zip(offered, acknowledged)) if a != b), min(len(offered), len(acknowledged)))))
        again.close()
        server.kill()
    assert lost == [], f"acknowledged moves lost in {len(lost)} of {RUNS} runs: (run, moves) {lost}"
    assert refused == 0 if not redis_full else refused > 0  # with Redis's disk full too, moves are refused


def test_a_game_closed_while_the_journal_was_full_is_not_offered_again(redis_server, tmp_path, full_disk):
    """Redis alone took the close (and the moves before it): after a power cut the console's copy
    takes them from Redis, so the finished game is kept here and not offered for resume."""
    store = GameStore(redis_server.url, state_dir=tmp_path / "state", background=True)
    game_id = store.start_game(NEW_GAME)
    store.append(MOVES[0])
    full_disk["full"] = True
    store.append(MOVES[1])
    store.finish({"players": 2, "colors": ["red", "blue"], "scores": [1, 2], "winners": [1],
                  "winner_colors": ["blue"]})
    assert store.flush(3.0)
    redis_server.kill()
    crash(store)
    full_disk["full"] = False
    redis_server.start()
    again = GameStore(redis_server.url, state_dir=tmp_path / "state")
    assert again.unfinished() is None and again.flush(2.0)
    assert redis_server.client().zrange("hues:history", 0, -1) == [game_id]
    assert [path.name for path in (tmp_path / "state" / "kept").iterdir()] and stored_moves(redis_server, game_id) == 2
    again.close()

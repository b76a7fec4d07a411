"""The redis-server drop-in's repair (scripts/redis-repair-aof) against a real redis-server: an
append-only file whose last page came back as zeros after a power cut keeps Redis down until it is
repaired; the repair keeps a copy and Redis then starts with every game up to the damage."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from console.store.games import GameStore

REPAIR = Path(__file__).resolve().parent.parent / "scripts" / "redis-repair-aof"
NEW_GAME = {"action": "new_game", "players": 3}


def repair(directory: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(REPAIR), str(directory)], capture_output=True, text=True, timeout=30,
                          env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin"})


def zero_the_last_page(directory: Path) -> None:
    [log] = (directory / "appendonlydir").glob("*.incr.aof")
    data = log.read_bytes()
    log.write_bytes(data[: len(data) - len(data) % 4096 or len(data) - 100] + bytes(4096))


def test_a_zero_filled_last_page_is_cut_back_and_a_copy_kept(redis_server):
    store = GameStore(redis_server.url, owner="console")
    game_id = store.start_game(NEW_GAME)
    for _ in range(40):
        store.append({"action": "clue"})
    store.close()
    redis_server.stop()
    zero_the_last_page(redis_server.directory)
    with pytest.raises(RuntimeError, match="Bad file format"):
        redis_server.start()
    result = repair(redis_server.directory)
    assert result.returncode == 0, result.stderr
    assert "damaged; a copy is in" in result.stdout
    [copy] = redis_server.directory.glob("aof-damaged-*")
    assert (copy / "appendonly.aof.manifest").exists()
    redis_server.start()
    found = GameStore(redis_server.url, owner="console").unfinished()
    assert found is not None and found[0] == game_id and 1 <= len(found[1]) <= 41


def test_a_sound_file_or_none_at_all_is_left_alone(redis_server_off):
    assert repair(redis_server_off.directory).returncode == 0  # nothing stored yet
    redis_server_off.start()
    GameStore(redis_server_off.url, owner="console").start_game(NEW_GAME)
    redis_server_off.stop()
    before = {p: p.read_bytes() for p in (redis_server_off.directory / "appendonlydir").iterdir()}
    result = repair(redis_server_off.directory)
    assert (result.returncode, result.stdout) == (0, "")
    assert {p: p.read_bytes() for p in (redis_server_off.directory / "appendonlydir").iterdir()} == before
    assert not list(redis_server_off.directory.glob("aof-damaged-*"))


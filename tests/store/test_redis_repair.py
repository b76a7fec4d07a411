"""The redis-server drop-in's repair (scripts/redis-repair-aof) against a real redis-server: damage
that keeps Redis down (a zeroed last page, a manifest emptied or cut, an incr file gone, a byte
flipped in a command's name) is repaired, a copy of the damaged files kept, and Redis then starts
with every game up to the damage; the copy is best-effort (a full card does not stop the repair),
and the script always exits 0 so that Redis always gets to start. The damage to every file Redis
keeps, with the console's restore after it, is tests/store/test_power_cut_damage.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from console.store.games import GameStore

REPAIR = Path(__file__).resolve().parents[2] / "scripts" / "redis-repair-aof"
NEW_GAME = {"action": "new_game", "players": 3}


def repair(directory: Path, path: str = "/usr/bin:/bin:/usr/sbin:/sbin") -> subprocess.CompletedProcess:
    return subprocess.run([str(REPAIR), str(directory)], capture_output=True, text=True, timeout=60,
                          env={"PATH": path})


def stored(redis_server, moves: int = 40) -> str:
    store = GameStore(redis_server.url, owner="console")
    game_id = store.start_game(NEW_GAME)
    for _ in range(moves):
        store.append({"action": "clue"})
    store.close()
    redis_server.stop()
    return game_id


def offered(redis_server) -> list:
    found = GameStore(redis_server.url, owner="console").unfinished()
    return [] if found is None else found[1]


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



@pytest.mark.parametrize("damage", ["emptied", "cut", "deleted"])
def test_a_manifest_emptied_cut_or_deleted_is_written_anew_from_the_files(redis_server, damage):
    """Before, an emptied or cut manifest kept Redis down for good (the script did not even see an
    empty one), and without one Redis started empty and wrote over the old base later."""
    stored(redis_server)
    manifest = redis_server.directory / "appendonlydir" / "appendonly.aof.manifest"
    text = manifest.read_bytes()
    {"emptied": lambda: manifest.write_bytes(b""), "cut": lambda: manifest.write_bytes(text[: len(text) - 4]),
     "deleted": manifest.unlink}[damage]()
    result = repair(redis_server.directory)
    assert result.returncode == 0 and "manifest is written anew" in result.stdout
    redis_server.start()
    assert len(offered(redis_server)) == 41


def test_an_incr_file_gone_leaves_redis_to_start_with_the_base(redis_server):
    stored(redis_server)
    [incr] = (redis_server.directory / "appendonlydir").glob("*.incr.aof")
    incr.unlink()
    with pytest.raises(RuntimeError):
        redis_server.start()
    assert repair(redis_server.directory).returncode == 0
    redis_server.start()  # with what the base held: the console writes back the rest from its journal


def test_an_unknown_command_is_found_by_a_trial_start_and_cut_off(redis_server):
    """redis-check-aof takes a file whose command name has a flipped byte; Redis refuses to load it.
    The trial start finds it, and the file is cut back to before that command."""
    stored(redis_server)
    [incr] = (redis_server.directory / "appendonlydir").glob("*.incr.aof")
    data = incr.read_bytes()
    at = data.index(b"RPUSH", len(data) // 2)
    incr.write_bytes(data[:at] + b"RPUSX" + data[at + 5:])
    result = repair(redis_server.directory)
    assert result.returncode == 0 and "unknown command 'RPUSX'" in result.stdout
    redis_server.start()
    assert 1 <= len(offered(redis_server)) < 41


def test_with_no_room_for_a_copy_the_repair_goes_on(redis_server, tmp_path):
    """Before, the script ran under set -e: a copy that failed on a full card failed the drop-in's
    ExecStartPre, and Redis never started."""
    stored(redis_server)
    zero_the_last_page(redis_server.directory)
    shims = tmp_path / "bin"
    shims.mkdir()
    (shims / "cp").write_text("#!/bin/sh\necho 'cp: error writing: No space left on device' >&2\nexit 1\n")
    (shims / "cp").chmod(0o755)
    result = repair(redis_server.directory, f"{shims}:/usr/bin:/bin:/usr/sbin:/sbin")
    assert result.returncode == 0 and "no room for a copy" in result.stdout
    redis_server.start()
    assert 1 <= len(offered(redis_server)) <= 41


def test_a_trial_start_that_cannot_run_changes_nothing(redis_server_off, tmp_path):
    """A redis-server that cannot be started for the trial (not there, say) is no damage: the
    files are left as they are."""
    redis_server_off.start()
    stored(redis_server_off, 3)
    before = {p.name: p.read_bytes() for p in (redis_server_off.directory / "appendonlydir").iterdir()}
    result = subprocess.run([str(REPAIR), str(redis_server_off.directory)], capture_output=True, text=True,
                            timeout=60, env={"PATH": "/usr/bin:/bin", "REDIS_SERVER": str(tmp_path / "none")})
    assert result.returncode == 0
    assert {p.name: p.read_bytes() for p in (redis_server_off.directory / "appendonlydir").iterdir()} == before

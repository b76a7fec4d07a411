"""Two consoles on one store: a game stays with the console that holds its moves, and two consoles
never share one state directory. Against a real redis-server set up as the installer does.

Before: console A's lease ran out while some of its moves were only in its journal; console C
resumed from Redis with 12 of A's 19 acknowledged moves, and when A came back, C's differing
moves were quarantined. And a second console on A's state directory was offered A's game while A
played it (they share an identity), and 4 of its 6 acknowledged moves were quarantined.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

from console.store import redis_games
from console.store.format import StateDirInUseError
from console.store.games import GameStore
from console.store.writer import LEASE_RENEW_S
from tests.fakes import FakeClock
from tests.store.test_store import NEW_GAME
from tests.store.test_store_journal import crash

REPO = Path(__file__).resolve().parents[2]
MOVES = [{"action": "clue", "n": n} for n in range(19)]


def test_a_console_gone_with_moves_only_in_its_journal_keeps_its_game(redis_server, tmp_path, monkeypatch):
    monkeypatch.setattr(redis_games, "LEASE_MS", 300, raising=False)  # a claim that ran out would, quickly
    console_a = GameStore(redis_server.url, state_dir=tmp_path / "a")
    game_id = console_a.start_game(NEW_GAME)
    for move in MOVES[:12]:
        console_a.append(move)
    redis_server.kill()  # A's link to Redis goes...
    for move in MOVES[12:]:
        console_a.append(move)  # ...and A plays on into its journal
    crash(console_a)  # then A is gone (a power cut)
    redis_server.start()
    time.sleep(0.5)  # longer than a claim that ran out would last: the scenario, nothing is timed
    console_c = GameStore(redis_server.url, state_dir=tmp_path / "c")
    assert console_c.unfinished() is None and not console_c.resume_checked  # A's game waits for A
    assert redis_server.client().pttl(f"hues:game:{game_id}:lease") == -1  # a claim that does not run out
    console_a = GameStore(redis_server.url, state_dir=tmp_path / "a")  # A comes back
    assert console_a.unfinished() == (game_id, [NEW_GAME, *MOVES])
    assert console_a.flush(2.0)
    admin = redis_server.client()
    assert admin.llen(f"hues:game:{game_id}:record") == 20 and admin.keys("hues:quarantine:*") == []
    console_c.close()
    console_a.close()


def test_a_second_console_on_the_same_state_directory_is_refused(redis_server, tmp_path):
    running = GameStore(redis_server.url, state_dir=tmp_path / "state", background=True)
    with pytest.raises(StateDirInUseError, match="another console"):
        GameStore(redis_server.url, state_dir=tmp_path / "state")
    config = tmp_path / "console.yaml"
    config.write_text(f"store:\n  url: {redis_server.url}\n  state_dir: {tmp_path / 'state'}\n")
    script = tmp_path / "inputs.txt"
    script.write_text("a\n")
    result = subprocess.run([sys.executable, "-m", "console.commands.main", "sim", "--headless", "--script",
                             str(script), "--config", str(config)], capture_output=True, text=True, timeout=60,
                            cwd=REPO)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "another console" in result.stderr and "state_dir" in result.stderr
    running.close()
    again = GameStore(redis_server.url, state_dir=tmp_path / "state")  # once it has stopped, fine
    again.close()


def test_the_store_guides_command_lets_go_of_a_game_whose_console_never_comes_back(redis_server, tmp_path):
    """The lease does not run out, so docs/STORE.md says how a host lets go by hand: that command,
    run as written against Redis set up as the installer does, and the other console offers it."""
    gone = GameStore(redis_server.url, state_dir=tmp_path / "gone")
    game_id = gone.start_game(NEW_GAME)
    gone.append(MOVES[0])
    crash(gone)  # the console will never come back
    clock = FakeClock(100.0)
    other = GameStore(redis_server.url, state_dir=tmp_path / "other", monotonic=clock, sleep=clock.sleep)
    assert other.unfinished() is None
    [command] = re.findall(r"`(sudo redis-cli [^`]*)`", (REPO / "docs" / "STORE.md").read_text())
    words = shlex.split(command.replace("/run/redis/redis-server.sock", str(redis_server.socket))
                        .replace("<id>", game_id))[1:]  # the tests run as root already
    done = subprocess.run(words, capture_output=True, text=True, timeout=10)
    assert done.returncode == 0 and done.stdout.strip() == "1", done.stdout + done.stderr
    clock.sleep(LEASE_RENEW_S)  # it asks Redis again every few seconds
    assert other.unfinished() == (game_id, [NEW_GAME, MOVES[0]])
    other.close()

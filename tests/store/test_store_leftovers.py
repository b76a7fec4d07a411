"""Journals left behind, whatever they hold: a newer version's is kept and set aside (never
deleted) and what this console can read of it is taken; a large one takes time and memory in
proportion to what is taken, which is bounded (MAX_TAKEN), and the rest stays in the kept file.

Before: an unknown operation dropped 19 of 20 actions and a record of version 3 all 20, the file
deleted each time; 10 MB of valid entries took 57-60 s and 195 MB to start (each line checked the
whole record again), 70 MB over 60 s and 983 MB.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zlib
from pathlib import Path

from console.store import format as formats
from console.store.games import GameStore
from console.store.journal import MAX_TAKEN, decode_entries
from console.store.local import MAX_GAME_LINES
from console.store.redis_games import Game
from tests.store.test_store import SUMMARY
from tests.store.test_store_journal import MOVES, NEW_GAME, crash

REPO = Path(__file__).resolve().parents[2]


def rewrite(path: Path, entries: list[dict]) -> None:
    """The journal with these entries, each with a valid checksum (as a newer version writes them)."""
    texts = [json.dumps(e, separators=(",", ":")).encode() for e in entries]
    path.write_bytes(b"".join(b"%08x %s\n" % (zlib.crc32(t), t) for t in texts))


def left_by_a_newer_version(redis_server, tmp_path, change) -> tuple[str, Path]:
    """A console of a newer version played 20 moves into its journal while Redis was away (as
    the installer sets Redis up), then died; `change(entries)` makes its journal the newer one."""
    redis_server.kill()
    store = GameStore(redis_server.url, state_dir=tmp_path / "state")
    game_id = store.start_game(NEW_GAME)
    for move in MOVES * 5:
        store.append(move)
    crash(store)
    entries, _ = decode_entries(store.journal_path.read_bytes())
    change(entries)
    rewrite(store.journal_path, entries)
    redis_server.start()
    return game_id, store.journal_path


def stored(redis_server, game_id: str) -> int:
    return redis_server.client().llen(f"hues:game:{game_id}:record")


def test_an_unknown_operation_keeps_the_journal_and_the_moves_around_it(redis_server, tmp_path):
    def newer(entries):
        entries.insert(3, {"op": "pause", "id": entries[0]["id"], "at": 12})

    game_id, path = left_by_a_newer_version(redis_server, tmp_path, newer)
    taken = GameStore(redis_server.url, state_dir=tmp_path / "state")
    assert taken.unfinished() == (game_id, [NEW_GAME, *MOVES * 5])  # all 20 moves, none dropped
    assert taken.flush(1.0) and stored(redis_server, game_id) == 21
    assert not path.exists() and path.with_suffix(".set-aside").read_bytes().count(b"pause") == 1
    taken.close()


def test_a_record_of_a_newer_version_is_never_deleted(redis_server, tmp_path):
    def newer(entries):
        entries[0]["version"] = "3"

    game_id, path = left_by_a_newer_version(redis_server, tmp_path, newer)
    aside = path.with_suffix(".set-aside")
    taken = GameStore(redis_server.url, state_dir=tmp_path / "state")
    assert taken.unfinished() is None  # this console cannot play it on...
    assert aside.exists() and b'"version":"3"' in aside.read_bytes()  # ...but it is kept, whole
    assert len(decode_entries(aside.read_bytes())[0]) == 21 and redis_server.client().zrange("hues:playing", 0, -1) == []
    taken.close()
    assert aside.exists()  # and stays, however often the console starts
    GameStore(redis_server.url, state_dir=tmp_path / "state").close()
    assert aside.exists() and len(decode_entries(aside.read_bytes())[0]) == 21


def chained_game(lines: int, game_id: str = "long-game") -> list[dict]:
    """A leftover journal of one long game: its entry, then one entry a move, each validly chained."""
    game = Game(game_id, [], 1_700_000_000.0)
    game.lines.append(game.next_line(json.dumps(NEW_GAME)))
    entries = [{"op": "game", "id": game.id, "started": game.started, "version": game.version,
                "lines": list(game.lines)}]
    for number in range(lines):
        line = game.next_line(json.dumps({"action": "clue", "n": number}))
        game.lines.append(line)
        entries.append({"op": "line", "id": game.id, "line": line})
    return entries


def offline_evening(games: int, name: str) -> list[dict]:
    """A leftover journal of an evening played with Redis away: games begun, played and closed."""
    entries = []
    for number in range(games):
        game_id = f"{name}-{number}"
        entries += [*chained_game(20, game_id), {"op": "close", "id": game_id, "ended": 1_700_000_100.0 + number,
                                                 "status": "finished", "fields": {"summary": json.dumps(SUMMARY)}}]
    return entries


def test_a_long_journal_is_taken_over_in_linear_time(redis_server, tmp_path, monkeypatch):
    """Each line is checked against the one before it, not the whole record again: the work per
    move stays the same however long the game, or however many games (counted in checksums
    computed, taking the journal over and writing it to Redis)."""
    calls = []
    real = formats.chain_next
    monkeypatch.setattr(formats, "chain_next", lambda previous, text: calls.append(1) or real(previous, text))
    for shape, entries in [("long-500", chained_game(500)), ("long-2000", chained_game(2000)),
                           ("evening-25", offline_evening(25, "a")), ("evening-100", offline_evening(100, "b"))]:
        state = tmp_path / f"state-{shape}"
        state.mkdir()
        rewrite(state / "journal-0123456789abcdef.jsonl", entries)
        lines = sum(entry["op"] == "line" for entry in entries)
        calls.clear()
        store = GameStore(redis_server.url, state_dir=state)
        assert store.flush(30.0)
        store.close()
        assert len(calls) <= 2 * lines + 10, f"{shape}: {len(calls)} checksums for {lines} lines"
    assert redis_server.client().zcard("hues:history") == 125 and redis_server.client().llen("hues:game:b-99:record") == 21


PEAK = """
import sys
from console.store.games import GameStore
store = GameStore(sys.argv[2], state_dir=sys.argv[1], background=True)  # as `play` builds it
found = store.later(lambda store: store.unfinished()).result(60)
assert store.flush(60)
store.close()
peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])  # this process's peak, in kB
print(len(found[1]) if found else 0, peak // 1024)
"""


def test_a_journal_far_larger_than_any_evening_starts_in_bounded_memory_and_is_kept(redis_server, tmp_path):
    """70 MB of valid entries (a game of 100,000 moves, 10 MB, then settings): the first
    MAX_GAME_LINES moves are taken, of the rest each setting once, up to MAX_TAKEN bytes; the start
    stays under 100 MB, and the file is kept aside, whole, for whoever wants the rest."""
    entries = chained_game(100_000)
    path = tmp_path / "journal-0123456789abcdef.jsonl"
    rewrite(path, entries)
    setting = json.dumps({"op": "setting", "name": "brightness", "text": "0.5"}, separators=(",", ":")).encode()
    with open(path, "ab") as out:
        out.write(b"%08x %s\n" % (zlib.crc32(setting), setting) * (60 * 2 ** 20 // (len(setting) + 10)))
    size = path.stat().st_size
    assert size > 65 * 2 ** 20
    result = subprocess.run([sys.executable, "-c", PEAK, str(tmp_path), redis_server.url], capture_output=True, text=True,
                            timeout=600, cwd=REPO)
    assert result.returncode == 0, result.stderr[-2000:]
    moves, peak_mb = map(int, result.stdout.split())
    assert peak_mb < 100, f"the start took {peak_mb} MB"
    assert moves == MAX_GAME_LINES  # no game anyone played is longer
    assert redis_server.client().llen("hues:game:long-game:record") == MAX_GAME_LINES  # and Redis has them
    [aside] = tmp_path.glob("*.set-aside")
    assert aside.stat().st_size == size  # kept as it was
    [journal] = tmp_path.glob("journal-*.jsonl")
    assert journal.stat().st_size <= MAX_TAKEN  # the console's new journal: what was taken

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
from console.store.journal import MAX_TAKEN, decode_entries
from console.store.local import MAX_GAME_LINES
from console.store.redis_games import Game
from tests.test_store_journal import MOVES, NEW_GAME, crash, journal_store

REPO = Path(__file__).resolve().parent.parent


def rewrite(path: Path, entries: list[dict]) -> None:
    """The journal with these entries, each with a valid checksum (as a newer version writes them)."""
    texts = [json.dumps(e, separators=(",", ":")).encode() for e in entries]
    path.write_bytes(b"".join(b"%08x %s\n" % (zlib.crc32(t), t) for t in texts))


def left_by_a_newer_version(rig, tmp_path, change) -> tuple[str, Path]:
    rig.down()
    store = journal_store(rig, tmp_path)
    game_id = store.start_game(NEW_GAME)
    for move in MOVES * 5:
        store.append(move)
    crash(store)
    entries, _ = decode_entries(store.journal_path.read_bytes())
    change(entries)
    rewrite(store.journal_path, entries)
    rig.up()
    return game_id, store.journal_path


def test_an_unknown_operation_keeps_the_journal_and_the_moves_around_it(rig, tmp_path):
    def newer(entries):
        entries.insert(3, {"op": "pause", "id": entries[0]["id"], "at": 12})

    game_id, path = left_by_a_newer_version(rig, tmp_path, newer)
    taken = journal_store(rig, tmp_path)
    assert taken.unfinished() == (game_id, [NEW_GAME, *MOVES * 5])  # all 20 moves, none dropped
    assert taken.flush(1.0) and len(rig.record(game_id)) == 21
    assert not path.exists() and path.with_suffix(".set-aside").read_bytes().count(b"pause") == 1
    taken.close()


def test_a_record_of_a_newer_version_is_never_deleted(rig, tmp_path):
    def newer(entries):
        entries[0]["version"] = "3"

    game_id, path = left_by_a_newer_version(rig, tmp_path, newer)
    aside = path.with_suffix(".set-aside")
    taken = journal_store(rig, tmp_path)
    assert taken.unfinished() is None  # this console cannot play it on...
    assert aside.exists() and b'"version":"3"' in aside.read_bytes()  # ...but it is kept, whole
    assert len(decode_entries(aside.read_bytes())[0]) == 21 and rig.playing() == []
    taken.close()


def chained_game(lines: int) -> list[dict]:
    """A leftover journal of one long game: its entry, then one entry a move, each validly chained."""
    game = Game("long-game", [], 1_700_000_000.0)
    game.lines.append(game.next_line(json.dumps(NEW_GAME)))
    entries = [{"op": "game", "id": game.id, "started": game.started, "version": game.version,
                "lines": list(game.lines)}]
    for number in range(lines):
        line = game.next_line(json.dumps({"action": "clue", "n": number}))
        game.lines.append(line)
        entries.append({"op": "line", "id": game.id, "line": line})
    return entries


def test_a_long_journal_is_taken_over_in_linear_time(rig, tmp_path, monkeypatch):
    """Each line is checked against the one before it, not the whole record again: the work per
    move stays the same however long the game (counted in checksums computed)."""
    calls = []
    real = formats.chain_next
    monkeypatch.setattr(formats, "chain_next", lambda previous, text: calls.append(1) or real(previous, text))
    for lines in (500, 2000):
        state = tmp_path / f"state-{lines}"
        state.mkdir()
        rewrite(state / "journal-0123456789abcdef.jsonl", chained_game(lines))
        calls.clear()
        store = rig.store(state_dir=state)
        assert len(store.export("long-game")) == lines + 1
        store.close()
        assert len(calls) <= 2 * lines + 10


PEAK = """
import sys
from console.store.games import GameStore
store = GameStore("memory://", state_dir=sys.argv[1])
found = store.unfinished()
peak = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])  # this process's peak, in kB
print(len(found[1]) if found else 0, peak // 1024)
"""


def test_a_journal_far_larger_than_any_evening_starts_in_bounded_memory_and_is_kept(tmp_path):
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
    result = subprocess.run([sys.executable, "-c", PEAK, str(tmp_path)], capture_output=True, text=True,
                            timeout=600, cwd=REPO)
    assert result.returncode == 0, result.stderr[-2000:]
    moves, peak_mb = map(int, result.stdout.split())
    assert peak_mb < 100, f"the start took {peak_mb} MB"
    assert moves == MAX_GAME_LINES  # no game anyone played is longer
    [aside] = tmp_path.glob("*.set-aside")
    assert aside.stat().st_size == size  # kept as it was
    [journal] = tmp_path.glob("journal-*.jsonl")
    assert journal.stat().st_size <= MAX_TAKEN  # the console's new journal: what was taken

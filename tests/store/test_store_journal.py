"""The local journal: acknowledged means on disk, whatever Redis does; a journal left behind is
taken over; a full disk is shown and loses nothing already shown."""

from __future__ import annotations

import errno
import json
import logging
import os
import zlib

import pytest
from hypothesis import given, settings, strategies as st

from console.store import journal as journaling
from console.store.format import NotDurableError
from console.store.journal import Journal, decode_entries, encode_entry, take_leftovers
from tests.redis_server import FakeRedisRig

NEW_GAME = {"action": "new_game", "players": 3, "seed": 2, "variant": "free"}
MOVES = [{"action": "choose_target", "cell": "B2"}, {"action": "clue"},
         {"action": "place", "cell": "C3", "player": 1}, {"action": "place", "cell": "D4", "player": 2}]


@pytest.fixture
def full_disk(monkeypatch):
    """While state["full"] is True, every write to a journal fails with ENOSPC (a full SD card)."""
    state = {"full": False}
    real_write = os.write

    def write(fd, data):
        if state["full"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(journaling.os, "write", write)
    return state


def journal_store(rig: FakeRedisRig, tmp_path, **options):
    return rig.store(state_dir=tmp_path / "state", **options)


def crash(store) -> None:
    """The console dies: the system closes its files (and so lets go of its journal's lock),
    nothing is flushed or removed."""
    os.close(store._journal._fd)
    os.close(store._state_lock)


def test_each_entry_is_checksummed_a_damaged_line_is_skipped_and_the_journal_kept(tmp_path):
    journal = Journal(tmp_path)
    for number in range(3):
        journal.append({"op": "line", "n": number})
    path = journal.path
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    path.write_bytes(lines[0] + lines[1].replace(b'"n":1', b'"n":7') + lines[2] + b"12ab")  # changed, torn
    assert decode_entries(path.read_bytes()) == ([{"op": "line", "n": 0}], len(lines[0]))
    journal.close(remove=False)  # the console that wrote it is gone, and its lock with it
    [left] = take_leftovers(tmp_path)
    assert list(left.entries()) == [{"op": "line", "n": 0}, {"op": "line", "n": 2}]
    assert path.with_suffix(".damaged").read_bytes() == b"12ab"  # the torn last write
    left.release()
    assert not path.exists()
    assert path.with_suffix(".set-aside").read_bytes().startswith(lines[0])  # kept whole, never deleted


def test_a_journal_torn_only_at_its_end_is_taken_and_let_go(tmp_path):
    journal = Journal(tmp_path)
    journal.append({"op": "line", "n": 0})
    path = journal.path
    path.write_bytes(path.read_bytes() + b"0123abcd {\"op\"")
    journal.close(remove=False)
    [left] = take_leftovers(tmp_path)
    assert list(left.entries()) == [{"op": "line", "n": 0}]
    left.release()
    assert not path.exists() and not list(tmp_path.glob("*.set-aside"))


def test_a_running_consoles_journal_is_never_taken(tmp_path):
    running = Journal(tmp_path)
    running.append({"op": "setting", "name": "x", "text": "1"})
    assert take_leftovers(tmp_path) == []
    running.close(remove=False)
    [left] = take_leftovers(tmp_path)
    assert list(left.entries()) == [{"op": "setting", "name": "x", "text": "1"}]
    left.release()


def test_encode_entry_is_one_line_with_its_crc():
    line = encode_entry({"op": "line", "line": "a\nb"})
    assert line.count(b"\n") == 1 and decode_entries(line) == ([{"op": "line", "line": "a\nb"}], len(line))


def test_a_game_played_while_redis_is_down_survives_the_console_and_reaches_redis_once(rig, tmp_path):
    rig.down()
    store = journal_store(rig, tmp_path)
    game_id = store.start_game(NEW_GAME)
    for move in MOVES:
        store.append(move)
    store.set_setting("brightness", 0.4)
    crash(store)  # the power goes: nothing flushed, the journal stays
    rig.up()
    taken = journal_store(rig, tmp_path)
    assert rig.record(game_id) == [NEW_GAME, *MOVES]
    assert taken.unfinished() == (game_id, [NEW_GAME, *MOVES])
    assert rig.redis.hget("hues:settings", "brightness") == "0.4"
    taken.close()
    again = journal_store(rig, tmp_path)  # and once more: nothing is written twice
    assert rig.record(game_id) == [NEW_GAME, *MOVES]
    again.close()


def test_a_journal_left_while_redis_is_still_down_is_offered_from_the_journal(rig, tmp_path):
    rig.down()
    store = journal_store(rig, tmp_path)
    game_id = store.start_game(NEW_GAME)
    store.append(MOVES[0])
    crash(store)
    booted = journal_store(rig, tmp_path)  # the next start, Redis still down
    assert not booted.online and booted.unfinished() == (game_id, [NEW_GAME, MOVES[0]])
    booted.append(MOVES[1])
    rig.up()
    assert booted.flush(1.0)
    assert rig.record(game_id) == [NEW_GAME, *MOVES[:2]]


def test_a_flush_that_fails_at_exit_is_logged_and_the_journal_kept(rig, tmp_path, caplog):
    store = journal_store(rig, tmp_path)
    game_id = store.start_game(NEW_GAME)
    rig.down()
    store.append(MOVES[0])
    with caplog.at_level(logging.ERROR):
        assert not store.flush(1.0)
    store.close()
    [error] = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert "could not be written" in error and str(store.journal_path) in error
    assert store.journal_path.exists()
    rig.up()
    assert journal_store(rig, tmp_path).unfinished() == (game_id, [NEW_GAME, MOVES[0]])


def test_a_clean_exit_keeps_an_unfinished_game_in_the_journal_and_a_finished_one_in_kept(rig, tmp_path):
    store = journal_store(rig, tmp_path)
    game_id = store.start_game(NEW_GAME)
    store.append(MOVES[0])
    assert store.flush(1.0)
    store.close()
    [journal] = (tmp_path / "state").glob("journal-*.jsonl")
    [entry] = decode_entries(journal.read_bytes())[0]
    assert entry["op"] == "game" and entry["id"] == game_id and len(entry["lines"]) == 2
    store = journal_store(rig, tmp_path)  # the next start takes it over
    assert store.unfinished()[0] == game_id
    store.finish({"players": 3})
    assert store.flush(1.0)
    store.close()
    assert list((tmp_path / "state").glob("journal-*")) == []
    [kept] = (tmp_path / "state" / "kept").glob("*.jsonl")
    assert [e["op"] for e in decode_entries(kept.read_bytes())[0]] == ["game", "close"]


def test_a_full_disk_with_redis_up_loses_nothing_and_says_so(rig, tmp_path, full_disk):
    store = journal_store(rig, tmp_path)
    game_id = store.start_game(NEW_GAME)
    full_disk["full"] = True
    store.append(MOVES[0])  # Redis took it at once: it is durable
    assert not store.journal_ok and rig.record(game_id) == [NEW_GAME, MOVES[0]]
    full_disk["full"] = False
    store.append(MOVES[1])  # the journal is written whole again, with the move it missed
    assert store.journal_ok
    crash(store)
    rig.server.connected = False
    assert journal_store(rig, tmp_path).unfinished() == (game_id, [NEW_GAME, *MOVES[:2]])


def test_a_full_disk_with_redis_down_refuses_the_move_and_keeps_the_rest(rig, tmp_path, full_disk):
    store = journal_store(rig, tmp_path)
    game_id = store.start_game(NEW_GAME)
    store.append(MOVES[0])
    rig.down()
    full_disk["full"] = True
    with pytest.raises(NotDurableError, match="cannot take it either"):
        store.append(MOVES[1])
    assert store.unfinished() == (game_id, [NEW_GAME, MOVES[0]])  # as if it had not been pressed
    full_disk["full"] = False
    store.append(MOVES[1])
    crash(store)
    rig.up()
    assert journal_store(rig, tmp_path).unfinished() == (game_id, [NEW_GAME, *MOVES[:2]])


def test_the_app_shows_a_full_disk_and_does_not_show_a_move_it_cannot_keep(rig, tmp_path, full_disk):
    from console.commands.wiring import build_output
    from console.config.loader import load_config
    from console.play.app import ConsoleApp
    from hal.inputs.events import EventQueue, InputEvent

    stage, driver = build_output(load_config(None, environ={}, etc_path=str(tmp_path / "none.yaml")),
                                 "sim-headless")
    events = EventQueue()
    app = ConsoleApp(stage, driver, events, [], journal_store(rig, tmp_path))
    app.start(0.0)

    def press(button: str, t: float) -> None:
        events.put(InputEvent(button, "press", t))
        app.tick(t)

    for button in ("start", "down", "down", "down", "down", "a"):  # set-up (no computer players), GO: a new game
        press(button, 0.1)
    assert app.game is not None and app.ui.screen == "handoff"
    rig.down()
    full_disk["full"] = True
    press("a", 0.2)  # the giver takes the controls (A twice): no game action
    press("a", 0.25)
    before = app.game, app.ui.screen
    assert before[1] == "secret"
    press("a", 0.3)  # the target: it can be kept neither in the journal nor in Redis
    assert (app.game, app.ui.screen) == before and app.ui.disk_full
    assert len(app.store.export()) == 1
    full_disk["full"] = False
    press("a", 0.4)
    assert app.game.phase == "clue1" and len(app.store.export()) == 2
    app.tick(0.5)
    assert not app.ui.disk_full


def test_a_state_directory_that_cannot_be_made_counts_as_a_full_disk(rig, tmp_path):
    (tmp_path / "file").write_text("")
    store = rig.store(state_dir=tmp_path / "file" / "state")  # below a file: mkdir fails
    assert not store.journal_ok
    game_id = store.start_game(NEW_GAME)  # Redis takes it: durable
    rig.down()
    with pytest.raises(NotDurableError):
        store.append(MOVES[0])
    assert store.unfinished() == (game_id, [NEW_GAME])


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300), st.integers(0, 400))
def test_any_damage_to_a_journal_leaves_a_valid_prefix_and_never_raises(garbage, at):
    entries = [{"op": "line", "id": "g", "line": f"x{n}"} for n in range(5)]
    data = b"".join(encode_entry(e) for e in entries)
    damaged = data[:at] + garbage + data[at + len(garbage):]
    found, valid = decode_entries(damaged)
    assert damaged[:valid] == b"".join(encode_entry(e) for e in found)
    assert all(isinstance(e, dict) for e in found)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=40), st.sampled_from(["", " ", "{", "[" * 50, "0" * 17])),
                max_size=6), st.integers(0, 5))
def test_any_damage_to_a_stored_record_is_cut_back_or_set_aside_never_raised(lines, at):
    from console.store.format import CorruptRecordError, chained_line, decode_record

    game = [json.dumps(NEW_GAME), *(json.dumps(m) for m in MOVES)]
    chained, previous = [], "g"
    for text in game:
        chained.append(chained_line(previous, text))
        previous = chained[-1][:16]
    damaged = chained[:at] + lines + chained[at + len(lines):]
    try:
        decoded = decode_record("g", {"version": "2", "started": "1"}, damaged)
    except CorruptRecordError:
        assert at == 0 and lines
        return
    assert decoded.lines == damaged[: len(decoded.lines)] == chained[: len(decoded.lines)]
    assert decoded.actions == [json.loads(t) for t in game[: len(decoded.lines)]]


def _changed(kind: str, **changes):
    """Damage with a valid checksum (a journal of a newer version, or a bug): the last entry of
    `kind` (the current game's) with `changes` (None: the field removed)."""
    def change(entries: list[dict]) -> None:
        found = [e for e in entries if e["op"] == kind][-1]
        found.update(changes)
        for field in [f for f, v in changes.items() if v is None]:
            del found[field]
    return change


WELL_FORMED_DAMAGE = {
    "unknown kind": lambda entries: entries.insert(1, {"op": "future", "id": "x"}),
    "close fields text": _changed("close", fields="x"),
    "close status a list": _changed("close", status=["finished"]),
    "close status unknown": _changed("close", status="won"),
    "close ended nan": _changed("close", ended=float("nan")),
    "close without ended": _changed("close", ended=None),
    "close without id": _changed("close", id=None),
    "game lines text": _changed("game", lines="abc"),
    "game lines objects": _changed("game", lines=[{"action": "new_game"}]),
    "game line not JSON": lambda entries: [e for e in entries if e["op"] == "game"][-1]["lines"].append(
        "0123456789abcdef {oops"),
    "game version 99": _changed("game", version="99"),
    "game id a number": _changed("game", id=5),
    "game id with escapes": _changed("game", id="\x1b[2J"),
    "game id not UTF-8": _changed("game", id="g\udcff"),
    "game started true": _changed("game", started=True),
    "line changed": _changed("line", line='0123456789abcdef {"action": "clue"}'),
    "line for no game": _changed("line", id="elsewhere"),
    "setting name a list": _changed("setting", name=["brightness"]),
}


@pytest.mark.parametrize("damage", WELL_FORMED_DAMAGE)
def test_a_leftover_journal_with_well_formed_nonsense_never_stops_a_start(rig, tmp_path, caplog, damage):
    """Each entry's checksum is valid, its content is not what this console writes: the entry (or
    the record from that line on) is skipped with a log line; the start goes on and the rest is
    written to Redis."""
    rig.down()
    store = journal_store(rig, tmp_path)
    finished = store.start_game(NEW_GAME)
    store.append(MOVES[0])
    store.finish({"players": 3, "scores": [0, 0, 0], "winners": [0], "colors": ["red", "blue", "green"],
                  "winner_colors": ["red"]})
    store.set_setting("brightness", 0.4)
    current = store.start_game(NEW_GAME)
    store.append(MOVES[0])
    crash(store)
    path = store.journal_path
    entries, _ = decode_entries(path.read_bytes())
    WELL_FORMED_DAMAGE[damage](entries)
    texts = [json.dumps(e, separators=(",", ":")) for e in entries]  # ASCII: a lone surrogate as \\udcff
    path.write_bytes(b"".join(b"%08x %s\n" % (zlib.crc32(t.encode()), t.encode()) for t in texts))
    rig.up()
    with caplog.at_level(logging.WARNING):
        taken = journal_store(rig, tmp_path)
        found = taken.unfinished()
        assert taken.flush(1.0)
    assert found is None or found[1][0] == NEW_GAME
    assert found is None or found[0] in (finished, current)
    assert rig.redis.zscore("hues:playing", current) is not None or damage.startswith("game")
    assert any("journal" in r.getMessage() for r in caplog.records)
    taken.close()


def _fifo(path) -> None:
    os.mkfifo(path)


def _symlink_to(target: str):
    return lambda path: os.symlink(target, path)


ODD_FILES = {
    "console-id a FIFO": ("console-id", _fifo),  # nobody writes: a blocking open or read waits for ever
    "console-id /dev/zero": ("console-id", _symlink_to("/dev/zero")),  # a read to the end never ends
    "console-id not text": ("console-id", lambda path: path.write_bytes(b"\xff" * 40)),
    "console-id a directory": ("console-id", os.mkdir),
    "a journal that is a directory": ("journal-0.jsonl", os.mkdir),
    "a journal that is a FIFO": ("journal-0.jsonl", _fifo),
    "a journal that is /dev/zero": ("journal-0.jsonl", _symlink_to("/dev/zero")),
    "a journal that is a symlink loop": ("journal-0.jsonl", lambda path: os.symlink(path, path)),
    "a damaged journal whose .damaged is a directory": ("journal-0.damaged", lambda path: (
        os.mkdir(path), path.with_suffix(".jsonl").write_bytes(encode_entry({"op": "setting", "name": "x",
                                                                             "text": "1"}) + b"torn"))),
    "a damaged journal whose .damaged is /dev/full": ("journal-0.damaged", lambda path: (
        os.symlink("/dev/full", path), path.with_suffix(".jsonl").write_bytes(b"torn"))),
}


@pytest.mark.parametrize("odd", ODD_FILES)
def test_odd_files_in_the_state_directory_never_stop_or_hold_up_a_start(rig, tmp_path, odd):
    """Whatever a crash, a person or a full disk left in the state directory: the console starts
    (in a thread here, so that a hang fails the test instead of holding it up) and keeps moves."""
    import threading

    name, make = ODD_FILES[odd]
    (tmp_path / "state").mkdir()
    make(tmp_path / "state" / name)
    started: list = []
    thread = threading.Thread(target=lambda: started.append(journal_store(rig, tmp_path, owner=None)),
                              daemon=True)  # owner None: the identity is read from the state directory
    thread.start()
    thread.join(10)
    assert started, "the start hung or raised"
    store = started[0]
    game_id = store.start_game(NEW_GAME)
    rig.down()
    store.append(MOVES[0])  # kept in the journal
    crash(store)
    rig.up()
    assert journal_store(rig, tmp_path).unfinished() == (game_id, [NEW_GAME, MOVES[0]])


def test_a_state_directory_name_too_long_counts_as_a_full_disk(rig, tmp_path):
    store = rig.store(state_dir=tmp_path / ("x" * 300))  # listing it fails with ENAMETOOLONG, not ENOENT
    assert not store.journal_ok
    assert store.start_game(NEW_GAME)

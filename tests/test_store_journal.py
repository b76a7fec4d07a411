"""The local journal: acknowledged means on disk, whatever Redis does; a journal left behind is
taken over; a full disk is shown and loses nothing already shown."""

from __future__ import annotations

import errno
import json
import logging
import os

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


def test_each_entry_is_checksummed_and_a_damaged_tail_is_cut_and_kept(tmp_path):
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
    assert left.entries == [{"op": "line", "n": 0}]
    assert path.with_suffix(".damaged").read_bytes() == data[len(lines[0]):len(data)].replace(
        b'"n":1', b'"n":7') + b"12ab"
    left.release()
    assert not path.exists()


def test_a_running_consoles_journal_is_never_taken(tmp_path):
    running = Journal(tmp_path)
    running.append({"op": "setting", "name": "x", "text": "1"})
    assert take_leftovers(tmp_path) == []
    running.close(remove=False)
    [left] = take_leftovers(tmp_path)
    assert left.entries == [{"op": "setting", "name": "x", "text": "1"}]
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
    again = journal_store(rig, tmp_path)  # and once more: nothing is written twice
    assert rig.record(game_id) == [NEW_GAME, *MOVES]
    taken.close()
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


def test_a_clean_exit_with_everything_in_redis_leaves_no_journal(rig, tmp_path):
    store = journal_store(rig, tmp_path)
    store.start_game(NEW_GAME)
    store.append(MOVES[0])
    assert store.flush(1.0)
    store.close()
    assert list((tmp_path / "state").glob("journal-*")) == []


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

    for button in ("start", "down", "down", "down", "a"):  # set-up, GO: a new game
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

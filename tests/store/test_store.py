"""The game store against fakeredis: the record, resume, history, settings, corrupt records, outages."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings, strategies as st

from console.store.games import (
    CorruptRecordError, GameNotFoundError, GameStore, NoCurrentGameError, NotStorableError,
    StoreOfflineError, StoreUrlError,
)
from console.commands.common import UsageError
from console.commands.records import export_main, history_main
from console.store.format import format_date
from tests.redis_server import WALL_START, CountingRedis, FakeRedisRig, replies_lost

NEW_GAME = {"action": "new_game", "players": 4, "seed": 7, "first_giver": 0, "variant": "cards"}
MOVES = [
    {"action": "choose_target", "cell": "H15"},
    {"action": "clue"},
    {"action": "place", "cell": "G14", "player": 1},
    {"action": "skip_clue"},
    {"action": "next"},
]
SUMMARY = {"players": 2, "colors": ["red", "blue"], "scores": [12, 9], "winners": [0],
           "winner_colors": ["red"]}


def store_warnings(caplog) -> list[str]:
    """The store's warnings logged so far (a record set aside, a setting that was not JSON...)."""
    return [r.getMessage() for r in caplog.records if r.name == "console.store.games" and r.levelname == "WARNING"]


def play(store: GameStore, moves=MOVES) -> str:
    game_id = store.start_game(NEW_GAME)
    for move in moves:
        store.append(move)
    return game_id


# -- the record, resume, history -----------------------------------------------------------------

def test_memory_url_keeps_a_game_in_process():
    store = GameStore("memory://")
    game_id = play(store)
    assert store.online
    assert store.export(game_id) == [NEW_GAME, *MOVES]


def test_every_append_is_in_redis_before_append_returns(rig):
    store = rig.store()
    game_id = store.start_game(NEW_GAME)
    assert rig.record(game_id) == [NEW_GAME]
    for count, move in enumerate(MOVES, 2):
        store.append(move)
        assert rig.record(game_id)[-1] == move and len(rig.record(game_id)) == count
    assert rig.playing() == [game_id]
    assert rig.redis.hgetall(f"hues:game:{game_id}:meta") == {
        "version": "2", "started": str(WALL_START), "status": "playing"}


def test_a_new_process_resumes_the_unfinished_game_and_appends_to_it(rig):
    game_id = play(rig.store(), MOVES[:3])
    resumed = rig.store()
    assert resumed.unfinished() == (game_id, [NEW_GAME, *MOVES[:3]])
    for move in MOVES[3:]:
        resumed.append(move)
    assert rig.record(game_id) == [NEW_GAME, *MOVES]
    assert rig.store().unfinished() == (game_id, [NEW_GAME, *MOVES])


def test_a_game_another_console_plays_is_left_alone_until_its_lease_runs_out(rig, caplog):
    theirs = play(rig.store(owner="the other console"), MOVES[:1])
    ours = rig.store()
    assert ours.unfinished() is None and not ours.resume_checked
    assert ours.unfinished() is None  # asked again too soon: Redis is not asked, nothing logged twice
    assert len([w for w in store_warnings(caplog) if "another console" in w]) == 1
    rig.redis.delete(f"hues:game:{theirs}:lease")  # it stopped: its lease ran out
    rig.mono.now += 5
    assert ours.unfinished() == (theirs, [NEW_GAME, MOVES[0]]) and ours.resume_checked
    assert rig.redis.get(f"hues:game:{theirs}:lease") == "the-console-under-test"


def test_no_unfinished_game_in_an_empty_store(rig):
    assert rig.store().unfinished() is None


def test_finish_moves_the_game_to_the_history_with_its_date(rig):
    store = rig.store()
    game_id = play(store)
    rig.wall.now += 1200
    store.finish(SUMMARY)
    assert rig.playing() == []
    assert rig.store().unfinished() is None
    [entry] = rig.store().history()
    assert entry == {**SUMMARY, "date": format_date(WALL_START + 1200), "game_id": game_id,
                     "status": "finished", "actions": 6}
    assert rig.store().export() == [NEW_GAME, *MOVES]


def test_history_is_newest_first_and_limited(rig):
    store = rig.store()
    ids = []
    for _ in range(3):
        ids.append(play(store, MOVES[:1]))
        rig.wall.now += 600
        store.finish(SUMMARY)
    assert [entry["game_id"] for entry in store.history(2)] == ids[:0:-1]


def test_a_new_game_never_closes_a_stored_unfinished_one_the_host_did_not_abandon(rig):
    rig.down()
    host = rig.store()
    rig.up()
    old = play(rig.store(), MOVES[:2])
    new = play(host, MOVES[:1])  # begun while the store could not be asked for a game to resume
    host.flush(1.0)
    assert rig.playing() == [new, old] and host.history() == []
    host.finish(SUMMARY)
    assert rig.store().unfinished() == (old, [NEW_GAME, *MOVES[:2]])


def test_export_defaults_to_the_latest_game_and_names_unknown_ones(rig):
    store = rig.store()
    with pytest.raises(GameNotFoundError, match="no game is stored"):
        store.export()
    first = play(store, MOVES[:1])
    store.finish(SUMMARY)
    rig.wall.now += 60
    play(store, MOVES[:2])
    store.finish(SUMMARY)
    reader = rig.store()
    assert reader.export() == [NEW_GAME, *MOVES[:2]]
    assert reader.export(first) == [NEW_GAME, *MOVES[:1]]
    with pytest.raises(GameNotFoundError, match="nosuchgame"):
        reader.export("nosuchgame")


def test_history_and_export_commands_print_one_line_each(rig):
    store = rig.store()
    game_id = play(store)
    store.finish(SUMMARY)
    out = io.StringIO()
    assert history_main(rig.store(), out) == 0
    date = format_date(WALL_START)[:16].replace("T", " ")
    assert out.getvalue() == f"{game_id}  {date}  red 12, blue 9  winner: red\n"
    out = io.StringIO()
    assert export_main(rig.store(), game_id, out) == 0
    assert [json.loads(line) for line in out.getvalue().splitlines()] == [NEW_GAME, *MOVES]
    assert out.getvalue().splitlines()[0] == json.dumps(NEW_GAME)


def test_an_abandoned_game_keeps_its_record_and_a_tie_names_both_winners(rig):
    abandoned = play(rig.store(), MOVES[:2])
    store = rig.store()
    assert store.unfinished()[0] == abandoned
    store.abandon()
    assert rig.store().unfinished() is None
    assert store.export(abandoned) == [NEW_GAME, *MOVES[:2]]
    rig.wall.now += 60
    tied = play(store)
    store.finish({**SUMMARY, "scores": [9, 9], "winners": [0, 1], "winner_colors": ["red", "blue"]})
    out = io.StringIO()
    assert history_main(store, out) == 0
    first, second = out.getvalue().splitlines()
    assert first.startswith(tied) and first.endswith("red 9, blue 9  winners: red, blue")
    assert second.startswith(abandoned)
    assert second.endswith("abandoned after 3 actions (abandoned by the host)")


def test_reading_an_unreachable_store_never_raises_except_for_export(rig, capsys):
    store = rig.store()
    play(store)
    store.finish(SUMMARY)
    rig.down()
    assert store.history() == [] and not store.online
    assert history_main(store, io.StringIO()) == 1
    assert export_main(store, None, io.StringIO()) == 1
    assert capsys.readouterr().err.count("cannot be reached") == 2
    with pytest.raises(StoreOfflineError):
        store.export()
    rig.up()
    store.tick(0.0)
    store.tick(30.0)
    assert len(store.history()) == 1


def test_caller_mistakes_are_named():
    store = GameStore("memory://")
    with pytest.raises(NoCurrentGameError):
        store.append({"action": "clue"})
    with pytest.raises(NotStorableError, match="new_game"):
        store.start_game({"action": "clue"})
    store.start_game(NEW_GAME)
    with pytest.raises(NotStorableError, match="action"):
        store.append({"cell": "A1"})
    with pytest.raises(NotStorableError, match="not plain JSON"):
        store.append({"action": "place", "cell": object()})
    with pytest.raises(NotStorableError, match="brightness"):
        store.set_setting("brightness", float("nan"))
    assert store.export() == [NEW_GAME]
    with pytest.raises(StoreUrlError, match="http://"):
        GameStore("http://localhost/")


# -- settings --------------------------------------------------------------------------------------

def test_settings_are_kept_across_processes(rig):
    rig.store().set_setting("brightness", 0.4)
    store = rig.store()
    assert store.get_setting("brightness", 1.0) == 0.4
    assert store.get_setting("gamma", 2.2) == 2.2


def test_a_setting_made_while_offline_is_written_when_redis_is_back(rig):
    store = rig.store()
    rig.down()
    store.set_setting("brightness", 0.3)
    assert store.get_setting("brightness") == 0.3
    assert store.get_setting("volume", "loud") == "loud"
    rig.up()
    store.tick(0.0)
    store.tick(30.0)
    assert store.online
    assert rig.store().get_setting("brightness") == 0.3


def test_a_setting_that_is_not_json_falls_back_to_the_default_with_a_warning(rig, caplog):
    rig.redis.hset("hues:settings", "brightness", "{bright")
    store = rig.store()
    assert store.get_setting("brightness", 0.5) == 0.5
    [warning] = store_warnings(caplog)
    assert "brightness" in str(warning) and "\n" not in str(warning)
    assert rig.redis.hget("hues:settings", "brightness") is None
    [kept] = rig.redis.keys("hues:quarantine:settings.brightness@*:value")
    assert rig.redis.get(kept) == "{bright"


# -- corrupt records -------------------------------------------------------------------------------

def old_game(r, game_id: str, lines: list[str]) -> None:
    """A game as a console before the checksum chain stored it (record format version 1)."""
    r.hset(f"hues:game:{game_id}:meta", mapping={"version": "1", "started": WALL_START, "status": "playing"})
    r.rpush(f"hues:game:{game_id}:record", *lines)
    r.set("hues:current", game_id)


def test_a_game_stored_before_the_checksums_is_resumed_and_goes_on_without_them(rig):
    old_game(rig.redis, "20240501-193012-a3f0", [json.dumps(NEW_GAME), json.dumps(MOVES[0])])
    store = rig.store()
    assert store.unfinished() == ("20240501-193012-a3f0", [NEW_GAME, MOVES[0]])
    store.append(MOVES[1])
    assert rig.redis.lindex("hues:game:20240501-193012-a3f0:record", 2) == json.dumps(MOVES[1])
    assert rig.redis.get("hues:current") == "20240501-193012-a3f0"
    store.finish(SUMMARY)
    assert rig.redis.get("hues:current") is None and rig.store().unfinished() is None


def _bad_first_line(r, game_id):
    r.lset(f"hues:game:{game_id}:record", 0, json.dumps({"action": "clue"}))


def _unknown_version(r, game_id):
    r.hset(f"hues:game:{game_id}:meta", "version", "3")


def _record_not_a_list(r, game_id):
    r.delete(f"hues:game:{game_id}:record")
    r.set(f"hues:game:{game_id}:record", "oops")


def _bad_start(r, game_id):
    r.hset(f"hues:game:{game_id}:meta", "started", "nan")


@pytest.mark.parametrize("tamper, reason", [
    (_bad_first_line, "line 1 of its record fails its checksum"),
    (_unknown_version, "record format version '3'"),
    (_record_not_a_list, "not a list"),
    (_bad_start, "its started time 'nan' is not a date"),
])
def test_a_record_unreadable_from_its_first_line_is_set_aside_not_resumed(rig, tamper, reason, caplog):
    game_id = play(rig.store(), MOVES[:3])
    tamper(rig.redis, game_id)
    before = {key: rig.redis.dump(key) for key in rig.redis.keys(f"hues:game:{game_id}:*")}
    store = rig.store()
    assert store.unfinished() is None
    [warning] = store_warnings(caplog)
    message = str(warning)
    assert reason in message and game_id in message and "\n" not in message
    assert rig.redis.keys(f"hues:game:{game_id}:*") == []
    assert rig.playing() == []
    quarantined = {key.rsplit(":", 1)[1]: key for key in rig.redis.keys("hues:quarantine:*")}
    assert quarantined["reason"].startswith(f"hues:quarantine:{game_id}@{int(WALL_START)}")
    for part in ("record", "meta"):
        assert rig.redis.dump(quarantined[part]) == before[f"hues:game:{game_id}:{part}"]
    assert json.loads(rig.redis.get(quarantined["reason"]))["reason"] == message.split(": ", 1)[1]


@pytest.mark.parametrize("line, reason", [
    ('{"action": "clue"', "line 3 of its record is not valid JSON"),
    ("[1, 2]", "line 3 of its record is not a JSON object"),
    ('{"cell": "A1"}', 'line 3 of its record has no "action" name'),
    ("[" * 100_000, "line 3 of its record is not valid JSON"),
    (json.dumps(NEW_GAME), "line 3 of its record starts another game"),
])
def test_an_old_record_damaged_part_way_is_cut_back_and_the_tail_kept(rig, line, reason, caplog):
    lines = [json.dumps(a) for a in [NEW_GAME, *MOVES[:3]]]
    old_game(rig.redis, "old", lines[:2] + [line] + lines[3:])
    store = rig.store()
    assert store.unfinished() == ("old", [NEW_GAME, MOVES[0]])
    [warning] = store_warnings(caplog)
    assert reason in warning and "cut back to its first 2 actions" in warning
    [tail] = rig.redis.keys("hues:quarantine:old-tail@*:record")
    assert rig.redis.lrange(tail, 0, -1) == [line, lines[3]]
    assert rig.redis.lrange("hues:game:old:record", 0, -1) == lines[:2]


@pytest.mark.parametrize("tamper", ["change", "drop", "swap", "tear"])
def test_a_changed_move_breaks_the_chain_and_the_record_is_cut_there(rig, tamper, caplog):
    game_id = play(rig.store(), MOVES)
    key = f"hues:game:{game_id}:record"
    lines = rig.redis.lrange(key, 0, -1)
    if tamper == "change":  # a move changed in place, even with its JSON still valid
        rig.redis.lset(key, 3, lines[3].replace("G14", "G15"))
    elif tamper == "drop":
        rig.redis.lrem(key, 1, lines[3])
    elif tamper == "swap":
        rig.redis.lset(key, 3, lines[4])
        rig.redis.lset(key, 4, lines[3])
    else:  # the end of the last line lost
        rig.redis.lset(key, 5, lines[5][:-3])
    kept = 5 if tamper == "tear" else 3
    assert rig.store().unfinished() == (game_id, [NEW_GAME, *MOVES][:kept])
    [warning] = store_warnings(caplog)
    assert f"line {kept + 1} of its record fails its checksum" in warning


def test_a_game_the_rules_cannot_replay_is_set_aside_on_request(rig, caplog):
    game_id = play(rig.store(), MOVES[:2])
    store = rig.store()
    assert store.unfinished()[0] == game_id
    store.set_aside(game_id, "place needs a target first")
    assert store.unfinished() is None
    [warning] = store_warnings(caplog)
    assert str(warning) == (f"game {game_id} set aside as hues:quarantine:{game_id}@{int(WALL_START)}: "
                            "place needs a target first")
    assert rig.redis.llen(f"hues:quarantine:{game_id}@{int(WALL_START)}:record") == 3
    assert rig.store().unfinished() is None


def test_exporting_a_corrupt_game_says_so_and_changes_nothing(rig):
    """A read command must not move a game (a newer console's, say) to quarantine, or the next
    `export` would silently give an older game."""
    store = rig.store()
    game_id = play(store)
    store.finish(SUMMARY)
    _unknown_version(rig.redis, game_id)
    before = {key: rig.redis.dump(key) for key in rig.redis.keys("*")}
    for which in (game_id, None):
        with pytest.raises(CorruptRecordError, match="record format version '3'"):
            rig.store(read_only=True).export(which)
        with pytest.raises(UsageError, match=f"^hues-console export: game {game_id} cannot be read"):
            export_main(rig.store(read_only=True), which, io.StringIO())  # main prints it: one line, exit 2
    assert {key: rig.redis.dump(key) for key in rig.redis.keys("*")} == before


def test_a_game_with_an_unreadable_summary_is_left_out_of_the_history(rig, caplog):
    store = rig.store()
    bad = play(store)
    store.finish(SUMMARY)
    rig.wall.now += 60
    kept = play(store)
    store.finish(SUMMARY)
    rig.redis.hset(f"hues:game:{bad}:meta", "summary", "{nope")
    reader = rig.store()
    assert [entry["game_id"] for entry in reader.history()] == [kept]
    [warning] = store_warnings(caplog)
    assert bad in str(warning) and "summary" in str(warning)


def test_a_different_record_under_the_same_id_is_set_aside_and_ours_written(rig, caplog):
    rig.down()
    store = rig.store()
    game_id = play(store, MOVES[:2])
    rig.up()
    rig.redis.rpush(f"hues:game:{game_id}:record", "someone else's line")
    store.tick(0.0)
    store.tick(1.0)
    assert store.online
    assert rig.record(game_id) == [NEW_GAME, *MOVES[:2]]
    [warning] = [w for w in store_warnings(caplog) if "set aside" in w]
    assert "differs from the console's copy" in str(warning)
    assert rig.redis.lrange(f"hues:quarantine:{game_id}@{int(WALL_START)}:record", 0, -1) == [
        "someone else's line"]


# -- outages -----------------------------------------------------------------------------------------

def test_redis_down_at_start_the_game_is_played_in_memory_and_written_later(rig):
    rig.down()
    store = rig.store()
    assert not store.online and store.unfinished() is None
    game_id = play(store)
    assert store.unfinished() == (game_id, [NEW_GAME, *MOVES])
    rig.up()
    assert rig.redis.keys("*") == []
    store.tick(10.0)  # the first frame after a failure starts the back-off
    store.tick(10.4)  # the first retry is due 0.5 s later
    assert not store.online and rig.redis.keys("*") == []
    store.tick(10.5)
    assert store.online
    assert rig.record(game_id) == [NEW_GAME, *MOVES]
    assert rig.playing() == [game_id]


def test_an_outage_mid_game_never_raises_and_loses_nothing(rig):
    store = rig.store()
    game_id = play(store, MOVES[:2])
    rig.down()
    for move in MOVES[2:]:
        store.append(move)
    assert not store.online
    rig.up()
    store.tick(0.0)
    store.tick(0.5)
    assert store.online
    assert rig.record(game_id) == [NEW_GAME, *MOVES]
    store.finish(SUMMARY)
    assert rig.store().history()[0]["game_id"] == game_id


def test_games_finished_and_started_offline_are_written_in_order(rig):
    store = rig.store()
    first = play(store, MOVES[:1])
    rig.down()
    store.append(MOVES[1])
    store.finish(SUMMARY)
    rig.wall.now += 60
    second = play(store, MOVES[:3])
    store.set_setting("brightness", 0.7)
    rig.up()
    assert store.flush(1.0)
    assert rig.record(first) == [NEW_GAME, *MOVES[:2]]
    assert rig.record(second) == [NEW_GAME, *MOVES[:3]]
    assert rig.playing() == [second]
    assert [entry["game_id"] for entry in rig.store().history()] == [first]
    assert rig.store().get_setting("brightness") == 0.7


def test_a_write_whose_reply_was_lost_is_not_duplicated(rig, lost_replies):
    store = rig.store()
    game_id = store.start_game(NEW_GAME)
    lost_replies["lose"] = 1
    store.append(MOVES[0])
    assert not store.online
    assert rig.record(game_id) == [NEW_GAME, MOVES[0]]  # the server did the write
    store.append(MOVES[1])
    store.tick(0.0)
    store.tick(0.5)
    assert store.online
    assert rig.record(game_id) == [NEW_GAME, *MOVES[:2]]


def test_a_new_game_whose_reply_was_lost_is_not_duplicated(rig, lost_replies):
    old = play(rig.store(), MOVES[:1])
    store = rig.store()
    lost_replies["lose"] = 1
    game_id = store.start_game(NEW_GAME)
    store.tick(0.0)
    store.tick(0.5)
    assert store.online
    assert rig.record(game_id) == [NEW_GAME]
    assert rig.playing() == [game_id, old]


def test_retries_back_off_from_half_a_second_doubling_to_two(rig):
    rig.down()
    client = CountingRedis(server=rig.server, decode_responses=True)
    store = rig.store(client)
    assert client.pings == 1 and not store.online
    due = 7.0
    store.tick(due)
    for delay in (0.5, 1, 2, 2, 2):
        due += delay
        store.tick(due - 0.01)
        pings = client.pings
        store.tick(due)
        assert client.pings == pings + 1, f"a retry was due {delay} s after the last one"
        store.tick(due + 0.001)
        assert client.pings == pings + 1
    rig.up()
    store.tick(due + 1.99)
    assert not store.online
    store.tick(due + 2)
    assert store.online
    pings = client.pings
    for frame in range(100):
        store.tick(due + 2 + frame / 60)
    assert client.pings == pings  # online, tick does nothing


def test_flush_retries_until_redis_is_back(rig):
    store = rig.store()
    game_id = play(store, MOVES[:1])
    rig.down()
    store.append(MOVES[1])

    def sleep(seconds):
        rig.mono.sleep(seconds)
        if rig.mono.now >= 102.0:
            rig.up()

    store._sleep = sleep
    assert store.flush(5.0)
    assert rig.record(game_id) == [NEW_GAME, *MOVES[:2]]
    assert rig.mono.now < 105.0


def test_flush_gives_up_after_its_timeout(rig):
    store = rig.store()
    play(store, MOVES[:1])
    rig.down()
    store.append(MOVES[1])
    start = rig.mono.now
    assert not store.flush(3.0)
    assert rig.mono.now == pytest.approx(start + 3.0)
    assert store.flush(0.0) is False


def test_flush_with_nothing_to_write_is_immediate(rig):
    store = rig.store()
    rig.down()
    assert store.flush(3.0)
    assert rig.mono.now == 100.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["append", "down", "up", "lose", "tick", "resume"]), max_size=40))
def test_any_outage_pattern_ends_with_the_whole_record_once(events):
    """Whatever mix of outages, lost replies, retries and restarts: once Redis is back and the
    store is flushed, Redis holds every action exactly once, in order."""
    rig = FakeRedisRig()
    with replies_lost() as lost:
        store = rig.store()
        game_id = store.start_game(NEW_GAME)
        played = [NEW_GAME]
        for number, event in enumerate(events):
            if event == "append":
                played.append({"action": "place", "cell": "A1", "player": number})
                store.append(played[-1])
            elif event == "down":
                rig.down()
            elif event == "up":
                rig.up()
            elif event == "lose":
                lost["lose"] = 1
            elif event == "tick":
                rig.mono.now += 31
                store.tick(rig.mono.now)
            elif event == "resume" and rig.server.connected and not lost["lose"] and store.flush(0.0):
                store.close()
                store = rig.store()
                assert store.unfinished() == (game_id, played)
        rig.up()
        lost["lose"] = 0
        assert store.flush(0.0)
        assert rig.record(game_id) == played

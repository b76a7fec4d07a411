"""`export` and `history` against damaged stores (fakeredis): every class of damage found by
outside fuzzing, and random damage drawn by hypothesis. `export` prints the record or refuses in
one line (exit 2); `history` prints the games it can read, every line printable, and leaves the
rest out; neither changes the store (they are read commands) and neither takes damage for an
outage."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from console.commands import session
from tests.commands.test_cli import isolated  # noqa: F401 (a fixture: no /etc or $HUES_CONFIG leaks in)
from tests.commands.test_fuzz_inputs import run
from tests.store.test_store import MOVES, SUMMARY, play

ESC = "\x1b[2J\x1b]0;pwned\x07"


@pytest.fixture
def stored(rig, isolated, monkeypatch):  # noqa: F811
    """The commands' store is the rig's, read-only as `open_store` makes it for them; it holds a
    finished game and an unfinished current one."""
    monkeypatch.setattr(session, "open_store", lambda config_path: rig.store(read_only=True))
    store = rig.store()
    finished = play(store)
    store.finish(SUMMARY)
    rig.wall.now += 60
    current = play(store, MOVES[:2])
    return rig, finished, current


def _meta(game: str) -> str:
    return f"hues:game:{game}:meta"


def _record(game: str) -> str:
    return f"hues:game:{game}:record"


def _set_line(r, game, index, text):
    r.lset(_record(game), index, text)


def _summary(**changes):
    """Damage: the finished game's summary with `changes`."""
    return lambda r, f, c: r.hset(_meta(f), "summary", json.dumps({**SUMMARY, **changes}))


DAMAGE = {
    # the meta hash
    "newer record version": lambda r, f, c: r.hset(_meta(f), "version", "2"),
    "no record version": lambda r, f, c: r.hdel(_meta(f), "version"),
    "start time not a number": lambda r, f, c: r.hset(_meta(f), "started", "soon"),
    "start time nan": lambda r, f, c: r.hset(_meta(f), "started", "nan"),
    "end time 1e20": lambda r, f, c: r.hset(_meta(f), "ended", "1e20"),
    "end time inf": lambda r, f, c: r.hset(_meta(f), "ended", "inf"),
    "end time nan": lambda r, f, c: r.hset(_meta(f), "ended", "nan"),
    "summary null": lambda r, f, c: r.hset(_meta(f), "summary", "null"),
    "summary a number": lambda r, f, c: r.hset(_meta(f), "summary", "5"),
    "summary not JSON": lambda r, f, c: r.hset(_meta(f), "summary", "{oops"),
    "summary deeply nested": lambda r, f, c: r.hset(_meta(f), "summary", "[" * 100_000),
    "winner_colors null": _summary(winner_colors=None),
    "winner_colors 5": _summary(winner_colors=5),
    "winner_colors text": _summary(winner_colors="red"),
    "winner_colors unknown": _summary(winner_colors=["mauve"]),
    "winner_colors numbers": _summary(winner_colors=[1]),
    "escapes in the summary": _summary(colors=[ESC, "blue"], winner_colors=[ESC], date=ESC),
    "escapes in a status": lambda r, f, c: r.hset(_meta(f), mapping={"status": ESC, "reason": ESC}),
    # the record list
    "line not JSON": lambda r, f, c: _set_line(r, f, 2, "{oops"),
    "line deeply nested": lambda r, f, c: _set_line(r, f, 2, "[" * 100_000),
    "line with a 5000-digit number": lambda r, f, c: _set_line(r, f, 2, '{"action": "clue", "n": ' + "9" * 5000 + "}"),
    "line not an object": lambda r, f, c: _set_line(r, f, 2, '["clue"]'),
    "action not text": lambda r, f, c: _set_line(r, f, 2, '{"action": ["clue"]}'),
    "escape sequence as an action": lambda r, f, c: _set_line(r, f, 2, json.dumps({"action": ESC})),
    "C1 control and line separator": lambda r, f, c: _set_line(r, f, 2, '{"action": "clue", "x": "\x9b2J\u2028"}'),
    "first line not new_game": lambda r, f, c: _set_line(r, f, 0, '{"action": "clue"}'),
    "record of the current game gone": lambda r, f, c: r.delete(_record(c)),
    "current game's cell H²": lambda r, f, c: _set_line(r, c, 1, '{"action": "choose_target", "cell": "H²"}'),
    # keys of the wrong type
    "record a string": lambda r, f, c: (r.delete(_record(f)), r.set(_record(f), "oops")),
    "meta a string": lambda r, f, c: (r.delete(_meta(f)), r.set(_meta(f), "oops")),
    "current game's record a hash": lambda r, f, c: (r.delete(_record(c)), r.hset(_record(c), "a", "b")),
    "escapes in a game id": lambda r, f, c: r.zadd("hues:history", {ESC: 1e9}),
    # bytes that are not UTF-8: the console never writes them, anything else on the server may
    "record line not UTF-8": lambda r, f, c: _set_line(r, f, 1, b"\xff\xfe{"),
    "current game's record line not UTF-8": lambda r, f, c: _set_line(r, c, 1, b"0123456789abcdef \xff"),
    "summary not UTF-8": lambda r, f, c: r.hset(_meta(f), "summary", b'{"colors": ["\xff"]}'),
    "meta field name not UTF-8": lambda r, f, c: r.hset(_meta(f), b"\xff", "x"),
    "version not UTF-8": lambda r, f, c: r.hset(_meta(c), "version", b"\xc3"),
    "game id not UTF-8 in history": lambda r, f, c: r.zadd("hues:history", {b"\xff\xfe": 1e9}),
    "game id not UTF-8 in playing": lambda r, f, c: r.zadd("hues:playing", {b"\xff\xfe": 1e9}),
}


def snapshot(r) -> dict:
    """Every key with its type and value: what a read command must leave as it found it."""
    read = {"string": r.get, "list": lambda k: r.lrange(k, 0, -1), "hash": r.hgetall,
            "zset": lambda k: r.zrange(k, 0, -1, withscores=True)}
    return {key: (r.type(key), read[r.type(key)](key)) for key in sorted(r.keys("*"))}


def check_export(capsys, argv: list[str]) -> None:
    code, out, err = run(capsys, argv)
    assert code in (0, 2), (argv, err)  # never 1: damage is not an outage
    if code == 0:
        assert all(isinstance(json.loads(line), dict) for line in out.splitlines())
        assert out.isascii() and all(line.isprintable() for line in out.splitlines())
    else:
        assert out == "" and err.count("\n") == 1 and err[:-1].isprintable(), err


def check_history(capsys) -> None:
    code, out, err = run(capsys, ["history"])
    assert code == 0, err
    assert out and all(line.isprintable() for line in out.splitlines()), out
    assert all(line.isprintable() for line in err.splitlines()), err


@pytest.mark.parametrize("damage", DAMAGE)
def test_export_and_history_of_a_damaged_store_never_fail_and_change_nothing(stored, capsys, damage):
    rig, finished, current = stored
    DAMAGE[damage](rig.redis, finished, current)
    before = snapshot(rig.redis)
    for argv in (["export"], ["export", finished], ["export", current], ["export", ESC]):
        check_export(capsys, argv)
    check_history(capsys)
    assert snapshot(rig.redis) == before


_stored_text = st.one_of(
    st.text(max_size=40),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
                 lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                     st.sampled_from(["action", "cell", "colors", "scores", "winner_colors", "x"]), inner,
                     max_size=4), max_leaves=10).map(json.dumps),
)
_fields = st.sampled_from([("record", 0), ("record", 1), ("record", -1), ("meta", "version"), ("meta", "started"),
                           ("meta", "ended"), ("meta", "summary"), ("meta", "status"), ("meta", "reason")])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(st.booleans(), _fields, _stored_text), min_size=1, max_size=3))
def test_any_stored_value_gives_a_record_or_one_line(stored, capsys, changes):
    rig, finished, current = stored
    for on_current, (key, field), text in changes:
        game = current if on_current else finished
        if key == "record":
            _set_line(rig.redis, game, field, text)
        else:
            rig.redis.hset(_meta(game), field, text)
    before = snapshot(rig.redis)
    for argv in (["export"], ["export", finished]):
        check_export(capsys, argv)
    check_history(capsys)
    assert snapshot(rig.redis) == before


def test_a_store_that_cannot_be_reached_is_one_line_and_exit_1(stored, capsys, caplog):
    """An outage is not bad input (exit 1, as `history` has always said), and the read command's
    own line is the only one: the read-only store does not log the writer's outage warning."""
    rig, finished, _ = stored
    rig.down()
    for argv in (["history"], ["export"], ["export", finished]):
        code, out, err = run(capsys, argv)
        assert (code, out) == (1, "") and err.count("\n") == 1 and "cannot be reached" in err, err
    assert not [r for r in caplog.records if r.levelname == "WARNING"]

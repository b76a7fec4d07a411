"""Whatever is wrong in the store, the box starts: a damage matrix against a real redis-server.

Each case damages a store that holds a finished game and an unfinished one, then runs the real
console (`sim --headless`) on it with a script that starts a new game. The console must exit 0,
store the new game (no false outage), leave the damaged thing out of `history`, set it aside under
quarantine (nothing deleted) and say so in one log line.
"""

from __future__ import annotations

import json
import logging

import pytest

from console.commands.main import main
from console.store.games import GameStore

NEW_GAME = {"action": "new_game", "players": 3, "seed": 1, "variant": "free"}
SUMMARY = {"players": 3, "colors": ["red", "orange", "yellow"], "scores": [3, 1, 0], "winners": [0],
           "winner_colors": ["red"], "rounds": 6, "variant": "cards"}
SCRIPT = "start\ndown\ndown\ndown\ndown\na\n"  # set-up with the default choices (no computer players), GO: a new game
DEEP = "[" * 100_000 + "]" * 100_000


def summary_with(**fields) -> str:
    return json.dumps({**SUMMARY, **fields})


# name -> (what is damaged: "finished", "unfinished", "setting" or a key, how)
CASES = {
    "winner_colors null": ("finished", lambda r, k: r.hset(k, "summary", summary_with(winner_colors=None))),
    "winner_colors 5": ("finished", lambda r, k: r.hset(k, "summary", summary_with(winner_colors=5))),
    "winner_colors red": ("finished", lambda r, k: r.hset(k, "summary", summary_with(winner_colors="red"))),
    "winner_colors mauve": ("finished", lambda r, k: r.hset(k, "summary", summary_with(winner_colors=["mauve"]))),
    "winner_colors [1]": ("finished", lambda r, k: r.hset(k, "summary", summary_with(winner_colors=[1]))),
    "scores text": ("finished", lambda r, k: r.hset(k, "summary", summary_with(scores=["x"]))),
    "ended 1e20": ("finished", lambda r, k: r.hset(k, "ended", "1e20")),
    "ended inf": ("finished", lambda r, k: r.hset(k, "ended", "inf")),
    "ended nan": ("finished", lambda r, k: r.hset(k, "ended", "nan")),
    "summary nested deep": ("finished", lambda r, k: r.hset(k, "summary", DEEP)),
    "summary a list": ("finished", lambda r, k: r.hset(k, "summary", "[1, 2]")),
    "brightness nested deep": ("setting", lambda r, k: r.hset("hues:settings", "brightness", DEEP)),
    "brightness not JSON": ("setting", lambda r, k: r.hset("hues:settings", "brightness", "{bright")),
    "history a string": ("hues:history", lambda r, k: _retype(r, "hues:history", "string")),
    "playing a hash": ("hues:playing", lambda r, k: _retype(r, "hues:playing", "hash")),
    "settings a list": ("hues:settings", lambda r, k: _retype(r, "hues:settings", "list")),
    "order a hash": ("hues:order", lambda r, k: _retype(r, "hues:order", "hash")),
    "current a list": ("hues:current", lambda r, k: r.rpush("hues:current", "x")),
    "unfinished meta a list": ("unfinished", lambda r, k: _retype(r, k, "list")),
    "unfinished record a string": ("unfinished", lambda r, k: _retype(r, k.replace(":meta", ":record"), "string")),
    "unfinished lease a hash": ("lease", lambda r, k: _retype(r, k.replace(":meta", ":lease"), "hash")),
    "unfinished version 99": ("unfinished", lambda r, k: r.hset(k, "version", "99")),
    "unfinished started nan": ("unfinished", lambda r, k: r.hset(k, "started", "nan")),
    "summary not UTF-8": ("finished", lambda r, k: r.hset(k, "summary", b"\xff\xfe")),
    "brightness not UTF-8": ("setting", lambda r, k: r.hset("hues:settings", "brightness", b"\xff")),
    "unfinished version not UTF-8": ("unfinished", lambda r, k: r.hset(k, "version", b"\xc3\x28")),
}


def _retype(r, key: str, kind: str) -> None:
    r.delete(key)
    {"string": lambda: r.set(key, "x"), "hash": lambda: r.hset(key, "x", "1"),
     "list": lambda: r.rpush(key, "x")}[kind]()


def seed_store(url: str, unfinished: bool) -> tuple[str, str | None]:
    """A finished game and (if asked) an unfinished one left by a console that stopped."""
    store = GameStore(url, owner="another-run")
    finished = store.start_game(NEW_GAME)
    store.append({"action": "choose_target", "cell": "H15"})
    store.finish(SUMMARY)
    store.set_setting("brightness", 0.5)
    left = None
    if unfinished:
        left = store.start_game(NEW_GAME)
        store.append({"action": "choose_target", "cell": "H15"})
    store.close()
    return finished, left


def run_console(tmp_path, url: str, script: str, *extra: str) -> int:
    config = tmp_path / "console.yaml"
    config.write_text(f"store:\n  url: {url}\n  state_dir: {tmp_path / 'state'}\n")
    inputs = tmp_path / "inputs.txt"
    inputs.write_text(script)
    return main(["sim", "--headless", "--script", str(inputs), "--config", str(config), "--seed", "4", *extra])


@pytest.mark.parametrize("case", CASES)
def test_no_damage_in_the_store_stops_the_console(redis_server, tmp_path, caplog, case):
    target, damage = CASES[case]
    finished, unfinished = seed_store(redis_server.url, unfinished=target in ("unfinished", "lease"))
    admin = redis_server.client()
    admin.delete(f"hues:game:{unfinished}:lease")  # that console is gone
    damage(admin, f"hues:game:{finished if target == 'finished' else unfinished}:meta")
    # the lease set aside, the game is offered: the host chooses a new one instead
    script = "down\na\n" + SCRIPT[len("start\n"):] if target == "lease" else SCRIPT
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert run_console(tmp_path, redis_server.url, script) == 0
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not any("unreachable" in w for w in warnings), warnings  # never taken for an outage
    history = [entry["game_id"] for entry in GameStore(redis_server.url, read_only=True).history()]
    if target == "finished":
        assert history == [] and len(warnings) == 1 and finished in warnings[0]
        assert admin.keys(f"hues:quarantine:{finished}@*:meta")
    elif target == "setting":
        assert history == [finished] and len(warnings) == 1 and "brightness" in warnings[0]
        assert admin.keys("hues:quarantine:settings.brightness@*:value")
    elif target == "unfinished":
        assert history == [finished] and len(warnings) == 1 and unfinished in warnings[0]
        assert admin.keys(f"hues:quarantine:{unfinished}@*:reason")
    else:  # a key of the wrong type
        assert len(warnings) == 1 and "was a" in warnings[0]
        assert admin.keys("hues:quarantine:*:key")
    new_games = [g for g in admin.zrange("hues:playing", 0, -1) if g not in (finished, unfinished)]
    assert len(new_games) == 1 and admin.llen(f"hues:game:{new_games[0]}:record") == 1
    admin.close()


def test_an_unfinished_record_the_rules_refuse_part_way_is_resumed_up_to_there(redis_server, tmp_path, caplog):
    """A cell like "H²" (int() reads the superscript two) in a record with a valid checksum: the
    console resumes the game as far as the rules accept it and keeps the rest in quarantine."""
    store = GameStore(redis_server.url, owner="another-run")
    game_id = store.start_game({"action": "new_game", "players": 3, "seed": 1, "variant": "free"})
    for action in ({"action": "choose_target", "cell": "H15"}, {"action": "clue"},
                   {"action": "place", "cell": "H²", "player": 1},
                   {"action": "place", "cell": "A1", "player": 2}):
        store.append(action)
    store.close()
    admin = redis_server.client()
    admin.delete(f"hues:game:{game_id}:lease")
    state = tmp_path / "state.json"
    with caplog.at_level(logging.WARNING):
        assert run_console(tmp_path, redis_server.url, "a\n", "--state-json", str(state)) == 0
    assert json.loads(state.read_text())["phase"] == "guess1"
    [cut] = [r.getMessage() for r in caplog.records if "cut back" in r.getMessage()]
    assert game_id in cut and "H²" in cut
    found = GameStore(redis_server.url, state_dir=tmp_path / "state").unfinished()
    assert found is not None and [a["action"] for a in found[1]] == ["new_game", "choose_target", "clue"]
    [tail] = admin.keys(f"hues:quarantine:{game_id}-tail@*:record")
    assert len(admin.lrange(tail, 0, -1)) == 2

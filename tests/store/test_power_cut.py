"""Never lose a game: pull the plug on the console (SIGKILL) again and again over one game, at
every kind of moment (mid-write, during start-up, right after a resume, at the game's end), with
Redis killed too, down at start and down at exit; every acknowledged action must survive and the
game must end exactly as it would have without the interruptions, stored once.

Redis runs with the Pi's own config/redis-hues.conf (tests/redis_server.py): its AOF, fsync and
ACL user, nothing overridden but where its files are."""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path

from console.game import rules
from console.config.loader import load_config
from console.game.record import action_from_json, action_to_json, state_json
from console.game.rules import Next
from console.commands.session import SCRIPT_START_WAIT_S, run_headless, scripted
from console.play.answers import StoreAnswers, resumable
from console.play.app import START_WAIT_S
from console.store.games import GameStore
from console.commands.wiring import build_app
from hal.inputs.script import parse_script
from console.view.ui import SetupChoices
from tests.killable import Console
from tests.scripting import fresh_script, plan_game, script_for
from tests.play.test_whole_games import first_card_cell, near_guesser, some_cell

KILLS = 52
# How a run of the console ends (then "game-end", then "to-the-end" finish the game).
MODES = ["mid-write"] * 3 + ["start-up", "after-resume", "with-redis", "redis-dies", "redis-down"]
EXIT_REDIS_DOWN_AT = 20  # that run ends cleanly (its script ends) with Redis dead: the flush fails


def write_config(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "console.yaml"
    path.write_text(f"store:\n  url: {url}\n  state_dir: {tmp_path / 'state'}\n")
    return path


def what_the_console_finds(url: str, state_dir: Path, scratch: Path) -> list[dict]:
    """The unfinished game the console would offer at its next start, from Redis and from the
    journal a killed console left, read by a store on a copy of the state directory (the same
    console's identity and journal; the real one is left for the console to take over)."""
    shutil.rmtree(scratch, ignore_errors=True)
    if state_dir.exists():
        shutil.copytree(state_dir, scratch)
    store = GameStore(url, state_dir=scratch)
    try:
        found = store.unfinished()
        return [] if found is None else found[1]
    finally:
        store.close()


def test_pulling_the_plug_over_and_over_loses_nothing(redis_server, tmp_path):
    seed = 11
    _, expected, record = plan_game(6, "cards", 0, seed, first_card_cell, near_guesser(seed),
                                    passes=lambda s: s.round % 4 == 0)
    planned = [action_to_json(a) for a in record]
    config, state_dir = write_config(tmp_path, redis_server.url), tmp_path / "state"
    rng = random.Random(2024)
    kills, lost, acknowledged, seen = 0, 0, [], set()
    out = tmp_path / "state.json"
    while True:
        mode = rng.choice(MODES) if kills != EXIT_REDIS_DOWN_AT or "exit-redis-down" in seen else "exit-redis-down"
        if mode == "redis-down" and not acknowledged:
            mode = "mid-write"  # nothing in a journal yet: the console would have nothing to offer
        if mode == "redis-down":
            redis_server.kill()
        found = what_the_console_finds(redis_server.url, state_dir, tmp_path / "scratch")
        if (not found and acknowledged) or found == planned:
            # killed right after the game ended: its end stored (then nothing to resume), or its last
            # action stored but not yet its end (the next start finishes it: nothing to resume either)
            break
        lost = max(lost, len(acknowledged) - len(found))
        assert found == planned[: len(found)], "the store holds something that was never played"
        assert lost == 0, f"{lost} acknowledged actions were lost"
        kill_at = len(found) + 1
        if kills >= KILLS or len(found) >= len(planned) - 3:
            mode, kill_at = ("game-end", len(planned)) if "game-end" not in seen else ("to-the-end", 0)
        until = kill_at if mode == "exit-redis-down" else len(record)
        script = (script_for(record[:until], len(found), resumed=True) if found
                  else fresh_script(record[:until], SetupChoices(6, "cards", 0)))
        path = tmp_path / "inputs.txt"
        path.write_text(script.text())
        console = Console(["sim", "--headless", "--script", str(path), "--config", str(config),
                           "--seed", str(seed), "--report-actions", "--state-json", str(out)])
        acknowledged = list(found)
        if mode == "start-up":
            time.sleep(rng.uniform(0, 0.05))  # a random moment of the start: reading the store, replaying
            console.kill()
        killed = mode == "start-up"
        for line in console:
            message = json.loads(line)
            if "resumed" in message:
                assert message["resumed"] == found
                if mode == "after-resume":
                    console.kill()
                    killed = True
                continue
            acknowledged.append(message["stored"])
            if mode == "redis-down" and redis_server.process.poll() is not None:
                redis_server.start()  # Redis comes back while the console plays on
            if mode in ("redis-dies", "exit-redis-down") and len(acknowledged) == len(found) + 1:
                redis_server.kill()  # the console plays on into its journal
            if not killed and mode not in ("to-the-end", "exit-redis-down") and len(acknowledged) >= kill_at:
                console.go_on()
                time.sleep(rng.uniform(0, 0.003))  # a random moment after it: mid-frame or mid-write
                if mode == "with-redis":
                    redis_server.kill()
                console.kill()
                killed = True
        code = console.wait()
        seen.add(mode)
        if redis_server.process.poll() is not None:
            redis_server.start()
        assert acknowledged == planned[: len(acknowledged)]
        kills += killed
        if not killed:
            assert code == 0, f"the console exited with {code} after a run ending {mode}"
            if mode == "to-the-end":
                break
    assert kills >= KILLS and seen >= set(MODES) | {"exit-redis-down", "game-end"}
    final = GameStore(redis_server.url, state_dir=state_dir)  # takes over what the last run left
    unfinished = final.unfinished()
    if unfinished is not None:  # the last action stored, the game's end not: what a console's start does
        assert unfinished[1] == planned and resumable(final, unfinished) is None
    assert final.flush(5.0)
    [finished] = final.history(5)
    assert finished["scores"] == list(expected.scores) and finished["winners"] == list(expected.winners)
    assert final.export(finished["game_id"]) == planned
    assert final.unfinished() is None
    final.close()
    print(f"power cut: {kills} kills of the console in one game of {len(planned)} actions, "
          f"{lost} acknowledged actions lost; run endings: {sorted(seen)}")


def test_redis_killed_mid_game_and_restarted(redis_server, tmp_path):
    """The console plays on through a dead Redis, warns, and writes what it missed when Redis is
    back: the stored record is the whole game, in order, without duplicates."""
    script, expected, record = plan_game(4, "free", 1, 3, some_cell, near_guesser(3), passes=lambda s: False)
    config = load_config(str(write_config(tmp_path, redis_server.url)), environ={})
    stored = []
    app, script_input = scripted(config, parse_script(script.text()), lambda name, sources: build_app(
        config, name, sources, rng=random.Random(3), journal=lambda kind, what: stored.append(what)))
    app.start(0.0)
    kill_after, restart_after = len(record) // 3, 2 * len(record) // 3
    offline_seen, frame = False, 0
    while not (script_input.done and app.store.online):
        now = frame / 60
        app.tick(now)
        frame += 1
        if len(stored) >= kill_after and redis_server.process.poll() is None and not offline_seen:
            redis_server.kill()
        offline_seen |= not app.ui.store_online
        if len(stored) >= restart_after and redis_server.process.poll() is not None:
            redis_server.start()
        assert frame < 200_000
    app.close()
    assert offline_seen and rules.is_terminal(app.game)
    assert state_json(app.game) == state_json(expected)
    history = GameStore(redis_server.url).history(1)
    assert GameStore(redis_server.url).export(history[0]["game_id"]) == [action_to_json(a) for a in record]
    assert [action_from_json(a) for a in stored] == record
    assert isinstance(record[-1], Next)


def test_a_scripted_run_waits_for_the_store_as_long_as_it_takes(redis_server, tmp_path, monkeypatch):
    """A script's presses are timed for what the console shows, on a clock as fast as the CPU:
    its first frame waits for the store's answers (an unfinished game's resume question) far
    longer than the box's first frame does. With the box's half second, a loaded machine once
    made a script written to resume the game meet the idle board (this file's test above)."""
    waits = []
    wait = StoreAnswers.wait
    monkeypatch.setattr(StoreAnswers, "wait", lambda answers, timeout_s: (waits.append(timeout_s), wait(answers, timeout_s)))
    _, _, record = plan_game(3, "free", 0, 5, some_cell, near_guesser(5), passes=lambda s: False)
    path = tmp_path / "inputs.txt"
    path.write_text(fresh_script(record[:3], SetupChoices(3, "free", 0)).text())
    assert run_headless(str(write_config(tmp_path, redis_server.url)), str(path), None, None, 5) == 0
    assert waits == [SCRIPT_START_WAIT_S] and SCRIPT_START_WAIT_S > 20 * START_WAIT_S

"""Never lose a game: pull the plug on the console (SIGKILL) again and again over one game, and
kill Redis itself mid-game; every acknowledged action must survive and the game must end exactly
as it would have without the interruptions."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

from console.game import rules
from console.config.loader import load_config
from console.game.record import action_from_json, action_to_json, state_json
from console.game.rules import Next
from console.commands.session import scripted
from console.store.games import GameStore
from console.commands.wiring import build_app
from hal.inputs.script import parse_script
from console.view.ui import SetupChoices
from tests.scripting import fresh_script, plan_game, script_for
from tests.test_whole_games import first_card_cell, near_guesser, some_cell

KILLS = 22


def write_config(tmp_path: Path, url: str) -> Path:
    path = tmp_path / "console.yaml"
    path.write_text(f"store:\n  url: {url}\n  state_dir: {tmp_path / 'state'}\n")
    return path


def stored_game(url: str, state_dir: Path) -> list[dict]:
    """What the console finds of the unfinished game at its next start: Redis, and the journal
    the killed console left (taken over and written to Redis here, as the console would)."""
    store = GameStore(url, state_dir=state_dir)
    try:
        assert store.flush(5.0)
        found = store.unfinished()
        return [] if found is None else found[1]
    finally:
        store.close()


def test_pulling_the_plug_over_and_over_loses_nothing(redis_server, tmp_path):
    seed = 11
    _, expected, record = plan_game(6, "cards", 0, seed, first_card_cell, near_guesser(seed),
                                              passes=lambda s: s.round % 4 == 0)
    planned = [action_to_json(a) for a in record]
    config = write_config(tmp_path, redis_server.url)
    rng = random.Random(2024)
    kills, runs, acknowledged = 0, 0, []
    out = tmp_path / "state.json"
    while True:
        stored = stored_game(redis_server.url, tmp_path / "state")
        assert stored == planned[: len(stored)], "the store holds something that was never played"
        assert len(stored) >= len(acknowledged), "an acknowledged action was lost"
        script = (script_for(record, len(stored), resumed=True) if stored
                  else fresh_script(record, SetupChoices(6, "cards", 0)))
        path = tmp_path / f"inputs-{runs}.txt"
        path.write_text(script.text())
        runs += 1
        proc = subprocess.Popen(
            [sys.executable, "-m", "console.commands.main", "sim", "--headless", "--script", str(path),
             "--config", str(config), "--seed", str(seed), "--report-actions", "--state-json", str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent)
        acknowledged = list(stored)
        # pull the plug a random 1 to 6 actions into this run (never at the very end of the game)
        kill_at = len(stored) + rng.randint(1, 6) if kills < KILLS else len(record)
        killed = False
        for line in proc.stdout:
            message = json.loads(line)
            if "resumed" in message:
                assert message["resumed"] == stored
                continue
            acknowledged.append(message["stored"])
            if not killed and len(acknowledged) >= kill_at and kill_at < len(record) - 1:
                time.sleep(rng.uniform(0, 0.003))  # a random moment, mid-frame or mid-write
                proc.kill()
                killed = True
                kills += 1
        proc.wait(timeout=60)
        assert acknowledged == planned[: len(acknowledged)], (len(stored), len(acknowledged), len(planned), kills, killed, proc.stderr.read()[-3000:])
        if not killed:
            assert proc.returncode == 0, proc.stderr.read()
            break
    assert kills == KILLS and runs == KILLS + 1
    assert json.loads(out.read_text()) == state_json(expected)
    finished = GameStore(redis_server.url).history(1)[0]
    assert finished["scores"] == list(expected.scores) and finished["winners"] == list(expected.winners)
    assert GameStore(redis_server.url).export(finished["game_id"]) == planned


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

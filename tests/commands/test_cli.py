"""The `hues-console` commands that the other tests do not already drive end to end."""

from __future__ import annotations

import gc
import io
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from console.commands import main as cli
from console.commands import measure
from console.commands.measure_games import busy_game, reveal_game
from console.view.palette import board_colors
from tests.game.test_record import EXAMPLE

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """No /etc or $HUES_CONFIG file from this machine leaks into a test."""
    monkeypatch.setenv("HUES_CONFIG", str(tmp_path / "console.yaml"))
    (tmp_path / "console.yaml").write_text("store:\n  url: memory://\n")
    return tmp_path


def test_palette_json_has_every_cell_with_rgb_and_led_values(isolated, capsys):
    assert cli.main(["palette", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    cells = out["cells"]
    assert len(cells) == 480 and cells[0]["cell"] == "A1" and cells[-1]["cell"] == "P30"
    assert [tuple(c["rgb"]) for c in cells] == list(board_colors())
    assert 0.2 < out["brightness"] < 0.4  # the full board is power limited
    assert len({tuple(c["led"]) for c in cells}) == 480
    # The limiter fills the LEDs' share of a 4 A supply (the Pi takes 700 mA); at 5 V that is watts.
    assert 3200 < out["current_ma"] <= 3300
    assert out["power_w"] == round(out["current_ma"] * 5 / 1000, 2)


def test_render_json_and_png(isolated, tmp_path, capsys):
    record = tmp_path / "game.jsonl"
    record.write_text(EXAMPLE)
    png = tmp_path / "frame.png"
    assert cli.main(["render", "--record", str(record), "--time", "1.5", "--json", "-", "--png", str(png)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["width"] == 32 and out["height"] == 16
    assert len(out["pixels"]) == 16 and len(out["pixels"][0]) == 32 and len(out["pixels"][0][0]) == 3
    assert png.read_bytes().startswith(b"\x89PNG")


def test_render_bad_record_is_one_line_exit_2(isolated, tmp_path, capsys):
    record = tmp_path / "game.jsonl"
    record.write_text('{"action": "clue"}\n')
    assert cli.main(["render", "--record", str(record)]) == 2
    assert capsys.readouterr().err.strip() == f"{record}:1: no game yet: a record starts with new_game"


def test_check_config_reports_every_problem_exit_2(isolated, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("display:\n  fps: 1000\n  brightnes: 0.5\n")
    assert cli.main(["check-config", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith(f"{bad}:") for line in err)
    assert cli.main(["check-config"]) == 0


def test_bad_config_stops_any_command_with_exit_2(isolated, tmp_path, capsys):
    (tmp_path / "console.yaml").write_text("panel:\n  panels_across: 1\n")
    assert cli.main(["palette"]) == 2
    assert "32x16" in capsys.readouterr().err


def test_history_and_export_under_memory_say_that_memory_keeps_nothing(isolated, capsys):
    assert cli.main(["history"]) == 0
    out = capsys.readouterr().out
    assert "memory://, which keeps nothing" in out and "no games stored yet" not in out
    assert cli.main(["export"]) != 0  # nothing to export: said in one line
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "memory://, which keeps nothing" in err[0]


def test_bench_figures_have_every_key():
    """A quick run of the command's parts (the real command measures for longer)."""
    figures = measure.frame_figures("32x16", *busy_game(), frames=30)
    assert set(figures) == {"leds", "frame_ms", "wire_ms", "ratio", "frames"}
    reveal, _ = reveal_game()
    assert reveal.phase == "round_over" and measure.frame_figures("32x16", *reveal_game(), frames=30)["leds"] == 512
    assert figures["wire_ms"] == pytest.approx(512 * 0.03 + 0.3)
    latency = measure.latency_figures(presses=20)
    assert latency["events"] == 20 and latency["unshown"] == 0 and latency["p99"] >= latency["p50"] > 0


def test_the_bench_command_answers_with_its_figures(isolated):
    """`hues-console bench --json --quick`, the installed command in a process of its own: every
    figure is there, of the sign and shape it should have (its small samples say nothing of
    speed)."""
    done = subprocess.run([str(Path(sys.executable).with_name("hues-console")), "bench", "--json", "--quick"],
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (0, "")
    r = json.loads(done.stdout)
    assert r["quick"] is True and r["python"] and r["machine"]
    assert set(r["sizes"]) == {"32x16", "64x32", "64x64"}
    for figures in [*r["sizes"].values(), r["reveal"]]:
        assert 0 < figures["frame_ms"]["median"] <= figures["frame_ms"]["p99"] and figures["ratio"] > 0
        assert figures["wire_ms"] == pytest.approx((figures["leds"] * 30 + 300) / 1000, abs=0.001)
    assert r["frame_ms"] == r["sizes"]["32x16"]["frame_ms"] and r["growth_64x64"] > 0
    latency = r["latency_ms"]
    assert latency["events"] == 20 and latency["unshown"] == 0 and 0 < latency["p50"] <= latency["p99"]
    assert set(r["still_screens"]) == {measure.ANCHOR_LOOP, "idle board", "guessing"}
    for still in r["still_screens"].values():
        assert 0 <= still["percent"] < 100 and still["wakes_per_s"] >= 0 and still["seconds"] > 0
    trip = r["phone_round_trip_ms"]
    for name in ("tap", "ping (anchor)"):
        assert trip[name]["samples"] == 10 and 0 < trip[name]["p50"] <= trip[name]["p99"]
    assert trip["p50_ratio"] > 0


def test_the_latency_presses_change_the_picture_every_time():
    """The bench's presses walk a cycle through every cell, a neighbour at a time, so no press
    is lost at an edge or undone by the next one before a frame (which would time it to a later
    press's frame): each press, processed by the real controller, moves the cursor to a cell
    it was not on in the last 479 presses."""
    import random

    from console.game.board import ALL_CELLS
    from console.play.controller import handle
    from console.view.ui import Ui

    tour = measure.cursor_tour()
    assert sorted(cell for cell, _ in tour) == sorted(ALL_CELLS)
    state, _ = busy_game()
    ui, seen = Ui(screen="play", cursor=tour[0][0]), [tour[0][0]]
    for _, button in tour * 2:
        ui = handle(state, ui, button, 0.0, random.Random(1)).ui
        assert ui.cursor not in seen[-479:], f"{button} took the cursor back to {ui.cursor}"
        seen.append(ui.cursor)


def test_play_on_the_sim_png_driver_takes_the_keys_and_writes_the_picture(isolated, tmp_path, monkeypatch):
    """sim-png is usable: `play` with `driver.name: sim-png` reads the keyboard like the terminal
    simulator and keeps the PNG file up to date. The keyboard here quits after the first frame."""
    from console.commands import session
    from hal.inputs.events import PRESS, QUIT, InputEvent

    class QuitAfterOneFrame:
        def __init__(self, events):
            self.events, self.polls = events, 0

        def poll(self, now):
            self.polls += 1
            if self.polls == 2:
                self.events.put(InputEvent(QUIT, PRESS, now))

        def next_poll(self, now):
            return now  # like the terminal: looked at every frame

    picture = tmp_path / "panel.png"
    (tmp_path / "console.yaml").write_text(
        f"store:\n  url: memory://\ndriver:\n  name: sim-png\n  sim_png:\n    path: {picture}\n    scale: 1\n")
    monkeypatch.setattr(session, "need_terminal", lambda name, command: None)  # the keys are faked
    monkeypatch.setattr(session, "open_keyboard", QuitAfterOneFrame)
    frozen = gc.get_freeze_count()
    try:
        assert cli.main(["play"]) == 0
        assert gc.get_freeze_count() > frozen  # what the start made is out of later collections
    finally:
        gc.unfreeze()  # this test process collects its garbage again
    with Image.open(picture) as image:  # the last picture is the cleared panel, 1 pixel an LED
        assert image.format == "PNG" and image.size == (32, 16)


def test_log_lines_of_the_command_are_escaped_on_one_line():
    """A store warning quotes a game id read from Redis: its escape sequences stay escaped."""
    stream = io.StringIO()
    logger = logging.getLogger("tests.escaped")
    logger.addHandler(cli.escaped_log_handler(stream))
    try:
        logger.warning("game %s left out of the history: %s", "\x1b[2J", "line\nbreak")
    finally:
        logger.handlers.clear()
    assert stream.getvalue() == "game \\x1b[2J left out of the history: line\\nbreak\n"


def test_help_and_argument_errors_return_their_status(capsys):
    assert cli.main(["--help"]) == 0
    assert cli.main(["render"]) == 2
    err = capsys.readouterr().err
    assert err == "hues-console render: the following arguments are required: --record " \
                  "(see hues-console render --help)\n"


@pytest.mark.parametrize("argv", [["palette"], ["replay", "RECORD", "--json"]])
def test_a_reader_gone_away_ends_the_command_quietly(isolated, tmp_path, argv):
    """`hues-console export | head -1`: the pipe closes before the output is written; the
    command stops with the status a SIGPIPE gives (141) and no BrokenPipe traceback."""
    record = tmp_path / "game.jsonl"
    record.write_text(EXAMPLE)
    argv = [str(record) if word == "RECORD" else word for word in argv]
    process = subprocess.Popen([sys.executable, "-m", "console.commands.main", *argv], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader is gone before the first line
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (141, b"")

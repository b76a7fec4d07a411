"""The `hues-console` commands that the other tests do not already drive end to end."""

from __future__ import annotations

import gc
import io
import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from console.commands import bench
from console.commands import main as cli
from console.view.palette import board_colors
from console.view.boards import IDLE_GLINT_S
from console.view.timeline import REVEAL_S
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


def test_bench_figures_have_every_key(monkeypatch):
    """A quick run of the benchmark's parts (the real command measures for longer)."""
    monkeypatch.setattr(bench, "FRAMES", 30)
    figures = bench.frame_figures("32x16", *bench.busy_game())
    assert set(figures) == {"leds", "frame_ms", "wire_ms", "ratio"}
    reveal, _ = bench.reveal_game()
    assert reveal.phase == "round_over" and bench.frame_figures("32x16", *bench.reveal_game())["leds"] == 512
    assert figures["wire_ms"] == pytest.approx(512 * 0.03 + 0.3)
    latency = bench.latency_figures(presses=20)
    assert latency["events"] == 20 and latency["unshown"] == 0 and latency["p99"] >= latency["p50"] > 0
    assert 0 <= bench.idle_cpu_figure(seconds=0.3) < 1
    startup = bench.startup_figures(runs=2)
    low, high = startup["startup_range_s"]
    assert startup["startup_runs"] == 2 and 0 < low <= startup["startup_s"] <= high and startup["rss_mb"] > 0
    assert "(median of 2 starts, " in bench._startup(startup)


def test_the_latency_presses_change_the_picture_every_time():
    """The bench's presses walk a cycle through every cell, a neighbour at a time, so no press
    is lost at an edge or undone by the next one before a frame (which would time it to a later
    press's frame): each press, processed by the real controller, moves the cursor to a cell
    it was not on in the last 479 presses."""
    import random

    from console.game.board import ALL_CELLS
    from console.play.controller import handle
    from console.view.ui import Ui

    tour = bench.cursor_tour()
    assert sorted(cell for cell, _ in tour) == sorted(ALL_CELLS)
    state, _ = bench.busy_game()
    ui, seen = Ui(screen="play", cursor=tour[0][0]), [tour[0][0]]
    for _, button in tour * 2:
        ui = handle(state, ui, button, 0.0, random.Random(1)).ui
        assert ui.cursor not in seen[-479:], f"{button} took the cursor back to {ui.cursor}"
        seen.append(ui.cursor)


def test_bench_web_figures_have_every_key():
    """The web parts, briefly: the loop runs with a phone connected; a press reaches the page."""
    latency = bench.latency_figures(presses=10, web=True)
    assert latency["events"] == 10 and latency["unshown"] == 0
    assert 0 <= bench.idle_cpu_figure(seconds=0.3, web=True) < 1
    page = bench.page_figures(presses=6)
    assert page["presses"] == 6 and page["p99"] >= page["p50"] > 0


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


def test_bench_runs_the_console_phones_and_replays_in_processes_of_their_own():
    """A quick run of the process figures (the real bench measures for longer): phones in another
    process beside the anchor, a still screen beside the bare loop, the quota run in a cgroup
    (CI is root, as the box's bench is), the replay's peak memory."""
    from console.commands import bench_budget, bench_phones, bench_processes

    phones = bench_phones.phone_figures(counts=(2,), taps=6, rounds=2)["2"]
    assert phones["console"]["samples"] == phones["anchor"]["samples"] == 2 * 3 * 2  # rounds x taps x phones
    low, high = phones["p50_ratio_rounds"]
    assert 0 < low <= high
    # the phones' process on a core of its own, as phones are other devices, and the two servers
    # alike on the others (as each process found its CPUs; where there is one, all on it)
    ran_on = {part: set(cpus) for part, cpus in phones["cores"].items()}
    assert ran_on["console"] == ran_on["anchor"] and ran_on["phones"] | ran_on["console"] <= os.sched_getaffinity(0)
    assert not ran_on["phones"] & ran_on["console"] or len(os.sched_getaffinity(0)) == 1
    # The Python a tap runs: the libraries (asyncio, uvicorn, websockets, Starlette) do no more for
    # the console's than for the anchor's, and the console's own path keeps within a budget (it
    # was 2,231 opcodes before stop 40's trims, 1,814 before stop 41's, 1,701 after; 1,721 once the
    # view's write was the guard's own, 130 fewer of the libraries'), and so does
    # the panel's draw of the tap (5,933 before stop 41's render change, 3,900-4,050 after): a
    # path that grows back fails here.
    opcodes = bench_phones.tap_opcodes(taps=2)
    assert opcodes["console"]["libraries"] <= opcodes["anchor"]["libraries"]
    assert opcodes["anchor"]["ours"] < opcodes["console"]["ours"] < 1_800
    assert 0 < opcodes["panel"]["ours"] < 4_800
    wakes = {}
    for role in (("console", "brightness"), ("bare",)):
        child = bench_processes.Child(*role)
        try:
            share, wakes[role[0]] = bench_processes.cpu_share(child, 0.5)
            assert 0 <= share < 1
        finally:
            child.close()
    assert wakes["console"] < 20 and wakes["bare"] > 40  # a menu sleeps; a 60 Hz loop wakes 60 times a second
    collection = bench_budget.collection_figures(asks=2)  # what the start made is frozen in the console's process
    assert collection["objects_frozen"] > 10_000 and collection["frozen_ms"] < collection["thawed_ms"] / 4
    quota = bench_budget.quota_figures(0.5, seconds=1.5, phones=3, taps_per_s=4)
    assert quota["tap_to_every_phone_ms"]["samples"] == 6 * 3 and quota["frames_late_ms"]["frames"] > 0
    # the kernel counts only the periods in which the group ran (its period timer stops while
    # the group is idle: kernel/sched/fair.c, do_sched_cfs_period_timer), so not 15 in 1.5 s
    assert quota["throttled"]["periods"] >= 1 and 0 <= quota["throttled"]["held_back"] <= quota["throttled"]["periods"]
    ballast = bytearray(200 * 2**20)  # the bench's own memory is not the replay's: a child's ru_maxrss counts it
    ballast[::4096] = b"\1" * len(range(0, len(ballast), 4096))
    video = bench.replay_memory_figures(players=3)
    del ballast
    assert all(0 < video[name]["peak_rss_mb"] < 150 for name in ("no video (anchor)", "apng", "webp"))
    assert video["webp"]["bytes"] > 0


@pytest.mark.parametrize("screen, period", [("idle", IDLE_GLINT_S), ("attract", REVEAL_S)])
def test_a_screen_that_comes_round_is_measured_over_whole_rounds(screen, period):
    """A window shorter than the idle glint's period reads its crossing or its stillness, not
    both; one shorter than a reveal of the attract loop, its flashing or its scoreboard."""
    from console.commands.bench_processes import still_window_s

    for seconds in (0.5, 10.0, period, 50.0):
        window = still_window_s(screen, seconds)
        assert window >= seconds and window % period == 0 and window < seconds + period
    assert still_window_s("guessing", 10.0) == still_window_s("game over", 10.0) == 10.0


def test_every_still_screen_the_bench_measures_is_on_the_panel():
    """Each screen `bench` measures the CPU of is the screen it names, drawn."""
    from console.commands.bench_games import started_app
    from console.commands.bench_processes import STILL_SCREENS, put_on_screen

    shown = {"secret choice": "secret", "game over": "game_over", "guessing": "play", "clue": "play",
             "scoreboard": "reveal", "attract": "idle"}
    for name in STILL_SCREENS:
        app = started_app()
        now = time.monotonic()
        put_on_screen(app, name, now)
        try:
            app.tick(now)
            assert app.ui.screen == shown.get(name, name) and app.stats.frames_pushed >= 1, name
            if name == "game over":  # a game played to its end
                assert app.game.phase == "game_over" and app.game.winners
            if name == "clue":  # the giver's word awaited
                assert app.game.phase == "clue1"
        finally:
            app.close()

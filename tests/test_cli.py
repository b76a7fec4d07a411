"""The `hues-console` commands that the other tests do not already drive end to end."""

from __future__ import annotations

import json

import pytest

from console.commands import bench
from console.commands import main as cli
from console.view.palette import board_colors
from tests.test_record import EXAMPLE


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
    assert figures["wire_ms"] == pytest.approx(512 * 0.03 + 0.3)
    latency = bench.latency_figures(seconds=0.5)
    assert latency["events"] > 0 and latency["p99"] >= latency["p50"] > 0
    assert 0 <= bench.idle_cpu_figure(seconds=0.3) < 1

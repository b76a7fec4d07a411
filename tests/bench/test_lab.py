"""The lab (`bench/`, run from a checkout): quick runs of its parts, each figure there and of the
shape it should have (the real runs measure for longer), and its command line's errors."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from bench import CHECKOUT, budget, lab, opcodes, phones, processes
from bench.startup import startup_figures
from console.commands import measure
from console.commands.measure_games import started_app
from console.view.boards import IDLE_GLINT_S
from console.view.timeline import REVEAL_S


def test_lab_figures_have_every_key():
    """A quick run of the lab's in-process parts: the loop's CPU on a menu, the start-up."""
    assert 0 <= lab.idle_cpu_figure(seconds=0.3) < 1
    startup = startup_figures(runs=2)
    low, high = startup["startup_range_s"]
    assert startup["startup_runs"] == 2 and 0 < low <= startup["startup_s"] <= high and startup["rss_mb"] > 0
    assert "(median of 2 starts, " in lab._startup(startup)


def test_lab_web_figures_have_every_key():
    """The web parts, briefly: the loop runs with a phone connected; a press reaches the page."""
    latency = measure.latency_figures(presses=10, web=True)
    assert latency["events"] == 10 and latency["unshown"] == 0
    assert 0 <= lab.idle_cpu_figure(seconds=0.3, web=True) < 1
    page = lab.page_figures(presses=6)
    assert page["presses"] == 6 and page["p99"] >= page["p50"] > 0


def test_the_lab_runs_the_console_phones_and_replays_in_processes_of_their_own():
    """A quick run of the process figures (the real bench measures for longer): phones in another
    process beside the anchor, a still screen beside the bare loop, the quota run in a cgroup
    (CI is root), the replay's peak memory."""
    row = phones.phone_figures(counts=(2,), taps=6, rounds=2)["2"]
    assert row["console"]["samples"] == row["anchor"]["samples"] == 2 * 3 * 2  # rounds x taps x phones
    low, high = row["p50_ratio_rounds"]
    assert 0 < low <= high
    # the phones' process on a core of its own, as phones are other devices, and the two servers
    # alike on the others (as each process found its CPUs; where there is one, all on it)
    ran_on = {part: set(cpus) for part, cpus in row["cores"].items()}
    assert ran_on["console"] == ran_on["anchor"] and ran_on["phones"] | ran_on["console"] <= os.sched_getaffinity(0)
    assert not ran_on["phones"] & ran_on["console"] or len(os.sched_getaffinity(0)) == 1
    # The Python a tap runs, counted: the console's own path, the libraries' and the panel's draw
    # (the figures are the lab report's; the phones' goal is the time ratio above, not a count)
    counted = opcodes.tap_opcodes(taps=2)
    assert counted["anchor"]["ours"] < counted["console"]["ours"] and counted["console"]["libraries"] > 0
    assert counted["panel"]["ours"] > 0 and counted["console"]["taps"] == counted["anchor"]["taps"] == 2
    wakes = {}
    for role in (("console", "brightness"), ("bare",)):
        child = processes.Child(*role)
        try:
            share, wakes[role[0]] = processes.cpu_share(child, 0.5)
            assert 0 <= share < 1
        finally:
            child.close()
    assert wakes["console"] < 20 and wakes["bare"] > 40  # a menu sleeps; a 60 Hz loop wakes 60 times a second
    collection = budget.collection_figures(asks=2)  # what the start made is frozen in the console's process
    assert collection["objects_frozen"] > 10_000 and collection["frozen_ms"] < collection["thawed_ms"] / 4
    quota = budget.quota_figures(0.5, seconds=1.5, phones=3, taps_per_s=4)
    assert quota["tap_to_every_phone_ms"]["samples"] == 6 * 3 and quota["frames_late_ms"]["frames"] > 0
    # the kernel counts only the periods in which the group ran (its period timer stops while
    # the group is idle: kernel/sched/fair.c, do_sched_cfs_period_timer), so not 15 in 1.5 s
    assert quota["throttled"]["periods"] >= 1 and 0 <= quota["throttled"]["held_back"] <= quota["throttled"]["periods"]
    ballast = bytearray(200 * 2**20)  # the bench's own memory is not the replay's: a child's ru_maxrss counts it
    ballast[::4096] = b"\1" * len(range(0, len(ballast), 4096))
    video = lab.replay_memory_figures(players=3)
    del ballast
    assert all(0 < video[name]["peak_rss_mb"] < 150 for name in ("no video (anchor)", "apng", "webp"))
    assert video["webp"]["bytes"] > 0


@pytest.mark.parametrize("screen, period", [("idle", IDLE_GLINT_S), ("attract", REVEAL_S)])
def test_a_screen_that_comes_round_is_measured_over_whole_rounds(screen, period):
    """A window shorter than the idle glint's period reads its crossing or its stillness, not
    both; one shorter than a reveal of the attract loop, its flashing or its scoreboard."""
    for seconds in (0.5, 10.0, period, 50.0):
        window = processes.still_window_s(screen, seconds)
        assert window >= seconds and window % period == 0 and window < seconds + period
    assert processes.still_window_s("guessing", 10.0) == processes.still_window_s("game over", 10.0) == 10.0


def test_every_still_screen_the_lab_measures_is_on_the_panel():
    """Each screen the lab measures the CPU of is the screen it names, drawn."""
    shown = {"secret choice": "secret", "game over": "game_over", "guessing": "play", "clue": "play",
             "scoreboard": "reveal", "attract": "idle"}
    for name in processes.STILL_SCREENS:
        app = started_app()
        now = time.monotonic()
        processes.put_on_screen(app, name, now)
        try:
            app.tick(now)
            assert app.ui.screen == shown.get(name, name) and app.stats.frames_pushed >= 1, name
            if name == "game over":  # a game played to its end
                assert app.game.phase == "game_over" and app.game.winners
            if name == "clue":  # the giver's word awaited
                assert app.game.phase == "clue1"
        finally:
            app.close()


@pytest.mark.parametrize("argv, said", [
    (["all", "--cpu-quota", "2"], "a CPU share is a number from 0.01 to 1"),
    (["quota", "0"], "a CPU share is a number from 0.01 to 1"),
    (["attacks", "flood", "nope"], "no attack 'nope'"),
    (["bot-games", "--games", "0"], "a number of games from 1 to 1000"),
    ([], "the following arguments are required: RUN"),
])
def test_the_lab_refuses_a_wrong_argument_in_one_line(argv, said):
    done = subprocess.run([sys.executable, "-m", "bench", *argv], capture_output=True, text=True, cwd=CHECKOUT)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and said in done.stderr


def test_the_bots_run_measures_each_kind_of_move_beside_its_anchor():
    """bench.bots' child, without the quota and without its pauses, one game: every kind of move
    is timed, the anchor too, the loads are named, and the report names each."""
    from bench.bots import KINDS, format_bots, measure

    figures = measure(pause_s=0.0, games=(("expert", "en", "free"),))
    assert figures["concepts"] >= 3000 and set(figures["loads_ms"]) == {"expert:en free"}
    assert set(figures["decisions_ms"]) == set(KINDS)
    assert all(d["n"] >= 1 and 0 <= d["p50"] <= d["max"] for d in figures["decisions_ms"].values())
    assert figures["anchor_ms"]["n"] == figures["decisions_ms"]["choose_target"]["n"] >= 10
    text = format_bots({**figures, "quota": 0.11, "cgroup": "v2 cpu.max", "throttled": {"periods": 9, "held_back": 0}})
    assert "11 % of a core" in text and "second clue or pass" in text and "anchor" in text


def test_the_bot_games_run_puts_the_computer_guesser_far_above_a_random_placer(monkeypatch):
    """Two seeds in one language: the figures' shape, and the random placer's pawns where chance
    puts them (a pawn scores 35/480 of a point on average away from the board's edge)."""
    from bench import bot_games

    monkeypatch.setattr(bot_games, "LANGUAGES", ("en",))
    figures = bot_games.bot_game_figures(2)
    assert figures["seeds"] == "1..2" and figures["languages"] == ["en"]
    for row in figures["levels"].values():
        assert row["computer_guesser"]["games"] == row["random_placer"]["games"] == 2
        assert row["random_placer"]["mean"] < 0.5 < 1.5 < row["computer_guesser"]["mean"]
    assert "random placer" in bot_games.format_bot_games(figures)
    assert bot_games.bot_game_figures(2) == figures  # seeded: the same figures again

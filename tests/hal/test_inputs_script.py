"""Input scripts: parsing (with FILE:LINE errors) and the virtual-clock timeline they play."""

from __future__ import annotations

import queue

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hal.inputs.events import BUTTONS, DIRECTIONS, InputConfigError, InputEvent
from hal.inputs.script import (
    Hold,
    ScriptError,
    ScriptInput,
    Tap,
    Wait,
    parse_script,
    script_events,
)

F = 1 / 60


def drain(events: queue.SimpleQueue) -> list[InputEvent]:
    out = []
    while not events.empty():
        out.append(events.get_nowait())
    return out


def kinds(events) -> list[tuple[str, str]]:
    return [(e.button, e.kind) for e in events]


# --- parsing ------------------------------------------------------------------------------


def test_every_kind_of_line():
    text = """
# a whole game would be longer
right 5
a
  Hold START 2.5   # press start, keep it down
wait 0.5

down 1
"""
    assert parse_script(text, "game.txt") == (
        Tap("right", 5),
        Tap("a", 1),
        Hold("start", 2.5),
        Wait(0.5),
        Tap("down", 1),
    )


def test_empty_and_comment_only_scripts_have_no_steps():
    assert parse_script("", "x.txt") == ()
    assert parse_script("\n  # nothing\n\t\n", "x.txt") == ()


@pytest.mark.parametrize(
    "line, problem",
    [
        ("jump", "unknown input 'jump'"),
        ("quit", "unknown input 'quit'"),
        ("right 0", "a count must be a whole number from 1 to 1000, not '0'"),
        ("right -2", "a count must be a whole number from 1 to 1000, not '-2'"),
        ("right 2.5", "a count must be a whole number from 1 to 1000, not '2.5'"),
        ("right five", "a count must be a whole number from 1 to 1000, not 'five'"),
        ("right 2 3", "'right' takes at most a count, e.g. 'right 3'"),
        ("wait", "'wait' takes a duration, e.g. 'wait 0.5'"),
        ("wait 0", "a duration must be a number of seconds above 0 and at most 3600, not '0'"),
        ("wait -1", "a duration must be a number of seconds above 0 and at most 3600, not '-1'"),
        ("wait soon", "a duration must be a number of seconds above 0 and at most 3600, not 'soon'"),
        ("wait nan", "a duration must be a number of seconds above 0 and at most 3600, not 'nan'"),
        ("wait inf", "a duration must be a number of seconds above 0 and at most 3600, not 'inf'"),
        ("hold a", "'hold' takes a button and a duration, e.g. 'hold a 2.5'"),
        ("hold 2.5", "'hold' takes a button and a duration, e.g. 'hold a 2.5'"),
        ("hold jump 2", "'hold' needs a button (up, down, left, right, a, b, start), not 'jump'"),
        ("hold a 0", "a duration must be a number of seconds above 0 and at most 60, not '0'"),
        ("right 100000000", "a count must be a whole number from 1 to 1000, not '100000000'"),
        ("right 1001", "a count must be a whole number from 1 to 1000, not '1001'"),
        ("right \u0661\u0665", "a count must be a whole number from 1 to 1000, not '\u0661\u0665'"),
        ("hold a 1e8", "a duration must be a number of seconds above 0 and at most 60, not '1e8'"),
        ("wait 1e12", "a duration must be a number of seconds above 0 and at most 3600, not '1e12'"),
        ("wait 1e999", "a duration must be a number of seconds above 0 and at most 3600, not '1e999'"),
        ("wait \u0661", "a duration must be a number of seconds above 0 and at most 3600, not '\u0661'"),
        ("x" * 100, "unknown input 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."),
    ],
)
def test_a_bad_line_names_file_line_and_problem(line, problem):
    text = "# warm up\nright 2\n\nwait 1\n" + line + "\na\n"
    with pytest.raises(ScriptError) as caught:
        parse_script(text, "game.txt")
    assert str(caught.value) == f"game.txt:5: {problem}"
    error = caught.value
    assert (error.filename, error.line, error.problem) == ("game.txt", 5, problem)


@pytest.mark.parametrize("line, repeat", [("right 1000", 20), ("wait 3600", 2), ("hold a 60", 61)])
def test_a_script_too_long_in_all_names_the_line_that_passes_the_bound(line, repeat):
    """No line is too big, but together they are: the line that goes over the bound is named,
    and nothing is dropped silently later."""
    with pytest.raises(ScriptError, match=rf"^s\.txt:{repeat + 1}: the script is too long"):
        parse_script("a\n" + (line + "\n") * repeat, "s.txt")


def test_the_longest_allowed_script_ends_within_the_apps_virtual_day():
    steps = parse_script("right 1000\n" * 20 + "wait 3600\n", "s.txt")
    _, end = script_events(steps, frame_period=1 / 10)  # the slowest frame rate
    assert end < 24 * 3600  # run_virtual's limit_s: the script never meets it


def test_the_first_bad_line_is_reported():
    with pytest.raises(ScriptError, match=r"^s\.txt:2: unknown input 'jump'$"):
        parse_script("a\njump\nfly\n", "s.txt")


# --- timing -------------------------------------------------------------------------------


def test_taps_press_release_one_frame_apart_then_wait_a_frame():
    events, end = script_events((Tap("right", 2), Tap("a")), frame_period=0.1, start=5.0)
    assert events == [
        InputEvent("right", "press", 5.0),
        InputEvent("right", "release", pytest.approx(5.1)),
        InputEvent("right", "press", pytest.approx(5.2)),
        InputEvent("right", "release", pytest.approx(5.3)),
        InputEvent("a", "press", pytest.approx(5.4)),
        InputEvent("a", "release", pytest.approx(5.5)),
    ]
    assert end == pytest.approx(5.5)


def test_taps_land_exactly_on_the_apps_frame_grid():
    events, _ = script_events((Tap("up", 50),), frame_period=F, start=3.0)
    assert [e.time for e in events] == [3.0 + k * F for k in range(100)]


def test_wait_delays_the_next_input_and_a_trailing_wait_extends_the_end():
    events, end = script_events((Tap("b"), Wait(0.5), Tap("b"), Wait(2.0)), frame_period=0.1)
    assert [e.time for e in events] == pytest.approx([0.0, 0.1, 0.7, 0.8])
    assert end == pytest.approx(2.9)


def test_hold_of_a_button_is_press_and_release_after_the_duration():
    events, end = script_events((Hold("start", 5.0), Tap("a")), frame_period=0.1)
    assert events == [
        InputEvent("start", "press", 0.0),
        InputEvent("start", "release", 5.0),
        InputEvent("a", "press", pytest.approx(5.1)),
        InputEvent("a", "release", pytest.approx(5.2)),
    ]
    assert end == pytest.approx(5.2)


def test_hold_of_a_direction_repeats_up_to_its_release():
    events, _ = script_events(
        (Hold("down", 1.0),), frame_period=F, repeat_delay_s=0.35, repeat_rate_hz=12.0
    )
    assert kinds(events) == [("down", "press")] + [("down", "repeat")] * 8 + [("down", "release")]
    assert [e.time for e in events[1:-1]] == pytest.approx([0.35 + k / 12 for k in range(8)])
    assert events[-1].time == 1.0


def test_a_repeat_due_at_the_release_instant_still_comes_before_it():
    events, _ = script_events((Hold("up", 0.5),), repeat_delay_s=0.25, repeat_rate_hz=4.0)
    assert [(e.kind, e.time) for e in events] == [
        ("press", 0.0),
        ("repeat", 0.25),
        ("repeat", 0.5),
        ("release", 0.5),
    ]


def test_impossible_frame_period_is_refused():
    with pytest.raises(InputConfigError, match="frame period"):
        script_events((Tap("a"),), frame_period=0)


def test_poll_puts_events_up_to_now_and_done_waits_for_the_end():
    events = queue.SimpleQueue()
    player = ScriptInput((Tap("a"), Wait(1.0)), events, frame_period=0.1, start=10.0)
    assert player.end_time == pytest.approx(11.2)
    player.poll(9.0)
    assert drain(events) == [] and not player.done
    player.poll(10.0)
    assert kinds(drain(events)) == [("a", "press")]
    player.poll(10.15)
    assert kinds(drain(events)) == [("a", "release")]
    assert not player.done  # the trailing wait is still running
    player.poll(11.0)
    assert not player.done
    player.poll(11.2)
    assert player.done and drain(events) == []


def test_an_empty_script_is_done_at_once():
    player = ScriptInput((), queue.SimpleQueue(), start=4.0)
    assert player.end_time == 4.0
    player.poll(4.0)
    assert player.done


def test_parsed_file_plays_end_to_end():
    steps = parse_script("right 2\nhold left 0.5\na\n", "play.txt")
    events = queue.SimpleQueue()
    player = ScriptInput(steps, events)
    t = 0.0
    while not player.done:
        player.poll(t)
        t += F
    got = drain(events)
    assert kinds(got) == (
        [("right", "press"), ("right", "release")] * 2
        + [("left", "press"), ("left", "repeat"), ("left", "repeat"), ("left", "release")]
        + [("a", "press"), ("a", "release")]
    )
    assert got[-1].time == player.end_time


steps = st.lists(
    st.one_of(
        st.builds(Tap, st.sampled_from(BUTTONS), st.integers(1, 4)),
        st.builds(Hold, st.sampled_from(BUTTONS), st.floats(0.01, 2.0)),
        st.builds(Wait, st.floats(0.01, 2.0)),
    ),
    max_size=12,
).map(tuple)


@given(steps, st.lists(st.floats(0.001, 0.5), min_size=1, max_size=50))
def test_any_script_plays_a_well_formed_timeline_however_the_app_polls(script, gaps):
    timeline, end = script_events(script)
    times = [e.time for e in timeline]
    assert times == sorted(times)
    assert all(t <= end for t in times)
    held = None
    for event in timeline:  # a script presses one button at a time
        if event.kind == "press":
            assert held is None
            held = event.button
        elif event.kind == "repeat":
            assert event.button == held and held in DIRECTIONS
        else:
            assert event.button == held
            held = None
    assert held is None
    assert sum(e.kind == "press" for e in timeline) == sum(
        s.count if isinstance(s, Tap) else isinstance(s, Hold) for s in script
    )

    events = queue.SimpleQueue()
    player = ScriptInput(script, events)
    delivered = []
    now = 0.0
    for gap in gaps:
        now += gap
        player.poll(now)
        got = drain(events)
        assert all(e.time <= now for e in got)
        delivered += got
        assert player.done == (now >= end)
    player.poll(end)
    assert player.done
    assert delivered + drain(events) == timeline

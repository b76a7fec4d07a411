"""GpioInput on gpiozero's MockFactory (real Buttons on mock pins), and the AutoRepeat it uses."""

from __future__ import annotations

import queue
import threading

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given
from hypothesis import strategies as st

from hal.inputs.events import BUTTONS, DIRECTIONS, InputConfigError, InputEvent
from hal.inputs.gpio import GpioInput
from hal.inputs.repeat import MAX_CATCH_UP, AutoRepeat

PINS = {"up": 17, "down": 27, "left": 22, "right": 23, "a": 5, "b": 6, "start": 13}


class FakeClock:
    def __init__(self, t: float = 0.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def factory():
    factory = MockFactory()
    yield factory
    factory.reset()


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def events():
    return queue.SimpleQueue()


def drain(events: queue.SimpleQueue) -> list[InputEvent]:
    out = []
    while not events.empty():
        out.append(events.get_nowait())
    return out


def open_gpio(factory, events, clock, pins=PINS, **options) -> GpioInput:
    return GpioInput(pins, events, clock=clock, pin_factory=factory, **options)


# --- AutoRepeat -------------------------------------------------------------------------


def test_repeat_first_after_delay_then_at_rate():
    repeat = AutoRepeat(delay_s=0.5, rate_hz=10.0)
    repeat.press("left", 2.0)
    assert repeat.due(2.49) == []
    assert repeat.due(2.5) == [InputEvent("left", "repeat", 2.5)]
    assert repeat.due(2.55) == []
    assert [e.time for e in repeat.due(2.6)] == [pytest.approx(2.6)]
    repeat.release("left", 2.61)
    assert repeat.due(10.0) == []


def test_repeat_only_for_directions():
    repeat = AutoRepeat()
    for button in BUTTONS:
        repeat.press(button, 1.0)
    assert {e.button for e in repeat.due(1.36)} == set(DIRECTIONS)
    repeat.release("start", 7.0)
    repeat.release("up", 7.0)
    assert {e.button for e in repeat.due(7.5)} == set(DIRECTIONS) - {"up"}


def test_late_poll_emits_only_the_newest_repeats_and_keeps_the_grid():
    repeat = AutoRepeat(delay_s=0.25, rate_hz=4.0)  # due at 0.25, 0.5, 0.75, 1.0, ...
    repeat.press("up", 0.0)
    late = repeat.due(2.1)  # 0.25 .. 2.0 fell due: eight of them, only the newest two come
    assert MAX_CATCH_UP == 2
    assert [e.time for e in late] == [1.75, 2.0]
    assert repeat.due(2.2) == []
    assert [e.time for e in repeat.due(2.3)] == [2.25]
    assert repeat.due(2.25) == []  # a clock going back changes nothing
    assert [e.time for e in repeat.due(2.75)] == [2.5, 2.75]


def test_repress_restarts_the_delay():
    repeat = AutoRepeat(delay_s=0.3, rate_hz=10.0)
    repeat.press("down", 0.0)
    repeat.press("down", 1.0)
    assert repeat.due(1.29) == []
    assert [e.time for e in repeat.due(1.3)] == [pytest.approx(1.3)]


@pytest.mark.parametrize(
    "delay, rate", [(-0.1, 12.0), (0.0, 12.0), (0.3, 0.0), (0.3, -5.0), (float("nan"), 1.0)]
)
def test_repeat_rejects_impossible_timing(delay, rate):
    with pytest.raises(InputConfigError, match="auto-repeat"):
        AutoRepeat(delay, rate)


@given(
    press=st.floats(0, 1e4, allow_nan=False),
    delay=st.floats(0.001, 2, allow_nan=False),
    rate=st.floats(0.5, 60, allow_nan=False),
    gaps=st.lists(st.floats(0, 5, allow_nan=False), min_size=1, max_size=40),
)
def test_repeats_lie_on_the_grid_between_polls_and_never_burst(press, delay, rate, gaps):
    repeat = AutoRepeat(delay, rate)
    repeat.press("right", press)
    previous = press
    steps_seen = []
    now = press
    for gap in gaps:
        now += gap
        got = repeat.due(now)
        assert len(got) <= MAX_CATCH_UP
        for event in got:
            assert previous < event.time <= now
            step = round((event.time - press - delay) * rate)
            assert event.time == pytest.approx(press + delay + step / rate, abs=1e-6)
            steps_seen.append(step)
        previous = now
    assert steps_seen == sorted(set(steps_seen))


@given(
    delay=st.floats(0.05, 1, allow_nan=False),
    rate=st.floats(1, 30, allow_nan=False),
    polls=st.integers(1, 200),
)
def test_polling_every_period_loses_no_repeat(delay, rate, polls):
    period = 1 / rate
    repeat = AutoRepeat(delay, rate)
    repeat.press("up", 0.0)
    got = [e for k in range(1, polls + 1) for e in repeat.due(k * period)]
    last = polls * period
    expected = [k for k in range(10_000) if delay + k * period <= last]
    assert len(got) == len(expected)


# --- GpioInput --------------------------------------------------------------------------


def test_buttons_put_press_and_release_stamped_by_the_clock(factory, events, clock):
    with open_gpio(factory, events, clock):
        clock.t = 1.0
        factory.pin(5).drive_low()
        clock.t = 1.25
        factory.pin(5).drive_high()
        clock.t = 2.0
        factory.pin(13).drive_low()
        clock.t = 7.0
        factory.pin(13).drive_high()
        assert drain(events) == [
            InputEvent("a", "press", 1.0),
            InputEvent("a", "release", 1.25),
            InputEvent("start", "press", 2.0),
            InputEvent("start", "release", 7.0),
        ]


def test_pull_down_wiring_presses_on_high(factory, events, clock):
    with open_gpio(factory, events, clock, pins={"b": 6}, pull_up=False):
        factory.pin(6).drive_high()
        factory.pin(6).drive_low()
        assert [(e.button, e.kind) for e in drain(events)] == [("b", "press"), ("b", "release")]


def test_held_direction_auto_repeats_on_the_injected_clock(factory, events, clock):
    with open_gpio(factory, events, clock, repeat_delay_s=0.35, repeat_rate_hz=12.0) as gpio:
        clock.t = 10.0
        factory.pin(22).drive_low()
        for frame in range(1, 61):  # one second of 60 Hz polling
            clock.t = 10.0 + frame / 60
            gpio.poll(clock.t)
        factory.pin(22).drive_high()
        gpio.poll(12.0)
        got = drain(events)
    assert got[0] == InputEvent("left", "press", 10.0)
    assert got[-1] == InputEvent("left", "release", 11.0)
    repeats = [e.time for e in got[1:-1]]
    assert all(e.kind == "repeat" and e.button == "left" for e in got[1:-1])
    assert repeats == pytest.approx([10.35 + k / 12 for k in range(8)])


def test_held_start_does_not_repeat(factory, events, clock):
    with open_gpio(factory, events, clock) as gpio:
        factory.pin(13).drive_low()
        gpio.poll(5.0)
        factory.pin(13).drive_high()
        assert [e.kind for e in drain(events)] == ["press", "release"]


def test_bounce_time_reaches_the_pins(factory, events, clock):
    with open_gpio(factory, events, clock, pins={"a": 5, "b": 6}, bounce_s=0.03):
        assert factory.pin(5).bounce == pytest.approx(0.03)
    with open_gpio(factory, events, clock, pins={"a": 5}, bounce_s=0):
        assert factory.pin(5).bounce is None


@pytest.mark.parametrize(
    "pins, message",
    [
        ({"up": 17, "jump": 18}, "unknown button 'jump'"),
        ({"quit": 18}, "unknown button 'quit'"),
        ({"a": 17, "b": 17}, "GPIO 17 is given to both 'a' and 'b'"),
        ({"a": "17"}, "must be a BCM number"),
        ({"a": -1}, "must be a BCM number"),
        ({}, "no GPIO pins"),
    ],
)
def test_bad_wiring_is_refused_before_touching_pins(factory, events, clock, pins, message):
    with pytest.raises(InputConfigError, match=message):
        open_gpio(factory, events, clock, pins=pins)
    assert factory.pins == {}


def test_gpiozero_refusals_become_config_errors_and_free_the_pins(factory, events, clock):
    with pytest.raises(InputConfigError, match="cannot use GPIO 99 for button 'down'"):
        open_gpio(factory, events, clock, pins={"up": 17, "down": 99})
    with pytest.raises(InputConfigError, match="debounce"):
        open_gpio(factory, events, clock, bounce_s=-1)
    with open_gpio(factory, events, clock, pins={"up": 17}):  # 17 was released after the failure
        with pytest.raises(InputConfigError, match="cannot use GPIO 17 for button 'a'"):
            open_gpio(factory, events, clock, pins={"a": 17})


def test_close_frees_pins_and_silences_everything(factory, events, clock):
    # Slow-ish (about 1 s): gpiozero's hold thread lets a Button close only once hold_time has
    # passed since a press that is still down, and closing while held is the point here.
    gpio = open_gpio(factory, events, clock)
    factory.pin(17).drive_low()
    gpio.close()
    gpio.close()
    drain(events)
    gpio.poll(100.0)
    factory.pin(17).drive_high()
    assert drain(events) == []
    with open_gpio(factory, events, clock):
        pass


def test_callbacks_from_other_threads_keep_the_queue_consistent(factory, events, clock):
    """gpiozero calls back on its own threads: a repeat never follows the release of its hold."""
    presses = 300
    with open_gpio(factory, events, clock, repeat_delay_s=0.001, repeat_rate_hz=1000.0) as gpio:
        stop = threading.Event()

        def player():
            for _ in range(presses):
                factory.pin(17).drive_low()
                factory.pin(27).drive_low()
                factory.pin(17).drive_high()
                factory.pin(27).drive_high()
            stop.set()

        thread = threading.Thread(target=player)
        thread.start()
        while not stop.is_set():
            clock.t += 0.001
            gpio.poll(clock.t)
        thread.join()
        got = drain(events)
    held: set[str] = set()
    for event in got:
        if event.kind == "press":
            assert event.button not in held
            held.add(event.button)
        elif event.kind == "repeat":
            assert event.button in held
        else:
            held.remove(event.button)
    assert held == set()
    assert sum(e.kind == "press" for e in got) == 2 * presses


# --- failures of the GPIO library -------------------------------------------------------


class LgpioError(Exception):
    """What lgpio raises (lgpio.error): an Exception, not a GPIOZeroError."""


class RefusingFactory(MockFactory):
    def pin(self, spec, **kwargs):
        raise LgpioError("'can not open gpiochip'")


@pytest.fixture
def fake_lgpio(monkeypatch):
    import sys
    import types

    monkeypatch.setitem(sys.modules, "lgpio", types.SimpleNamespace(error=LgpioError))


@pytest.mark.parametrize("model, version, hint", [
    ("Raspberry Pi 5 Model B Rev 1.0", "2.0.1", r"gpiozero 2\.0\.1 opens the wrong GPIO chip.*2\.0\.1\.post3"),
    ("Raspberry Pi 5 Model B Rev 1.0", "2.0.1.post3", "no GPIO chip could be opened"),
    ("Raspberry Pi 4 Model B Rev 1.4", "2.0.1", "no GPIO chip could be opened"),
])
def test_an_lgpio_error_is_a_config_error_with_the_fix(fake_lgpio, tmp_path, monkeypatch, events, clock,
                                                       model, version, hint):
    from hal.inputs import gpio as gpio_module

    (tmp_path / "model").write_text(model + "\0")
    monkeypatch.setattr(gpio_module, "_gpiozero_version", lambda: version)
    factory = RefusingFactory()
    with pytest.raises(InputConfigError, match=f"cannot use GPIO 17 for button 'up': .*{hint}"):
        GpioInput({"up": 17}, events, clock=clock, pin_factory=factory, model_path=str(tmp_path / "model"))


def test_a_permission_error_names_the_gpio_group():
    from hal.inputs.gpio import gpio_failure_hint

    error = PermissionError(13, "Permission denied", "/dev/gpiochip0")
    assert "gpio group" in gpio_failure_hint(error, "Raspberry Pi 4 Model B Rev 1.4", "2.0.1.post3")

"""Input scripts: a game played from a text file, for the headless simulator and CI.

One input a line:

    right 5        # press and release right five times
    a              # the same, once (a count is optional for every button)
    hold start 5   # press start, keep it down 5 s, release
    wait 0.5       # do nothing for half a second

Blank lines and `#` comments are ignored. Events land on a virtual clock, as if a player pressed
quickly but never faster than the app can see: a press at t, its release one frame later, the
next input one frame after that. A held direction auto-repeats exactly as a held joystick would
with the app polling every frame, because the same `AutoRepeat` produces the repeats.
"""

from __future__ import annotations

import math
import queue
import re
from dataclasses import dataclass

from hal.inputs.events import BUTTONS, PRESS, RELEASE, InputConfigError, InputEvent
from hal.inputs.repeat import AutoRepeat


MAX_SCRIPT_BYTES = 1 << 20
"""The largest script file read (a whole 10-player game is a few KB)."""
# A script is played frame by frame on the virtual clock, and each press is an event held in
# memory, so counts and durations are bounded (a whole 10-player game is some 3,000 presses):
# `right 100000000` would take gigabytes and `hold a 1e8` hours. At the slowest frame rate (10 fps)
# the longest script allowed ends within 2.2 hours, well inside the app's 24-hour virtual limit.
MAX_COUNT = 1000  # presses on one line
MAX_HOLD_S = 60.0  # one hold
MAX_WAIT_S = 3600.0  # one wait
MAX_PRESSES = 20_000  # presses in the whole script
MAX_SECONDS = 3600.0  # holds and waits in the whole script


@dataclass(frozen=True, slots=True)
class Tap:
    """Press and release `button`, `count` times."""

    button: str
    count: int = 1


@dataclass(frozen=True, slots=True)
class Hold:
    """Press `button`, keep it down for `seconds`, release it."""

    button: str
    seconds: float


@dataclass(frozen=True, slots=True)
class Wait:
    """Let `seconds` pass with no input."""

    seconds: float


Step = Tap | Hold | Wait


class ScriptError(ValueError):
    """A line of an input script that cannot be played; str() is `FILE:LINE: what is wrong`."""

    def __init__(self, filename: str, line: int, problem: str):
        super().__init__(f"{filename}:{line}: {problem}")
        self.filename = filename
        self.line = line
        self.problem = problem


def _count(word: str) -> int:
    if word.isascii() and word.isdecimal() and len(word) <= 4 and 0 < int(word) <= MAX_COUNT:
        return int(word)
    raise ValueError(f"a count must be a whole number from 1 to {MAX_COUNT}, not {_brief(word)}")


_DECIMAL = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
"""A duration as written in a script: float() also reads '1_0', ' 1' and 'infinity'."""
_BLANKS = re.compile(r"[ \t\r\f\v]+")
"""What separates words: ASCII blanks only. str.split() also splits at a no-break space, \\x1c-\\x1f,
\\x85 and \\u2028, so 'right\\u00a02' would be read as 'right 2'."""


def _seconds(word: str, most: float) -> float:
    seconds = float(word) if _DECIMAL.fullmatch(word) else math.nan
    if 0 < seconds <= most:  # also refuses nan
        return seconds
    raise ValueError(f"a duration must be a number of seconds above 0 and at most {most:g}, "
                     f"not {_brief(word)}")


def _brief(word: str) -> str:
    text = repr(word)
    return text if len(text) <= 40 else text[:37] + "..."


def _parse_line(words: list[str]) -> Step:
    command, args = words[0].lower(), words[1:]
    if command in BUTTONS:
        if len(args) > 1:
            raise ValueError(f"'{command}' takes at most a count, e.g. '{command} 3'")
        return Tap(command, _count(args[0]) if args else 1)
    if command == "hold":
        if len(args) != 2:
            raise ValueError("'hold' takes a button and a duration, e.g. 'hold a 2.5'")
        button = args[0].lower()
        if button not in BUTTONS:
            raise ValueError(f"'hold' needs a button ({', '.join(BUTTONS)}), not {_brief(args[0])}")
        return Hold(button, _seconds(args[1], MAX_HOLD_S))
    if command == "wait":
        if len(args) != 1:
            raise ValueError("'wait' takes a duration, e.g. 'wait 0.5'")
        return Wait(_seconds(args[0], MAX_WAIT_S))
    raise ValueError(f"unknown input {_brief(words[0])}")


def parse_script(text: str, filename: str = "<script>") -> tuple[Step, ...]:
    """The steps of an input script; the first bad line raises ScriptError naming file and line,
    as does the line that takes the script past MAX_PRESSES presses or MAX_SECONDS of holds and
    waits. Lines end at `\n` only, so the numbers are the ones an editor shows."""
    steps = []
    presses, seconds = 0, 0.0
    for number, line in enumerate(text.split("\n"), start=1):
        words = _BLANKS.split(line.split("#", 1)[0].strip(" \t\r\f\v"))
        words = [] if words == [""] else words
        if not words:
            continue
        try:
            step = _parse_line(words)
        except ValueError as error:
            raise ScriptError(filename, number, str(error)) from None
        presses += step.count if isinstance(step, Tap) else isinstance(step, Hold)
        seconds += 0.0 if isinstance(step, Tap) else step.seconds
        if presses > MAX_PRESSES or seconds > MAX_SECONDS:
            raise ScriptError(filename, number, f"the script is too long: at most {MAX_PRESSES} presses "
                                                f"and {MAX_SECONDS:g} s of holds and waits in all")
        steps.append(step)
    return tuple(steps)


def script_events(
    steps: tuple[Step, ...],
    frame_period: float = 1 / 60,
    repeat_delay_s: float = 0.35,
    repeat_rate_hz: float = 12.0,
    start: float = 0.0,
) -> tuple[list[InputEvent], float]:
    """Every event the steps produce in time order, and the time the script ends.

    The end is the last event, or later if the script finishes with a wait.
    """
    if not (math.isfinite(frame_period) and frame_period > 0):
        raise InputConfigError(f"the frame period must be above 0 s, not {frame_period!r}")
    repeat = AutoRepeat(repeat_delay_s, repeat_rate_hz)
    events: list[InputEvent] = []
    # Time is start + frames * frame_period + seconds, kept apart so that a script of taps
    # lands exactly on the frame grid an app computes as start + k * frame_period.
    frames = 0
    seconds = 0.0
    end = start

    def now() -> float:
        return start + frames * frame_period + seconds

    for step in steps:
        if isinstance(step, Wait):
            seconds += step.seconds
            end = now()
            continue
        for _ in range(step.count if isinstance(step, Tap) else 1):
            pressed = now()
            events.append(InputEvent(step.button, PRESS, pressed))
            repeat.press(step.button, pressed)
            if isinstance(step, Hold):
                # Poll auto-repeat as the app would, every frame while held and at the release.
                for k in range(1, math.ceil(step.seconds / frame_period)):
                    events.extend(repeat.due(pressed + k * frame_period))
                seconds += step.seconds
            else:
                frames += 1
            released = now()
            events.extend(repeat.due(released))
            repeat.release(step.button, released)
            events.append(InputEvent(step.button, RELEASE, released))
            end = released
            frames += 1
    return events, end


class ScriptInput:
    """Plays script steps into the event queue as the app's virtual clock reaches them."""

    def __init__(
        self,
        steps: tuple[Step, ...],
        events: queue.SimpleQueue,
        frame_period: float = 1 / 60,
        repeat_delay_s: float = 0.35,
        repeat_rate_hz: float = 12.0,
        start: float = 0.0,
    ):
        self._events = events
        self._timeline, self.end_time = script_events(
            steps, frame_period, repeat_delay_s, repeat_rate_hz, start
        )
        self._next = 0
        self._now = start

    @property
    def done(self) -> bool:
        """Every event has been queued and the script's time (trailing waits too) has passed."""
        return self._next == len(self._timeline) and self._now >= self.end_time

    def next_poll(self, now: float) -> float:
        """When the script's next event is due."""
        return self._timeline[self._next].time if self._next < len(self._timeline) else math.inf

    def poll(self, now: float) -> None:
        """Queue every event due by `now` (virtual time)."""
        self._now = max(self._now, now)
        timeline = self._timeline
        while self._next < len(timeline) and timeline[self._next].time <= now:
            self._events.put(timeline[self._next])
            self._next += 1

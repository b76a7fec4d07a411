"""Fuzz the browser panel's inputs: whatever text a page sends, the press parser and the replay's
moment parser return a valid answer or their one error, never anything else."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from console.web.pacing import Throttle
from console.web.panel import PanelMessageError, parse_press
from console.web.replay import ReplayError, parse_time
from hal.inputs.events import BUTTONS, KINDS, QUIT, InputEvent
from tests.fakes import FakeClock
from tests.phones import in_own_loop

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=8)
TEXTS = st.one_of(st.none(), st.text(max_size=40), JSON.map(json.dumps),
                  st.builds(lambda k, b: json.dumps({k: b}), st.sampled_from(KINDS + ("hold",)),
                            st.sampled_from(BUTTONS + (QUIT, "fire")) | JSON))


@settings(max_examples=200)
@given(TEXTS)
def test_any_text_is_a_press_or_one_clear_refusal(text):
    try:
        button, kind = parse_press(text)
    except PanelMessageError as exc:
        assert str(exc)
        return
    InputEvent(button, kind, 0.0)  # a valid event for the app's queue


@settings(max_examples=200)
@given(TEXTS | st.floats(allow_nan=True).map(lambda t: json.dumps({"t": t})), st.floats(0, 1000))
def test_any_text_is_a_moment_of_the_game_or_one_clear_refusal(text, duration):
    try:
        t = parse_time(text, duration)
    except ReplayError as exc:
        assert str(exc)
        return
    assert 0.0 <= t <= duration


def test_a_flood_is_slowed_to_the_throttles_rate():
    clock = FakeClock(100.0)
    slept = []

    async def sleep(seconds):
        slept.append(round(seconds, 6))
        clock.sleep(seconds)

    throttle = Throttle(4, clock=clock, sleep=sleep)

    async def flood(count):
        for _ in range(count):
            await throttle.wait()

    in_own_loop(flood(5))
    assert slept == [0.25] * 4 and clock() == 101.0  # five in one second at 4 a second
    clock.sleep(10)
    in_own_loop(flood(1))
    assert slept == [0.25] * 4  # after a pause the next one goes through at once



STRICTLY_REFUSED = ('{"%s": NaN}', '{"%s": 1, "%s": 2}', '[' * 100_000)


@pytest.mark.parametrize("text", STRICTLY_REFUSED)
def test_a_press_is_strict_json_like_the_record(text):
    """The record's parser: NaN, a key given twice (not read as the last one) and deep nesting are refused."""
    with pytest.raises(PanelMessageError, match=r"^a message must be JSON like"):
        parse_press(text.replace("%s", "press"))


@pytest.mark.parametrize("text", STRICTLY_REFUSED)
def test_a_moment_is_strict_json_like_the_record(text):
    with pytest.raises(ReplayError, match=r"^ask for a moment as"):
        parse_time(text.replace("%s", "t"), 10.0)


HUGE = ("1" + "0" * 400, "-" + "9" * 400, "1e400", "-1e400", str(2**53 + 1))


def every_numeric_place(number: str) -> list[tuple]:
    """(parse, its error, text) with `number` in each field of each web message in turn: the
    replay's moment, a panel press, and every field (and `n`, and one too many) of every phone
    message, numeric or not."""
    from console.web.messages import FIELDS, MessageError, parse_message

    cases = [(lambda text: parse_time(text, 10.0), ReplayError, '{"t": %s}' % number),
             (parse_press, PanelMessageError, '{"press": %s}' % number)]
    for verb, fields in FIELDS.items():
        for field in ["n", *fields, "extra"]:
            values = {"t": json.dumps(verb), "n": "1", **{name: '"x"' for name in fields}, field: number}
            text = "{" + ", ".join(f'"{k}": {v}' for k, v in values.items()) + "}"
            cases.append((lambda text: parse_message(text, 0), MessageError, text))
    return cases


@pytest.mark.parametrize("number", HUGE)
def test_a_number_no_page_sends_is_refused_in_every_field_of_every_message(number):
    """A number beyond what a page's JavaScript sends: the parser's own one-line refusal, never
    another exception (a 400-digit t made the replay page's check raise OverflowError)."""
    for parse, error, text in every_numeric_place(number):
        with pytest.raises(error) as refused:
            parse(text)
        assert str(refused.value) and "\n" not in str(refused.value), text

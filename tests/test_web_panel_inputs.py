"""Fuzz the browser panel's inputs: whatever text a page sends, the press parser and the replay's
moment parser return a valid answer or their one error, never anything else."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from console.web.panel import PanelMessageError, parse_press
from console.web.replay import ReplayError, parse_time
from hal.inputs.events import BUTTONS, KINDS, QUIT, InputEvent

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

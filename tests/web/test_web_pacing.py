"""Every websocket is paced alike: a page that floods gets its burst answered, one refusal saying
it is too fast, and nothing more until it may send again, and it is not read meanwhile. A flood of
refusals on /panel/ws took half a core and made phones' taps 660 ms late (p99)."""

from __future__ import annotations

import asyncio
import copy
import json
from collections import namedtuple

import pytest
from hypothesis import given, strategies as st

from console.view.timeline import Timeline
from console.web.hub import Hub
from console.web.pacing import BURST, RATE_PER_S, TOO_FAST
from console.web.panel import SIM_RATE_PER_S, PanelStream
from console.web.phones import PhoneRoom
from console.web.replay import MAX_FRAMES_PER_S, ReplayRoom
from console.web.limits import Attempts, Bucket
from console.store.games import GameStore
from hal.inputs.events import EventQueue
from hal.layout import Layout, LayoutOptions
from hal.output import OutputStage
from tests.fakes import FakeClock
from tests.phones import in_own_loop

Address = namedtuple("Address", "host port")


class FloodingPage:
    """A page's websocket that sends `texts` as fast as the server reads them, keeping the
    refusals it is sent."""

    headers = {"origin": "http://box:80", "host": "box:80"}
    client = Address("10.0.0.9", 50000)
    path_params = {"game_id": "g1"}

    def __init__(self, texts: list[str]):
        self.texts = iter(texts)
        self.refusals: list[str] = []

    async def accept(self) -> None:
        pass

    async def receive(self) -> dict:
        await asyncio.sleep(0)
        text = next(self.texts, None)
        return {"type": "websocket.disconnect"} if text is None else {"type": "websocket.receive", "text": text}

    async def send_text(self, text: str) -> None:
        message = json.loads(text)
        if message["t"] == "refused":
            self.refusals.append(message["why"])

    async def send_bytes(self, data: bytes) -> None:
        pass

    async def close(self, code: int = 1000) -> None:
        pass


def routes(clock: FakeClock, pause) -> dict:
    """Each websocket route with the fake clock and pause: (handler, its rate, its answer to junk)."""
    stage = OutputStage(Layout(LayoutOptions()))
    panel = PanelStream(Hub(), stage, EventQueue(), clock)
    replay = ReplayRoom(stage, GameStore("memory://"), clock)
    replay._timelines["g1"] = Timeline(())
    room = PhoneRoom(Hub(), EventQueue(), Attempts(clock), clock=clock)
    for owner in (panel, replay, room):
        owner.pause = pause
    return {"/panel/ws": (panel.spectator, RATE_PER_S, "this panel is read-only"),
            "/sim/ws": (panel.controls, SIM_RATE_PER_S, 'a message must be JSON like {"press": "a"}'),
            "/replay/ws": (replay.websocket, MAX_FRAMES_PER_S, 'ask for a moment as {"t": seconds}'),
            "/ws": (room.websocket, RATE_PER_S, "not a JSON message")}


@pytest.mark.parametrize("route", ["/panel/ws", "/sim/ws", "/replay/ws", "/ws"])
def test_a_flood_on_any_websocket_gets_its_burst_then_one_refusal_then_nothing(route):
    clock, pauses = FakeClock(100.0), []

    async def pause(seconds: float) -> None:  # the time does not move: the flood stays past the rate
        pauses.append(seconds)
        await asyncio.sleep(0)

    handler, rate, answer = routes(clock, pause)[route]
    page = FloodingPage(["junk"] * 300)
    if route == "/sim/ws":  # the console's own controls: only this computer's (from the network: refused)
        page.client = Address("127.0.0.1", 50000)
    in_own_loop(handler(page))
    assert page.refusals == [answer] * BURST + [TOO_FAST]  # the other 239 dropped unanswered
    assert len(pauses) == 300 and pauses[:BURST - 1] == [0.0] * (BURST - 1)
    assert all(0 < seconds <= 1 / rate for seconds in pauses[BURST:])  # not read again until it may send


def test_a_paced_page_is_answered_again_once_it_slows_down():
    clock = FakeClock(100.0)

    async def pause(seconds: float) -> None:  # each read waits as long as it is told
        clock.sleep(seconds)
        await asyncio.sleep(0)

    handler, rate, answer = routes(clock, pause)["/panel/ws"]
    page = FloodingPage(["junk"] * 300)
    in_own_loop(handler(page))
    assert page.refusals == [answer] * 300  # slowed to the rate, never dropped
    assert clock() == pytest.approx(100.0 + (300 - BURST + 1) / rate)  # a wait after each past the burst


@given(st.lists(st.floats(0, 2), max_size=80), st.integers(1, 10), st.floats(0.5, 50))
def test_a_bucket_gives_its_capacity_and_its_rate_and_no_more_and_a_token_to_who_waited(gaps, capacity, per_s):
    """The one bucket under the pacing, the wrong-code budgets and the throttle."""
    now, bucket, taken = 0.0, Bucket(capacity, per_s, 0.0), []
    for gap in gaps:
        now += gap
        wait = bucket.wait(now)
        if wait > 0:
            assert copy.copy(bucket).wait(now + wait) == 0  # who waits as long as told may go
            continue
        bucket.take(now)
        taken.append(now)
    for first in range(len(taken)):
        for last in range(first, len(taken)):
            assert last - first + 1 <= capacity + per_s * (taken[last] - taken[first]) + 1e-6

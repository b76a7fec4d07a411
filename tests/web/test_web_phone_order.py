"""A phone is sent its messages and views in the order they were owed, by its own writer, whether
the change came from a phone's request (done in the server's thread), from the server's thread
otherwise or from the app's thread; a phone whose transport is full, whose connection ends
mid-send, whose send fails or whose view cannot be built holds up no other phone; and the loop's
thread is woken to draw a request's change only once every phone has its view."""

from __future__ import annotations

import asyncio
import json

from hypothesis import example, given, settings, strategies as st

from console.view.ui import SetupChoices, Ui
from console.web.hub import Hub
from console.web.limits import Attempts
from console.web.phone_connection import PhoneConnection
from console.web.phones import PhoneRoom
from hal.inputs.events import EventQueue
from tests.fakes import FakeClock
from tests.phones import in_own_loop

PHONES = 3


class Wire:
    """A phone's websocket as the app sees Starlette's on our uvicorn protocol: a send waits while
    the transport takes no more (uvicorn's websockets_sansio_impl `send` begins with
    `await self.writable.wait()`)."""

    client = None
    headers: dict = {}

    def __init__(self, yields: int = 0) -> None:
        self.yields = yields  # a send that gives the loop turns even when the transport takes it
        self.writable = asyncio.Event()
        self.writable.set()
        self.got: list[dict] = []
        self.incoming: asyncio.Queue = asyncio.Queue()

    async def receive(self) -> dict:
        return await self.incoming.get()

    async def send_text(self, text: str) -> None:
        await self.writable.wait()
        for _ in range(self.yields):
            await asyncio.sleep(0)
        self.got.append(json.loads(text))

    async def close(self, code: int, reason: str = "") -> None:
        self.incoming.put_nowait({"type": "websocket.disconnect"})


def state(version: int) -> Ui:
    """A state whose every phone's view says `version` (the set-up's player count)."""
    return Ui(screen="setup", setup=SetupChoices(players=version))


async def connected_room(yields=(0,) * PHONES) -> tuple[Hub, PhoneRoom, list[PhoneConnection], list[Wire],
                                                             list[asyncio.Task]]:
    hub = Hub()
    hub.publish_state(None, state(0), 0.0)
    room = PhoneRoom(hub, EventQueue(), Attempts(FakeClock()))
    wires = [Wire(y) for y in yields]
    phones = [PhoneConnection(room, wire) for wire in wires]
    for phone in phones:
        phone.admitted = True  # as after the room code
        room.phones.add(phone)
    tasks = [asyncio.get_running_loop().create_task(phone.run()) for phone in phones]
    await settle()
    return hub, room, phones, wires, tasks


async def settle(turns: int = 30) -> None:
    for _ in range(turns):
        await asyncio.sleep(0)


def versions(got: list[dict]) -> list[int]:
    return [message["setup"]["players"] for message in got if message["t"] == "view"]


async def published(hub: Hub, version: int) -> None:
    """`version` published as the app does, from its own thread."""
    await asyncio.get_running_loop().run_in_executor(None, hub.publish_state, None, state(version), 0.0)


OPS = st.lists(st.one_of(
    st.tuples(st.just("publish"), st.just("app thread")),  # the app publishes from its own thread
    st.tuples(st.just("note"), st.integers(0, PHONES - 1)),
    st.tuples(st.sampled_from(["block", "unblock"]), st.integers(0, PHONES - 1)),
    st.tuples(st.just("turn"), st.integers(1, 3)),
    st.tuples(st.just("leave"), st.integers(0, PHONES - 1)),  # its connection ends
), max_size=40)


@settings(max_examples=200, deadline=None)
@given(OPS, st.lists(st.integers(0, 3), min_size=PHONES, max_size=PHONES))
# a change in the middle of a send that yields when that phone is sent a message and goes
@example([("publish", "app thread"), ("turn", 3), ("note", 0), ("leave", 0), ("publish", "app thread")], [3, 0, 0])
def test_each_phone_gets_every_message_in_order_and_each_view_before_what_was_sent_after_it(ops, yields):
    async def play() -> tuple[list[list[dict]], list[list[tuple[int, int]]], int, set[int]]:
        hub, room, phones, wires, tasks = await connected_room(yields)
        version, notes = 0, [[] for _ in range(PHONES)]  # per phone: (k, the version owed when it was sent)
        gone: set[int] = set()
        for op, arg in ops:
            if op in ("note", "leave") and arg in gone:
                continue
            if op == "publish":
                version += 1
                await published(hub, version)
            elif op == "note":
                phones[arg].send({"t": "note", "k": len(notes[arg])})
                notes[arg].append((len(notes[arg]), version))
            elif op == "block":
                wires[arg].writable.clear()
            elif op == "unblock":
                wires[arg].writable.set()
            elif op == "leave":  # as the server does when a connection ends
                gone.add(arg)
                tasks[arg].cancel()
                room.phones.discard(phones[arg])
            else:
                await settle(arg)
        for wire in wires:
            wire.writable.set()
        await settle()
        for task in tasks:
            task.cancel()
        return [wire.got for wire in wires], notes, version, gone

    got, notes, version, gone = in_own_loop(play())
    for phone in range(PHONES):
        said = got[phone]
        assert said[0]["t"] == "board"
        delivered = [m["k"] for m in said if m["t"] == "note"]
        if phone in gone:  # what it was sent before it went, in order
            assert delivered == [k for k, _ in notes[phone]][:len(delivered)]
            continue
        assert delivered == [k for k, _ in notes[phone]]  # each once, in order
        seen = versions(said)
        assert seen == sorted(set(seen)) and seen[-1] == version  # never an older view after a newer one
        for k, owed in notes[phone]:  # whatever was owed before a message went out before it
            before = said[:next(i for i, m in enumerate(said) if m.get("k") == k and m["t"] == "note")]
            assert max(versions(before), default=-1) >= owed, (k, owed, said)


def test_a_change_reaches_every_phone_and_a_full_one_holds_up_no_other():
    async def play() -> list[list[int]]:
        hub, room, phones, wires, tasks = await connected_room()
        wires[0].writable.clear()  # its phone reads nothing: the transport takes no more
        await published(hub, 1)
        await settle(1)  # one turn of the loop: each writer's
        sent_in_turn = [versions(wire.got) for wire in wires]
        wires[0].writable.set()
        await settle()
        for task in tasks:
            task.cancel()
        return sent_in_turn + [versions(wires[0].got)]

    in_turn_0, in_turn_1, in_turn_2, drained_0 = in_own_loop(play())
    assert in_turn_1 == in_turn_2 == [0, 1]  # sent in the turn after the change
    assert in_turn_0 == [0] and drained_0 == [0, 1]  # its writer sends it once the phone reads again


def test_a_phone_whose_view_cannot_be_built_holds_up_no_other(caplog):
    async def play() -> list[list[int]]:
        hub, room, phones, wires, tasks = await connected_room()
        view_text, calls = room.view_text, []

        def failing_once(*args, **kwargs):  # a bug met building the second phone's view, once
            calls.append(1)
            if len(calls) == 2:
                raise KeyError("a bug")
            return view_text(*args, **kwargs)

        room.view_text = failing_once
        hub.publish_state(None, state(1), 0.0)
        await settle()
        hub.publish_state(None, state(2), 0.0)
        await settle()
        for task in tasks:
            task.cancel()
        return [versions(wire.got) for wire in wires]

    seen = in_own_loop(play())
    assert seen[0] == seen[2] == [0, 1, 2] and seen[1] == [0, 2]  # the next change reaches it too
    assert "a phone's view could not be sent" in caplog.text


def test_a_send_that_fails_holds_up_no_other_phone():
    async def play() -> list[list[int]]:
        hub, room, phones, wires, tasks = await connected_room()

        async def broken(text: str) -> None:  # a bug met sending phone 1's view
            raise ValueError("a bug")

        wires[1].send_text = broken
        await published(hub, 1)
        await settle()
        for task in tasks:
            task.cancel()
        return [versions(wire.got) for wire in wires]

    first, second, third = in_own_loop(play())
    assert first == third == [0, 1] and second == [0]

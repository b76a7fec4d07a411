"""Our uvicorn websocket protocol driven byte by byte (websockets' own client protocol on one
side, a transport that records on the other), so moments a real socket hits only now and then
are hit every time: the console stopping while a phone says goodbye (uvicorn's shutdown meets a
websocket whose close frame has just been answered), and messages arriving faster than the app
takes them (when the socket stops being read)."""

from __future__ import annotations

import asyncio

import uvicorn
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.protocol import State
from websockets.uri import parse_uri

from console.web.guard import WAITING_MESSAGES, Guard, GuardedWebSocket
from console.web.limits import LIMITS


class Wire(asyncio.Transport):
    """The server's side of one loopback connection: what it writes, and whether it closed."""

    def __init__(self) -> None:
        super().__init__()
        self.written, self.closed, self.reading, self.pauses = bytearray(), False, True, 0

    def get_extra_info(self, name, default=None):
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8080)}.get(name, default)

    def write(self, data) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        self.reading, self.pauses = False, self.pauses + 1

    def resume_reading(self) -> None:
        self.reading = True

    def taken(self) -> bytes:
        data, self.written = bytes(self.written), bytearray()
        return data


async def phone_app(scope, receive, send) -> None:
    """A page that accepts the phone and reads until it goes."""
    await receive()
    await send({"type": "websocket.accept"})
    while (await receive())["type"] != "websocket.disconnect":
        pass


async def connected(app) -> tuple[GuardedWebSocket, Wire, ClientProtocol]:
    """Our protocol serving `app`, a phone's websocket open on it."""
    config = uvicorn.Config(app, ws_per_message_deflate=False, log_level="warning")
    config.load()
    server = GuardedWebSocket(config=config, server_state=ServerState(), app_state={}, guard=Guard(LIMITS))
    wire, phone = Wire(), ClientProtocol(parse_uri("ws://127.0.0.1:8080/ws"))
    server.connection_made(wire)
    phone.send_request(phone.connect())
    server.data_received(b"".join(phone.data_to_send()))
    for _ in range(10):  # the app's task accepts
        await asyncio.sleep(0)
    phone.receive_data(wire.taken())
    assert phone.state is State.OPEN and server.handshake_complete
    return server, wire, phone


def test_a_phone_closing_as_the_console_stops_ends_the_server_without_a_traceback():
    async def stop_while_closing() -> Wire:
        server, wire, phone = await connected(phone_app)
        phone.send_close(1001)
        server.data_received(b"".join(phone.data_to_send()))  # answered, the connection not yet gone
        assert wire.closed and server.conn.state is not State.OPEN
        phone.receive_data(wire.taken())
        assert phone.close_rcvd is not None and phone.close_rcvd.code == 1001
        server.shutdown()  # uvicorn's Server.shutdown, for every connection it still holds
        return wire

    wire = asyncio.run(stop_while_closing())
    assert wire.closed and wire.taken() == b""  # no second close frame after the answer


def test_the_socket_is_read_on_until_the_app_falls_behind_and_again_once_it_has_caught_up():
    """uvicorn pauses the reading after every message (two system calls a tap); ours only once
    WAITING_MESSAGES wait for the app, and a phone that floods is held back all the same."""
    taken: list[str] = []
    go = asyncio.Event()

    async def slow_app(scope, receive, send) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        while True:
            await go.wait()
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            taken.append(message["text"])

    async def flood() -> None:
        server, wire, phone = await connected(slow_app)
        for count in range(1, 3 * WAITING_MESSAGES):  # the app reads none of them yet
            phone.send_text(f"tap {count}".encode())
            server.data_received(b"".join(phone.data_to_send()))
            assert wire.reading == (count < WAITING_MESSAGES), count
        assert wire.pauses == 1
        go.set()
        for _ in range(10 * WAITING_MESSAGES):
            await asyncio.sleep(0)
        assert wire.reading and len(taken) == 3 * WAITING_MESSAGES - 1  # all of them, in order
        assert taken == [f"tap {count}" for count in range(1, 3 * WAITING_MESSAGES)]
        for count in range(WAITING_MESSAGES):  # an app that keeps up: never paused again
            phone.send_text(b"tap")
            server.data_received(b"".join(phone.data_to_send()))
            for _ in range(5):
                await asyncio.sleep(0)
        assert wire.reading and wire.pauses == 1
        phone.send_close(1000)
        server.data_received(b"".join(phone.data_to_send()))
        await asyncio.sleep(0)

    asyncio.run(flood())


def test_a_view_is_one_text_frame_and_its_send_waits_while_the_phone_does_not_read():
    """A phone's writer sends its view with the ASGI send (`PhoneConnection._write`): one text
    frame the phone reads back as it was sent, and a send that waits while the transport takes no
    more (the writer of that phone alone waits), then writes."""
    opened: list = []

    async def app(scope, receive, send) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        opened.append(send)
        while (await receive())["type"] != "websocket.disconnect":
            pass

    async def play() -> None:
        server, wire, phone = await connected(app)
        asgi_send = opened[0]
        view = '{"t": "view", "game": {"cursor": "H15"}, "text": "caf\u00e9"}'
        phone.events_received()  # the handshake's answer
        server.pause_writing()  # the transport's buffer is full until the phone reads
        sending = asyncio.ensure_future(asgi_send({"type": "websocket.send", "text": view}))
        for _ in range(5):
            await asyncio.sleep(0)
        assert not sending.done() and wire.taken() == b""
        server.resume_writing()
        await sending
        phone.receive_data(wire.taken())
        assert [frame.data.decode() for frame in phone.events_received()] == [view]

    asyncio.run(play())

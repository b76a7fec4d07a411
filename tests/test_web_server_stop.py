"""The console stopping while a phone says goodbye: uvicorn's shutdown meets a websocket whose
close frame has just been answered. Driven byte by byte (websockets' own client protocol on one
side, our uvicorn protocol on the other) so the moment between the answer and the connection's
end, which a real socket hits only now and then, is hit every time."""

from __future__ import annotations

import asyncio

import uvicorn
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.protocol import State
from websockets.uri import parse_uri

from console.web.guard import Guard, GuardedWebSocket
from console.web.limits import LIMITS


class Wire(asyncio.Transport):
    """The server's side of one loopback connection: what it writes, and whether it closed."""

    def __init__(self) -> None:
        super().__init__()
        self.written, self.closed = bytearray(), False

    def get_extra_info(self, name, default=None):
        return {"peername": ("127.0.0.1", 50000), "sockname": ("127.0.0.1", 8080)}.get(name, default)

    def write(self, data) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def taken(self) -> bytes:
        data, self.written = bytes(self.written), bytearray()
        return data


async def phone_app(scope, receive, send) -> None:
    """A page that accepts the phone and reads until it goes."""
    await receive()
    await send({"type": "websocket.accept"})
    while (await receive())["type"] != "websocket.disconnect":
        pass


def test_a_phone_closing_as_the_console_stops_ends_the_server_without_a_traceback():
    async def stop_while_closing() -> Wire:
        config = uvicorn.Config(phone_app, ws_per_message_deflate=False, log_level="warning")
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
        phone.send_close(1001)
        server.data_received(b"".join(phone.data_to_send()))  # answered, the connection not yet gone
        assert wire.closed and server.conn.state is not State.OPEN
        phone.receive_data(wire.taken())
        assert phone.close_rcvd is not None and phone.close_rcvd.code == 1001
        server.shutdown()  # uvicorn's Server.shutdown, for every connection it still holds
        return wire

    wire = asyncio.run(stop_while_closing())
    assert wire.closed and wire.taken() == b""  # no second close frame after the answer

"""`sim --web` on a network address: /sim is the console itself (its frames include the joystick
giver's secret screen, its keys the quit), so only this computer's loopback gets it; from any
other address the page and its websocket are refused before a frame or a press, while /panel
(which never shows the secret) and the phones stay open. Asked of the real Starlette app with
the client address the server would see."""

from __future__ import annotations

import asyncio

import pytest

from console.web.hub import Hub
from console.web.panel import NOT_HERE, PanelStream, from_this_computer
from console.web.server import build_web_app
from hal.frame import Frame
from hal.inputs.events import EventQueue
from hal.layout import Layout, LayoutOptions
from hal.output import OutputStage
from tests.phones import in_own_loop

HOST = "192.0.2.2:8080"  # the laptop's address on the party's Wi-Fi


def console_routes():
    hub, events = Hub(), EventQueue()
    hub.publish_frame(Frame(32, 16))
    return build_web_app([PanelStream(hub, OutputStage(Layout(LayoutOptions())), events).routes()]), events


async def http_get(app, path: str, client: tuple[str, int]) -> tuple[int, bytes]:
    scope = {"type": "http", "http_version": "1.1", "method": "GET", "path": path, "raw_path": path.encode(),
             "query_string": b"", "headers": [(b"host", HOST.encode())], "client": client,
             "server": ("192.0.2.2", 8080), "scheme": "http", "root_path": ""}
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


async def websocket(app, path: str, client: tuple[str, int], texts: list[str]) -> list[dict]:
    """What the server sends a websocket that connects from `client` and sends `texts`."""
    scope = {"type": "websocket", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(b"host", HOST.encode()), (b"origin", f"http://{HOST}".encode())],
             "client": client, "server": ("192.0.2.2", 8080), "scheme": "ws", "root_path": "",
             "subprotocols": []}
    incoming = [{"type": "websocket.connect"}] + [{"type": "websocket.receive", "text": t} for t in texts]
    sent: list[dict] = []

    async def receive() -> dict:
        if incoming:
            return incoming.pop(0)
        await asyncio.sleep(0.05)  # let the writer send what it has
        return {"type": "websocket.disconnect", "code": 1000}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


@pytest.mark.parametrize("client", ["192.0.2.7", "fd00::7", "::ffff:192.0.2.7", "testclient"])
def test_sim_refuses_a_client_on_the_network_before_a_frame_or_a_press(client):
    app, events = console_routes()
    status, body = in_own_loop(http_get(app, "/sim", (client, 40000)))
    assert status == 403 and body.decode() == NOT_HERE
    sent = in_own_loop(websocket(app, "/sim/ws", (client, 40000), ['{"press": "quit"}', '{"press": "a"}']))
    assert [m["type"] for m in sent] == ["websocket.close"] and sent[0]["code"] == 1008
    assert events.drain() == []  # nothing from the network reached the console: no quit, no press


@pytest.mark.parametrize("client", ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"])
def test_sim_serves_this_computer(client):
    app, events = console_routes()
    status, body = in_own_loop(http_get(app, "/sim", (client, 40000)))
    assert status == 200 and b"/panel.js" in body
    sent = in_own_loop(websocket(app, "/sim/ws", (client, 40000), ['{"press": "a"}']))
    assert sent[0]["type"] == "websocket.accept" and any(m["type"] == "websocket.send" and m.get("bytes")
                                                         for m in sent)
    assert [(e.button, e.kind) for e in events.drain()] == [("a", "press")]


def test_the_spectator_view_stays_open_to_the_network():
    app, _ = console_routes()
    assert in_own_loop(http_get(app, "/panel", ("192.0.2.7", 40000)))[0] == 200
    sent = in_own_loop(websocket(app, "/panel/ws", ("192.0.2.7", 40000), []))
    assert sent[0]["type"] == "websocket.accept"


def test_only_loopback_counts_as_this_computer():
    class Client:
        def __init__(self, host):
            self.host = host

    assert from_this_computer(Client("127.0.0.1")) and from_this_computer(Client("::1"))
    assert not from_this_computer(Client("0.0.0.0")) and not from_this_computer(Client("192.168.1.2"))
    assert not from_this_computer(None) and not from_this_computer(Client("localhost"))

"""The panel in a browser: one dot per LED, in the colours the LEDs show, streamed as it changes.

A frame travels in WLED's live-view layout for a 2D matrix (wled00/ws.cpp, `sendLiveLedsWs`):
one binary websocket message, the byte 'L', the version 2, the width and the height, then an R,
G, B byte per LED, row by row from the top left. 4 + 1,536 bytes for the 32 x 16 panel, sent only
when it differs from the last one that connection got. The colours are `OutputStage.seen`: each
LED's light after brightness, gamma, the current limiter and the driver, restored to full
brightness and un-gammaed (WLED's own sends the colours before brightness and gamma), so the page
shows what the panel shows.

Routes (one page, `panel.html`, for all three):
  /panel, /panel/ws   the spectator view of the real panel (a second screen, a projector);
                      read-only: anything the page sends is refused but WLED's {"lv": true}, which
                      turns on a frame every 40 ms (also on the phones' /ws, where WLED's page connects)
  /sim, /sim/ws       with `hues-console sim --web`: the same page with the terminal
                      simulator's keys and on-screen buttons; presses go on the app's queue.
                      They are the console itself (the giver's secret screen, the quit key):
                      only for this computer (a loopback client), whatever address the server
                      listens on; from the network, /panel watches and the phones play

The spectator view shows what the panel shows to the room but two things meant only for those
at the table (`spectator_frame`): the round's secret (the joystick giver's card and the cell
under their finger; a guest could watch it on a phone under the table while the others look
away) is drawn as for anyone who does not hold it (a spectator never does: `render.shows_secret`),
and the room code (which proves a phone is in the room: /panel needs
no code, so anyone who can reach the box could read it there and join) is left out. The hub
pairs each frame with the state it was drawn from and its time, so nothing slips through at a
change.

Besides frames, a connection gets `{"t": "hint", "text": ..., "clues": [...]}`: the line the
terminal simulator shows under the panel (what the panel asks for, never a secret the panel itself
hides) and the round's clues as given (`record.clue_json`), which the page shows beside the board
as text.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import time
from dataclasses import replace
from typing import Any, Callable

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from console.game.record import clue_json
from console.view import font, screens
from console.view.hints import describe
from console.view.render import ROOM_CODE_Y, render, shows_secret
from console.web.hub import Hub, Snapshot, changed_event
from console.web.messages import live_view_switch, message_json
from console.web.pacing import DevicePacers, Pacer, read_paced
from console.web.limits import LIMITS, Limits, Pool
from console.web.phone_connection import POLICY_VIOLATION, client_address
from console.web.phones import asset, take_place
from console.web.server import origin_allowed
from hal.frame import Frame
from hal.inputs.events import BUTTONS, KINDS, QUIT, InputEvent
from hal.output import OutputStage

LIVE_VIEW_2D = b"L\x02"  # WLED live view: 'L', version 2 (a matrix: width and height follow)
# A WLED live-view client (one that sent {"lv": true}) gets the frame every 40 ms whether or not
# it changed, as WLED sends it (wled00/ws.cpp, WS_LIVE_INTERVAL): WLED's page clears its canvas
# on a resize and draws again only from the next frame.
LIVE_VIEW_S = 0.04
PAGE = "text/html; charset=utf-8"
ASSETS = {"/panel.js": ("panel.js", "text/javascript; charset=utf-8"),
          "/panel.css": ("panel.css", "text/css; charset=utf-8")}
SIM_RATE_PER_S = 60.0  # /sim's presses, repeats and releases: a held key repeats up to 50 times a second


class PanelMessageError(ValueError):
    """A message from the page that is not a button press or release the console knows."""


def live_view(width: int, height: int, rgb: bytes) -> bytes:
    """A frame as WLED's live-view message."""
    if not (0 < width < 256 and 0 < height < 256) or len(rgb) != 3 * width * height:
        raise ValueError(f"a live-view frame is at most 255 x 255 LEDs of 3 bytes, not {width}x{height}")
    return LIVE_VIEW_2D + bytes((width, height)) + rgb


def parse_press(text: str | None) -> tuple[str, str]:
    """(button, kind) from the page's `{"press": "up"}`, `{"repeat": "up"}` or `{"release": "up"}`."""
    try:
        message = message_json(text) if text is not None else None
    except ValueError:
        raise PanelMessageError("a message must be JSON like {\"press\": \"a\"}") from None
    if not isinstance(message, dict) or len(message) != 1:
        raise PanelMessageError("a message must be one of press, repeat or release with a button")
    (kind, button), = message.items()
    if kind not in KINDS:
        raise PanelMessageError(f"{kind!r} is not press, repeat or release")
    if button not in BUTTONS and button != QUIT:
        raise PanelMessageError(f"no button is called {button!r} (the buttons: {', '.join(BUTTONS)})")
    return button, kind


async def refuse(websocket: WebSocket, why: str) -> None:
    """A page's message not acted on, and why (the page shows it on its status line)."""
    await websocket.send_text(json.dumps({"t": "refused", "why": why}))


NOT_HERE = "the console's own controls are for this computer only: watch on /panel, play from a phone"


def from_this_computer(client: Any) -> bool:
    """Whether a request came over loopback (127.0.0.0/8, ::1, or 127.x mapped into IPv6)."""
    try:
        ip = ipaddress.ip_address(client.host.split("%", 1)[0])
    except (AttributeError, ValueError):  # no client (a unix socket) or a name: not known to be here
        return False
    return ip.is_loopback or (isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None
                              and ip.ipv4_mapped.is_loopback)


def spectator_frame(frame: Frame, snapshot: Snapshot, t: float) -> Frame:
    """The panel's `frame`, drawn from `snapshot` at `t`, as /panel shows it: as drawn for
    someone who does not hold the round's secret, and no room code."""
    game, ui = snapshot.game, snapshot.ui
    if shows_secret(ui):
        return render(game, replace(ui, seating=replace(ui.seating, secret=None)), t, frame.width, frame.height)
    if ui.room_code and ui.screen == "setup":
        return render(game, replace(ui, room_code=""), t, frame.width, frame.height)
    if ui.room_code and ui.screen == "idle" and _shows_code(frame):  # the board or the attract
        hidden = Frame(frame.width, frame.height, bytearray(frame.pixels))  # loop: its box stays
        screens.hide_room_code(hidden, ROOM_CODE_Y, ui.room_code)
        return hidden
    return frame


def _shows_code(frame: Frame) -> bool:
    """Whether the idle board's frame has the code's gold letters on it: the attract loop leaves
    the code off its points and scoreboard, which the code's box must not blank out there."""
    row = frame.width * 3
    gold = bytes(screens.GOLD)
    area = frame.pixels[ROOM_CODE_Y * row:(ROOM_CODE_Y + font.GLYPH_HEIGHT) * row]
    return any(area[i:i + 3] == gold for i in range(0, len(area), 3))


class Watcher:
    """One page watching the panel: its websocket, whether it asked for WLED's live view, and
    the wake-up of its writer."""

    def __init__(self, websocket: WebSocket, live: bool, wake: Callable[[], None]) -> None:
        self.websocket, self.live, self.wake = websocket, live, wake


class PanelStream:
    """The panel's frames for the browser: the hub's last frame as the LEDs show it, turned into
    a message once however many pages watch it. `events` (the app's queue) only for `sim --web`,
    whose page is also the console's controls."""

    def __init__(self, hub: Hub, stage: OutputStage, events: Any = None,
                 clock: Callable[[], float] = time.monotonic, limits: Limits = LIMITS) -> None:
        self.hub, self.stage, self.events, self.clock = hub, stage, events, clock  # the clock paces pages too
        self.pause: Callable[[float], Any] = asyncio.sleep  # a page past the rate waits this long to be read
        self.viewers = Pool(limits.viewers, limits.viewers_per_device, limits.local)
        self._spectators = DevicePacers(clock, local=limits.local)
        self._controls = DevicePacers(clock, SIM_RATE_PER_S, local=limits.local)
        self._page = asset("panel.html")
        self._assets = {path: (asset(name), kind) for path, (name, kind) in ASSETS.items()}
        self._encoded: dict[bool, tuple[Frame | None, bytes | None]] = {False: (None, None), True: (None, None)}

    def routes(self) -> list:
        routes = [Route("/panel", self.page), WebSocketRoute("/panel/ws", self.spectator)]
        routes += [Route(path, self.asset) for path in ASSETS]
        if self.events is not None:
            routes += [Route("/sim", self.controls_page), WebSocketRoute("/sim/ws", self.controls)]
        return routes

    async def page(self, request: Request) -> Response:
        return Response(self._page, media_type=PAGE)

    async def controls_page(self, request: Request) -> Response:
        if not from_this_computer(request.client):
            return PlainTextResponse(NOT_HERE, status_code=403)
        return await self.page(request)

    async def asset(self, request: Request) -> Response:
        body, kind = self._assets[request.url.path]
        return Response(body, media_type=kind)

    def frame_message(self, spectator: bool = False) -> bytes | None:
        """The last frame pushed to the panel as a live-view message (None before the first);
        for a `spectator`, the secret screen's frames as the hand-off screen."""
        frame, snapshot, t = self.hub.shown()
        if frame is None:
            return None
        shown, message = self._encoded[spectator]
        if frame is not shown:  # frames are never changed once published: the same object, the same message
            drawn = spectator_frame(frame, snapshot, t) if spectator else frame
            message = live_view(drawn.width, drawn.height, self.stage.seen(drawn))
            self._encoded[spectator] = (frame, message)
        return message

    def hint_message(self) -> str:
        snapshot = self.hub.snapshot
        clues = [] if snapshot.game is None else [clue_json(clue) for clue in snapshot.game.clues]
        return json.dumps({"t": "hint", "text": describe(snapshot.game, snapshot.ui), "clues": clues})

    async def spectator(self, websocket: WebSocket) -> None:
        await self._serve(websocket, self._spectate, self._spectators(client_address(websocket)), spectator=True)

    async def live_viewer(self, websocket: WebSocket) -> None:
        """A WLED live-view client that asked on the phones' /ws (where WLED's own page connects,
        `connectWs` in wled00/data/common.js): the spectator's frames every 40 ms."""
        await self._serve(websocket, self._spectate, self._spectators(client_address(websocket)), spectator=True,
                          live=True)

    async def controls(self, websocket: WebSocket) -> None:
        if not from_this_computer(websocket.client):  # before any frame: the secret screen is one
            await websocket.close(code=POLICY_VIOLATION, reason=NOT_HERE)
            return
        await self._serve(websocket, self._press, self._controls(client_address(websocket)))

    async def _serve(self, websocket: WebSocket, on_text: Callable[[Watcher, str | None], Any],
                     pacer: Pacer, spectator: bool = False, live: bool = False) -> None:
        """`live`: a live-view client on a websocket accepted already (the phones')."""
        if not (live or origin_allowed(websocket.headers)) or not take_place(self.viewers, websocket):
            await websocket.close(code=POLICY_VIOLATION)
            return
        if not live:
            await websocket.accept()
        changed, wake = changed_event()
        watcher = Watcher(websocket, live, wake)
        unsubscribe = self.hub.subscribe(wake)
        writer = asyncio.create_task(self._write(watcher, changed, spectator))
        try:
            await read_paced(websocket.receive, pacer, self.pause, lambda text: on_text(watcher, text),
                             lambda text, too_fast: refuse(websocket, str(too_fast)))
        finally:
            unsubscribe()
            writer.cancel()
            self.viewers.leave(websocket)

    async def _write(self, watcher: Watcher, changed: asyncio.Event, spectator: bool) -> None:
        """Send the frame and the hint whenever they change, the current ones first; to a live-view
        client, the frame every LIVE_VIEW_S as well."""
        websocket = watcher.websocket
        sent_frame, sent_hint = None, None
        try:
            while True:
                changed.clear()
                frame, hint = self.frame_message(spectator), self.hint_message()
                if frame is not None and (frame != sent_frame or watcher.live):
                    await websocket.send_bytes(frame)
                    sent_frame = frame
                if hint != sent_hint:
                    await websocket.send_text(hint)
                    sent_hint = hint
                if not watcher.live:
                    await changed.wait()
                    continue
                try:
                    await asyncio.wait_for(changed.wait(), LIVE_VIEW_S)
                except asyncio.TimeoutError:
                    pass
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass

    async def _spectate(self, watcher: Watcher, text: str | None) -> None:
        """WLED's live-view switch turns the 40 ms frames on or off; anything else is refused."""
        live = live_view_switch(text)
        if live is None:
            await refuse(watcher.websocket, "this panel is read-only")
            return
        watcher.live = live
        watcher.wake()

    async def _press(self, watcher: Watcher, text: str | None) -> None:
        try:
            button, kind = parse_press(text)
        except PanelMessageError as exc:
            await refuse(watcher.websocket, str(exc))
            return
        self.events.put(InputEvent(button, kind, self.clock()))

"""A stored game played back in the browser, step by step or in real time: /replay/<game id>
(/replay/last: the last finished one).

The page asks for the game's timeline (`view.timeline`: every scene with its start, length,
caption and the clues given by then) and then for the frame at the moments it shows, over a websocket: `{"t": 12.35}` gets
the frame at 12.35 s as a live-view message (see `panel`), sent only when it differs from the
last one, then `{"t": "shown", "at": 12.35}`. Real time is the page asking 20 times a second as
its clock runs; a step is a jump to a scene's start. Frames are drawn in the colours the LEDs
show, like the live panel.

The record is read on the store's own thread (`store.later`), never the panel's: a slow Redis
holds up the page, not the frames; the timelines of the last few games asked for are kept.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import OrderedDict
from typing import Any, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from console.game.record import clue_json
from console.game.rules import RuleError
from console.store.format import StoreError
from console.view.timeline import Timeline, stored_timeline
from console.web.messages import message_json
from console.web.pacing import DevicePacers, Throttle, read_paced
from console.web.panel import PAGE, live_view, refuse
from console.web.limits import LIMITS, Limits, Pool
from console.web.phone_connection import POLICY_VIOLATION, client_address
from console.web.phones import asset, take_place
from console.web.server import origin_allowed
from hal.output import OutputStage

GAME_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z_.:@-]{0,79}")  # the store's ids: 20240501-193012-a3f0
STORE_WAIT_S = 5.0
KEPT_TIMELINES = 4
MAX_FRAMES_PER_S = 60.0  # a page asks 20 a second in real time; past this it is paced (see pacing)
# All replay pages together: each frame is drawn in the interpreter the panel's loop shares, and
# twenty pages asking as fast as they could made the panel's frames up to 110 ms late (hence
# also `Limits.replays`).
ALL_FRAMES_PER_S = 120


class ReplayError(Exception):
    """A game that cannot be played back; str() is the page's one line."""


# /replay/last: the last finished game (the one the idle board's attract loop plays), for a
# laptop on `memory://`, where no other process can list the games (`history` finds none).
LAST = "last"


def _last_finished_id(store: Any) -> str:
    if not store.online:
        raise StoreError(f"the game store {store.url} cannot be reached")
    finished = (g for g in store.history(10) if g.get("status") == "finished" and g.get("game_id"))
    entry = next(finished, None)
    if entry is None:
        raise StoreError(f"no finished game is stored in {store.url} yet")
    return entry["game_id"]


def timeline_json(timeline: Timeline) -> dict:
    """Every scene's start, length and caption, and the round's clues as given by then (the page
    shows their words beside the board, as text: never markup)."""
    return {"duration": round(timeline.duration, 3),
            "scenes": [{"start": round(s.start, 3), "duration": s.duration, "caption": s.caption,
                        "clues": [clue_json(clue) for clue in s.game.clues]}
                       for s in timeline.scenes]}


def parse_time(text: str | None, duration: float) -> float:
    """The moment asked for by `{"t": seconds}`, within the game."""
    try:
        message = message_json(text) if text is not None else None
    except ValueError:
        message = None
    t = message.get("t") if isinstance(message, dict) else None
    if isinstance(t, bool) or not isinstance(t, (int, float)):  # finite and at most 2**53: `bounded`
        raise ReplayError("ask for a moment as {\"t\": seconds}")
    return min(max(0.0, float(t)), duration)


class ReplayRoom:
    """The replay pages of the stored games."""

    def __init__(self, stage: OutputStage, store: Any, clock: Callable[[], float] = time.monotonic,
                 limits: Limits = LIMITS) -> None:
        self.stage, self.store, self.clock = stage, store, clock  # the clock paces each page
        self.pause: Callable[[float], Any] = asyncio.sleep
        self._page = asset("panel.html")
        self._timelines: OrderedDict[str, Timeline] = OrderedDict()
        self.viewers = Pool(limits.replays, limits.replays_per_device, limits.local)
        self._pacers = DevicePacers(clock, MAX_FRAMES_PER_S, local=limits.local)
        self._all = Throttle(ALL_FRAMES_PER_S)

    def routes(self) -> list:
        return [Route("/replay/{game_id}", self.page), Route("/replay/{game_id}/timeline", self.timeline),
                WebSocketRoute("/replay/{game_id}/ws", self.websocket)]

    async def page(self, request: Request) -> Response:
        return Response(self._page, media_type=PAGE)

    async def timeline(self, request: Request) -> Response:
        try:
            return JSONResponse(timeline_json(await self.timeline_of(request.path_params["game_id"])))
        except ReplayError as exc:
            return JSONResponse({"error": str(exc)}, status_code=404)

    async def websocket(self, websocket: WebSocket) -> None:
        if not origin_allowed(websocket.headers) or not take_place(self.viewers, websocket):
            await websocket.close(code=POLICY_VIOLATION)
            return
        try:
            await websocket.accept()
            await self._play_back(websocket)
        finally:
            self.viewers.leave(websocket)

    async def _play_back(self, websocket: WebSocket) -> None:
        try:
            timeline = await self.timeline_of(websocket.path_params["game_id"])
        except ReplayError as exc:
            await refuse(websocket, str(exc))
            await websocket.close()
            return
        sent: bytes | None = None  # the frame the page has

        async def show(text: str | None) -> None:
            nonlocal sent
            try:
                sent = await self._show(websocket, timeline, text, sent)
            except ReplayError as exc:
                await refuse(websocket, str(exc))

        await read_paced(websocket.receive, self._pacers(client_address(websocket)), self.pause, show,
                         lambda text, too_fast: refuse(websocket, str(too_fast)))

    async def _show(self, websocket: WebSocket, timeline: Timeline, text: str | None, sent: bytes | None) -> bytes:
        """The frame at the moment `text` asks for, unless it is the one the page has (`sent`)."""
        t = parse_time(text, timeline.duration)
        await self._all.wait()
        frame = timeline.frame(t, self.stage.layout.width, self.stage.layout.height)
        message = live_view(frame.width, frame.height, self.stage.seen(frame))
        if message != sent:
            await websocket.send_bytes(message)
        await websocket.send_text(json.dumps({"t": "shown", "at": t}))
        return message

    async def timeline_of(self, game_id: str) -> Timeline:
        if not GAME_ID.fullmatch(game_id):
            raise ReplayError(f"{game_id[:80]!r} is not a game id (hues-console history lists them)")
        if game_id == LAST:
            game_id = await self._asked(_last_finished_id)
        timeline = self._timelines.get(game_id)
        if timeline is None:
            record = await self._record(game_id)
            try:
                timeline = stored_timeline(record)
            except RuleError as exc:
                raise ReplayError(f"game {game_id} cannot be played back: {exc}") from None
            self._timelines[game_id] = timeline
            while len(self._timelines) > KEPT_TIMELINES:
                self._timelines.popitem(last=False)
        return timeline

    async def _record(self, game_id: str) -> list:
        """The game's record, read on the store's thread."""
        return await self._asked(lambda store: store.export(game_id))

    async def _asked(self, reading) -> Any:
        """reading(store), on the store's own thread (never the panel's: a slow Redis must not
        hold up its frames); a StoreError is the page's ReplayError."""
        try:
            return await asyncio.wait_for(asyncio.wrap_future(self.store.later(reading)), STORE_WAIT_S)
        except StoreError as exc:
            raise ReplayError(str(exc)) from None
        except asyncio.TimeoutError:
            raise ReplayError("the console did not answer: try again") from None

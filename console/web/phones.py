"""The phones' routes: the page (plain HTML, JS and CSS from the package) and the websocket a
phone joins by, and the room of every phone connection (`phone_connection`), their seats and
what they share: the views, built once per change for all who see the same.

A connection is admitted by the room code the panel shows (rate-limited per address), takes a
free seat, and from then on is that seat; after a reload or a console restart the token the phone
kept brings the seat back without the code. Its player's intents are `Request`s to the app, done
by the same handler, engine and store as the joystick's; a refusal (the handler's or the engine's
message) comes back to the phone that asked.
"""

from __future__ import annotations

import asyncio
import json
import time
from importlib import resources
from typing import Any, Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from console.game.rules import MAX_PLAYERS
from console.game.seating import Seating
from console.play import ports
from console.web.colour_names import ColourNames
from console.web.hub import Hub
from console.web.pacing import DevicePacers
from console.web.limits import LIMITS, Attempts, Budgets, Limits, Pool
from console.game.clue import LANGUAGES, word_list
from console.web.phone_connection import POLICY_VIOLATION, PhoneConnection, client_address
from console.web.server import origin_allowed
from console.web.thinker import Stopping, Thinker
from console.web.views import ViewTexts
_JS, _CSS, _JSON = "text/javascript; charset=utf-8", "text/css; charset=utf-8", "application/json; charset=utf-8"
ASSETS = {"/": ("phone.html", "text/html; charset=utf-8"), "/phone.js": ("phone.js", _JS), "/phone.css": ("phone.css", _CSS),
          "/i18n.js": ("i18n.js", _JS), "/board.js": ("board.js", _JS), "/rules": ("rules.html", "text/html; charset=utf-8"),
          "/rules.js": ("rules.js", _JS), "/rules.css": ("rules.css", _CSS),
          **{f"/i18n/{code}.json": (f"i18n/{code}.json", _JSON) for code in LANGUAGES}}
SEAT_CHANGES = (10, 0.5)  # takes and leaves from one device: 10 at once, then one each 2 s
SWEEP_S = 1.0  # how often waiting phones are looked at for `admit_s`


def asset(name: str) -> bytes:
    return (resources.files("console.web") / "static" / name).read_bytes()


def languages_json() -> bytes:
    """The language switch's choices, each named in its own catalogue."""
    names = [{"code": code, "name": json.loads(asset(f"i18n/{code}.json"))["lang.name"]} for code in LANGUAGES]
    return json.dumps(names, ensure_ascii=False).encode()


def clue_words_json() -> bytes:
    """The words the clue check knows in each language, for the rules page (the README's table)."""
    words = {}
    for code in LANGUAGES:
        known = word_list(code)
        words[code] = {"colours": known.colours, "together": known.modifiers, "comparatives": known.comparatives,
                       "endings": known.endings}
    return json.dumps(words, ensure_ascii=False).encode()


class PhoneRoom:
    """Every phone connection of the console, their seats and the app's queue they talk to."""

    def __init__(self, hub: Hub, events: Any, attempts: Attempts, host_pin: str = "",
                 clock: Callable[[], float] = time.monotonic, *, limits: Limits = LIMITS) -> None:
        self.hub, self.events, self.attempts, self.host_pin = hub, events, attempts, host_pin
        self.clock = clock  # paces each phone's messages (see pacing)
        self.pause: Callable[[float], Any] = asyncio.sleep  # a phone past the rate waits this long to be read
        self.phones: set[PhoneConnection] = set()
        self._views: tuple[Any, ViewTexts | None] = (None, None)  # (snapshot, the views built from it so far)
        # WLED's live view on /ws (set by the wiring to the panel's stream): a client whose first
        # message is {"lv": true} is served the panel's frames instead of a seat
        self.live_view: Callable[[WebSocket], Awaitable[None]] | None = None
        self.limits = limits
        self.waiting = Pool(limits.waiting, limits.phones_per_device, limits.local)  # not admitted yet
        # every phone connection: the waiting, the admitted and the seats' own tokens coming back
        self._door = Pool(limits.waiting + limits.phones + MAX_PLAYERS, limits.phones_per_device, limits.local)
        self._sweeper: asyncio.Task | None = None
        self.seat_changes = Budgets(*SEAT_CHANGES, clock)  # per device
        self.pacers = DevicePacers(clock, local=limits.local)
        self._assets = {path: (asset(name), kind) for path, (name, kind) in ASSETS.items()}
        self._assets["/i18n/languages.json"] = (languages_json(), _JSON)
        self._assets["/clue-words.json"] = (clue_words_json(), _JSON)
        # slow reads off the event loop: the wiring gives it the computer players' thread
        self.thinker = Thinker()
        self.colour_names = ColourNames(self.thinker)  # each cell's colour name, per language: built when first asked

    def routes(self) -> list:
        return ([Route(path, self.page) for path in self._assets]
                + [Route(f"/colour-names/{code}.json", self.colour_names_page) for code in LANGUAGES]
                + [WebSocketRoute("/ws", self.websocket)])

    async def page(self, request: Request) -> Response:
        body, kind = self._assets[request.url.path]
        return Response(body, media_type=kind)

    async def colour_names_page(self, request: Request) -> Response:
        """The 480 cells' colour names in a language (the phone's "name the colours" setting)."""
        lang = request.url.path.removeprefix("/colour-names/").removesuffix(".json")
        try:
            return Response(await self.colour_names.json(lang), media_type=_JSON)
        except Stopping:
            return Response("the box is stopping", status_code=503, media_type="text/plain; charset=utf-8")

    async def websocket(self, websocket: WebSocket) -> None:
        """A phone comes in if its device has fewer than `phones_per_device` connections, and
        waits (at most `admit_s`) among at most `waiting` others until it gives the room code or
        its seat's token; a full waiting room makes room for it (see `limits.Pool`)."""
        self.sweep()
        phone = PhoneConnection(self, websocket)
        address = client_address(websocket)
        if not origin_allowed(websocket.headers) or not self._door.enter(address, phone)[0]:
            await websocket.close(code=POLICY_VIOLATION)
            return
        entered, pushed = self.waiting.enter(address, phone)
        if not entered:
            self._door.leave(phone)
            await websocket.close(code=POLICY_VIOLATION)
            return
        push_out(pushed, "too many phones are waiting to join: reconnect")
        self.phones.add(phone)
        try:
            await websocket.accept()
            self._sweep_while_waiting()
            await phone.run()
        finally:
            self.phones.discard(phone)
            self._door.leave(phone)
            self.waiting.leave(phone)

    @property
    def admitted_phones(self) -> int:
        return len(self._door) - len(self.waiting)

    def sweep(self) -> None:
        """Close the connections that have waited `admit_s` without the code (the page
        reconnects by itself: a guest still typing loses nothing)."""
        now = self.clock()
        late = [phone for phone in self.waiting if now - phone.since >= self.limits.admit_s]
        for phone in late:
            self.waiting.leave(phone)
            push_out(phone, f"no room code in {self.limits.admit_s:.0f} s: reconnect")

    def _sweep_while_waiting(self) -> None:
        if self._sweeper is None or self._sweeper.done():
            self._sweeper = asyncio.get_running_loop().create_task(self._sweeping())

    async def _sweeping(self) -> None:
        while len(self.waiting):
            await asyncio.sleep(SWEEP_S)
            self.sweep()

    def seating(self) -> Seating:
        """Who holds each seat, as the app last published it."""
        return self.hub.snapshot.ui.seating

    def view_text(self, seat: int | None, host: bool, digest: str | None) -> str:
        """The view of the hub's latest snapshot as sent to the phone in `seat` holding it with the
        token of `digest`: built once per snapshot for every phone that sees the same (a tap
        reaches 32 phones with a dozen views built, not 32). Whether the phone holds the round's
        secret is part of what it sees: no view built for the holder goes to anyone else."""
        snap = self.hub.snapshot
        seating = snap.ui.seating
        built_from, views = self._views
        if built_from is not snap:
            views = ViewTexts(snap.game, snap.ui, before=views)
            self._views = (snap, views)
        if seat is None or seating.holder(seat) != digest:  # a token that no longer holds this seat holds nothing
            digest = None
        playing = None if snap.game is None or snap.game.phase == "game_over" else snap.game.players
        return views.text(seat, digest=digest, host=host, taken=seating.taken,
                          open_seats=seating.open_seats(len(snap.ui.colors), playing),
                          host_pin=bool(self.host_pin), host_seat=seating.host_seat)

    def request(self, request: ports.Request) -> None:
        """A phone's request, for the app's loop: done there as the joystick's presses are."""
        self.events.put(request)


def take_place(pool: Pool, websocket: WebSocket) -> bool:
    """Whether a page's websocket (not yet accepted) gets a place in `pool`; the one whose place
    it took, if any, is closed."""
    entered, pushed = pool.enter(client_address(websocket), websocket)
    push_out(pushed, "a page from another device needs the place: reload")
    return entered


def push_out(connection: Any, why: str) -> None:
    """Close a connection whose place was given to another (`limits.Pool`) or that waited too
    long, in a task of its own; it may be gone already."""
    if connection is None:
        return

    async def close() -> None:
        try:
            await connection.close(code=POLICY_VIOLATION, reason=why)
        except (RuntimeError, OSError, WebSocketDisconnect):
            pass

    asyncio.get_running_loop().create_task(close())

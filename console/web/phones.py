"""The phones' routes: the page (plain HTML, JS and CSS from the package) and the websocket that
joins a seat, sends the seat's view after every change, and passes taps on to the app loop.

A connection is admitted by the room code the panel shows (rate-limited per address), takes a
free seat, and from then on is that seat; after a reload or a console restart the token the phone
kept brings the seat back without the code. Game requests go on the app's event queue as
`RemoteCommand`s, so the same controller, engine and store apply them as the joystick's presses;
a refusal (the engine's message) comes back to the phone that asked.

What the server sends (JSON text messages, `t` says which; the page's protocol):
  {"t": "board", "rows", "cols", "colors", "pawns"}    first, the same for everyone (views.board_message)
  {"t": "view", ...}                                   after every change: views.seat_view's shape
  {"t": "admitted"}                                    the room code was right
  {"t": "seated", "seat": N[, "token": T]}             this phone is colour N (the token only on a take)
  {"t": "unseated", "seat": N, "why": text}            this phone lost colour N: the host handed it to
                                                       the joystick, or its token went to another phone
  {"t": "refused", "n": N, "why": text}                message N was not acted on, and why
What a phone sends is in messages.FIELDS. The round's card and target reach only the phone whose
token the round was dealt to (play/secret.py): a view is built for the token a connection holds
its seat with, never for the seat alone.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import time
from collections import deque
from importlib import resources
from typing import Any, Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from console.play.remote import HOST_VERBS, VERBS as GAME_VERBS, RemoteCommand, SeatsHeld
from console.web.hub import Hub
from console.web.messages import Message, MessageError, live_view_switch, message_json, parse_message
from console.web.pacing import DevicePacers, TooFast
from console.web.limits import LIMITS, Attempts, Budgets, Limits, Pool, device, is_local
from console.web.seats import SeatBook, SeatError, is_token, token_digest
from console.web.server import origin_allowed
from console.web.views import ViewTexts, board_message

log = logging.getLogger("hues-console")
LANGUAGES = ("en", "it", "cs", "ro", "es", "vi")  # English and the languages the rules reached us in
_JS, _CSS, _JSON = "text/javascript; charset=utf-8", "text/css; charset=utf-8", "application/json; charset=utf-8"
ASSETS = {"/": ("phone.html", "text/html; charset=utf-8"), "/phone.js": ("phone.js", _JS), "/phone.css": ("phone.css", _CSS),
          "/i18n.js": ("i18n.js", _JS), "/board.js": ("board.js", _JS), "/rules": ("rules.html", "text/html; charset=utf-8"),
          "/rules.js": ("rules.js", _JS), "/rules.css": ("rules.css", _CSS),
          **{f"/i18n/{code}.json": (f"i18n/{code}.json", _JSON) for code in LANGUAGES}}
SEAT_CHANGES = (10, 0.5)  # takes and leaves from one device: 10 at once, then one each 2 s
SWEEP_S = 1.0  # how often waiting phones are looked at for `admit_s`
MAX_OUTBOX = 32  # messages waiting for a phone that does not read them: past this it is dropped
POLICY_VIOLATION = 1008  # websocket close code: the Origin is not this server's


def asset(name: str) -> bytes:
    return (resources.files("console.web") / "static" / name).read_bytes()


def languages_json() -> bytes:
    """The language switch's choices, each named in its own catalogue."""
    names = [{"code": code, "name": json.loads(asset(f"i18n/{code}.json"))["lang.name"]} for code in LANGUAGES]
    return json.dumps(names, ensure_ascii=False).encode()


class PhoneRoom:
    """Every phone connection of the console, their seats and the app's queue they talk to."""

    def __init__(self, hub: Hub, events: Any, book: SeatBook, attempts: Attempts, host_pin: str = "",
                 clock: Callable[[], float] = time.monotonic, *,
                 keep_seats: Callable[[list], None] | None = None, limits: Limits = LIMITS,
                 take_request: Callable[[RemoteCommand], None] | None = None) -> None:
        self.hub, self.events, self.book, self.attempts, self.host_pin = hub, events, book, attempts, host_pin
        # The app's `take_request` (a request done in this thread as it comes); without an app,
        # the queue's put
        self.take_request = take_request or events.put
        # `SeatWriter.save` (never the app's thread: see seat_writer); None: seats are not kept
        self.keep_seats = keep_seats or (lambda saved: None)
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
        self._door = Pool(limits.waiting + limits.phones + book.seats, limits.phones_per_device, limits.local)
        self._sweeper: asyncio.Task | None = None
        self.seat_changes = Budgets(*SEAT_CHANGES, clock)  # per device
        self.pacers = DevicePacers(clock, local=limits.local)
        self._assets = {path: (asset(name), kind) for path, (name, kind) in ASSETS.items()}
        self._assets["/i18n/languages.json"] = (languages_json(), _JSON)

    def routes(self) -> list:
        return [Route(path, self.page) for path in self._assets] + [WebSocketRoute("/ws", self.websocket)]

    async def page(self, request: Request) -> Response:
        body, kind = self._assets[request.url.path]
        return Response(body, media_type=kind)

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

    def view_text(self, seat: int | None, host: bool, digest: str | None) -> str:
        """The view of the hub's latest snapshot as sent to the phone in `seat` holding it with the
        token of `digest`: built once per snapshot for every phone that sees the same (a tap
        reaches 32 phones with a dozen views built, not 32). Whether the phone holds the round's
        secret is part of what it sees: no view built for the holder goes to anyone else."""
        snap, book = self.hub.snapshot, self.book
        built_from, views = self._views
        if built_from is not snap:
            views = ViewTexts(snap.game, snap.ui, before=views)
            self._views = (snap, views)
        if book.digest_of(seat) != digest:  # a token that no longer holds this seat holds nothing
            digest = None
        playing = None if snap.game is None or snap.game.phase == "game_over" else snap.game.players
        taken, open_seats, host_seat = book.seating(playing)
        return views.text(seat, digest=digest, host=host, taken=taken, open_seats=open_seats,
                          host_pin=bool(self.host_pin), host_seat=host_seat)

    def seats_changed(self) -> None:
        """Keep the seats in the store, tell the app which seats phones hold, and show every
        phone who sits where."""
        self.keep_seats(self.book.saved())
        self.events.put(SeatsHeld(self.book.holders))
        for phone in self.phones:
            phone.wake()


def client_address(websocket: WebSocket) -> str:
    return websocket.client.host if websocket.client else "?"


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


def refusal(n: int | None, exc: Exception) -> dict:
    """The message refusing message `n`: the English text, and the catalogue key the phone shows
    in its language with the key's parameters (a message the box cannot read is `bad_message`)."""
    key = "slow_down" if isinstance(exc, TooFast) else getattr(exc, "key", "bad_message")
    return {"t": "refused", "n": n, "why": str(exc), "key": key, "args": getattr(exc, "params", {})}


def _same(given: str, secret: str) -> bool:
    """In constant time; as bytes, since compare_digest refuses non-ASCII text with a TypeError."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), secret.encode())


class PhoneConnection:
    """One phone: a reader task for its messages, a writer task for what it is sent."""

    def __init__(self, room: PhoneRoom, websocket: WebSocket) -> None:
        self.room, self.websocket = room, websocket
        self.loop = asyncio.get_running_loop()
        self.outbox: deque[dict | None] = deque()  # None: send the view if it changed
        self._waiting: asyncio.Future | None = None  # the writer's, while the outbox is empty
        self.since = room.clock()
        self._admitted = False
        self.seat: int | None = None
        self.digest: str | None = None  # the digest of the token this phone holds its seat with
        self.pin_host = False
        self.last_n = 0
        self._last_view = ""
        self._woken = False
        self.flooded = False
        self.live_view = False  # the first message was WLED's {"lv": true}
        self.messages_read = 0  # what the phone sent, read so far (dropped ones too)
        self.pacer = room.pacers(client_address(websocket))
        self.address = client_address(websocket)  # whose wrong tries this phone's are

    @property
    def admitted(self) -> bool:
        """Whether it gave the room code or a seat's token: it no longer waits to join."""
        return self._admitted

    @admitted.setter
    def admitted(self, admitted: bool) -> None:
        self._admitted = admitted
        if admitted:
            self.room.waiting.leave(self)

    async def close(self, code: int, reason: str = "") -> None:
        await self.websocket.close(code=code, reason=reason)

    @property
    def host(self) -> bool:
        return self.pin_host or (self.seat is not None and self.seat == self.room.book.host_seat)

    def wake(self) -> None:
        if not self.admitted and self._last_view:
            return  # the page shows the code form until then: no view to build at each change
        if not self._woken:
            self._woken = True
            self._post(None)

    def send(self, message: dict) -> None:
        if len(self.outbox) >= MAX_OUTBOX:  # it floods us faster than it reads the answers
            self.flooded = True
            return
        self._post(message)

    def _post(self, message: dict | None) -> None:
        """Into the outbox, waking the writer if it waits. A future, not an asyncio.Queue: a tap
        wakes every phone's writer, and the queue's own bookkeeping was most of that."""
        self.outbox.append(message)
        waiting, self._waiting = self._waiting, None
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    async def run(self) -> None:
        unsubscribe = self.room.hub.subscribe(self.wake, self.loop, frames=False)  # not every blink
        writer = asyncio.create_task(self._write())
        self.send(board_message())
        self.wake()  # the first view: built like every later one (no separate initial state)
        try:
            await self._read()
        except (WebSocketDisconnect, RuntimeError, OSError):
            # the connection went while reading or closing (starlette's WebSocketDisconnected,
            # a RuntimeError, when the writer's send had already found it gone): no traceback
            pass
        finally:
            unsubscribe()
            writer.cancel()
        if self.live_view:  # no longer a phone waiting for the code: the panel's viewer now
            self.room.waiting.leave(self)
            await self.room.live_view(self.websocket)

    async def _write(self) -> None:
        try:
            while True:
                if not self.outbox:
                    self._waiting = self.loop.create_future()
                    await self._waiting
                    continue
                message = self.outbox.popleft()
                if message is None:
                    self._woken = False
                    text = self.room.view_text(self.seat, self.host, self.digest)
                    if text == self._last_view:
                        continue
                    self._last_view = text
                else:
                    text = json.dumps(message)
                await self.websocket.send_text(text)
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass

    async def _read(self) -> None:
        while True:
            raw = await self.websocket.receive()
            if raw["type"] == "websocket.disconnect":
                return
            self.messages_read += 1
            if self.messages_read == 1 and self.room.live_view and live_view_switch(raw.get("text")):
                self.live_view = True  # WLED's live view, not a phone: `run` hands it over
                return
            try:
                if self.pacer.take():
                    message = parse_message(raw.get("text"), self.last_n)
                    self.last_n = message.n
                    self._handle(message)
            except (MessageError, SeatError, TooFast) as exc:
                self.send(refusal(self._n_of(raw), exc))
            except Exception:  # a bug here must not end the phone's connection, nor reach it
                log.exception("a phone's message could not be handled")
                self.send(refusal(self._n_of(raw), SeatError("the box could not handle that message", "box_error")))
            if self.flooded:
                await self.websocket.close(code=POLICY_VIOLATION)
                return
            # The writer's turn: answers go out as messages come in; a phone past the rate is not
            # read again until it may send (see pacing).
            await self.room.pause(self.pacer.wait_s())

    @staticmethod
    def _n_of(raw: dict) -> int | None:
        try:
            n = message_json(raw.get("text") or "null").get("n")
        except (ValueError, AttributeError):
            return None
        return n if isinstance(n, int) and not isinstance(n, bool) else None

    def _handle(self, message: Message) -> None:
        verb, fields = message.verb, message.fields
        if verb == "resume":
            seat = self.room.book.find(fields["token"]) if is_token(fields["token"]) else None
            if seat is None:
                raise SeatError("this phone's seat is gone: join again with the code on the panel", "seat_gone")
            self._seated(seat, fields["token"], new=False)
            return
        if verb in ("join", "host"):
            self._check_secret(verb, fields)
            return
        if not self.admitted:
            raise SeatError("type the room code the panel shows first", "code_first")
        if verb in ("take", "leave", "free_seat"):
            self._seat_change()
        if verb == "take":
            if self.seat is not None:
                raise SeatError("this phone has a seat already (leave it first)", "has_seat")
            game = self.room.hub.snapshot.game
            token = self.room.book.take(fields["seat"], None if game is None or game.phase == "game_over"
                                        else game.players)
            self._seated(fields["seat"], token, new=True)
            return
        if verb in ("leave", "free_seat"):
            self._free(verb, fields)
            return
        if self.seat is None:
            raise SeatError("choose a colour first", "choose_colour")
        assert verb in GAME_VERBS
        self._command(message)

    def _check_secret(self, verb: str, fields: dict) -> None:
        """The room code (join) or the host PIN (host), each wrong guess counted."""
        wait = self.room.attempts.blocked(self.address)
        if wait > 0:
            raise SeatError(f"too many wrong tries: wait {int(wait) + 1} s", "too_many_tries", seconds=int(wait) + 1)
        if verb == "join":
            code = self.room.hub.snapshot.ui.room_code
            right = bool(code) and _same(fields["code"].strip().upper(), code)
        else:
            right = bool(self.room.host_pin) and _same(fields["pin"], self.room.host_pin)
        if not right:
            self.room.attempts.wrong(self.address)
            raise SeatError("that is not the code on the panel", "wrong_code") if verb == "join" else SeatError(
                "wrong host PIN", "wrong_pin")
        if verb == "join":
            if not self.admitted and self.room.admitted_phones >= self.room.limits.phones:
                raise SeatError(f"the room is full ({self.room.limits.phones} phones are in)", "room_full",
                                phones=self.room.limits.phones)
            self.admitted = True
            self.wake()
            self.send({"t": "admitted"})
        else:
            self.pin_host = True
            self.wake()

    def _seated(self, seat: int, token: str, new: bool) -> None:
        """A seat is one phone's: a token brought back on another phone (a reload whose old
        connection has not closed yet, or a copied token) moves the seat there, and the phone
        that had it is told so; two phones never both get a giver's card."""
        for other in self.room.phones:
            if other is not self and other.seat == seat:
                other._unseated(SeatError("this colour was taken up on another phone", "taken_elsewhere"))
        self.admitted, self.seat, self.digest = True, seat, token_digest(token)
        reply: dict = {"t": "seated", "seat": seat}
        if new:
            reply["token"] = token
        self.send(reply)
        if new:
            self.room.seats_changed()
        else:
            self.wake()

    def _unseated(self, why: SeatError) -> None:
        """This phone lost its colour, and is told why (as a refusal is: the text, its key)."""
        if self.seat is not None:
            self.send(dict(refusal(None, why), t="unseated", seat=self.seat))
        self.seat = self.digest = None
        self.wake()

    def _seat_change(self) -> None:
        """Seat changes are paced per device: each is a view for every phone and a write to the
        store, and six phones taking and leaving seats as fast as they could send made every
        phone's taps 40 ms late. This machine's own pages (`limits.local`) are one user."""
        if is_local(self.address, self.room.limits.local):
            return
        changes, who = self.room.seat_changes, device(self.address)
        wait = changes.wait(who)
        if wait > 0:
            raise SeatError(f"too many seat changes: wait {int(wait) + 1} s", "slow_down")
        changes.take(who)

    def _free(self, verb: str, fields: dict) -> None:
        """Leave this phone's seat (the joystick plays it on), or the host's hand-over of any seat:
        a phone's to the joystick (and that phone is told), the joystick's to the next phone."""
        if verb == "free_seat" and not self.host:
            raise SeatError("only the host can free another phone's seat", "host_only")
        seat = self.seat if verb == "leave" else fields["seat"]
        if seat is None:
            raise SeatError("this phone has no seat to leave", "no_seat")
        if verb == "leave":
            self.room.book.free(seat)
        elif not self.room.book.hand_over(seat):
            self.room.seats_changed()  # opened for a phone: nobody loses a seat
            return
        for phone in self.room.phones:
            if phone.seat == seat:
                if phone is self and verb == "leave":
                    phone.seat = phone.digest = None
                    phone.wake()
                else:
                    phone._unseated(SeatError("the host handed this colour to the joystick", "handed_to_joystick"))
        self.room.seats_changed()

    def _command(self, message: Message) -> None:
        fields = message.fields
        options: tuple = ()
        if message.verb == "new_game":
            options = (fields["players"], fields["variant"], fields["first_giver"])
        elif message.verb == "brightness":
            options = (fields["delta"],)
        command = RemoteCommand(
            seat=self.seat, verb=message.verb, cell=fields.get("cell"), options=options,
            host=self.host if message.verb in HOST_VERBS else False, reply=self._replier(message.n),
            digest=self.digest)
        # Done here and published: the hub has woken the phones' writers, whose turns come
        # before this call's. The loop draws the panel's frame after them: woken sooner, its
        # thread would take the interpreter at the writers' first system call and draw first.
        self.room.take_request(command)
        self.loop.call_soon(self.room.events.wake)

    def _replier(self, n: int) -> Callable[[Exception | None], None]:
        """Called under the app's lock (in its thread or this one): a refusal goes back to this
        phone through its loop."""

        def reply(why: Exception | None) -> None:
            if why is None:
                return
            try:
                self.loop.call_soon_threadsafe(self.send, refusal(n, why))
            except RuntimeError:  # the server has stopped
                pass

        return reply

"""One phone's websocket: what it sends, checked and acted on; what it is sent, in order.

What the server sends (JSON text messages, `t` says which; the page's protocol):
  {"t": "board", "rows", "cols", "colors", "pawns"}    first, the same for everyone (views.board_message)
  {"t": "view", ...}                                   after every change: views.seat_view's shape
  {"t": "admitted"}                                    the room code was right
  {"t": "seated", "seat": N[, "token": T]}             this phone is colour N (the token only on a take)
  {"t": "unseated", "seat": N, "why": text}            this phone lost colour N: the host handed it to
                                                       the joystick, or its token went to another phone
  {"t": "refused", "n": N, "why": text}                message N was not acted on, and why
What a phone sends is in messages.FIELDS: the connection's own verbs (the room code, the host
PIN, a seat's token brought back) are this module's; every other is its player's intent, done by
the app (`table.act`) as the joystick's are. The round's card and target reach only the phone
whose token the round was dealt to (game/seating.py): a view is built for the token a connection
holds its seat with, never for the seat alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import json
import logging
from collections import deque
from typing import Any, Callable

from starlette.websockets import WebSocket, WebSocketDisconnect

from console.game.board import RuleError
from console.game.clue import prepare
from console.play import intents
from console.play.intents import Player, Refusal
from console.play.ports import Request
from console.web.messages import Message, MessageError, live_view_switch, message_json, parse_message
from console.web.pacing import TooFast, read_paced
from console.web.limits import device, is_local
from console.web.thinker import Stopping
from console.web.seats import is_token, new_token, token_digest
from console.web.views import board_message

log = logging.getLogger("hues-console")
MAX_OUTBOX = 32  # messages waiting for a phone that does not read them: past this it is dropped
POLICY_VIOLATION = 1008  # websocket close code: the Origin is not this server's


def client_address(websocket: WebSocket) -> str:
    return websocket.client.host if websocket.client else "?"


def refusal(n: int | None, exc: Exception) -> dict:
    """The message refusing message `n`: the English text, and the catalogue key the phone shows
    in its language with the key's parameters (a message the box cannot read is `bad_message`)."""
    key = "slow_down" if isinstance(exc, TooFast) else getattr(exc, "key", "bad_message")
    return {"t": "refused", "n": n, "why": str(exc), "key": key, "args": getattr(exc, "params", {})}


def _same(given: str, secret: str) -> bool:
    """In constant time; as bytes, since compare_digest refuses non-ASCII text with a TypeError."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), secret.encode())


class PhoneConnection:
    """One phone: a reader task for its messages, a writer task for everything it is sent, in
    order: the answers and its view, built when the writer comes to it (the newest then)."""

    def __init__(self, room: Any, websocket: WebSocket) -> None:  # the phones.PhoneRoom it is in
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
        self._woken = False  # a view is owed: None waits in the outbox
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
        return self.pin_host or (self.seat is not None and self.seat == self.room.seating().host_seat)

    def wake(self) -> None:
        """The phone is owed its view: its writer sends it after what waits in its outbox."""
        if not self.admitted and self._last_view:
            return  # the page shows the code form until then: no view to build at each change
        if self._woken:
            return
        self._woken = True
        self._post(None)

    def send(self, message: dict) -> None:
        if len(self.outbox) >= MAX_OUTBOX:  # it floods us faster than it reads the answers
            self.flooded = True
            return
        self._post(message)

    def _post(self, message: dict | None) -> None:
        """Into the outbox, waking the writer if it waits. A future, not an asyncio.Queue: the
        queue's own bookkeeping was most of a writer's wake-up."""
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
            await read_paced(self._receive, self.pacer, self.room.pause, self._on_text, self._too_fast)
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
                    await self._send_view()
                else:
                    await self.websocket.send_text(json.dumps(message))
        except (WebSocketDisconnect, RuntimeError, OSError):
            pass

    async def _send_view(self) -> None:
        """The view as it stands now, unless it is the one sent last. A bug met building it is
        logged and the phone gets the next one: it must not end this phone's writer."""
        self._woken = False
        try:
            view = self.room.view_text(self.seat, self.host, self.digest)
        except Exception:
            log.exception("a phone's view could not be sent")
            return
        if view != self._last_view:
            self._last_view = view
            await self.websocket.send_text(view)

    async def _receive(self) -> dict:
        raw = await self.websocket.receive()
        if raw["type"] == "websocket.receive":
            self.messages_read += 1
        return raw

    async def _on_text(self, text: str | None) -> bool:
        """One message the pacer let through, handled or refused; True: no more are read (WLED's
        live view, which `run` hands over; a phone that floods without reading, closed)."""
        if self.messages_read == 1 and self.room.live_view and live_view_switch(text):
            self.live_view = True
            return True
        try:
            message = parse_message(text, self.last_n)
            self.last_n = message.n
            if self.admitted and message.verb == "clue" and message.intent.text:
                # The check reads a language's word lists the first time (Vietnamese's are large):
                # here, on the room's thinker, rather than on the app's loop with the panel waiting.
                with contextlib.suppress(Stopping):  # the box is stopping: nobody acts on the clue
                    await self.room.thinker.run(prepare, message.intent.lang)
            self._handle(message)
        except (MessageError, RuleError) as exc:
            self.send(refusal(self._n_of(text), exc))
        except Exception:  # a bug here must not end the phone's connection, nor reach it
            log.exception("a phone's message could not be handled")
            self.send(refusal(self._n_of(text), Refusal("box_error", "the box could not handle that message")))
        if self.flooded:
            await self.websocket.close(code=POLICY_VIOLATION)
            return True
        return False

    async def _too_fast(self, text: str | None, too_fast: TooFast) -> None:
        self.send(refusal(self._n_of(text), too_fast))

    @staticmethod
    def _n_of(text: str | None) -> int | None:
        try:
            n = message_json(text or "null").get("n")
        except (ValueError, AttributeError):
            return None
        return n if isinstance(n, int) and not isinstance(n, bool) else None

    def _handle(self, message: Message) -> None:
        verb, fields = message.verb, message.fields
        if verb == "resume":
            seat = self.room.seating().seat_of(token_digest(fields["token"])) if is_token(fields["token"]) else None
            if seat is None:
                raise Refusal("seat_gone", "this phone's seat is gone: join again with the code on the panel")
            self._seated(seat, fields["token"], new=False)
            return
        if verb in ("join", "host"):
            self._check_secret(verb, fields)
            return
        if not self.admitted:
            raise Refusal("code_first", "type the room code the panel shows first")
        intent = message.intent
        if isinstance(intent, intents.SEAT_INTENTS):
            self._seat_change()
        token = None
        if isinstance(intent, intents.TakeSeat):
            if self.seat is not None:
                raise Refusal("has_seat", "this phone has a seat already (leave it first)")
            token = new_token()  # the seat's, once the app has seated this phone's player there
        player = Player(token_digest(token) if token else self.digest, self.seat, self.pin_host)
        self.room.request(Request(player, intent, self._replier(message.n, intent, token)))

    def _check_secret(self, verb: str, fields: dict) -> None:
        """The room code (join) or the host PIN (host), each wrong guess counted."""
        wait = self.room.attempts.blocked(self.address)
        if wait > 0:
            raise Refusal("too_many_tries", f"too many wrong tries: wait {int(wait) + 1} s", seconds=int(wait) + 1)
        if verb == "join":
            code = self.room.hub.snapshot.ui.room_code
            right = bool(code) and _same(fields["code"].strip().upper(), code)
        else:
            right = bool(self.room.host_pin) and _same(fields["pin"], self.room.host_pin)
        if not right:
            self.room.attempts.wrong(self.address)
            if verb == "join":
                raise Refusal("wrong_code", "that is not the code on the panel")
            raise Refusal("wrong_pin", "wrong host PIN")
        if verb == "join":
            if not self.admitted and self.room.admitted_phones >= self.room.limits.phones:
                raise Refusal("room_full", f"the room is full ({self.room.limits.phones} phones are in)",
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
                other._unseated(Refusal("taken_elsewhere", "this colour was taken up on another phone"))
        self.admitted, self.seat, self.digest = True, seat, token_digest(token)
        reply: dict = {"t": "seated", "seat": seat}
        if new:
            reply["token"] = token
        self.send(reply)
        if not new:  # a new seat is the app's change: its state, published next, wakes every phone
            self.wake()

    def _unseated(self, why: Refusal, wake: bool = True) -> None:
        """This phone lost its colour, and is told why (as a refusal is: the text, its key);
        `wake`: its view follows now (else the app's state published next brings it)."""
        if self.seat is not None:
            self.send(dict(refusal(None, why), t="unseated", seat=self.seat))
        self.seat = self.digest = None
        if wake:
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
            raise Refusal("slow_down", f"too many seat changes: wait {int(wait) + 1} s")
        changes.take(who)

    def _done(self, intent: intents.Intent, token: str | None) -> None:
        """What the connections know of the seats after a seat intent was done (before the app
        publishes the state it made, which wakes every phone for its view)."""
        if isinstance(intent, intents.TakeSeat):
            self._seated(intent.seat, token, new=True)
        elif isinstance(intent, intents.LeaveSeat):
            self.seat = self.digest = None
        elif isinstance(intent, intents.HandOver):  # a phone's colour goes to the joystick
            for phone in self.room.phones:
                if phone.seat == intent.seat:
                    phone._unseated(Refusal("handed_to_joystick", "the host handed this colour to the joystick"),
                                    wake=False)

    def _replier(self, n: int, intent: intents.Intent, token: str | None) -> Callable[[Exception | None], None]:
        """Called in the app's thread: the refusal, or what a seat intent changed, reaches this
        phone through its own loop, before the state the request made wakes the phones (the app
        publishes it after the reply)."""

        def reply(why: Exception | None) -> None:
            if why is None and not isinstance(intent, intents.SEAT_INTENTS):
                return
            answer = functools.partial(self.send, refusal(n, why)) if why is not None else functools.partial(
                self._done, intent, token)
            try:
                self.loop.call_soon_threadsafe(answer)
            except RuntimeError:  # the server has stopped
                pass

        return reply

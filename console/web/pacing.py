"""How fast a page may send: one pacing for every websocket (phones, /panel, /sim, replays).

The server shares the interpreter with the panel's loop, so whatever a page sends costs the loop
too: a flood of refusals on /panel took 50 % of a core and made phones' taps 660 ms late (p99).
Each connection gets a token bucket; past it, one message is refused with the reason, the rest
are dropped unread until there is room, and the connection is not read again until it may send:
what it sends meanwhile waits in the socket (TCP then holds the sender back: uvicorn pauses
reading a websocket's transport after each message until the app receives it,
websockets_sansio_impl.py `send_receive_event_to_app` and `receive`). A flood so costs no more
than a page at the rate (four flooding phones made the loop's frame gaps p99 36 ms, max 110 ms;
paced, 21 and 29 ms). `read_paced` is that receive loop, for every page.
"""

from __future__ import annotations

import asyncio
import math
from collections import OrderedDict
from typing import Any, Awaitable, Callable

from starlette.websockets import WebSocketDisconnect

from console.web.limits import LOCAL, Bucket, device, is_local, remembered

RATE_PER_S, BURST = 30.0, 60  # a person taps a few a second; a page's own bursts fit in 60
TOO_FAST = "too many messages: slow down (until then, messages are dropped)"


class TooFast(Exception):
    """The first message past the rate: the page is told, once, that it is being dropped."""


class Pacer:
    """`burst` messages at once, `rate` a second after that (a `Bucket` on `clock`); past them, the
    first message is refused and the rest dropped until the page slows down."""

    def __init__(self, clock: Callable[[], float], rate: float = RATE_PER_S, burst: int = BURST) -> None:
        self.clock = clock
        self._bucket = Bucket(burst, rate, clock())
        self._told = False

    def take(self) -> bool:
        """True: handle the message just read. False: drop it. TooFast: refuse it (the first
        one past the rate)."""
        now = self.clock()
        if self._bucket.wait(now) > 0:
            if self._told:
                return False
            self._told = True
            raise TooFast(TOO_FAST)
        if self._bucket.level(now) >= 2:  # it slowed down: should it flood again, it is told again
            self._told = False
        self._bucket.take(now)
        return True

    def wait_s(self) -> float:
        """How long until the next message may be read (0: at once)."""
        return self._bucket.wait(self.clock())


async def read_paced(receive: Callable[[], Awaitable[dict]], pacer: Pacer, pause: Callable[[float], Awaitable[Any]],
                     handle: Callable[[str | None], Awaitable[bool | None]],
                     refuse: Callable[[str | None, TooFast], Awaitable[None]]) -> None:
    """The receive loop of every websocket: each message `receive()` reads that the pacer lets
    through goes to `handle(text)`, the first past the rate to `refuse(text, TooFast)`, those after
    it nowhere; after each, the next is not read until `pause` has waited as long as the pacer says.
    Ends when the page goes (or its connection fails under a send), or when `handle` returns True
    (the connection is handed over or closed)."""
    try:
        while True:
            raw = await receive()
            if raw["type"] == "websocket.disconnect":
                return
            text = raw.get("text")
            try:
                if pacer.take() and await handle(text):
                    return
            except TooFast as exc:
                await refuse(text, exc)
            await pause(pacer.wait_s())
    except (WebSocketDisconnect, RuntimeError, OSError):
        # gone while reading or answering (Starlette's WebSocketDisconnect; a RuntimeError when a
        # send finds the connection closed already): no traceback
        return


class DevicePacers:
    """The `Pacer` of each device (see `limits.device`), shared by all its connections, so that a
    page closed and opened again does not bring a new burst; this machine's own pages
    (`limits.local`: the tests, `sim --web`'s browser) are one user with a pacer each."""

    def __init__(self, clock: Callable[[], float], rate: float = RATE_PER_S, burst: int = BURST,
                 local: tuple[str, ...] = LOCAL) -> None:
        self.clock, self.rate, self.burst, self.local = clock, rate, burst, local
        self._pacers: OrderedDict[str, Pacer] = OrderedDict()

    def __call__(self, address: str) -> Pacer:
        if is_local(address, self.local):
            return Pacer(self.clock, self.rate, self.burst)
        return remembered(self._pacers, device(address), lambda: Pacer(self.clock, self.rate, self.burst))


class Throttle:
    """At most `rate` things a second, however many connections share it: `wait()` before each
    (all the replay pages together draw at most so many frames a second)."""

    def __init__(self, rate: float, clock: Callable[[], float] | None = None,
                 sleep: Callable[[float], Any] = asyncio.sleep) -> None:
        self._bucket = Bucket(1, rate, -math.inf)  # full, whatever the clock reads
        self.clock, self.sleep = clock, sleep  # the running loop's clock by default

    async def wait(self) -> None:
        """The slot is taken before sleeping, so several connections sharing one throttle
        (the replays') queue up one period apart instead of all waking at the same instant."""
        wait = self._bucket.reserve((self.clock or asyncio.get_running_loop().time)())
        if wait > 0:
            await self.sleep(wait)

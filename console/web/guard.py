"""The server's TCP connections, before and beside any request: at most `Limits.connections` in
all and `connections_per_device` from one device, and a whole request within `request_s`.

uvicorn itself times out only a connection that is idle after an answer (timeout_keep_alive): a
connection that never sends, or sends its headers a byte at a time (slowloris), is kept for
ever, and limit_concurrency counts those, so 70 of them made every request a 503; 1,100 took all
the unit's file descriptors. Here each connection holds a place in a `limits.Pool` from
`connection_made` to `connection_lost`, and one that owes the server a request is closed
`request_s` after it connected or was last answered.

uvicorn hands a connection's transport from its HTTP protocol (h11 here) to its websocket
protocol on an upgrade (h11_impl.py `handle_websocket_upgrade`: `transport.set_protocol`), so
both are subclassed; the place is the transport's, left by whichever protocol has it when it
goes. A websocket's own silence is the websocket protocol's: pings every 20 s, closed when one
is not answered within 20 s (`WebServer`).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, Callable

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from console.web.limits import Limits, Pool

# Every message read is parsed and queued at once, and reading pauses only after that
# (websockets_sansio_impl.py `send_receive_event_to_app`): asyncio's 256 KiB reads of tiny frames
# queued 26,000 messages a connection, all waiting to be read at the page's pace. A phone's
# message is at most MAX_MESSAGE_BYTES.
READ_BYTES = 4096
OWED = (h11.IDLE, h11.SEND_BODY)  # the client's side of h11: a request not (wholly) sent yet


class Guard:
    """The connections' pool and the protocol classes for uvicorn.Config (`http=`, `ws=`)."""

    def __init__(self, limits: Limits) -> None:
        self.pool = Pool(limits.connections, limits.connections_per_device, limits.local)
        self.request_s = limits.request_s

    def protocols(self) -> tuple[Callable[..., asyncio.Protocol], Callable[..., asyncio.Protocol]]:
        return (functools.partial(GuardedHttp, guard=self), functools.partial(GuardedWebSocket, guard=self))

    def enter(self, transport: asyncio.Transport) -> bool:
        """Whether a new connection may stay; one whose place it took is closed at once."""
        peer = transport.get_extra_info("peername")
        address = peer[0] if isinstance(peer, tuple) else "?"
        entered, pushed = self.pool.enter(address, transport)
        if pushed is not None:
            pushed.abort()  # not close(): that would wait for a peer that does not read
        return entered


class GuardedHttp(H11Protocol):
    """uvicorn's HTTP protocol with a place in the guard's pool and a deadline for requests."""

    def __init__(self, *args: Any, guard: Guard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.guard.enter(transport):
            transport.abort()
            return
        self._watch()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_watching()
        self.guard.pool.leave(self.transport)
        super().connection_lost(exc)

    def _watch(self) -> None:
        """A deadline while the client owes a request on this connection, none otherwise (the
        app is answering, or the connection is a websocket's now)."""
        owed = (self.conn.their_state in OWED and self.transport.get_protocol() is self
                and not self.transport.is_closing())
        if not owed:
            self._stop_watching()
        elif self._deadline is None:
            self._deadline = self.loop.call_later(self.guard.request_s, self._too_slow)

    def _stop_watching(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.conn.their_state in OWED and self.transport.get_protocol() is self:
            self.transport.abort()


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's websocket protocol, leaving the connection's place in the pool when it goes,
    reading at most READ_BYTES at a time."""

    def __init__(self, *args: Any, guard: Guard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if hasattr(transport, "max_size"):  # asyncio's selector transport: its recv() size
            transport.max_size = READ_BYTES

    def connection_lost(self, exc: Exception | None) -> None:
        self.guard.pool.leave(self.transport)
        super().connection_lost(exc)

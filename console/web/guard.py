"""The server's TCP connections, before and beside any request: at most `Limits.connections` in
all and `connections_per_device` from one device, no more new ones from a device than
`openings` allows, and a whole request within `request_s`.

uvicorn itself times out only a connection that is idle after an answer (timeout_keep_alive): a
connection that never sends, or sends its headers a byte at a time (slowloris), is kept for
ever, and limit_concurrency counts those, so 70 of them made every request a 503; 1,100 took all
the unit's file descriptors. Here each connection holds a place in a `limits.Pool` from
`connection_made` to `connection_lost` (one refused never gets further than the `Door`), and
one that owes the server a request is closed `request_s` after it connected or was last
answered.

uvicorn hands a connection's transport from its HTTP protocol (h11 here) to its websocket
protocol on an upgrade (h11_impl.py `handle_websocket_upgrade`: `transport.set_protocol`), so
both are subclassed; the place is the transport's, left by whichever protocol has it when it
goes. A websocket's own silence is the websocket protocol's: pings every 20 s, closed when one
is not answered within 20 s (`WebServer`).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import socket
import time
from typing import Any, Callable

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from console.web.limits import Budgets, Limits, Pool, device, is_local

log = logging.getLogger("hues-console")

# Every message read is parsed and queued at once, and reading pauses only after that
# (websockets_sansio_impl.py `send_receive_event_to_app`): asyncio's 256 KiB reads of tiny frames
# queued 26,000 messages a connection, all waiting to be read at the page's pace. A phone's
# message is at most MAX_MESSAGE_BYTES.
READ_BYTES = 4096
# A phone's websocket stops being read once this many of its messages wait for the app; uvicorn
# stops it after every message (a pause and a resume: two epoll_ctl calls and the selector's
# bookkeeping for each tap, a fifth of the server's time from reading a tap to the app having it)
WAITING_MESSAGES = 8
OWED = (h11.IDLE, h11.SEND_BODY)  # the client's side of h11: a request not (wholly) sent yet


class Guard:
    """The connections' pool and the protocol classes for uvicorn.Config (`http=`, `ws=`)."""

    def __init__(self, limits: Limits) -> None:
        self.pool = Pool(limits.connections, limits.connections_per_device, limits.local)
        self.request_s, self.backlog, self.local = limits.request_s, limits.backlog, limits.local
        # what a device opens: each a request and perhaps a websocket's handshake before anything
        # can refuse it (a phone page's reconnecting loop, a browser's six, a reload: far fewer)
        self.openings = Budgets(*limits.openings, time.monotonic)
        self._listening: tuple[asyncio.AbstractEventLoop, socket.socket, Callable[[], asyncio.Protocol]] | None = None
        self._told_full = False

    # --- accepting: a refused connection costs an accept() and a close() ------------------------

    def listen(self, sock: socket.socket, protocol: Callable[[], asyncio.Protocol]) -> None:
        """Accept connections on `sock` in the running loop, each with `protocol` (uvicorn's).
        asyncio's own accept made a transport, a task and a protocol for each connection before
        anyone could look at its address: refusing 2,000 connections a second that way took
        the whole server thread."""
        sock.listen(self.backlog)
        sock.setblocking(False)
        self._listening = asyncio.get_running_loop(), sock, protocol
        self._listening[0].add_reader(sock.fileno(), self._accept)

    @property
    def listening(self) -> bool:
        return self._listening is not None

    def stop_listening(self) -> None:
        if self._listening is not None:
            loop, sock, _ = self._listening
            self._listening = None
            loop.remove_reader(sock.fileno())

    def _accept(self) -> None:
        assert self._listening is not None
        loop, sock, protocol = self._listening
        for _ in range(self.backlog):
            try:
                connection, peer = sock.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return
            except OSError as error:  # out of files (EMFILE, ENFILE) or buffers: as asyncio does, wait a second
                if not self._told_full:
                    log.warning("web: cannot accept connections (%s): waiting a second", error.strerror or error)
                    self._told_full = True
                loop.remove_reader(sock.fileno())
                loop.call_later(1.0, lambda: self._listening and loop.add_reader(sock.fileno(), self._accept))
                return
            if not self._may_open(peer[0] if isinstance(peer, tuple) else "?"):
                connection.close()
                continue
            connection.setblocking(False)
            loop.create_task(self._serve(loop, connection, protocol))

    def _may_open(self, address: str) -> bool:
        if not self.pool.has_room(address):
            return False
        if is_local(address, self.local):
            return True
        who = device(address)
        if self.openings.wait(who) > 0:
            return False
        self.openings.take(who)
        return True

    @staticmethod
    async def _serve(loop: asyncio.AbstractEventLoop, connection: socket.socket,
                     protocol: Callable[[], asyncio.Protocol]) -> None:
        try:
            await loop.connect_accepted_socket(protocol, connection)
        except OSError:  # gone before it was served
            connection.close()

    def protocols(self) -> tuple[Callable[..., asyncio.Protocol], Callable[..., asyncio.Protocol]]:
        def door(**uvicorns: Any) -> Door:
            return Door(self, lambda: GuardedHttp(guard=self, **uvicorns))

        return door, functools.partial(GuardedWebSocket, guard=self)

    def enter(self, transport: asyncio.Transport) -> bool:
        """Whether a new connection may stay; one whose place it took is closed at once."""
        peer = transport.get_extra_info("peername")
        address = peer[0] if isinstance(peer, tuple) else "?"
        entered, pushed = self.pool.enter(address, transport)
        if pushed is not None:
            pushed.abort()  # not close(): that would wait for a peer that does not read
        return entered


class Door(asyncio.Protocol):
    """What a new connection meets first: only one with a place in the pool is handed to
    uvicorn's HTTP protocol, so one refused costs no HTTP parser (refusing a flood of
    connections was most of the server's time)."""

    def __init__(self, guard: Guard, http: Callable[[], GuardedHttp]) -> None:
        self.guard, self.http = guard, http

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if not self.guard.enter(transport):  # type: ignore[arg-type]
            transport.abort()  # type: ignore[attr-defined]
            return
        http = self.http()
        transport.set_protocol(http)
        http.connection_made(transport)  # type: ignore[arg-type]


class GuardedHttp(H11Protocol):
    """uvicorn's HTTP protocol with a place in the guard's pool and a deadline for requests."""

    def __init__(self, *args: Any, guard: Guard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard
        self._deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
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
    """uvicorn's websocket protocol, leaving the connection's place in the pool when it goes, and
    reading at most READ_BYTES at a time and no more once WAITING_MESSAGES wait for the app."""

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

    def send_receive_event_to_app(self) -> None:
        """uvicorn's, pausing the reading only once WAITING_MESSAGES wait: it pauses when it finds
        `read_paused` false, and resumes in `receive` once the app has taken every message."""
        if self.read_paused or self.queue.qsize() >= WAITING_MESSAGES - 1:
            super().send_receive_event_to_app()
            return
        self.read_paused = True
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = False

    def shutdown(self) -> None:
        """A phone whose close frame came in just before the console stops has been answered
        already (`handle_close`); uvicorn's own shutdown would send it a second close, which
        websockets refuses (`InvalidState: connection is closing`), killing the web thread with a
        traceback instead of ending it."""
        if self.handshake_complete and not self.close_sent and self.conn.state is not State.OPEN:
            self.stop_keepalive()
            self.transport.close()
            return
        super().shutdown()

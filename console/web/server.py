"""The web server inside the console process: a Starlette app built from route lists (each feature
brings its own module of routes: `phones` for the phones' page), served by uvicorn in a thread of
its own so the panel's loop never waits for the network.

The socket is bound in the caller's thread before the server thread starts, so a port in use or a
wrong address is a one-line error at start-up instead of a thread dying later. On the box systemd
binds it instead (hues-console.socket, which also holds the phones' IP filter) and passes it as
sd_listen_fds(3) says, so the service itself runs with no network of its own (PrivateNetwork=yes). uvicorn installs no
signal handlers outside the main thread (uvicorn/server.py `capture_signals`), so the console's
own SIGTERM handling stays in charge; `stop()` asks the server to exit and waits for it.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import socket
import threading
from typing import Iterable, Sequence

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from console.web.guard import Guard
from console.web.limits import LIMITS, Limits

# Every message a phone sends is small (a verb and a cell); uvicorn closes a websocket whose
# frame is larger than this before the app sees it (websockets' max_size).
MAX_MESSAGE_BYTES = 1024
SECURITY_HEADERS = (
    (b"content-security-policy",
     b"default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
     b"base-uri 'none'; form-action 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
)


log = logging.getLogger("hues-console")
SD_LISTEN_FDS_START = 3  # the first socket systemd passes (sd-daemon.h)


class WebServerError(Exception):
    """The web companion cannot start (address in use, not an address of this machine...)."""


def systemd_socket(environ=os.environ) -> socket.socket | None:
    """The listening socket systemd passed to this process (LISTEN_PID is ours), else None. The
    variables leave the environment, so a child process never takes the socket for its own."""
    if environ.get("LISTEN_PID") != str(os.getpid()):
        return None
    count = environ.get("LISTEN_FDS", "")
    for name in ("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"):
        environ.pop(name, None)
    if count != "1":
        raise WebServerError(f"web: systemd passed {count or 'no'} sockets, the console takes one "
                             f"(one ListenStream= in hues-console.socket)")
    listening = socket.socket(fileno=SD_LISTEN_FDS_START)
    listening.set_inheritable(False)
    if listening.type != socket.SOCK_STREAM or not listening.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
        raise WebServerError("web: the socket systemd passed is not a listening TCP socket "
                             "(hues-console.socket needs ListenStream=)")
    return listening


class SecurityHeaders:
    """Adds the same strict headers to every HTTP response: the pages load only their own
    scripts, are never framed, and no address leaks in a Referer. A request for a host name that
    is not the box's is refused outright (see `host_allowed`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not host_allowed(_header(scope, b"host")):
            if scope["type"] == "http":
                await PlainTextResponse("not this box's address", status_code=400)(scope, receive, send)
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message, headers=list(message.get("headers", [])) + list(SECURITY_HEADERS))
            await send(message)

        await self.app(scope, receive, send_with_headers)


def build_web_app(route_lists: Iterable[Sequence[BaseRoute]]) -> Starlette:
    """One Starlette app serving exactly the routes given, nothing else (no static folder)."""
    routes = [route for routes in route_lists for route in routes]
    return Starlette(routes=routes, middleware=[Middleware(SecurityHeaders)])


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return ""


LOCAL_SUFFIXES = (".local", ".lan", ".home", ".home.arpa", ".internal", ".localhost")


def host_allowed(host: str) -> bool:
    """The Host a phone may name: an IP address, a bare name (the box's) or a local network name
    (`hues.local`). A public name is refused: a page on a site whose DNS is made to point at the
    box (DNS rebinding) would otherwise count as this server's own origin."""
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 or host.startswith("[") else host
    name = name.strip("[]").rstrip(".").lower()
    if not name:
        return False
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    return "." not in name or name.endswith(LOCAL_SUFFIXES)


def origin_allowed(headers) -> bool:
    """A websocket may only be opened by a page of this server: its Origin must name the host the
    request was sent to. Browsers always send Origin on a websocket handshake and a page cannot
    forge it, so another site open on the same phone cannot drive a seat."""
    origin, host = headers.get("origin"), headers.get("host")
    return bool(origin and host) and origin in (f"http://{host}", f"https://{host}")


class QuietServer(uvicorn.Server):
    """uvicorn's Server, except that its main loop sleeps until `exit()` instead of waking ten
    times a second to look at `should_exit` (uvicorn/server.py `main_loop`, `on_tick`): on a
    still screen those wake-ups were all the web thread did, each one taking the interpreter
    from the panel's loop. Its once-a-second work is not needed here: no Date header
    (date_header=False), no callback_notify, no limit_max_requests."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._woken: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None

    async def main_loop(self) -> None:
        await self.on_tick(0)  # the default headers, as uvicorn's own loop sets them first
        woken = self._woken = (asyncio.get_running_loop(), asyncio.Event())
        if not self.should_exit:  # else exit() came before the event existed
            await woken[1].wait()

    def exit(self) -> None:
        """Stop serving, from any thread."""
        self.should_exit = True
        if self._woken is not None:
            loop, event = self._woken
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # its loop has closed
                pass


class WebServer:
    """uvicorn serving `app` on (address, port) in a daemon thread; port 0 picks a free one."""

    def __init__(self, app: ASGIApp, address: str, port: int, limits: Limits = LIMITS) -> None:
        self._socket = systemd_socket()
        if self._socket is not None:
            self._serve(app, limits)
            if (self.address, self.port) != (address, port):
                log.warning("web: systemd listens on %s port %s, the configuration says %s port %s: "
                            "run the installer again to move the socket", self.address, self.port, address, port)
            return
        try:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            self._socket = socket.socket(family, socket.SOCK_STREAM)
            self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._socket.bind((address, port))
        except OSError as exc:
            self._socket.close()
            raise WebServerError(f"web: cannot listen on {address}:{port} ({exc.strerror or exc})") from None
        except (ValueError, UnicodeError) as exc:
            raise WebServerError(f"web: {address!r} is not an address to listen on ({exc})") from None
        self._serve(app, limits)

    def _serve(self, app: ASGIApp, limits: Limits) -> None:
        self.address, self.port = self._socket.getsockname()[:2]
        self.guard = Guard(limits)  # connections per device and in all, request deadlines
        http, ws = self.guard.protocols()
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="off", http=http, ws=ws,
            ws_max_size=MAX_MESSAGE_BYTES, ws_ping_interval=20.0, ws_ping_timeout=20.0,
            limit_concurrency=None, timeout_keep_alive=limits.keep_alive_s, backlog=limits.backlog,
            server_header=False, date_header=False, timeout_graceful_shutdown=1,
            proxy_headers=False,  # no proxy stands before the box: X-Forwarded-For is the client's say-so
            # 1.5 KB frames and small JSON on a LAN: compressing them cost the server thread 15 to
            # 25 % of its CPU (and the panel's loop shares the interpreter with it) for nothing
            ws_per_message_deflate=False,
        )
        self._server = QuietServer(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._run, name="hues-web", daemon=True)

    @property
    def url(self) -> str:
        host = f"[{self.address}]" if ":" in self.address else self.address
        return f"http://{host}:{self.port}"

    def start(self, timeout_s: float = 5.0) -> None:
        self._thread.start()
        deadline = threading.Event()
        for _ in range(int(timeout_s / 0.005)):
            if self.guard.listening or not self._thread.is_alive():
                break
            deadline.wait(0.005)
        if not self.guard.listening:
            raise WebServerError(f"web: the server on {self.url} did not start")

    def _run(self) -> None:
        asyncio.run(self._serve_guarded())  # the default loop, as uvicorn's own run() without uvloop

    async def _serve_guarded(self) -> None:
        """uvicorn serving, with the guard accepting its connections (`Guard.listen`)."""
        serving = asyncio.ensure_future(self._server.serve(sockets=[]))  # uvicorn listens on nothing itself
        while not (self._server.started or serving.done()):
            await asyncio.sleep(0.005)
        if self._server.started:
            server, config = self._server, self._server.config
            self._loop = asyncio.get_running_loop()
            self.guard.listen(self._socket, lambda: config.http_protocol_class(
                config=config, server_state=server.server_state, app_state=server.lifespan.state))
        try:
            await serving
        finally:
            self.guard.stop_listening()

    def stop(self, timeout_s: float = 2.0) -> None:
        if self._loop is not None and self._thread.is_alive():
            try:  # no new connection while the server shuts down
                self._loop.call_soon_threadsafe(self.guard.stop_listening)
            except RuntimeError:  # its loop has closed
                pass
        self._server.exit()
        if self._thread.is_alive():
            self._thread.join(timeout_s)
        self._socket.close()

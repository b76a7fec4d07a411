"""Socket activation: on the box hues-console.socket holds the phones' listening socket (and its
IP filter) and systemd passes it to the console as sd_listen_fds(3) says (fd 3, LISTEN_FDS=1,
LISTEN_PID=the service's pid). The console serves on that socket and binds none of its own; the
bookworm container stage (tests/box) runs it under the real units."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request

import pytest

# A console process's web server on whatever socket it is given: prints where it serves and
# whether the activation variables are left for a child, then serves until stdin closes.
SERVE = """
import os, sys
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from console.web.server import WebServer, WebServerError
app = Starlette(routes=[Route("/", lambda request: PlainTextResponse("served"))])
try:
    server = WebServer(app, "127.0.0.1", int(sys.argv[1]))
except WebServerError as error:
    print(error, flush=True)
    sys.exit(2)
server.start()
print(server.port, "LISTEN_FDS" in os.environ, flush=True)
sys.stdin.read()
server.stop()
"""


def activated(listening: socket.socket | None, port: int, fds: str = "1", pid: str = "$$"):
    """The console started as systemd starts a socket-activated service: the socket on fd 3."""
    def on_fd_3():
        if listening is not None:
            os.dup2(listening.fileno(), 3)
    return subprocess.Popen(
        ["sh", "-c", f'LISTEN_PID={pid} LISTEN_FDS={fds} exec "$0" -c "$1" "$2"', sys.executable, SERVE, str(port)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, preexec_fn=on_fd_3, pass_fds=(3,),
        cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def listener() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


def get(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as reply:
        return reply.read().decode()


def test_the_console_serves_on_the_socket_systemd_passes():
    sock = listener()
    port = sock.getsockname()[1]
    console = activated(sock, port)
    try:
        served_port, leaked = console.stdout.readline().split()
        assert int(served_port) == port and leaked == "False"  # no child takes the socket for its own
        sock.close()  # only the console holds it now, as when systemd's copy is the only other one
        assert get(port) == "served"
    finally:
        console.stdin.close()
        assert console.wait(10) == 0


def test_sockets_meant_for_another_process_are_not_taken():
    other = listener()  # what the console would bind itself
    port = other.getsockname()[1]
    other.close()
    console = activated(None, port, pid="1")
    try:
        assert int(console.stdout.readline().split()[0]) == port and get(port) == "served"
    finally:
        console.stdin.close()
        assert console.wait(10) == 0


@pytest.mark.parametrize("fds, make, message", [
    ("2", listener, "systemd passed 2 sockets, the console takes one"),
    ("1", lambda: socket.socket(), "not a listening TCP socket"),
    ("1", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM), "not a listening TCP socket"),
])
def test_a_socket_unit_that_passes_the_wrong_thing_is_one_line(fds, make, message):
    sock = make()
    console = activated(sock, 8080, fds=fds)
    console.stdin.close()
    assert console.wait(10) == 2
    assert message in console.stdout.read()

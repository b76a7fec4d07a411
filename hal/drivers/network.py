"""The LEDs of a receiver on the network (WLED on an ESP32, Falcon Player): each frame as UDP
datagrams to one host, sent without ever waiting, a still frame sent again before the receiver
gives up on it, and a watch on whether the receiver answers. The ddp and e131 drivers only frame
the bytes (hal/drivers/ddp.py, hal/drivers/e131.py); everything about the network is here.

- Never waiting: the socket is non-blocking, so a send returns at once; a frame the socket will
  not take whole (its buffer full on a busy Wi-Fi) is dropped, not queued, and an error (no
  route, the receiver's port refused) drops it too. Either way the keep-alive sends the picture
  again, so a lost frame is a frame late, never a wrong picture for long.
- Only changed frames: `show` sends nothing when the bytes are those sent last.
- The keep-alive: receivers leave their realtime mode when frames stop, WLED after 2.5 s
  (wled00/wled.h:432, realtimeTimeoutMs; udp.cpp:483 exitRealtime) and Falcon Player clears its
  input after 1 s (src/e131bridge.cpp:74, expireOffSet; the channel inputs' default timeout,
  www/channelinputs.php:260). The console's loop sleeps on a still screen, so the driver is one
  of its sources (`poll`, `next_poll`): the last frame goes again every `keepalive_ms` (400 by
  default: a lost resend still leaves FPP's 1 s), on the loop's clock, and nothing else goes.
- The watch: a thread of its own asks the receiver every PROBE_S whether it is there, never the
  loop: WLED's JSON API (GET /json/info on its web port, wled00/json.cpp serveJson) answers on
  WLED; any HTTP answer counts (Falcon Player's and most receivers' web pages); a DDP display
  without a web server may answer the DDP status query (the ddp driver's `status_query`). A host
  name is looked up there too (again at every probe that finds no answer: a receiver given a new
  address by DHCP is found again). After MISSES probes in a row without an answer the receiver
  `answering` is False, at the first answer True again, and the app is woken either way.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import math
import socket
import threading
import time
from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hal.drivers.base import Driver, DriverError
from hal.frame import Frame

PROBE_S = 3.0  # how often the watch asks the receiver
ANSWER_TIMEOUT_S = 2.0  # how long one question waits for its answer
MISSES = 2  # questions in a row without an answer before the receiver counts as gone
INFO_PATH = "/json/info"  # WLED's JSON API: its name, version and LEDs (wled00/json.cpp serializeInfo)
CONFIG_PATH = "/json/cfg"  # WLED's settings, its realtime ones under if.live (wled00/cfg.cpp serializeConfig)
MAX_ANSWER_BYTES = 256 * 1024  # a WLED's /json/cfg is some 5 KB; more is not a receiver's answer


@dataclass
class LinkStats:
    """What went out: for the tests and the figures in docs/PERFORMANCE.md."""

    frames: int = 0  # frames sent whole (changed ones and keep-alives)
    datagrams: int = 0
    keepalives: int = 0  # of the frames, those sent again unchanged
    dropped: int = 0  # frames the socket did not take whole, or could not send at all


def numeric_address(host: str) -> str | None:
    """`host` as an IP address when it is written as one, else None (a name to look up)."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return None


def host_problem(host: object) -> str | None:
    """Why `host` can be neither an address nor a host name (RFC 1123 labels), else None."""
    if not isinstance(host, str) or not host:
        return "give the receiver's address or host name (such as 192.168.1.50 or wled-1a2b3c.local)"
    if numeric_address(host) is not None:
        return None
    labels = host.removesuffix(".").split(".")
    if len(host) > 253 or not all(
        0 < len(label) <= 63 and label[0] != "-" and label[-1] != "-"
        and all(c.isascii() and (c.isalnum() or c == "-") for c in label)
        for label in labels
    ):
        return f"{host[:60]!r} is neither an IP address nor a host name"
    return None


def ask(address: str, port: int, path: str, host: str, timeout_s: float = ANSWER_TIMEOUT_S) -> tuple[int, bytes]:
    """One HTTP GET of `path` from `address`:`port` (the Host header naming `host`): the status
    and at most MAX_ANSWER_BYTES of the body. OSError (refused, timed out, unreachable) or
    http.client.HTTPException when nothing like an HTTP answer came."""
    connection = http.client.HTTPConnection(address, port, timeout=timeout_s)
    try:
        connection.request("GET", path, headers={"Host": host, "Accept": "application/json"})
        response = connection.getresponse()
        return response.status, response.read(MAX_ANSWER_BYTES)
    finally:
        connection.close()


def ask_json(address: str, port: int, path: str, host: str, timeout_s: float = ANSWER_TIMEOUT_S) -> dict | None:
    """The JSON object at `path` (WLED's /json/info, /json/cfg), or None when the answer is not
    one (another web server); OSError or HTTPException when nothing answered."""
    status, body = ask(address, port, path, host, timeout_s)
    return _json_object(body) if status == 200 else None


class ReceiverWatch:
    """Whether the receiver at `host` answers, found out on a thread of its own (`start`), and
    where it is (`address`, looked up there when `host` is a name). `wake` is called whenever
    either changes. `udp_question`: a datagram to send to `port` and the test its answer must
    pass, asked when the web port gives no answer (the DDP status query)."""

    def __init__(self, host: str, port: int, http_port: int,
                 udp_question: tuple[bytes, Callable[[bytes], bool]] | None = None,
                 resolve: Callable[[str, int], str] | None = None):
        self.host, self.port, self.http_port = host, port, http_port
        self.udp_question = udp_question
        self._resolve = resolve or _resolve
        self.address: str | None = numeric_address(host)
        self.answering = True  # until the questions show otherwise: no alarm before the first
        self.misses = 0
        self.problem = ""  # what the last question that went unanswered met
        self.info: dict | None = None  # the receiver's /json/info, when it is a WLED
        self._wake: Callable[[], None] = lambda: None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def watch(self, wake: Callable[[], None]) -> None:
        self._wake = wake

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"receiver {self.host}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while True:
            self.probe()
            if self._stop.wait(PROBE_S):
                return

    def probe(self) -> bool:
        """Ask once (looking the name up first when it has no address, or the last question
        went unanswered); True when the receiver answered. Blocks for up to a few seconds: the
        watch's thread, `hues-console diag` and the tests call it, never the loop."""
        before = (self.answering, self.address)
        if self.address is None or (self.misses and numeric_address(self.host) is None):
            try:
                self.address = self._resolve(self.host, self.port)
            except OSError as error:
                self.problem = f"cannot find {self.host} ({error.strerror or error})"
        answered = self.address is not None and self._asked(self.address)
        if answered:
            self.misses, self.problem = 0, ""
            self.answering = True
        else:
            self.misses += 1
            if self.misses >= MISSES:
                self.answering = False
        if (self.answering, self.address) != before:
            self._wake()
        return answered

    def _asked(self, address: str) -> bool:
        self.problem = ""
        if self.http_port:
            try:
                status, body = ask(address, self.http_port, INFO_PATH, self.host)
            except (OSError, http.client.HTTPException) as error:
                self.problem = f"no answer on its web port {self.http_port} ({_reason(error)})"
            else:
                self.info = _json_object(body) if status == 200 else None
                return True
        if self.udp_question is not None:
            question, is_answer = self.udp_question
            try:
                with socket.socket(_family(address), socket.SOCK_DGRAM) as sock:
                    sock.settimeout(ANSWER_TIMEOUT_S)
                    sock.connect((address, self.port))
                    sock.send(question)
                    if is_answer(sock.recv(65536)):
                        return True
            except OSError as error:
                unanswered = f"no answer to the status query on port {self.port} ({_reason(error)})"
                self.problem = f"{self.problem}; {unanswered}" if self.problem else unanswered
        return not self.http_port and self.udp_question is None  # nothing to ask: assume it is there


def _resolve(host: str, port: int) -> str:
    """The first address `host` has, IPv4 before IPv6 (a receiver on the LAN has one)."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)
    found.sort(key=lambda entry: entry[0] != socket.AF_INET)
    return found[0][4][0]


def _family(address: str) -> int:
    return socket.AF_INET6 if ":" in address else socket.AF_INET


def _reason(error: Exception) -> str:
    if isinstance(error, (socket.timeout, TimeoutError)):
        return "timed out"
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


def _json_object(body: bytes) -> dict | None:
    try:
        found = json.loads(body)
    except ValueError:  # UnicodeDecodeError too
        return None
    return found if isinstance(found, dict) else None


class NetworkDriver(Driver):
    """A driver whose frames leave as UDP datagrams to one receiver. A subclass frames the
    chain-ordered bytes (`_datagrams`); this class sends them, keeps the receiver's picture
    alive, and is the app's link to the receiver: one of its sources (`poll`, `next_poll`,
    `close`) and whether the receiver `answering` (`watch` wakes the app when that changes, and
    starts the watch's thread: a driver made for one look, by `diag`, asks `receiver.probe()`
    itself). `clock` is the loop's (time.monotonic)."""

    def __init__(self, led_count: int, host: str, port: int, keepalive_ms: int, http_port: int, *,
                 udp_question: tuple[bytes, Callable[[bytes], bool]] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 resolve: Callable[[str, int], str] | None = None):
        problem = host_problem(host)
        if problem is not None:
            raise DriverError(f"{self.name} driver host: {problem}")
        self.led_count, self.host, self.port = led_count, host, port
        self.keepalive_s = keepalive_ms / 1000
        self.clock = clock
        self.stats = LinkStats()
        self.receiver = ReceiverWatch(host, port, http_port, udp_question, resolve)
        self._leds: bytes | None = None  # the last frame asked for: sent again at the keep-alive
        self._resend_at = math.inf
        self._socket: socket.socket | None = None
        self._connected_to: str | None = None
        self._closed = False
        self.link = self

    name = "network"

    @abstractmethod
    def _datagrams(self, leds: bytes) -> Sequence[bytes]:
        """The datagrams that carry one frame of chain-ordered bytes (3 an LED), framed anew at
        every send: a resent frame has new sequence numbers, so no receiver takes it for a
        late copy of the first (E1.31 receivers drop those, WLED's DDP handler may)."""

    # --- the driver --------------------------------------------------------------------------

    def show(self, leds: bytes, frame: Frame) -> None:
        self._put(leds)

    def clear(self) -> None:
        self._put(bytes(3 * self.led_count))

    def _put(self, leds: bytes) -> None:
        """Send `leds` unless they are what was sent last (a changed frame only)."""
        if leds == self._leds:
            return
        self._leds = leds
        self._send()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.receiver.stop()
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    # --- the app's source: the keep-alive ---------------------------------------------------

    @property
    def answering(self) -> bool:
        return self.receiver.answering

    def watch(self, wake: Callable[[], None]) -> None:
        """Start watching the receiver: `wake` is called (from the watch's thread) when it goes
        or comes back, or is found at a new address."""
        self.receiver.watch(wake)
        self.receiver.start()

    def poll(self, now: float) -> None:
        if now >= self._resend_at:
            self.stats.keepalives += 1
            self._send()
        elif self.receiver.address != self._connected_to and self._leds is not None:
            self._send()  # found (again), at a new address: at once

    def next_poll(self, now: float) -> float:
        return self._resend_at

    # --- sending ------------------------------------------------------------------------------

    def _send(self) -> None:
        """The last frame's datagrams, at once and never waiting: a frame the socket does not
        take whole is dropped (the keep-alive brings it again)."""
        self._resend_at = self.clock() + self.keepalive_s
        sock = self._connected()
        if sock is None:
            self.stats.dropped += 1
            return
        try:
            for datagram in self._datagrams(self._leds):
                sock.send(datagram)
                self.stats.datagrams += 1
        except OSError:  # BlockingIOError (a full buffer), refused, unreachable, not permitted
            self.stats.dropped += 1
            return
        self.stats.frames += 1

    def _connected(self) -> socket.socket | None:
        """The socket, connected to where the receiver is now (None: not known yet, or no route)."""
        address = self.receiver.address
        if address is None or self._closed:
            return None
        if address != self._connected_to:
            if self._socket is not None:
                self._socket.close()
            self._socket, self._connected_to = None, None
            sock = socket.socket(_family(address), socket.SOCK_DGRAM)
            sock.setblocking(False)
            try:
                sock.connect((address, self.port))  # a UDP connect only picks the route: no waiting
            except OSError:
                sock.close()
                return None
            self._socket, self._connected_to = sock, address
        return self._socket

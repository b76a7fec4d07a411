"""The ddp driver against DDP as others read it: the 3waylabs specification (a decoder written here
from the spec's header table, not from the driver), the DDP parser of `python-led-ddp` (PyPI: a
Python port of the Rust ddp-rs, nobody here wrote it), and WLED's handler (wled00/e131.cpp,
handleDDPPacket: where a packet's data goes, when a frame is shown). Then its timing over
loopback on the loop's clock, its receiver watch, and that no dead receiver ever holds it up.

No DDP receiver on PyPI or npm assembles frames (npm's `ddp` packages are Meteor's protocol of the
same name); `python-led-ddp` parses packets, so the frames are assembled here by WLED's rules."""

from __future__ import annotations

import errno
import http.server
import socket
import struct
import threading
import time

import pytest
from ddp.packet import Packet as IndependentPacket
from ddp.protocol.pixel_config import DataType, PixelFormat
from hypothesis import given, settings
from hypothesis import strategies as st

from hal.drivers import make_driver, network
from hal.drivers.ddp import DdpDriver, is_status_reply, status_query
from hal.frame import Frame
from hal.layout import Layout, LayoutOptions
from tests.network_game import drain, play_game, receiver_socket

FRAME = Frame(32, 16)


# --- DDP as the spec writes it (3waylabs.com/ddp, "Packet Format") ------------------------------


def spec_decode(datagram: bytes) -> dict:
    """One packet by the spec's table: byte 0 flags V V x T S R Q P, byte 1 x x x x n n n n, byte 2
    data type C R TTT SSS, byte 3 id, bytes 4-7 offset and 8-9 length (MSB first), then 4 bytes
    of timecode when T is set, then the data."""
    flags, sequence, data_type, ident = datagram[:4]
    offset = int.from_bytes(datagram[4:8], "big")
    length = int.from_bytes(datagram[8:10], "big")
    start = 14 if flags & 0x10 else 10
    return {
        "version": flags >> 6, "reserved": (flags >> 5) & 1, "timecode": bool(flags & 0x10),
        "storage": bool(flags & 0x08), "reply": bool(flags & 0x04), "query": bool(flags & 0x02),
        "push": bool(flags & 0x01), "sequence_reserved": sequence >> 4, "sequence": sequence & 0x0F,
        "custom": data_type >> 7, "type": (data_type >> 3) & 0x07, "bits": data_type & 0x07,
        "id": ident, "offset": offset, "length": length, "data": datagram[start:],
    }


class WledDdp:
    """A WLED's frame buffer fed DDP as handleDDPPacket does (wled00/e131.cpp:25-103 at 6d16dc22):
    status, config and control ids and query or reply packets are rejected (39-42); the data goes
    to LEDs offset/3 .. offset/3 + length/3 (62-65); the packet must hold `length` bytes (71); a
    frame is shown at a push (95-97). `shown` holds each frame shown."""

    def __init__(self, led_count: int):
        self.pixels = bytearray(3 * led_count)
        self.shown: list[bytes] = []

    def take(self, datagram: bytes) -> None:
        packet = IndependentPacket.from_bytes(datagram)
        header = packet.header
        if int(header.id) in (246, 250, 251) or header.packet_type.query or header.packet_type.reply:
            return
        assert len(packet.data) >= header.length, "a packet shorter than its length: WLED drops it"
        start = header.offset // 3
        for n in range(header.length // 3):
            if start + n < len(self.pixels) // 3:
                self.pixels[3 * (start + n):3 * (start + n) + 3] = packet.data[3 * n:3 * n + 3]
        if header.packet_type.push:
            self.shown.append(bytes(self.pixels))


def driver(led_count: int = 512, **options) -> DdpDriver:
    options.setdefault("http_port", 0)
    return DdpDriver(led_count, "127.0.0.1", **options)


class Wire:
    """A ddp driver sending to a receiver socket of its own on loopback."""

    def __init__(self, led_count: int = 512, **options):
        self.receiver = receiver_socket()
        self.ddp = driver(led_count, port=self.receiver.getsockname()[1], **options)

    def send(self, leds: bytes) -> list[bytes]:
        """The datagrams `show` puts on the wire for `leds`."""
        self.ddp.show(leds, FRAME)
        return drain(self.receiver)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.ddp.close()
        self.receiver.close()


# --- the packets ---------------------------------------------------------------------------------


def test_a_32x16_frame_is_two_packets_with_the_push_on_the_last():
    leds = bytes(range(256)) * 6
    with Wire() as wire:
        packets = wire.send(leds)
    decoded = [spec_decode(p) for p in packets]
    assert [(d["offset"], d["length"], d["push"]) for d in decoded] == [(0, 1440, False), (1440, 96, True)]
    for d in decoded:
        flags = (d["version"], d["reserved"], d["timecode"], d["storage"], d["reply"], d["query"])
        assert flags == (1, 0, False, False, False, False)
        assert (d["custom"], d["type"], d["bits"], d["id"]) == (0, 0b001, 0b011, 1)  # RGB, 8 bits an element
        assert d["sequence_reserved"] == 0 and len(d["data"]) == d["length"]
    assert [d["sequence"] for d in decoded] == [1, 2]
    assert b"".join(d["data"] for d in decoded) == leds
    assert packets[0][:10] == bytes([0x40, 1, 0x0B, 1, 0, 0, 0, 0, 0x05, 0xA0])  # as WLED's own sender writes them
    assert packets[1][:10] == bytes([0x41, 2, 0x0B, 1, 0, 0, 0x05, 0xA0, 0, 0x60])


@settings(max_examples=60)
@given(led_count=st.integers(1, 4000), seed=st.integers(0, 255), frames=st.integers(1, 4))
def test_any_frame_splits_into_packets_that_decode_to_it_by_the_spec_and_by_others(led_count, seed, frames):
    """Packets of at most 480 LEDs, whole LEDs each, back to back from offset 0, the push on the
    last only, sequence numbers 1..15 a packet and never 0; python-led-ddp reads every header
    field as the spec does, and a WLED buffer fed them shows exactly the frame."""
    wire = Wire(led_count)
    wled = WledDdp(led_count)
    sequences = []
    for n in range(frames):
        leds = bytes((seed + n + i) % 256 for i in range(3 * led_count))
        packets = wire.send(leds)
        offset = 0
        for index, datagram in enumerate(packets):
            ours, theirs = spec_decode(datagram), IndependentPacket.from_bytes(datagram)
            assert ours["offset"] == offset == theirs.header.offset
            assert ours["length"] == theirs.header.length == len(theirs.data) <= 1440 and ours["length"] % 3 == 0
            assert ours["push"] == theirs.header.packet_type.push == (index == len(packets) - 1)
            assert theirs.header.packet_type.version == 1 and not theirs.header.packet_type.query
            assert theirs.header.pixel_config.data_type == DataType.RGB
            assert theirs.header.pixel_config.data_size == PixelFormat.PIXEL_8_BITS
            assert ours["sequence"] == theirs.header.sequence_number and 1 <= ours["sequence"] <= 15
            sequences.append(ours["sequence"])
            offset += ours["length"]
            wled.take(datagram)
        assert offset == len(leds) and wled.shown[-1] == leds
    wire.__exit__()
    assert sequences == [(n % 15) + 1 for n in range(len(sequences))]


def test_a_resent_frame_has_new_sequence_numbers():
    """WLED may skip a packet whose sequence number is just below the last push's
    (e131SkipOutOfSequence, e131.cpp:47-57), and a receiver may drop a repeat as a duplicate: the
    keep-alive frames its packets anew."""
    clock = [0.0]
    with Wire(clock=lambda: clock[0]) as wire:
        ddp = wire.ddp
        first = [spec_decode(p)["sequence"] for p in wire.send(bytes(1536))]
        ddp.poll(0.39)
        assert drain(wire.receiver) == []
        clock[0] = 0.4
        ddp.poll(0.4)
        again = [spec_decode(p) for p in drain(wire.receiver)]
    assert first == [1, 2] and [p["sequence"] for p in again] == [3, 4] and again[1]["push"]
    assert ddp.stats.keepalives == 1 and ddp.next_poll(0.4) == pytest.approx(0.8)


def test_the_status_query_is_the_specs_and_a_reply_is_told_from_other_packets():
    query = spec_decode(status_query())
    assert (query["version"], query["query"], query["reply"], query["push"]) == (1, True, False, False)
    assert (query["id"], query["offset"], query["length"], query["data"]) == (251, 0, 0, b"")
    reply = bytes([0x45, 0, 0, 251, 0, 0, 0, 0, 0, 2]) + b"{}"  # the spec's example: version 1, reply, push
    assert is_status_reply(reply)
    assert not is_status_reply(status_query()) and not is_status_reply(bytes([0x45, 0, 0, 1, 0, 0, 0, 0, 0, 0]))
    assert not is_status_reply(b"\x45")
    wled = WledDdp(4)
    wled.take(status_query())
    assert wled.shown == []  # WLED ignores it: it neither shows nor takes its realtime mode


def test_a_scaled_matrix_gets_each_pixel_as_a_block_of_leds():
    """A 64x32 matrix (two 32x32 panels) at scale 2: the board's pixels are 2x2 blocks, in the
    receiver's wiring (serpentine here), five packets a frame."""
    layout = Layout(LayoutOptions(panel_width=32, panel_height=32, panels_across=2, scale=2))
    frame = Frame(32, 16)
    for i in range(32 * 16):
        frame.pixels[3 * i:3 * i + 3] = bytes((i % 256, i // 256, 7))
    leds = layout.to_chain(frame.pixels)
    with Wire(layout.led_count) as wire:
        packets = wire.send(leds)
    assert [spec_decode(p)["length"] for p in packets] == [1440] * 4 + [384]
    wled = WledDdp(layout.led_count)
    for datagram in packets:
        wled.take(datagram)
    shown = wled.shown[-1]
    for n in range(layout.led_count):
        y, x = divmod(layout.logical_index[n], 32)
        assert shown[3 * n:3 * n + 3] == frame.pixels[3 * (y * 32 + x):3 * (y * 32 + x) + 3]
    canvas = {}
    for n in range(layout.led_count):
        canvas.setdefault(layout.logical_index[n], []).append(shown[3 * n:3 * n + 3])
    assert all(len(block) == 4 and len(set(block)) == 1 for block in canvas.values())


# --- a whole game over loopback ------------------------------------------------------------------


def test_every_frame_of_a_game_reaches_a_wled_as_the_console_drew_it_within_the_frame(monkeypatch, tmp_path):
    """The console plays a whole game on the ddp driver to a socket on loopback, on a virtual
    clock the driver shares. Every frame it pushed is shown by a WLED buffer fed the datagrams
    (parsed by python-led-ddp) in the tick it was drawn, and equals the output stage's bytes for
    the frame /panel shows; while the screen holds still, only the keep-alive comes, every
    400 ms, the same picture again."""
    run = play_game(monkeypatch, tmp_path, "ddp", {})
    layout = run.stage.layout
    wled = WledDdp(layout.led_count)
    pushes = []
    for tick, datagram in run.received:
        before = len(wled.shown)
        wled.take(datagram)
        if len(wled.shown) > before:
            pushes.append((tick, wled.shown[-1]))
    assert len(run.shown) > 100
    shown_at = {shown.time: shown for shown in run.shown}
    for shown in run.shown:
        assert (shown.time, shown.leds) in pushes, f"the frame of {shown.time:.3f} s was not shown then"
        logical = bytearray(len(shown.frame.pixels))
        for n in range(layout.led_count):
            i = layout.logical_index[n]
            logical[3 * i:3 * i + 3] = shown.leds[3 * n:3 * n + 3]
        assert bytes(logical) == bytes(shown.frame.pixels.translate(run.stage.table(shown.level)))
    previous = None
    for tick, picture in pushes:
        if tick not in shown_at:  # a keep-alive: the picture already shown, 400 ms (to the tick) later
            assert picture == previous[1] and 0.4 <= tick - previous[0] < 0.4 + 1 / 60 + 1e-9, (tick, previous[0])
        previous = (tick, picture)
    still = [tick for tick, _ in pushes if tick > run.shown[-1].time]  # the end screen, held 3 s
    assert len(still) >= int((run.end - run.shown[-1].time) / (0.4 + 1 / 60)) >= 6


# --- never waiting ---------------------------------------------------------------------------------


class RefusingSocket:
    """A socket whose sends fail as the kernel's do: EAGAIN (its buffer full) or an error."""

    def __init__(self, error: OSError):
        self.error, self.sends = error, 0

    def setblocking(self, flag):
        assert flag is False

    def connect(self, address):
        pass

    def send(self, data):
        self.sends += 1
        raise self.error

    def close(self):
        pass


@pytest.mark.parametrize("error", [
    BlockingIOError(errno.EAGAIN, "full"), OSError(errno.ENETUNREACH, "no route"),
    OSError(errno.EPERM, "the IP filter"), ConnectionRefusedError(errno.ECONNREFUSED, "refused"),
])
def test_a_frame_the_socket_will_not_take_is_dropped_and_the_keepalive_brings_it(monkeypatch, error):
    refusing = RefusingSocket(error)
    monkeypatch.setattr(network.socket, "socket", lambda *args: refusing)
    ddp, clock = driver(), [0.0]
    ddp.clock = lambda: clock[0]
    ddp.show(bytes(1536), FRAME)
    assert (ddp.stats.dropped, ddp.stats.frames, refusing.sends) == (1, 0, 1)  # the rest of the frame not tried
    assert ddp.next_poll(0.0) == pytest.approx(0.4)
    clock[0] = 0.4
    ddp.poll(0.4)
    assert (ddp.stats.dropped, ddp.stats.keepalives, refusing.sends) == (2, 1, 2)


def test_a_closed_port_never_holds_the_driver_up():
    """Nothing listens: the kernel's ICMP refusal comes back as an error on the next send, and
    every send returns at once."""
    with receiver_socket() as gone:
        port = gone.getsockname()[1]
    ddp = driver(port=port)
    started = time.perf_counter()
    for n in range(200):
        ddp.show(bytes([n]) * 1536, FRAME)
    assert time.perf_counter() - started < 0.5
    assert ddp.stats.dropped > 0 and ddp.stats.frames + ddp.stats.dropped == 200


def test_a_name_still_being_looked_up_never_holds_the_driver_up():
    """The look-up is the watch's (its thread): until it has an address, frames are dropped at
    once, and the first poll after it finds one sends the picture."""
    release = threading.Event()

    def slow_resolve(host, port):
        release.wait(5)
        return "127.0.0.1"

    with receiver_socket() as receiver:
        ddp = DdpDriver(512, "wled-1a2b3c.local", port=receiver.getsockname()[1], http_port=0,
                        resolve=slow_resolve)
        looking = threading.Thread(target=ddp.receiver.probe)
        looking.start()
        started = time.perf_counter()
        ddp.show(bytes(1536), FRAME)
        assert time.perf_counter() - started < 0.05 and ddp.stats.dropped == 1
        release.set()
        looking.join()
        assert ddp.receiver.address == "127.0.0.1"
        ddp.poll(0.0)
        assert len(drain(receiver)) >= 2


def test_only_a_changed_frame_is_sent():
    with Wire() as wire:
        for leds in (bytes(1536), bytes(1536), bytes([1]) * 1536, bytes([1]) * 1536):
            wire.ddp.show(leds, FRAME)
        assert len(drain(wire.receiver)) == 4 and wire.ddp.stats.frames == 2


# --- the watch -------------------------------------------------------------------------------------


class Wled(http.server.BaseHTTPRequestHandler):
    """A stand-in for WLED's web server: /json/info as serializeInfo writes it (the fields read)."""

    def do_GET(self):
        body = b'{"ver":"0.15.0","name":"Matrix","leds":{"count":512,"matrix":{"w":32,"h":16}},"live":false}'
        self.send_response(200 if self.path == "/json/info" else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def wled_web():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Wled)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_the_watch_finds_a_wled_by_its_json_api(wled_web):
    watch = network.ReceiverWatch("127.0.0.1", 4048, wled_web)
    woken = []
    watch.watch(lambda: woken.append(watch.answering))
    assert watch.probe() and watch.answering and watch.info["leds"]["matrix"] == {"w": 32, "h": 16}
    assert woken == []  # nothing changed: it answered from the start


def test_a_receiver_that_stops_answering_is_said_after_two_questions_and_back_at_the_first_answer(wled_web):
    with receiver_socket() as gone:
        closed = gone.getsockname()[1]
    watch = network.ReceiverWatch("127.0.0.1", 4048, closed)
    woken = []
    watch.watch(lambda: woken.append(watch.answering))
    assert not watch.probe() and watch.answering  # one miss: a busy Wi-Fi
    assert not watch.probe() and not watch.answering and woken == [False]
    assert "no answer on its web port" in watch.problem
    watch.http_port = wled_web
    assert watch.probe() and watch.answering and woken == [False, True]


def test_a_ddp_display_without_a_web_port_answers_the_status_query():
    """A display that follows the spec's discovery (a reply from the status id) counts as there."""
    display = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    display.bind(("127.0.0.1", 0))

    def answer():
        data, sender = display.recvfrom(1500)
        if spec_decode(data)["query"] and spec_decode(data)["id"] == 251:
            status = b'{"status":{"man":"test","mod":"display","ver":"1"}}'
            display.sendto(struct.pack(">BBBBIH", 0x45, 0, 0, 251, 0, len(status)) + status, sender)

    thread = threading.Thread(target=answer)
    thread.start()
    ddp = DdpDriver(512, "127.0.0.1", port=display.getsockname()[1], http_port=0)
    assert ddp.receiver.probe()
    thread.join()
    display.close()


def test_a_name_that_moves_is_looked_up_again_when_it_stops_answering(wled_web):
    addresses = iter([OSError(errno.ENOENT, "Name or service not known"), "127.0.0.2", "127.0.0.1"])

    def resolve(host, port):
        found = next(addresses)
        if isinstance(found, OSError):
            raise found
        return found

    watch = network.ReceiverWatch("wled-1a2b3c.local", 4048, wled_web, resolve=resolve)
    assert not watch.probe() and watch.address is None and "cannot find wled-1a2b3c.local" in watch.problem
    assert not watch.probe() and watch.address == "127.0.0.2" and not watch.answering  # nobody there now
    assert watch.probe() and watch.address == "127.0.0.1" and watch.answering


def test_the_registry_builds_the_ddp_driver_from_the_configuration():
    ddp = make_driver("ddp", {"host": "127.0.0.1", "port": 4049, "keepalive_ms": 250, "http_port": 0},
                      Layout(LayoutOptions()))
    try:
        assert isinstance(ddp, DdpDriver) and (ddp.port, ddp.keepalive_s, ddp.led_count) == (4049, 0.25, 512)
        assert ddp.link is ddp
    finally:
        ddp.close()

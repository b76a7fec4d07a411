"""The e131 driver against E1.31 as others read it: the `sacn` package's receiver (PyPI; its
packet parser, sequence and priority rules and stream termination, fed through its own socket
interface), the npm package `sacn` (k-yle/sACN, Apache-2.0: its Packet parser asserts every fixed
field of the three layers), the standard's table of fields (ANSI E1.31-2016, table 4-1), and
WLED's "Multi RGB" DMX mode (wled00/e131.cpp:315-360: 170 LEDs a universe), over a whole game."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacn import sACNreceiver
from sacn.receiving.receiver_socket_base import ReceiverSocketBase

from hal.drivers import DriverError, make_driver
from hal.drivers.e131 import LEDS_PER_UNIVERSE, E131Driver, machine_cid
from hal.frame import Frame
from hal.layout import Layout, LayoutOptions
from tests.network_game import drain, play_game, receiver_socket

ROOT = Path(__file__).resolve().parents[2]
FRAME = Frame(32, 16)
NPM_DECODE = r"""
const { Packet } = require('sacn');
const lines = require('fs').readFileSync(0, 'utf8').split('\n').filter(Boolean);
for (const line of lines) {
  try {
    const p = new Packet(Buffer.from(line, 'hex'));
    console.log(JSON.stringify({universe: p.universe, sequence: p.sequence, options: p.options, priority: p.priority,
      sourceName: p.sourceName, syncUniverse: p.syncUniverse, cid: p.cid.toString('hex'),
      count: p.propertyValueCount, slots: p.payloadAsBuffer.toString('hex')}));
  } catch (error) {
    console.log(JSON.stringify({error: String(error)}));
  }
}
"""


def npm_decode(datagrams: list[bytes]) -> list[dict]:
    """Each datagram as the npm package `sacn` parses it (node, from ./node_modules)."""
    node = shutil.which("node")
    if node is None or not (ROOT / "node_modules" / "sacn").is_dir():
        pytest.fail("node and the npm package sacn are needed: ./scripts/test installs them (npm ci)", pytrace=False)
    done = subprocess.run([node, "-e", NPM_DECODE], input="\n".join(d.hex() for d in datagrams), cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


class Fed(ReceiverSocketBase):
    """The sacn receiver's socket interface, fed the datagrams by hand (the library's way to give
    its receiver another socket): its parser, sequence and priority rules do the rest."""

    def start(self):
        pass

    def stop(self):
        pass

    def deliver(self, datagram: bytes, now: float) -> None:
        self._listener.on_data(datagram, now)


class WledMultiRgb:
    """The LEDs as WLED's Multi RGB mode sets them from the universes it is given (DMX start
    address 1): universe `first + k` carries LEDs 170 k ... from its first slot."""

    def __init__(self, led_count: int, first: int = 1):
        self.pixels = bytearray(3 * led_count)
        self.first = first
        self.receiver = sACNreceiver(socket=Fed(None))
        self.feed = self.receiver._handler.socket
        self.feed._listener = self.receiver._handler
        self.changes = 0
        self.ended: list[int] = []
        for universe in range(first, first + -(-led_count // LEDS_PER_UNIVERSE)):
            self.receiver.register_listener("universe", self._take, universe=universe)
        self.receiver.register_listener("availability", self._availability)

    def _take(self, packet) -> None:
        start = 3 * LEDS_PER_UNIVERSE * (packet.universe - self.first)
        slots = min(3 * LEDS_PER_UNIVERSE, len(self.pixels) - start)
        self.pixels[start:start + slots] = bytes(packet.dmxData[:slots])
        self.changes += 1

    def _availability(self, universe: int, changed: str) -> None:
        if changed == "timeout":
            self.ended.append(universe)


def wire(led_count: int = 512, **options) -> tuple[E131Driver, socket.socket]:
    receiver = receiver_socket()
    options.setdefault("http_port", 0)
    return E131Driver(led_count, "127.0.0.1", port=receiver.getsockname()[1], **options), receiver


def test_a_32x16_frame_is_four_universes_laid_out_as_the_standard_says():
    driver, receiver = wire(cid=bytes(range(16)))
    leds = bytes(n % 251 for n in range(1536))
    driver.show(leds, FRAME)
    packets = drain(receiver)
    assert [len(p) for p in packets] == [126 + 510] * 3 + [126 + 6]
    for index, packet in enumerate(packets):
        total = len(packet)
        assert packet[0:2] == b"\x00\x10" and packet[2:4] == b"\x00\x00" and packet[4:16] == b"ASC-E1.17\0\0\0"
        assert int.from_bytes(packet[16:18], "big") == 0x7000 | (total - 16)
        assert packet[18:22] == b"\x00\x00\x00\x04" and packet[22:38] == bytes(range(16))
        assert int.from_bytes(packet[38:40], "big") == 0x7000 | (total - 38)
        assert packet[40:44] == b"\x00\x00\x00\x02" and packet[44:108] == b"hues-console".ljust(64, b"\0")
        assert (packet[108], packet[109:111], packet[111], packet[112]) == (100, b"\0\0", 1, 0)
        assert int.from_bytes(packet[113:115], "big") == index + 1
        assert int.from_bytes(packet[115:117], "big") == 0x7000 | (total - 115)
        assert packet[117:119] == b"\x02\xa1" and packet[119:123] == b"\x00\x00\x00\x01"
        assert int.from_bytes(packet[123:125], "big") == 1 + total - 126 and packet[125] == 0
    assert b"".join(p[126:] for p in packets) == leds
    driver.close()
    receiver.close()


@settings(max_examples=40)
@given(led_count=st.integers(1, 2200), first=st.integers(1, 63000), frames=st.integers(1, 3))
def test_any_frame_reaches_the_sacn_receiver_and_wleds_leds_whole(led_count, first, frames):
    driver, receiver = wire(led_count, universe=first)
    wled = WledMultiRgb(led_count, first)
    for n in range(frames):
        leds = bytes((n * 7 + i) % 256 for i in range(3 * led_count))
        driver.show(leds, FRAME)
        for datagram in drain(receiver):
            wled.feed.deliver(datagram, 0.01 * n)
        assert bytes(wled.pixels) == leds
    driver.close()
    receiver.close()


def test_the_npm_sacn_parser_reads_every_field_as_sent():
    driver, receiver = wire(1000, universe=7)
    leds = bytes(n % 256 for n in range(3000))
    driver.show(leds, FRAME)
    driver.show(bytes(3000), FRAME)
    packets = drain(receiver)
    decoded = npm_decode(packets)
    assert all("error" not in d for d in decoded), decoded
    cid = machine_cid().hex()
    assert [(d["universe"], d["sequence"]) for d in decoded] == [(7 + n % 6, 1 + n // 6) for n in range(12)]
    for d in decoded:
        assert (d["priority"], d["sourceName"], d["syncUniverse"], d["options"], d["cid"]) == (
            100, "hues-console", 0, 0, cid)
        assert d["count"] == 1 + len(d["slots"]) // 2
    assert bytes.fromhex("".join(d["slots"] for d in decoded[:6])) == leds
    assert bytes.fromhex("".join(d["slots"] for d in decoded[6:])) == bytes(3000)
    driver.close()
    receiver.close()


def test_closing_ends_the_stream_and_each_keepalive_has_its_next_sequence_number():
    """A keep-alive is no repeat the receiver drops (E1.31 6.7.2: a sequence number at most 20
    behind the last is dropped), and at close three packets a universe say the stream ended
    (6.2.6), which the sacn receiver takes as the universe's end."""
    clock = [0.0]
    driver, receiver = wire(340, clock=lambda: clock[0])
    wled = WledMultiRgb(340)
    driver.show(bytes([9]) * 1020, FRAME)
    clock[0] = 0.4
    driver.poll(0.4)
    driver.close()
    packets = drain(receiver)
    assert [(p[113:115], p[111], p[112]) for p in packets] == [
        (bytes([0, u]), sequence, 0x40 if sequence > 2 else 0) for sequence in range(1, 6) for u in (1, 2)]
    for datagram in packets[:4]:
        wled.feed.deliver(datagram, 0.0)
    assert wled.receiver._handler._lastSequence == {1: 2, 2: 2}  # both packets of each taken
    for datagram in packets[4:]:
        wled.feed.deliver(datagram, 0.5)
    assert sorted(set(wled.ended)) == [1, 2]
    receiver.close()


def test_universes_past_the_last_are_refused():
    with pytest.raises(DriverError, match="512 LEDs need 4 universes from 63998, past the last, 63999: start at "
                                          "63996 or lower"):
        E131Driver(512, "127.0.0.1", universe=63998)


def test_every_frame_of_a_game_reaches_the_receivers_in_its_tick(monkeypatch, tmp_path):
    """The console plays a whole game on the e131 driver to a socket on loopback (a virtual clock
    the driver shares). After each tick, the sacn receiver fed what came holds, on WLED's Multi
    RGB LEDs, the frame the console pushed in that tick; the npm parser reads the same slots from
    every datagram; while the screen holds still, only the keep-alive comes, every 400 ms."""
    run = play_game(monkeypatch, tmp_path, "e131", {})
    layout = run.stage.layout
    wled = WledMultiRgb(layout.led_count)
    by_tick: dict[float, list[bytes]] = {}
    for tick, datagram in run.received:
        by_tick.setdefault(tick, []).append(datagram)
    shown = {s.time: s for s in run.shown}
    sent_at = sorted(by_tick)
    for tick in sent_at:
        for datagram in by_tick[tick]:
            wled.feed.deliver(datagram, tick)
        assert len(by_tick[tick]) == 4  # the whole frame, every universe, in the tick
        if tick in shown:
            assert bytes(wled.pixels) == shown[tick].leds
    assert set(shown) <= set(sent_at)
    keepalives = [tick for tick in sent_at if tick not in shown]
    for tick in keepalives:
        before = max(t for t in sent_at if t < tick)
        assert 0.4 <= tick - before < 0.4 + 1 / 60 + 1e-9
    decoded = npm_decode([datagram for _, datagram in run.received])
    assert all("error" not in d for d in decoded)
    frames = [bytes.fromhex("".join(d["slots"] for d in decoded[n:n + 4])) for n in range(0, len(decoded), 4)]
    expected, picture = [], None
    for tick in sent_at:
        picture = shown[tick].leds if tick in shown else picture  # a keep-alive: the picture again
        expected.append(picture)
    assert frames == expected and len(keepalives) >= 6


def test_the_registry_builds_the_e131_driver_from_the_configuration():
    driver = make_driver("e131", {"host": "127.0.0.1", "universe": 3, "http_port": 0}, Layout(LayoutOptions()))
    try:
        assert isinstance(driver, E131Driver) and [h[113:115] for h in driver._headers] == [
            bytes([0, u]) for u in (3, 4, 5, 6)]
    finally:
        driver.close()

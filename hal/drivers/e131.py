"""The `e131` driver: the frame as E1.31 (streaming ACN, "sACN") data packets, unicast to one
receiver on UDP port 5568, for receivers that speak only that.

An E1.31 universe carries 512 DMX slots; 170 RGB LEDs (510 slots) fill one, so LED n goes in
universe `universe + n // 170`, as WLED's "Multi RGB" DMX mode reads them (wled00/e131.cpp:315,
MAX_3_CH_LEDS_PER_UNIVERSE: every universe after the first starts at its first slot) and as
xLights and Falcon Player lay out pixels. A 32x16 panel is four universes.

Each packet, per ANSI E1.31-2016 (section 4, table 4-1; 126 bytes before the slots):
  root layer     preamble 0x0010, post-amble 0, "ASC-E1.17\\0\\0\\0", flags and length (0x7000 |
                 length from byte 16), vector 0x00000004 (E1.31 data), the source's CID (16 bytes)
  framing layer  flags and length (from byte 38), vector 0x00000002 (data packet), the source name
                 (64 bytes, UTF-8, NUL-padded), priority 100, synchronization address 0 (none),
                 sequence number (one more each packet of that universe), options (0x40 on the
                 three packets that end the stream, at close), the universe
  DMP layer      flags and length (from byte 115), vector 0x02 (set property), address and data
                 type 0xa1, first address 0, increment 1, the count of values (1 + slots), the
                 DMX start code 0 (level data), then the slots
The CID is a UUID kept for the machine (from its host name), as the standard asks a source to keep
one for its lifetime.

Written here rather than with the `sacn` package (PyPI, MIT): its sender runs a thread of its own
on the wall clock with a blocking socket whose send errors end that thread (E1.31 would stop for
good when the Wi-Fi drops), binds port 5568, and broadcasts universe discovery every 10 s, which
the service's IP filter refuses; and framing a 32x16 frame with its DataPacket took 248 us here
(it checks and copies each slot in Python), against 4 us for these templates (916 against 16 us for
a 64x32 matrix; docs/PERFORMANCE.md).
The tests decode the packets with `sacn`'s parser and with the npm package `sacn`, neither of
them written here (tests/hal/test_e131.py).
"""

from __future__ import annotations

import socket
import uuid

from hal.drivers.base import DriverError
from hal.drivers.network import NetworkDriver

PORT = 5568
LEDS_PER_UNIVERSE = 170
SOURCE_NAME = "hues-console"
PRIORITY = 100
OPTION_STREAM_TERMINATED = 0x40
SEQUENCE_AT = 111
OPTIONS_AT = 112
HEADER_BYTES = 126
ACN_IDENTIFIER = b"ASC-E1.17\0\0\0"
LAST_UNIVERSE = 63999


def machine_cid() -> bytes:
    """This machine's CID: a name-based UUID of its host name, the same at every start."""
    return uuid.uuid5(uuid.NAMESPACE_DNS, f"{socket.gethostname()}.hues-console").bytes


def packet_header(cid: bytes, universe: int, slots: int) -> bytearray:
    """The 126 bytes before `slots` DMX slots of `universe` (sequence and options 0)."""
    total = HEADER_BYTES + slots
    header = bytearray()
    header += (0x0010).to_bytes(2, "big") + (0).to_bytes(2, "big") + ACN_IDENTIFIER
    header += (0x7000 | (total - 16)).to_bytes(2, "big") + (0x00000004).to_bytes(4, "big") + cid
    header += (0x7000 | (total - 38)).to_bytes(2, "big") + (0x00000002).to_bytes(4, "big")
    header += SOURCE_NAME.encode().ljust(64, b"\0")
    header += bytes([PRIORITY]) + (0).to_bytes(2, "big") + bytes([0, 0]) + universe.to_bytes(2, "big")
    header += (0x7000 | (total - 115)).to_bytes(2, "big") + bytes([0x02, 0xA1])
    header += (0).to_bytes(2, "big") + (1).to_bytes(2, "big") + (1 + slots).to_bytes(2, "big") + b"\0"
    assert len(header) == HEADER_BYTES
    return header


def universes_needed(led_count: int) -> int:
    return -(-led_count // LEDS_PER_UNIVERSE)


class E131Driver(NetworkDriver):
    name = "e131"

    def __init__(self, led_count: int, host: str, port: int = PORT, universe: int = 1, keepalive_ms: int = 400,
                 http_port: int = 80, cid: bytes | None = None, **options):
        count = universes_needed(led_count)
        if universe + count - 1 > LAST_UNIVERSE:
            raise DriverError(f"e131 driver universe: {led_count} LEDs need {count} universes from {universe}, "
                              f"past the last, {LAST_UNIVERSE}: start at {LAST_UNIVERSE + 1 - count} or lower")
        super().__init__(led_count, host, port, keepalive_ms, http_port, **options)
        cid = machine_cid() if cid is None else cid
        slots = [3 * min(LEDS_PER_UNIVERSE, led_count - LEDS_PER_UNIVERSE * n) for n in range(count)]
        self._headers = [packet_header(cid, universe + n, slots[n]) for n in range(count)]
        self._sequences = [0] * count
        self._options = 0

    def _datagrams(self, leds: bytes) -> list[bytes]:
        datagrams = []
        step = 3 * LEDS_PER_UNIVERSE
        for n, header in enumerate(self._headers):
            sequence = self._sequences[n] = (self._sequences[n] + 1) & 0xFF
            header[SEQUENCE_AT] = sequence
            header[OPTIONS_AT] = self._options
            datagrams.append(bytes(header) + leds[n * step:(n + 1) * step])
        return datagrams

    def close(self) -> None:
        """E1.31 6.2.6: a source that stops sends three packets of each universe with the Stream
        Terminated option, so receivers let go at once instead of after their timeout."""
        if not self._closed and self._leds is not None:
            self._options = OPTION_STREAM_TERMINATED
            for _ in range(3):
                self._send()
        super().close()

"""The `ddp` driver: the frame as Distributed Display Protocol packets (3waylabs.com/ddp, the
version of 2022-09-05) to a WLED matrix, Falcon Player or any DDP display, UDP port 4048.

Each packet is the 10-byte header and up to DATA_PER_PACKET bytes of the chain-ordered frame:
  byte 0    flags: version 1 (0x40), and on the frame's last packet the push flag (0x01): "render
            now" for WLED (wled00/e131.cpp:44, handleDDPPacket), which shows a frame at its push
  byte 1    sequence number 1..15, one more each packet (0 would mean "unused")
  byte 2    data type: RGB, 8 bits an element (00 001 011 = 0x0B, WLED's DDP_TYPE_RGB24,
            src/dependencies/e131/ESPAsyncE131.h:65); WLED reads 3 bytes an LED unless RGBW
  byte 3    destination: 1, the default output device (DDP_ID_DISPLAY)
  4..7      the data's offset in the display's buffer, in bytes, most significant first (WLED
            starts at LED offset / 3, e131.cpp:62)
  8..9      the data's length in bytes, most significant first
DATA_PER_PACKET is 1440 bytes (480 LEDs), the spec's DDP_MAX_DATALEN, which fits an Ethernet
frame, and what WLED's own DDP sender puts in a packet (DDP_CHANNELS_PER_PACKET, ESPAsyncE131.h:63,
udp.cpp:765-790): a 32x16 panel is two packets, a 64x32 matrix five.

WLED puts the LEDs of a DDP frame through its LED map (wled00/FX.h:951, realtimeRespectLedMaps
on by default): with WLED's 2D matrix set up, the console sends the picture row by row and
WLED's matrix settings do the wiring (docs/MAKERS.md).

The status query (flags version 1 and query, destination 251: JSON status, no data) is the
spec's way to ask a display whether it is there; WLED rejects query packets and the status
destination without an answer (e131.cpp:39-42) and Falcon Player only prints them
(src/e131bridge.cpp:1027), so the watch asks it only when the receiver's web port gives no
answer (hal/drivers/network.py).
"""

from __future__ import annotations

import struct

from hal.drivers.network import NetworkDriver

PORT = 4048
FLAGS_VERSION_1 = 0x40
FLAG_PUSH = 0x01
FLAG_QUERY = 0x02
FLAG_REPLY = 0x04
TYPE_RGB_8 = 0x0B
ID_DISPLAY = 1
ID_STATUS = 251
HEADER = struct.Struct(">BBBBIH")  # flags, sequence, data type, id, offset, length: 10 bytes
DATA_PER_PACKET = 1440  # 480 LEDs


def status_query() -> bytes:
    """The spec's directed status query: "Reply tells you if server exists"."""
    return HEADER.pack(FLAGS_VERSION_1 | FLAG_QUERY, 0, 0, ID_STATUS, 0, 0)


def is_status_reply(datagram: bytes) -> bool:
    """A display's answer to the status query: a reply from the status id."""
    return len(datagram) >= HEADER.size and bool(datagram[0] & FLAG_REPLY) and datagram[3] == ID_STATUS


class DdpDriver(NetworkDriver):
    name = "ddp"

    def __init__(self, led_count: int, host: str, port: int = PORT, keepalive_ms: int = 400, http_port: int = 80,
                 **options):
        super().__init__(led_count, host, port, keepalive_ms, http_port,
                         udp_question=(status_query(), is_status_reply), **options)
        self._sequence = 0

    def _datagrams(self, leds: bytes) -> list[bytes]:
        datagrams = []
        last = len(leds) - 1
        for offset in range(0, len(leds), DATA_PER_PACKET):
            data = leds[offset:offset + DATA_PER_PACKET]
            self._sequence = self._sequence % 15 + 1
            flags = FLAGS_VERSION_1 | (FLAG_PUSH if offset + DATA_PER_PACKET > last else 0)
            datagrams.append(HEADER.pack(flags, self._sequence, TYPE_RGB_8, ID_DISPLAY, offset, len(data)) + data)
        return datagrams

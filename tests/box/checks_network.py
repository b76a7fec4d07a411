"""The ddp driver under the real init system: the box installed for a matrix on the network
(driver-network.conf, zz-receiver.conf for the receiver's address), its console sending frames
under the full hardening to a receiver in a network namespace of its own (a phone's, as in
checks_phones.py: the party LAN address and one beyond it). The receiver at the configured
address gets the frames and the watch's questions; the console told to send to the other address
(the installed filter unchanged) gets nothing there and says the matrix does not answer."""

from __future__ import annotations

import json
import re

from tests.box.checks_phones import LAN, OUTSIDE, phone_network
from tests.box.checks_service import PI5, console_up, exposure_online_and_offline, journal
from tests.box.stage import BOX_CONFIG

INSTALLED = "/etc/hues-console/console.yaml"
LISTEN_S = "8"

# A receiver on both addresses of its namespace for LISTEN_S seconds: DDP on port 4048 (each
# frame assembled at its push, as WLED shows it), and a WLED-like /json/info on port 80.
RECEIVER = r"""
import hashlib, json, select, socket, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
seconds, addresses = float(sys.argv[1]), sys.argv[2:]
asked = {address: 0 for address in addresses}
class Wled(BaseHTTPRequestHandler):
    def do_GET(self):
        asked[self.server.server_address[0]] += 1
        body = json.dumps({"ver": "box", "name": "receiver", "leds": {"count": 512}}).encode()
        self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
for address in addresses:
    server = ThreadingHTTPServer((address, 80), Wled)
    threading.Thread(target=server.serve_forever, daemon=True).start()
sockets = {}
for address in addresses:
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind((address, 4048))
    sockets[udp] = address
found = {address: {"datagrams": 0, "pushes": 0, "pictures": [], "bytes": 0} for address in addresses}
pixels = {address: bytearray(1536) for address in addresses}
end = time.monotonic() + seconds
while time.monotonic() < end:
    ready, _, _ = select.select(list(sockets), [], [], 0.1)
    for udp in ready:
        data = udp.recv(65536)
        address, seen = sockets[udp], found[sockets[udp]]
        seen["datagrams"] += 1
        if len(data) < 10 or data[0] & 0xC0 != 0x40 or data[0] & 0x06:
            continue  # not a version-1 data packet (the status query, say)
        offset, length = int.from_bytes(data[4:8], "big"), int.from_bytes(data[8:10], "big")
        pixels[address][offset:offset + length] = data[10:10 + length]
        seen["bytes"] += length
        if data[0] & 1:
            seen["pushes"] += 1
            digest = hashlib.sha1(pixels[address]).hexdigest()[:8]
            if digest not in seen["pictures"]:
                seen["pictures"].append(digest)
print(json.dumps({"found": found, "asked": asked}))
"""


def with_receiver(text: str, host: str) -> str:
    """A console.yaml with the ddp driver sending to `host` (the packaged file's layout)."""
    text = re.sub(r"^(  name: *)\S+", r"\g<1>ddp", text, count=1, flags=re.M)
    return re.sub(r"^(  ddp:.*\n    host: *)null", rf"\g<1>{host}", text, count=1, flags=re.M)


def network_matrix_under_hardening(stage) -> str:
    box = stage.box
    installed, config = box.file(INSTALLED), box.file(BOX_CONFIG)
    original = (installed.read_text(), config.read_text())
    said = []
    try:
        with phone_network(box) as receiver:
            for file, text in zip((installed, config), original):
                file.write_text(with_receiver(text, f"{LAN}.2"))
            output = stage.install(PI5)
            assert "systemd service (network variant)" in output, output[-1500:]
            assert f"IPAddressAllow={LAN}.2" in box.file(
                "/etc/systemd/system/hues-console.service.d/zz-receiver.conf").read_text()
            pid = console_up(stage)["MainPID"]
            props = box.show("hues-console.service", "User", "PrivateNetwork", "IPAddressAllow", "IPAddressDeny",
                             "RestrictAddressFamilies", "DropInPaths")
            assert props["User"] == "hues" and props["PrivateNetwork"] == "no", props
            assert props["DropInPaths"].split()[-1].endswith("zz-receiver.conf"), props
            seen = json.loads(receiver(RECEIVER, LISTEN_S, f"{LAN}.2", f"{OUTSIDE}.2"))
            lan, outside = seen["found"][f"{LAN}.2"], seen["found"][f"{OUTSIDE}.2"]
            # every changed frame, and a still one every 400 ms: 20 in 8 s from the keep-alive alone
            assert lan["pushes"] >= 16 and lan["pictures"], lan
            # whole frames (the listening may end between a frame's two datagrams), and the watch's questions
            assert 0 <= lan["bytes"] - 1536 * lan["pushes"] <= 1440 and seen["asked"][f"{LAN}.2"] >= 1, seen
            assert outside["datagrams"] == 0 and seen["asked"][f"{OUTSIDE}.2"] == 0, seen
            stage.figure("network_receiver_frames", {"seconds": float(LISTEN_S), "pushes": lan["pushes"],
                                                     "datagrams": lan["datagrams"], "pictures": len(lan["pictures"])})
            said.append(f"as `hues` (pid {pid}) with PrivateNetwork=no and IPAddressAllow={props['IPAddressAllow']}: "
                        f"{LAN}.2 got {lan['pushes']} frames ({lan['datagrams']} datagrams, "
                        f"{len(lan['pictures'])} pictures) in {LISTEN_S} s and {seen['asked'][f'{LAN}.2']} "
                        f"/json/info questions; {OUTSIDE}.2 nothing")
            said.append(exposure_online_and_offline(stage, "network"))
            config.write_text(with_receiver(original[1], f"{OUTSIDE}.2"))  # the filter still for LAN.2
            box.run("systemctl", "restart", "hues-console.service", timeout=90)
            console_up(stage)
            seen = json.loads(receiver(RECEIVER, LISTEN_S, f"{LAN}.2", f"{OUTSIDE}.2"))
            assert all(found["datagrams"] == 0 for found in seen["found"].values()), seen
            assert not any(seen["asked"].values()), seen
            log = journal(stage, 200)
            assert "[the LED matrix does not answer" in log, log[-2000:]
            said.append(f"told to send to {OUTSIDE}.2 (not the installed address): nothing arrives at either "
                        "address, and the console says the matrix does not answer")
    finally:
        for file, text in zip((installed, config), original):
            file.write_text(text)
        stage.install(PI5)
    console_up(stage)
    return " | ".join(said)


CHECKS = [("network_matrix_under_hardening", network_matrix_under_hardening)]

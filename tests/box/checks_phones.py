"""The box as the phones at the table reach it: a phone's own network namespace, joined to the
box's by a veth pair, with two addresses on each side: one in a party LAN range (192.168.77.0/24)
and one that is not (203.0.113.0/24, TEST-NET-3, standing for any address beyond the party's
network). Every packet stays in namespaces the test made."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

from tests.box.root import BoxError

LAN, OUTSIDE = "192.168.77", "203.0.113"

CONNECT = r"""
import socket, sys
source, target = sys.argv[1], sys.argv[2]
with socket.socket() as phone:
    phone.bind((source, 0))
    phone.settimeout(5)
    try:
        phone.connect((target, 8080))
        phone.sendall(b"GET / HTTP/1.0\r\nHost: huesbox.local\r\n\r\n")
        print("answered " + phone.recv(64).split(b"\r\n")[0].decode())
    except socket.timeout:
        print("dropped")
    except OSError as error:
        print(f"refused {error}")
"""

# A one-shot mDNS query (RFC 6762 section 6.7, "legacy unicast": from a port other than 5353, so
# the responder answers to it directly), as a phone's resolver asks for <hostname>.local.
RESOLVE = r"""
import socket, struct, sys
source, name = sys.argv[1], sys.argv[2]
query = struct.pack(">6H", 0x4855, 0, 1, 0, 0, 0)
query += b"".join(bytes([len(part)]) + part.encode() for part in name.split(".")) + b"\0" + struct.pack(">2H", 1, 1)
with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as phone:
    phone.bind((source, 0))
    phone.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(source))
    phone.settimeout(0.5)
    for _ in range(20):  # avahi announces the name a moment after the address comes up
        phone.sendto(query, ("224.0.0.251", 5353))
        try:
            answer = phone.recv(1500)
        except socket.timeout:
            continue
        if struct.unpack(">H", answer[6:8])[0] and answer[-6:-4] == b"\0\4":
            print(socket.inet_ntoa(answer[-4:]))
            break
    else:
        print("no answer")
"""


@contextlib.contextmanager
def phone_network(box):
    """Yields `phone(code, *args)`: runs a Python snippet in the phone's namespace."""
    phone = subprocess.Popen(["unshare", "--net", "sleep", "120"])
    created = False
    try:
        # The links' own text, "net:[inode]": resolved as paths they always differed (each under
        # its own /proc/PID), so the veth could go into the host's namespace before unshare ran.
        box.wait_for("the phone's namespace", lambda: os.readlink(f"/proc/{phone.pid}/ns/net") !=
                     os.readlink("/proc/self/ns/net"), 5, poll_s=0.01)

        def ip(pid: int, *argv: str) -> None:
            said = subprocess.run(["nsenter", f"--target={pid}", "--net", "ip", *argv], capture_output=True, text=True)
            if said.returncode != 0:
                raise BoxError(f"ip {' '.join(argv)} in the namespace of {pid}: {said.stderr.strip()} (exit {said.returncode})")

        ip(box.leader, "link", "add", "party0", "type", "veth", "peer", "name", "phone0", "netns", str(phone.pid))
        created = True
        for pid, device, last in ((box.leader, "party0", 1), (phone.pid, "phone0", 2)):
            for net in (LAN, OUTSIDE):
                ip(pid, "addr", "add", f"{net}.{last}/24", "dev", device)
            ip(pid, "link", "set", device, "up")

        def run(code: str, *argv: str) -> str:
            return subprocess.run(["nsenter", f"--target={phone.pid}", "--net", sys.executable, "-c", code, *argv],
                                  capture_output=True, text=True, timeout=30).stdout.strip()

        yield run
    finally:
        if created:  # now: the kernel removes a dead namespace's devices later, in its own time
            subprocess.run(["nsenter", f"--target={box.leader}", "--net", "ip", "link", "del", "party0"],
                           capture_output=True)
        phone.kill()
        phone.wait()


def phones_firewall(stage) -> str:
    """The socket's IPAddressAllow= (web-lan.conf) lets the party LAN in and drops the rest."""
    with phone_network(stage.box) as phone:
        lan, outside = phone(CONNECT, f"{LAN}.2", f"{LAN}.1"), phone(CONNECT, f"{OUTSIDE}.2", f"{OUTSIDE}.1")
    assert lan.startswith("answered HTTP/1.1 "), f"from the party LAN: {lan}"
    assert outside == "dropped", f"from {OUTSIDE}.2: {outside}"
    return (f"from {LAN}.2 the phones' page {lan.split(' ', 1)[1]!r}; from {OUTSIDE}.2 the SYN is "
            "dropped (no answer in 5 s, not even a refusal)")


def phones_find_the_box_by_name(stage) -> str:
    """The sticker's address, http://huesbox.local:8080/: avahi-daemon (which the installer puts
    on for the phones) answers a phone's mDNS question for the name, and the page comes."""
    with phone_network(stage.box) as phone:
        address = phone(RESOLVE, f"{LAN}.2", "huesbox.local")
        page = phone(CONNECT, f"{LAN}.2", address) if address.startswith(LAN) else "not asked"
    assert address in (f"{LAN}.1", f"{OUTSIDE}.1"), f"huesbox.local: {address}"
    assert page.startswith("answered HTTP/1.1 ") or not address.startswith(LAN), page
    return f"huesbox.local resolves to {address} over mDNS (avahi-daemon in the box); the page: {page}"


CHECKS = [
    ("phones_firewall", phones_firewall),
    ("phones_find_the_box_by_name", phones_find_the_box_by_name),
]

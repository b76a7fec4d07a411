"""The phones' way in on the Pi: with the web companion on, systemd holds its listening socket
(systemd/hues-console.socket, on web.address:web.port) with its IP filter, the service takes it
and has no network of its own (systemd/web.conf); when the companion listens on the box's network
the socket's drop-in (systemd/web-lan.conf) lets the local network through that filter. All of it
goes again when the phones are turned off.

The installer runs against a staging root as in tests/box/test_install.py; the unit's settings are
read from the shipped files.
"""

from __future__ import annotations

import ipaddress
import re

import pytest

from console.config.loader import load_config
from tests.box.test_install import ETC_CONFIG, MAKERS, PI4, PI5, SYSTEMD, UNIT, FakePi, ok, unit_keys

WEB_DROPIN = "etc/systemd/system/hues-console.service.d/web.conf"
SOCKET = "etc/systemd/system/hues-console.socket"
LAN_DROPIN = "etc/systemd/system/hues-console.socket.d/lan.conf"
DRIVER_DROPINS = sorted(SYSTEMD.glob("driver-*.conf"))

# Where the phones at a party are: the addresses a phone gets on the networks a box meets.
PHONES = {
    "192.168.1.23": "a home router",
    "192.168.43.120": "an Android hotspot",
    "172.20.10.3": "an iPhone hotspot",
    "10.0.0.42": "a mesh or office network",
    "169.254.17.5": "a network without DHCP",
    "fe80::1c2b:3ff:fe4d:5e6f": "IPv6 link-local (web.address: '::')",
    "fd7a:115c:a1e0::5": "an IPv6 unique local address",
}
# ... and what must stay out: the Internet, a carrier's shared range, multicast (mDNS is
# avahi-daemon's, in its own unit), an IPv6 global address that an unfirewalled router passes.
STRANGERS = ["8.8.8.8", "100.64.0.7", "224.0.0.251", "192.0.2.1", "2a00:1450:4001:81c::200e", "ff02::fb"]


def allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    values = unit_keys(SYSTEMD / "web-lan.conf")["Socket"]["IPAddressAllow"]
    return [ipaddress.ip_network(entry) for value in values for entry in value.split()]


def test_the_web_drop_in_lets_in_the_local_network_and_nothing_beyond():
    networks = allowed_networks()
    for address, where in PHONES.items():
        assert any(ipaddress.ip_address(address) in net for net in networks), f"a phone on {where}"
    for address in STRANGERS:
        assert not any(ipaddress.ip_address(address) in net for net in networks), address
    assert all(net.is_private and not net.is_global for net in networks)
    socket = unit_keys(SYSTEMD / "web-lan.conf")["Socket"]
    # Only adds: an empty IPAddressAllow= would drop localhost, an IPAddressDeny= would undo the
    # socket's deny-all.
    assert set(socket) == {"IPAddressAllow"} and "" not in socket["IPAddressAllow"]
    unit = unit_keys(SYSTEMD / "hues-console.socket")["Socket"]
    assert unit["IPAddressDeny"] == ["any"] and unit["IPAddressAllow"] == ["localhost"]


def test_with_the_phones_on_the_service_takes_its_socket_and_has_no_network():
    """systemd listens (one ListenStream=, which the installer sets from web.address and
    web.port); the service needs the socket unit, runs in a network namespace of its own and may
    make unix sockets only (Redis's). No drop-in of a driver gives the network back."""
    socket = unit_keys(SYSTEMD / "hues-console.socket")
    assert len(socket["Socket"]["ListenStream"]) == 1 and socket["Install"]["WantedBy"] == ["sockets.target"]
    web = unit_keys(SYSTEMD / "web.conf")
    assert web["Unit"]["Requires"] == web["Unit"]["After"] == ["hues-console.socket"]
    assert web["Service"]["PrivateNetwork"] == ["yes"]
    assert web["Service"]["RestrictAddressFamilies"] == ["", "AF_UNIX"]  # reset, then unix only
    base = unit_keys(UNIT)["Service"]
    assert base["IPAddressDeny"] == ["any"] and base["IPAddressAllow"] == ["localhost"]
    for path in [UNIT, *DRIVER_DROPINS]:
        service = unit_keys(path).get("Service", {})
        assert "PrivateNetwork" not in service or path == UNIT, path.name
        assert not {"SocketBindAllow", "SocketBindDeny"} & set(service), path.name
        if path != UNIT:
            assert "RestrictAddressFamilies" not in service, f"{path.name} changes the families"


def test_the_installer_turns_on_the_phones_for_the_box_network_with_the_socket(tmp_path):
    pi = FakePi(tmp_path, PI5)
    pi.write("etc/hostname", "huesbox\n")
    lines = ok(pi.install())
    web = load_config(str(pi.root / ETC_CONFIG)).web
    assert (web.enabled, web.address, web.port) == (True, "0.0.0.0", 8080)
    assert pi.read(WEB_DROPIN) == (SYSTEMD / "web.conf").read_text()
    assert pi.read(LAN_DROPIN) == (SYSTEMD / "web-lan.conf").read_text()
    assert unit_keys(pi.root / SOCKET)["Socket"]["ListenStream"] == ["0.0.0.0:8080"]
    assert "apt-get install -y avahi-daemon" in pi.commands()  # answers huesbox.local
    assert "phones: http://huesbox.local:8080/ (the socket accepts the local network's addresses; " \
           "0.0.0.0:8080)" in lines
    assert "systemctl enable hues-console.socket" in pi.commands()
    first = pi.snapshot()
    ok(pi.install())
    assert pi.snapshot() == first


@pytest.mark.parametrize("web, listen, lan, says", [
    ("enabled: false", None, False, "phones: the web companion is off: the service keeps to localhost"),
    ("enabled: true\n  address: 127.0.0.1", "127.0.0.1:8080", False,
     "phones: the web companion is on for this computer only (127.0.0.1:8080): the socket keeps to localhost"),
    ("enabled: true\n  address: localhost\n  port: 9000", "127.0.0.1:9000", False,
     "phones: the web companion is on for this computer only (localhost:9000): the socket keeps to localhost"),
    ('enabled: true\n  address: "::"', "[::]:8080", True,
     "phones: http://<hostname>.local:8080/ (the socket accepts the local network's addresses; [::]:8080)"),
    ("enabled: true\n  address: 192.168.1.5\n  port: 8443", "192.168.1.5:8443", True,
     "phones: http://<hostname>.local:8443/ (the socket accepts the local network's addresses; "
     "192.168.1.5:8443)"),
])
def test_a_rerun_follows_the_hosts_web_setting(tmp_path, web, listen, lan, says):
    pi = FakePi(tmp_path, PI4)
    ok(pi.install())
    assert (pi.root / LAN_DROPIN).exists()  # the installer's own config: on, for the network
    pi.write(ETC_CONFIG, f"web:\n  {web}\nstore:\n  url: unix://hues@/run/redis/redis-server.sock?db=0\n")
    lines = ok(pi.install())
    assert says in lines
    assert (pi.root / LAN_DROPIN).exists() == lan
    assert (pi.root / WEB_DROPIN).exists() == (pi.root / SOCKET).exists() == (listen is not None)
    if listen:
        assert unit_keys(pi.root / SOCKET)["Socket"]["ListenStream"] == [listen]
        assert pi.commands()[-2:] == ["systemctl restart hues-console.socket",  # moved or refiltered
                                      "systemctl restart hues-console.service"]
    else:
        assert "systemctl disable --now hues-console.socket" in pi.commands()
        assert pi.commands()[-2:] == ["systemctl enable hues-console.service",
                                      "systemctl restart hues-console.service"]  # the unit reloaded
    assert ("apt-get install -y avahi-daemon" in pi.commands()) == lan


@pytest.mark.parametrize("setting, message", [
    ("web:\n  address: box.local\n", "web.address is a host name (box.local:8080), and systemd listens"),
    ("store:\n  url: redis://localhost:6379/0\n", "store.url must be Redis's unix socket"),
])
def test_what_the_socket_cannot_serve_stops_the_install_with_the_fix(tmp_path, setting, message):
    pi = FakePi(tmp_path, PI4)
    pi.write(ETC_CONFIG, "web:\n  enabled: true\n" + setting if "web:" not in setting
             else setting.replace("web:\n", "web:\n  enabled: true\n"))
    result = pi.install()
    assert result.returncode == 1 and message in result.stderr


def test_a_dry_run_with_the_phones_off_would_remove_the_socket(tmp_path):
    pi = FakePi(tmp_path, PI4)
    ok(pi.install())
    pi.write(ETC_CONFIG, "web:\n  enabled: false\n")
    lines = ok(pi.install("--dry-run"))
    for path in (WEB_DROPIN, LAN_DROPIN, SOCKET):
        assert f"would: rm -f {pi.root / path}" in lines
        assert (pi.root / path).exists()
    assert "would: systemctl disable --now hues-console.socket" in lines


def test_the_makers_guide_names_every_range_the_drop_in_allows():
    text = MAKERS.read_text()
    section = text[text.index("\n### How a phone reaches the box\n"):]
    section = section[:section.find("\n## ", 1)]
    for net in allowed_networks():
        assert f"`{net}`" in section, net
    assert "web-lan.conf" in section and "hues-console.socket" in section and ".local" in section
    assert re.search(r"IPAddressAllow=", section)

"""The phones' way in on the Pi: the installer's web drop-in (systemd/web.conf), which lets the
local network through the unit's IP filter when the web companion listens on the box's network,
and goes again when it does not.

The installer runs against a staging root as in tests/test_install.py; the unit's settings are
read from the shipped files.
"""

from __future__ import annotations

import ipaddress
import re

import pytest

from console.config.loader import load_config
from tests.test_install import ETC_CONFIG, MAKERS, PI4, PI5, SYSTEMD, UNIT, FakePi, ok, unit_keys

WEB_DROPIN = "etc/systemd/system/hues-console.service.d/web.conf"
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
    values = unit_keys(SYSTEMD / "web.conf")["Service"]["IPAddressAllow"]
    return [ipaddress.ip_network(entry) for value in values for entry in value.split()]


def test_the_web_drop_in_lets_in_the_local_network_and_nothing_beyond():
    networks = allowed_networks()
    for address, where in PHONES.items():
        assert any(ipaddress.ip_address(address) in net for net in networks), f"a phone on {where}"
    for address in STRANGERS:
        assert not any(ipaddress.ip_address(address) in net for net in networks), address
    assert all(net.is_private and not net.is_global for net in networks)
    service = unit_keys(SYSTEMD / "web.conf")["Service"]
    # Only adds: an empty IPAddressAllow= would drop localhost (a redis:// store), an
    # IPAddressDeny= would undo the main unit's deny-all.
    assert set(service) == {"IPAddressAllow"} and "" not in service["IPAddressAllow"]


def test_the_unit_with_every_driver_lets_the_web_server_listen():
    """Nothing in the shipped files stops the web companion's socket: Internet sockets are
    allowed, the network is the host's, and no bind rule stands between it and web.port (a
    port the host may change in console.yaml without running the installer)."""
    base = unit_keys(UNIT)["Service"]
    assert {"AF_INET", "AF_INET6"} <= set(" ".join(base["RestrictAddressFamilies"]).split())
    assert base["IPAddressDeny"] == ["any"] and base["IPAddressAllow"] == ["localhost"]
    for path in [UNIT, SYSTEMD / "web.conf", *DRIVER_DROPINS]:
        service = unit_keys(path).get("Service", {})
        assert service.get("PrivateNetwork", ["no"]) == ["no"], path.name
        assert not {"SocketBindAllow", "SocketBindDeny"} & set(service), path.name
        if path != UNIT:
            assert "RestrictAddressFamilies" not in service, f"{path.name} narrows the families"


def test_the_installer_turns_on_the_phones_for_the_box_network_with_the_drop_in(tmp_path):
    pi = FakePi(tmp_path, PI5)
    pi.write("etc/hostname", "huesbox\n")
    lines = ok(pi.install())
    web = load_config(str(pi.root / ETC_CONFIG)).web
    assert (web.enabled, web.address, web.port) == (True, "0.0.0.0", 8080)
    assert pi.read(WEB_DROPIN) == (SYSTEMD / "web.conf").read_text()
    assert "apt-get install -y avahi-daemon" in pi.commands()  # answers huesbox.local
    assert "phones: http://huesbox.local:8080/ (the service accepts the local network's addresses; " \
           "0.0.0.0:8080)" in lines
    first = pi.snapshot()
    ok(pi.install())
    assert pi.snapshot() == first


@pytest.mark.parametrize("web, dropin, says", [
    ("enabled: false", False, "phones: the web companion is off: the service keeps to localhost"),
    ("enabled: true\n  address: 127.0.0.1", False,
     "phones: the web companion is on for this computer only (127.0.0.1:8080): the service keeps to localhost"),
    ("enabled: true\n  address: localhost\n  port: 9000", False,
     "phones: the web companion is on for this computer only (localhost:9000): the service keeps to localhost"),
    ('enabled: true\n  address: "::"', True,
     "phones: http://<hostname>.local:8080/ (the service accepts the local network's addresses; [::]:8080)"),
    ("enabled: true\n  address: 192.168.1.5\n  port: 8443", True,
     "phones: http://<hostname>.local:8443/ (the service accepts the local network's addresses; "
     "192.168.1.5:8443)"),
])
def test_a_rerun_follows_the_hosts_web_setting(tmp_path, web, dropin, says):
    pi = FakePi(tmp_path, PI4)
    ok(pi.install())
    assert (pi.root / WEB_DROPIN).exists()  # the installer's own config: on, for the network
    pi.write(ETC_CONFIG, f"web:\n  {web}\nstore:\n  url: redis://localhost:6379/0\n")
    lines = ok(pi.install())
    assert says in lines
    assert (pi.root / WEB_DROPIN).exists() == dropin
    assert ("apt-get install -y avahi-daemon" in pi.commands()) == dropin
    assert pi.commands()[-2:] == ["systemctl enable hues-console.service",
                                  "systemctl restart hues-console.service"]  # the unit reloaded


def test_a_dry_run_with_the_phones_off_would_remove_the_drop_in(tmp_path):
    pi = FakePi(tmp_path, PI4)
    ok(pi.install())
    pi.write(ETC_CONFIG, "web:\n  enabled: false\n")
    lines = ok(pi.install("--dry-run"))
    assert f"would: rm -f {pi.root / WEB_DROPIN}" in lines
    assert (pi.root / WEB_DROPIN).exists()


def test_the_makers_guide_names_every_range_the_drop_in_allows():
    text = MAKERS.read_text()
    section = text[text.index("\n### How a phone reaches the box\n"):]
    section = section[:section.find("\n## ", 1)]
    for net in allowed_networks():
        assert f"`{net}`" in section, net
    assert "web.conf" in section and ".local" in section
    assert re.search(r"IPAddressAllow=", section)

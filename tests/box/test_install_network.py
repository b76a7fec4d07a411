"""The installer with a network driver (ddp, e131: the LEDs are a WLED or Falcon Player matrix):
the unprivileged service with no LED device (driver-network.conf), UDP to the receiver's address
only (zz-receiver.conf from systemd/receiver.conf, after web.conf), no boot settings, and the
exposure systemd-analyze gives those files.

The installer runs against a staging root as in tests/box/test_install.py. Receivers are given
by address, or by a name /etc/hosts has: nothing here asks a name server."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.box.test_install import (
    BOOT_CONFIG, ETC_CONFIG, PI4, PI5, SYSTEMD, FakePi, exposure, lay_out_units, ok, unit_keys,
)

DRIVER_DROPIN = "etc/systemd/system/hues-console.service.d/driver.conf"
RECEIVER_DROPIN = "etc/systemd/system/hues-console.service.d/zz-receiver.conf"
WEB_DROPIN = "etc/systemd/system/hues-console.service.d/web.conf"
STORE = "store:\n  url: unix://hues@/run/redis/redis-server.sock?db=0\n"
# The most exposure systemd-analyze security may give the service on a network driver, with the
# phones on or off: it may send to the receiver (PrivateNetwork 0.5, Internet sockets 0.3, a
# non-localhost address allowed 0.1 of it), against 1.1 and 0.4 for leds-dev (test_install.py).
NETWORK_EXPOSURE = 1.2


def network_config(driver: str = "ddp", host: str = "192.168.1.50", web: bool = True) -> str:
    return (f"driver:\n  name: {driver}\n  {driver}: {{host: '{host}'}}\n{STORE}"
            f"web:\n  enabled: {'true' if web else 'false'}\n  address: 0.0.0.0\n")


@pytest.mark.parametrize("model", [PI4, PI5])
def test_a_network_driver_runs_unprivileged_and_may_send_to_its_receiver_only(tmp_path, model):
    pi = FakePi(tmp_path, model)
    pi.write(ETC_CONFIG, network_config())
    boot = pi.read(BOOT_CONFIG)
    lines = ok(pi.install())
    assert f"LED driver: ddp to the matrix at 192.168.1.50 (192.168.1.50), 512 LEDs ({model})" in lines
    assert "==> systemd service (network variant)" in lines
    assert "none needed: the LEDs are on the network (ddp)" in lines
    assert pi.read(BOOT_CONFIG) == boot  # no overlay, no SPI, the sound left alone
    assert pi.read(DRIVER_DROPIN) == (SYSTEMD / "driver-network.conf").read_text()
    service = unit_keys(pi.root / RECEIVER_DROPIN)["Service"]
    assert service == {"PrivateNetwork": ["no"], "RestrictAddressFamilies": ["", "AF_UNIX AF_INET"],
                       "IPAddressAllow": ["192.168.1.50"]}
    assert (pi.root / WEB_DROPIN).exists()  # the phones as before: zz-receiver.conf comes after web.conf
    assert sorted(p.name for p in (pi.root / RECEIVER_DROPIN).parent.iterdir()) == ["driver.conf", "web.conf",
                                                                                     "zz-receiver.conf"]
    driver = unit_keys(pi.root / DRIVER_DROPIN)["Service"]
    assert driver == {"User": ["hues"], "Group": ["gpio"], "PrivateUsers": ["yes"]}  # no device, no capability
    assert "apt-get install -y polkitd" in pi.commands()  # `hues` powers the Pi off by polkit's leave
    first = pi.snapshot()
    ok(pi.install())
    assert pi.snapshot() == first


def test_an_ipv6_receiver_gets_its_family_and_e131_the_same_drop_in(tmp_path):
    pi = FakePi(tmp_path, PI5)
    pi.write(ETC_CONFIG, network_config("e131", "fd7a:115c:a1e0::5"))
    ok(pi.install())
    service = unit_keys(pi.root / RECEIVER_DROPIN)["Service"]
    assert service["RestrictAddressFamilies"] == ["", "AF_UNIX AF_INET6"]
    assert service["IPAddressAllow"] == ["fd7a:115c:a1e0::5"]


def test_a_receiver_given_by_name_is_allowed_at_the_address_it_has_now(tmp_path):
    pi = FakePi(tmp_path, PI4)
    pi.write(ETC_CONFIG, network_config(host="localhost"))
    lines = ok(pi.install())
    assert unit_keys(pi.root / RECEIVER_DROPIN)["Service"]["IPAddressAllow"] == ["127.0.0.1"]
    assert any(line.startswith("note: localhost is 127.0.0.1 now, and the service may send to that address only")
               for line in lines)
    assert any("cannot ask DNS for localhost" in line for line in lines)


def test_another_driver_takes_the_receivers_drop_in_away(tmp_path):
    pi = FakePi(tmp_path, PI5)
    pi.write(ETC_CONFIG, network_config())
    ok(pi.install())
    pi.write(ETC_CONFIG, "driver:\n  name: auto\n" + STORE)
    lines = ok(pi.install())
    assert not (pi.root / RECEIVER_DROPIN).exists() and f"+ rm -f {pi.root / RECEIVER_DROPIN}" in lines
    assert pi.read(DRIVER_DROPIN) == (SYSTEMD / "driver-leds-dev.conf").read_text()


def test_a_network_driver_without_its_receiver_stops_the_install(tmp_path):
    pi = FakePi(tmp_path, PI4)
    pi.write(ETC_CONFIG, "driver:\n  name: ddp\n" + STORE)
    result = pi.install()
    assert result.returncode == 1 and "driver.ddp.host: give the receiver's address or host name" in result.stderr


def lay_out_network(root, web: bool, family: str = "AF_INET", address: str = "192.168.1.50", exec_start=None):
    units = root / "etc/systemd/system"
    lay_out_units(units, "network", web, exec_start)
    text = (SYSTEMD / "receiver.conf").read_text()
    text = text.replace("IPAddressAllow=RECEIVER", f"IPAddressAllow={address}")
    text = text.replace("RestrictAddressFamilies=AF_UNIX FAMILY", f"RestrictAddressFamilies=AF_UNIX {family}")
    (units / "hues-console.service.d/zz-receiver.conf").write_text(text)
    return units


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize("web", [False, True])
def test_the_network_driver_scores_as_promised_by_systemd_analyze_security(tmp_path, web):
    """The receiver drop-in undoes web.conf's PrivateNetwork (the phones on) and opens one address."""
    lay_out_network(tmp_path, web)
    score, report = exposure(tmp_path)
    assert score <= NETWORK_EXPOSURE, report
    assert "Service has access to the host's network" in report  # zz-receiver.conf was read after web.conf
    assert "Service defines IP address allow list with non-localhost entries" in report


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize("web", [False, True])
def test_systemd_analyze_verifies_the_unit_with_the_network_driver(tmp_path, web):
    units = lay_out_network(tmp_path, web, exec_start="/bin/true")
    paths = [units / "hues-console.service"] + ([units / "hues-console.socket"] if web else [])
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", *map(str, paths)],
                            capture_output=True, text=True, timeout=60)
    ours = [line for line in (result.stdout + result.stderr).splitlines() if str(tmp_path) in line]
    assert result.returncode == 0 and ours == [], result.stdout + result.stderr

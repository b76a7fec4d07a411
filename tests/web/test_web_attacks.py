"""One guest cannot take the party down: each attack from a process of its own (bench/attacker.py,
the lab's, from six loopback addresses that count as six devices here), against the console in
real time, while two phones play. Each test asserts the mechanism that holds the attack back
(pacing, caps per device, timeouts, budgets) and that the party goes on: the seated phone's taps
are answered, the joystick's presses are taken, a new phone with the right code gets in. The
times these take are `python -m bench attacks`'s to measure, not asserted here.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import threading
import time
import urllib.request

import pytest
from websockets.sync.client import connect

from bench.attacker import SOURCES
from bench.attacks import NEWCOMER, ON_LOOPBACK, AttackedConsole
from console.web.limits import device
from console.web.pacing import BURST
from console.web.panel import SIM_RATE_PER_S
from console.web.pacing import RATE_PER_S
from console.web.replay import MAX_FRAMES_PER_S
from console.web.seat_writer import WRITE_EVERY_S
from console.web.seats import SEATS_SETTING
from tests.box.test_install import UNIT, one, unit_keys
from tests.web.test_web_security import server_errors

LIMITS = dataclasses.replace(ON_LOOPBACK, request_s=0.5, admit_s=1.0, keep_alive_s=1)


@pytest.fixture
def console():
    with AttackedConsole(LIMITS) as c:
        yield c


def the_party_goes_on(console: AttackedConsole) -> None:
    """The guesser's taps come back, a new phone joins, the joystick moves the cursor."""
    since = time.monotonic()
    assert len(console.taps(10, every_s=0.03)) == 10
    console.newcomer()
    assert console.joystick(6) == 6
    print(console.said[-1:], console.figures(since))


def test_a_flood_on_every_websocket_is_read_at_each_ones_pace(console):
    rates = {"/panel/ws": RATE_PER_S, "/sim/ws": SIM_RATE_PER_S, "/ws": RATE_PER_S,
             f"/replay/{console.game_id}/ws": MAX_FRAMES_PER_S}
    console.attack("flood")
    # every path has refused some (the attacker, flooding from a loaded machine, may read its
    # answers late: one run of the whole suite had it report none yet from /ws and the replay)
    console.attacking(lambda said: said["sent"] > 20_000 and all(said["refusals"].get(path) for path in rates))
    the_party_goes_on(console)
    said = console.said[-1]
    assert said["held"] > 3 * len(SOURCES)  # within the caps (a phone that reads none of its answers is dropped)
    for path, rate in rates.items():
        allowed = len(SOURCES) * (BURST + 1 + rate * said["seconds"])  # each device's burst, then its rate
        assert 0 < said["refusals"][path] <= allowed, path
    assert said["sent"] > 5 * sum(said["refusals"].values())  # the rest waits in the sockets, unread


def test_phones_that_never_give_the_code_are_capped_per_device_and_time_out(console):
    console.attack("unadmitted")
    console.attacking(lambda said: said["held"] == 3 * len(SOURCES))
    room = console.web.room
    assert all(room.waiting.of(source) == LIMITS.phones_per_device for source in SOURCES)
    the_party_goes_on(console)  # the newcomer is let in beside them
    closed = console.said[-1]["refused"]
    console.attacking(lambda said: said["refused"] >= closed + 3 * len(SOURCES))  # admit_s: closed, they come back
    # none waits past admit_s (the room may be empty: those closed at admit_s are not back yet)
    assert max((room.clock() - phone.since for phone in room.waiting), default=0.0) < LIMITS.admit_s + 2


def test_idle_connections_are_capped_per_device_and_closed(console):
    before = len(os.listdir("/proc/self/fd"))
    console.attack("idle")  # 1,100 sockets that say nothing
    console.attacking(lambda said: said["opened"] >= 1100)
    pool = console.web.server.guard.pool
    assert len(pool) <= LIMITS.connections_per_device * len(SOURCES) + 8  # + the phones'
    assert all(pool.of(source) <= LIMITS.connections_per_device for source in SOURCES)
    assert len(os.listdir("/proc/self/fd")) < before + len(pool) + LIMITS.backlog + 20  # + those just accepted
    request = urllib.request.Request(console.web.url + "/")
    with urllib.request.urlopen(request, timeout=5) as answer:  # no 503: idle ones do not count
        assert answer.status == 200
    the_party_goes_on(console)
    opened = console.said[-1]["opened"]
    console.attacking(lambda said: said["opened"] > opened + 3 * len(SOURCES))  # request_s: closed


def test_the_unit_leaves_room_for_every_connection_the_server_allows():
    limit = int(one(unit_keys(UNIT), "Service", "LimitNOFILE"))
    assert limit >= 4 * (ON_LOOPBACK.connections + ON_LOOPBACK.backlog)  # the console's own files: a few dozen


def test_headers_sent_a_byte_at_a_time_are_cut_off(console):
    console.attack("slowloris")
    console.attacking(lambda said: said["refused"] > 2 * 20 * len(SOURCES))  # every one closed, twice
    the_party_goes_on(console)
    with socket.create_connection(("127.0.0.1", console.web.server.port), source_address=(NEWCOMER, 0)) as sock:
        sock.sendall(b"GET /phone.css HTTP/1.1\r\nHost: box\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 200")


def test_viewers_are_capped_per_device(console):
    console.attack("viewers")
    console.attacking(lambda said: said["held"] == LIMITS.viewers_per_device * len(SOURCES))
    the_party_goes_on(console)
    with connect(console.web.url.replace("http", "ws") + "/panel/ws", origin=console.web.url,
                 source_address=(NEWCOMER, 0), open_timeout=5) as page:
        assert isinstance(page.recv(timeout=5), bytes)  # the projector gets the panel


def test_wrong_codes_from_six_devices_do_not_keep_a_guest_out(console):
    console.attack("wrong-codes")
    console.attacking(lambda said: said["answers"] > 300)
    attempts = console.web.room.attempts
    assert all(attempts.blocked(source) > 0 for source in SOURCES)  # every budget of theirs is spent
    the_party_goes_on(console)  # the newcomer's right code is checked all the same


def test_one_socket_cannot_pose_as_six_addresses(console):
    console.attack("forwarded")
    console.attacking(lambda said: said["answers"] > 20)
    attempts = console.web.room.attempts
    assert attempts.blocked(SOURCES[0]) > 0
    assert list(attempts._devices) == [device(SOURCES[0])]  # X-Forwarded-For not believed
    the_party_goes_on(console)


def test_seat_churn_is_paced_and_kept_off_the_panels_loop(console):
    store, writes = console.app.store, []
    keep = store.set_setting

    def noting(name, value):
        writes.append((time.monotonic(), threading.current_thread()))
        keep(name, value)

    store.set_setting = noting
    console.attack("seat-churn")
    console.attacking(lambda said: said["answers"] > 200)
    the_party_goes_on(console)
    assert not any(thread is console._loop for at, thread in writes)
    span = writes[-1][0] - writes[0][0]
    assert len(writes) <= 2 + span / WRITE_EVERY_S  # the latest seats only, 5 writes a second at most
    changes = console.said[-1]["answers"] - console.said[-1]["refusals"].get("/ws", 0)
    assert console.said[-1]["refusals"].get("/ws", 0) > changes / 2  # most are "too many seat changes"
    assert store.get_setting(SEATS_SETTING) is not None


def test_a_400_digit_moment_on_replay_pages_is_refused_without_a_traceback(console):
    with server_errors() as errors:
        console.attack("huge-numbers")
        console.attacking(lambda said: sum(said["refusals"].values()) > 60)
        the_party_goes_on(console)
    assert not errors

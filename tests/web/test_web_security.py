"""The server against a hostile phone or page: other origins, oversized, malformed and replayed
messages, guessing the room code or the PIN, and paths outside the app's own routes."""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import json
import urllib.error
import urllib.request

import pytest
from hypothesis import given, settings, strategies as st
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from console.web.hub import Hub
from console.web.messages import CONNECTION_VERBS, FIELDS, MessageError, parse_message
from console.web.phone_connection import PhoneConnection
from console.web.phones import PhoneRoom
from console.web.limits import Attempts, device, network
from console.game.seating import Seating
from console.play import intents
from console.play.ports import Request
from console.web.seats import CODE_LETTERS, new_room_code
from console.web.server import MAX_MESSAGE_BYTES, host_allowed, origin_allowed
from hal.inputs.events import EventQueue
from tests.fakes import FakeClock
from tests.phones import PhoneTable, in_own_loop


@pytest.fixture(scope="module")
def console():
    with PhoneTable() as t:
        yield t


@pytest.fixture
def table(console):
    """The module's console with no phone of an earlier test connected and no wrong code counted
    yet (every test comes from 127.0.0.1)."""
    for phone in console.phones:
        phone.close()
    console.phones.clear()
    console.wait_until(lambda: not console.web.room.phones)
    console.web.room.attempts = Attempts(console.web.room.clock)
    return console


def get(url: str) -> tuple[int, dict, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_only_the_apps_own_routes_are_served_with_strict_headers(table):
    status, headers, body = get(table.url + "/")
    assert status == 200 and b"/phone.js" in body
    assert "default-src 'self'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"
    assert "server" not in {k.lower() for k in headers}
    for path in ("/phone.js", "/phone.css"):
        assert get(table.url + path)[0] == 200
    for path in ("/static/phone.js", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/phone.html",
                 "/console.yaml", "/ws/../", "/favicon.ico"):
        assert get(table.url + path)[0] == 404, path


def test_a_websocket_from_another_origin_is_refused(table):
    with pytest.raises((InvalidStatus, ConnectionClosed)):
        phone = table.phone(origin="http://evil.example")
        phone.receive()
    assert not origin_allowed({"host": "box:8080"})  # no Origin at all
    assert not origin_allowed({"origin": "http://box:8080.evil", "host": "box:8080"})
    assert origin_allowed({"origin": "http://box:8080", "host": "box:8080"})


def test_websockets_are_not_compressed(table):
    """The client offers permessage-deflate (websockets does by default); the server declines:
    on a LAN, compressing 1.5 KB frames and small JSON only costs the interpreter the panel's
    loop shares."""
    phone = table.phone()
    phone.expect("board")
    assert phone.ws.response.headers.get("Sec-WebSocket-Extensions") is None


def test_an_oversized_message_closes_the_connection(table):
    phone = table.phone()
    phone.expect("board")
    phone.send_raw(json.dumps({"t": "join", "n": 1, "code": "A" * (MAX_MESSAGE_BYTES * 2)}))
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            phone.receive()
    assert closed.value.rcvd.code == 1009  # message too big, before the app sees it


@pytest.mark.parametrize("text, why", [
    ("not json", "not a JSON message"),
    ("[1, 2]", "a message is a JSON object"),
    ('{"t": "launch", "n": 1}', "unknown message 'launch'"),
    ('{"t": "join", "code": "ACEF"}', "join: n must be a whole number from 1 up"),
    ('{"t": "join", "n": true, "code": "ACEF"}', "join: n must be a whole number from 1 up"),
    ('{"t": "join", "n": 1}', "join: missing code"),
    ('{"t": "join", "n": 1, "code": "ACEF", "seat": 1}', "join: unexpected field 'seat'"),
    ('{"t": "cursor", "n": 1, "cell": "Z99"}', "cursor: 'Z99' is not a cell on the board (A1 to P30)"),
    ('{"t": "take", "n": 1, "seat": -1}', "take: seat must be a whole number from 0 to 99"),
    ('{"t": "brightness", "n": 1, "delta": 5}', "brightness: delta must be 1 or -1"),
    ('{"t": "new_game", "n": 1, "players": 4, "variant": "chess"}', "new_game: variant must be cards or free"),
    ("[" * 1000, "not a JSON message"),  # past the JSON parser's recursion limit
    (r'{"t": "join", "n": 1, "code": "\u00c4\u00d6\u20ac\ud800"}', "that is not the code on the panel"),
    (r'{"t": "host", "n": 1, "pin": "\u0661\u0662\u0663\u0664"}', "wrong host PIN"),
])
def test_malformed_messages_are_refused_with_what_is_wrong(table, text, why):
    phone = table.phone()
    phone.send_raw(text)
    assert phone.refusal() == why
    phone.send_raw(b"\x00\x01binary")
    assert phone.refusal() == "messages are JSON text, not binary"


def test_a_replayed_message_is_refused_and_acts_once(table):
    phone = table.phone()
    text = json.dumps({"t": "join", "n": 1, "code": table.code})
    phone.send_raw(text)
    phone.expect("admitted")
    take = json.dumps({"t": "take", "n": 2, "seat": 8})
    phone.send_raw(take)
    phone.expect("seated")
    phone.send_raw(take)
    assert phone.refusal() == "take: message 2 was already received (replayed or sent twice)"
    phone.send_raw(text)
    assert phone.refusal().startswith("join: message 1 was already received")
    assert table.app.ui.seating.taken.count(8) == 1
    table.app.events.put(Request(intents.joystick(), intents.HandOver(8)))  # free for the next test


def test_guessing_the_room_code_is_rate_limited_per_address(table):
    phone = table.phone()
    for n in range(5):
        phone.send("join", code="XXXX")
        assert phone.refusal() == "that is not the code on the panel"
    phone.send("join", code=table.code)  # even the right code waits now
    assert phone.refusal().startswith("too many wrong tries: wait")


def test_a_device_past_its_wrong_tries_waits_and_then_may_try_again():
    clock = FakeClock(100.0)
    attempts = Attempts(clock)
    for _ in range(5):
        assert attempts.blocked("10.0.0.5") == 0
        attempts.wrong("10.0.0.5")
    assert attempts.blocked("10.0.0.5") == pytest.approx(12.0)  # then 5 a minute
    assert attempts.blocked("10.0.0.6") == 0  # another device: its own tries
    clock.sleep(12.0)
    assert attempts.blocked("10.0.0.5") == 0


def test_many_guessing_devices_lock_nobody_out_who_has_not_guessed_wrong():
    """Six devices spending every budget (the old global cap of 30 let them lock everyone out):
    a guest's first tries are checked all the same, so the right code gets in."""
    clock = FakeClock(100.0)
    attempts = Attempts(clock)
    guessers = [f"192.168.1.{10 + i}" for i in range(6)] + [f"10.0.{i}.1" for i in range(6)]
    for _ in range(200):
        clock.sleep(0.5)
        for address in guessers:
            if attempts.blocked(address) == 0:
                attempts.wrong(address)
    assert all(attempts.blocked(address) > 0 for address in guessers)
    for guest in ("192.168.1.99", "10.0.3.77", "2001:db8::1"):  # their networks' budgets spent too
        assert attempts.blocked(guest) == 0
        attempts.wrong(guest)  # a typo, and a second
        attempts.wrong(guest)
        assert attempts.blocked(guest) == 0  # three tries are theirs whatever the others do


def guessed_per_hour(addresses: list[str], hours: float = 1.0) -> float:
    """Tries an attacker at `addresses` gets checked per hour, each address asking again the
    moment it is told it may (on a fake clock)."""
    clock = FakeClock(0.0)
    attempts = Attempts(clock)
    due = [(0.0, address) for address in addresses]
    checked = 0
    while due[0][0] < hours * 3600:
        at, address = heapq.heappop(due)
        clock.sleep(at - clock())
        wait = attempts.blocked(address)
        if wait == 0:
            attempts.wrong(address)
            checked += 1
        heapq.heappush(due, (clock() + max(wait, 0.001), address))
    return checked / hours


@pytest.mark.parametrize("addresses, hours_at_least", [
    (["192.168.1.50"], 20),  # one device: 5 a minute
    ([f"192.168.1.{i}" for i in range(50, 56)], 10),  # six addresses in one /24
    ([f"192.168.1.{i}" for i in range(50, 90)], 8),  # forty (3 free an hour each, then the /24's)
    ([f"10.{i}.0.1" for i in range(40)], 3),  # forty networks: then everyone's budget
    ([f"2001:db8:0:{i:x}::1" for i in range(40)], 8),  # forty IPv6 /64s in one /48
])
def test_guessing_the_code_takes_hours_however_many_addresses(addresses, hours_at_least):
    """Half of the 11**4 codes, on average, before the right one, at the rate the first hour
    allows (its bursts included): the figures of `Attempts`."""
    half = len(CODE_LETTERS) ** 4 / 2
    assert half / guessed_per_hour(addresses) >= hours_at_least


def test_one_device_cannot_multiply_its_guesses_with_ipv6_addresses():
    attempts = Attempts(FakeClock(100.0))
    for i in range(5):  # a privacy address each try
        attempts.wrong(f"2001:db8:1:2::{i + 1:x}")
    assert attempts.blocked("2001:db8:1:2:ffff::9") > 0  # the same /64: the same device
    assert attempts.blocked("2001:db8:1:3::1") == 0
    assert device("::ffff:192.168.1.7") == device("192.168.1.7") == "192.168.1.7"
    assert device("fe80::1%wlan0") == "fe80::/64" and device("?") == "?"
    assert network("192.168.1.7") == "192.168.1.0/24" and network("2001:db8:1:2::1") == "2001:db8:1::/48"


def test_room_codes_use_only_letters_nobody_confuses():
    assert not set("OQDIJLSZBGUVMNW01258") & set(CODE_LETTERS)
    codes = {new_room_code() for _ in range(200)}
    assert all(len(code) == 4 and set(code) <= set(CODE_LETTERS) for code in codes) and len(codes) > 150


def test_a_damaged_seat_list_in_the_store_is_ignored_entry_by_entry():
    assert Seating.kept([[1, "ab"], "junk", [99, "cd"], [1, "dup"], [True, "x"], None], 10).taken == (1,)
    assert Seating.kept({"not": "a list"}, 10).taken == ()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=200)
@given(verb=st.sampled_from(sorted(FIELDS)) | st.text(max_size=10), fields=st.dictionaries(
    st.sampled_from(["n", "code", "seat", "token", "pin", "cell", "players", "variant", "first_giver", "delta", "x",
                     "computers", "level", "lang", "fast", "on", "text"]),
    json_values | st.sampled_from(["child", "expert", "it", "vi", "free"]), max_size=7))
def test_any_json_message_is_accepted_or_refused_with_a_message_error(verb, fields):
    text = json.dumps({"t": verb, **fields})
    try:
        message = parse_message(text, last_n=0)
    except MessageError as exc:
        assert str(exc) and "\n" not in str(exc) and len(str(exc)) < 200
    else:
        assert message.verb in FIELDS and message.n > 0 and set(message.fields) == set(FIELDS[message.verb])
        if message.verb not in CONNECTION_VERBS:
            assert message.intent  # an accepted message is always its player's intent


@settings(max_examples=100)
@given(st.text(max_size=300) | st.binary(max_size=300))
def test_any_text_is_accepted_or_refused_with_a_message_error(text):
    try:
        parse_message(text, last_n=0)
    except MessageError:
        pass


class StuckPhone:
    """A websocket whose phone sends and never reads: every send waits forever."""

    client = None
    headers: dict = {}

    def __init__(self, messages: list[str]):
        self.messages = iter(messages)
        self.closed_with = None

    async def receive(self) -> dict:
        text = next(self.messages, None)
        await asyncio.sleep(0)
        return {"type": "websocket.disconnect"} if text is None else {"type": "websocket.receive", "text": text}

    async def send_text(self, text: str) -> None:
        await asyncio.Event().wait()

    async def close(self, code: int) -> None:
        self.closed_with = code


def test_a_phone_that_floods_without_reading_is_dropped():
    room = PhoneRoom(Hub(), EventQueue(), Attempts(FakeClock()))
    stuck = StuckPhone(["junk"] * 1000)

    async def connect_it():
        await PhoneConnection(room, stuck).run()

    in_own_loop(connect_it())
    assert stuck.closed_with == 1008 and next(stuck.messages, None) is not None  # dropped before the end


class GonePhone(StuckPhone):
    """A flooding phone that went away just before the server closes it."""

    async def close(self, code: int) -> None:
        from starlette.websockets import WebSocketDisconnected

        raise WebSocketDisconnected('Cannot call "send" once a close message has been sent.')


def test_a_flooding_phone_gone_before_it_is_dropped_ends_quietly():
    room = PhoneRoom(Hub(), EventQueue(), Attempts(FakeClock()))

    async def connect_it():
        await PhoneConnection(room, GonePhone(["junk"] * 1000)).run()  # returns: no traceback in the log
        return True

    assert in_own_loop(connect_it())


def test_a_phone_sending_faster_than_a_person_taps_is_slowed_down(table, monkeypatch):
    clock = FakeClock(1000.0)
    monkeypatch.setattr(table.web.room, "clock", clock)
    monkeypatch.setattr(table.web.room.pacers, "clock", clock)
    pauses = []

    async def pause(seconds: float) -> None:  # the flood's waits, on the fake clock: none here
        pauses.append(seconds)
        await asyncio.sleep(0)

    monkeypatch.setattr(table.web.room, "pause", pause)
    phone = table.phone()
    phone.expect("view")  # connected: its connection is in the room, alone
    (connection,) = table.web.room.phones
    for n in range(1, 201):
        phone.send_raw(json.dumps({"t": "take_back", "n": n}))
    table.wait_until(lambda: connection.messages_read == 200)
    clock.sleep(1.0)  # a second later there is room for messages again
    phone.send_raw("end")
    refusals = []
    while not refusals or refusals[-1] != "not a JSON message":
        refusals.append(phone.refusal())
    assert refusals.count("too many messages: slow down (until then, messages are dropped)") >= 1
    assert refusals.count("type the room code the panel shows first") == 60  # the burst; the rest dropped
    assert len([p for p in pauses if p > 0]) >= 140 and max(pauses) <= 1 / 30  # each read past the rate waited


def test_the_wrong_try_memory_stays_bounded():
    attempts = Attempts(FakeClock())
    for i in range(5000):
        attempts.wrong(f"10.{i // 65536}.{i // 256 % 256}.{i % 256}")
    assert len(attempts._devices) <= 1024 and len(attempts._networks) <= 1024  # MAX_REMEMBERED


def test_a_public_host_name_is_refused_against_dns_rebinding(table):
    request = urllib.request.Request(table.url + "/", headers={"Host": "evil.example:8080"})
    try:
        urllib.request.urlopen(request, timeout=5)
        status = 200
    except urllib.error.HTTPError as error:
        status = error.code
    assert status == 400
    port = table.web.server.port
    with pytest.raises(InvalidStatus):
        connect(f"ws://127.0.0.1:{port}/ws", origin=f"http://evil.example:{port}",
                additional_headers={"Host": f"evil.example:{port}"}, open_timeout=5)
    assert host_allowed("hues.local:8080") and host_allowed("192.168.1.9") and host_allowed("[fe80::1]:80")
    assert host_allowed("hues") and not host_allowed("hues.example.com") and not host_allowed("")


def replay_url(table) -> str:
    """The replay websocket of a game stored just now (the table left idle)."""
    from console.game.record import action_to_json
    from console.game.rules import NewGame
    from console.play.ports import Chore

    ids = []
    table.app.events.put(Chore(lambda store: ids.append(store.start_game(action_to_json(NewGame(players=3))))))
    table.settle()
    table.app.events.put(Chore(lambda store: store.abandon()))
    return table.url.replace("http", "ws") + f"/replay/{ids[0]}/ws"


def test_replay_pages_are_capped_and_share_one_frame_rate(table):
    """Each replay frame is drawn in the interpreter the panel's loop shares: twenty pages asking
    as fast as they could made the panel's frames up to 110 ms late. This machine's own pages
    (no cap per device) make room by closing its oldest."""
    from console.web.limits import LIMITS

    def played_back(page) -> None:
        page.send('{"t": 0}')
        page.recv(timeout=5)  # the frame, then "shown": the page is being played back
        assert json.loads(page.recv(timeout=5))["t"] == "shown"

    url = replay_url(table)
    with contextlib.ExitStack() as stack:
        pages = [stack.enter_context(connect(url, origin=table.url, open_timeout=5)) for _ in range(LIMITS.replays)]
        for page in pages:
            played_back(page)
        played_back(stack.enter_context(connect(url, origin=table.url, open_timeout=5)))
        with pytest.raises(ConnectionClosed):
            pages[0].recv(timeout=5)
        assert len(table.web.server.guard.pool) >= LIMITS.replays


def test_connections_sharing_a_throttle_take_slots_one_period_apart():
    from console.web.pacing import Throttle

    clock, woken = FakeClock(10.0), []

    async def sleep(seconds: float) -> None:
        await asyncio.sleep(0)
        woken.append(round(clock() + seconds, 6))

    throttle = Throttle(100.0, clock, sleep)

    async def three_at_once():
        await asyncio.gather(*(throttle.wait() for _ in range(3)))

    in_own_loop(three_at_once())
    assert woken == [10.01, 10.02]  # the first went at once; none share an instant


@contextlib.contextmanager
def server_errors():
    """The records the server's thread logs at ERROR (uvicorn's 'Exception in ASGI application'
    and ours): its loggers do not reach pytest's caplog (uvicorn's do not propagate)."""
    import logging

    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.ERROR)
    handler.emit = records.append
    loggers = [logging.getLogger(name) for name in ("uvicorn.error", "hues-console")]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield records
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


def test_a_huge_number_on_a_replay_page_is_refused_without_a_traceback(table):
    with server_errors() as errors, connect(replay_url(table), origin=table.url, open_timeout=5) as page:
        page.send('{"t": 1%s}' % ("0" * 400))
        assert json.loads(page.recv(timeout=5)) == {"t": "refused", "why": 'ask for a moment as {"t": seconds}'}
        page.send('{"t": 0}')
        page.recv(timeout=5)  # still played back: the frame, then "shown"
        assert json.loads(page.recv(timeout=5))["t"] == "shown"
    assert not errors


def test_x_forwarded_for_is_not_believed(table):
    """uvicorn believes X-Forwarded-For from loopback by default (proxy_headers,
    forwarded_allow_ips "127.0.0.1,::1"): one socket could pose as as many guessers as it liked."""
    url = table.url.replace("http://", "ws://") + "/ws"
    answers = []
    for i in range(6):
        with connect(url, origin=table.url, open_timeout=5,
                     additional_headers={"X-Forwarded-For": f"10.9.8.{i}"}) as phone:
            phone.send(json.dumps({"t": "join", "n": 1, "code": "XXXX"}))
            answer = {"t": None}
            while answer["t"] != "refused":
                answer = json.loads(phone.recv(timeout=5))
            answers.append(answer["why"])
    assert answers[:5] == ["that is not the code on the panel"] * 5
    assert answers[5].startswith("too many wrong tries")  # all six from one address: 127.0.0.1


@pytest.mark.parametrize("char", ["a", "\u00e9", "\u20ac", "\U0001f600", "\ud800"])
def test_a_message_is_measured_in_utf_8_bytes_whatever_its_characters(char):
    """At most MAX_MESSAGE_BYTES as sent (a lone surrogate is sent as one replacement byte):
    one byte over is refused as too large, the limit itself is not."""
    size = len(char.encode("utf-8", "replace"))
    head = '{"t": "join", "n": 1, "code": "'
    room = MAX_MESSAGE_BYTES - len(head) - 2

    def message(chars: int) -> str:
        return head + char * chars + "x" * (room - chars * size) + '"}'

    assert len(message(room // size).encode("utf-8", "replace")) == MAX_MESSAGE_BYTES
    with pytest.raises(MessageError, match="at most 64 characters"):  # not too large: read, then refused
        parse_message(message(room // size), 0)
    with pytest.raises(MessageError, match="too large"):
        parse_message(message(room // size) + " ", 0)

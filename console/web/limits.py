"""What one guest may hold of the phones' server, and for how long: one guest cannot take the
party down.

Everything the server has is shared by the whole room: connections, file descriptors, places in
the phones' waiting room, viewers, wrong-code budgets. Each is limited per *device* (an IPv4
address, or an IPv6 /64: one device holds a whole /64, RFC 8981 privacy addresses cost nothing)
so that no one device can fill it, and where one pool fills anyway (a guest with many IPv4
addresses), the newcomer takes the place of the oldest connection of whoever holds the most, so a
guest with one connection is never the one pushed out. The box itself (loopback: the console's
own browser with `sim --web`, the tests) is one user, not a crowd, and has no per-device cap.

The figures and why (`Limits`): a browser opens up to 6 connections to a host, a phone page 1
websocket (2 across a reload), a /panel page 1; with six devices at their caps every pool still
has room, and all of them together (with the backlog accepted at once, before the guard sees
them) stay far below the unit's LimitNOFILE=4096.
"""

from __future__ import annotations

import functools
import ipaddress
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Iterator

from console.play.bucket import Bucket

LOCAL = ("127.0.0.0/8", "::1/128")
MAX_REMEMBERED = 1024  # devices (and networks) whose budgets are remembered


@dataclass(frozen=True)
class Limits:
    """The limits of the phones' server (see the module docstring); tests make them smaller."""

    connections: int = 256  # TCP connections, HTTP and websockets, of all devices
    connections_per_device: int = 16  # a browser's 6 for pages, its websockets, room to spare
    openings: tuple[float, float] = (30, 10.0)  # new connections of one device: 30 at once, then 10 a second
    backlog: int = 128  # connections waiting to be accepted, and accepted at once (each a file until looked at)
    request_s: float = 10.0  # from connecting (or the last answer) to a whole request: slowloris
    keep_alive_s: int = 5  # an idle connection between requests (uvicorn's timeout_keep_alive)
    phones: int = 32  # admitted phone connections (a seat's own token always comes back in)
    phones_per_device: int = 3  # a phone, a reload overlapping it, and one more
    waiting: int = 24  # phone connections that have not given the room code yet
    admit_s: float = 60.0  # to type the code; the page then reconnects by itself
    viewers: int = 16  # /panel and /sim pages
    viewers_per_device: int = 2
    replays: int = 8  # /replay pages (each frame is drawn in the server's thread)
    replays_per_device: int = 1
    local: tuple[str, ...] = LOCAL  # this machine: no per-device cap


LIMITS = Limits()


@functools.lru_cache(maxsize=4096)
def device(address: str) -> str:
    """Whose an address is: an IPv4 address is itself (an IPv4-mapped IPv6 address too), an IPv6
    address counts for its /64; what is not an address ("?", a unix socket) is itself."""
    ip = _ip(address)
    if ip is None:
        return address
    if ip.version == 6:
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@functools.lru_cache(maxsize=4096)
def network(address: str) -> str:
    """The network a device is on, for the wrong-code budget all its devices share: an IPv4
    /24, an IPv6 /48 (one home network; a guest can take many addresses in it)."""
    ip = _ip(address)
    if ip is None:
        return address
    return str(ipaddress.ip_network((ip, 24 if ip.version == 4 else 48), strict=False))


def _ip(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return None
    if ip.version == 6 and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def is_local(address: str, local: tuple[str, ...] = LOCAL) -> bool:
    ip = _ip(address)
    return ip is not None and any(ip in ipaddress.ip_network(net) for net in local)


class Pool:
    """Places for connections: at most `per_device` for one device (none for `local` ones), at
    most `size` in all. When it is full, a newcomer takes the place of the oldest connection of
    the device that holds the most, if that device holds more than one; else it is refused."""

    def __init__(self, size: int, per_device: int, local: tuple[str, ...] = LOCAL) -> None:
        self.size, self.per_device, self.local = size, per_device, local
        self._held: OrderedDict[Hashable, str] = OrderedDict()  # connection -> device, oldest first
        self._counts: dict[str, int] = {}

    def has_room(self, address: str) -> bool:
        """Whether a connection from `address` would get a place (perhaps another's)."""
        if self._counts.get(device(address), 0) >= self.per_device and not is_local(address, self.local):
            return False
        return len(self._held) < self.size or max(self._counts.values()) >= 2

    def enter(self, address: str, item: Hashable) -> tuple[bool, Hashable | None]:
        """(whether `item` got a place, the connection it took the place of, to be closed)."""
        if not self.has_room(address):
            return False, None
        who, pushed = device(address), None
        if len(self._held) >= self.size:
            most = max(self._counts, key=self._counts.__getitem__)
            pushed = next(held for held, whose in self._held.items() if whose == most)
            self.leave(pushed)
        self._held[item] = who
        self._counts[who] = self._counts.get(who, 0) + 1
        return True, pushed

    def leave(self, item: Hashable) -> None:
        """`item` no longer holds a place (again and again is fine)."""
        who = self._held.pop(item, None)
        if who is not None:
            self._counts[who] -= 1
            if not self._counts[who]:
                del self._counts[who]

    def __iter__(self) -> Iterator[Hashable]:
        """The connections holding places, oldest first."""
        return iter(list(self._held))

    def __len__(self) -> int:
        return len(self._held)

    def of(self, address: str) -> int:
        return self._counts.get(device(address), 0)


def remembered(table: OrderedDict, key: str, new: Callable[[], Any]) -> Any:
    """table[key], made with new() if need be, as the newest; the oldest forgotten past
    MAX_REMEMBERED, so memory stays bounded whatever the number of addresses."""
    entry = table.pop(key, None)
    if entry is None:
        entry = new()
        while len(table) >= MAX_REMEMBERED:
            table.popitem(last=False)
    table[key] = entry
    return entry


class Budgets:
    """A `Bucket` for each key (a device, a network), on `clock`."""

    def __init__(self, capacity: float, per_s: float, clock: Callable[[], float]) -> None:
        self.capacity, self.per_s, self.clock = capacity, per_s, clock
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()

    def wait(self, key: str) -> float:
        """Seconds until `key` may spend one (0: now)."""
        bucket = self._buckets.get(key)
        return 0.0 if bucket is None else bucket.wait(self.clock())

    def take(self, key: str) -> None:
        now = self.clock()
        remembered(self._buckets, key, lambda: Bucket(self.capacity, self.per_s, now)).take(now)

    def __len__(self) -> int:
        return len(self._buckets)


PER_MINUTE = 1 / 60
HOUR_S = 3600.0


class Attempts:
    """Wrong room codes (and host PINs): a right code still gets in, guessing takes hours.

    - Each device: 5 wrong tries at once, then 5 a minute. Past that nothing it sends is checked,
      not even the right code (a guest who mistyped five times waits 12 s).
    - A device's first 3 tries in an hour are checked whatever anyone else does: a guest typing
      the code on the panel gets in while a hundred others guess. Past those, a device's tries
      also draw on its network's budget (an IPv4 /24 or IPv6 /48: 30 at once, then 10 a minute)
      and on everyone's (60 at once, then 30 a minute).

    Guessing one code of 11**4 = 14,641 takes 7,320 tries on average (half of them). One device:
    5 a minute, 24 h. A guest with many addresses in one network (each its own device): 3 an
    hour each plus the network's 600 an hour, so with 6 addresses about 618 an hour, 12 h; with
    all 254 of a /24, 1,362 an hour, 5.4 h. Beyond one network, everyone's budget of 1,800 an
    hour (plus 3 an hour per address) holds: with 254 addresses, 2,562 an hour, 2.9 h.
    """

    def __init__(self, clock: Callable[[], float], free_tries: int = 3,
                 device_budget: tuple[float, float] = (5, 5 * PER_MINUTE),
                 network_budget: tuple[float, float] = (30, 10 * PER_MINUTE),
                 total_budget: tuple[float, float] = (60, 30 * PER_MINUTE)) -> None:
        self.clock, self.free_tries = clock, free_tries
        self._device_budget = device_budget
        self._devices: OrderedDict[str, tuple[Bucket, list[float]]] = OrderedDict()  # last wrong last
        self._networks = Budgets(*network_budget, clock)
        self._all = Bucket(*total_budget, clock())

    def blocked(self, address: str) -> float:
        """Seconds the device at `address` must wait before a try is checked (0: now)."""
        now = self.clock()
        known = self._devices.get(device(address))
        if known is None:
            return 0.0
        bucket, wrong_at = known
        wait = bucket.wait(now)
        if self._guessing(wrong_at, now):
            wait = max(wait, self._all.wait(now), self._networks.wait(network(address)))
        return wait

    def wrong(self, address: str) -> None:
        now = self.clock()
        bucket, wrong_at = remembered(self._devices, device(address), lambda: (Bucket(*self._device_budget, now), []))
        bucket.take(now)
        wrong_at.append(now)
        del wrong_at[:-self.free_tries]
        self._networks.take(network(address))
        self._all.take(now)

    def _guessing(self, wrong_at: list[float], now: float) -> bool:
        """Whether the device has had its free tries this hour."""
        return len(wrong_at) >= self.free_tries and wrong_at[0] > now - HOUR_S

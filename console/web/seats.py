"""Who sits where: the room code a phone types to join, the seat tokens phones keep, and the
limit on guessing the code.

A seat is a pawn colour (its index in the configured colours). Taking one gives the phone a
random 128-bit token that it keeps in localStorage and sends over the websocket, never in a URL;
the console keeps only each token's SHA-256 (in the store, so a restart keeps the seats), so the
store does not hold what would let someone else take a seat. The host is whoever took the first
seat still held, or any phone that gives the configured PIN.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from collections import deque
from typing import Callable

# Letters that neither the panel's 3x5 font nor a phone keyboard lets anyone confuse: no O/Q/D
# (0), I/J/L (1), S (5), Z (2), B (8), G (6), U/V, M/N/W.
CODE_LETTERS = "ACEFHKPRTXY"
CODE_LENGTH = 4
TOKEN_BYTES = 16  # 128 bits
SEATS_SETTING = "phone_seats"
MAX_ADDRESSES = 1024  # addresses whose wrong tries are remembered


class SeatError(Exception):
    """A seat request that cannot be granted: the English text, and the key (with its
    parameters) of what the phone shows in its own language."""

    def __init__(self, text: str, key: str = "rule", **params) -> None:
        super().__init__(text)
        self.key, self.params = key, params


def new_room_code(choice: Callable[[str], str] = secrets.choice) -> str:
    return "".join(choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


def is_token(value: object) -> bool:
    return isinstance(value, str) and len(value) == 2 * TOKEN_BYTES and all(c in "0123456789abcdef" for c in value)


class SeatBook:
    """seat -> token digest, in the order taken (the first is the host's). Not thread-safe: only
    the web server's event loop touches it."""

    def __init__(self, seats: int, saved: object = None) -> None:
        self.seats = seats
        self._holders: dict[int, str] = {}
        if isinstance(saved, list):  # [[seat, digest], ...] as kept in the store; anything else is ignored
            for entry in saved:
                if (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int)
                        and 0 <= entry[0] < seats and isinstance(entry[1], str) and entry[0] not in self._holders):
                    self._holders[entry[0]] = entry[1]

    def take(self, seat: int) -> str:
        """A new token for `seat`, which must be free."""
        if not 0 <= seat < self.seats:
            raise SeatError(f"there is no seat {seat}: choose 0 to {self.seats - 1}", "no_such_seat")
        if seat in self._holders:
            raise SeatError("that colour is taken: choose another", "seat_taken")
        token = secrets.token_hex(TOKEN_BYTES)
        self._holders[seat] = token_digest(token)
        return token

    def find(self, token: str) -> int | None:
        digest = token_digest(token)
        for seat, held in self._holders.items():
            if hmac.compare_digest(held, digest):
                return seat
        return None

    def free(self, seat: int) -> None:
        self._holders.pop(seat, None)

    @property
    def taken(self) -> tuple[int, ...]:
        return tuple(sorted(self._holders))

    @property
    def host_seat(self) -> int | None:
        return next(iter(self._holders), None)

    def saved(self) -> list[list]:
        return [[seat, digest] for seat, digest in self._holders.items()]


def guesser(address: str) -> str:
    """Whose wrong tries an address's are: an IPv6 address counts for its /64, which one device
    holds whole (SLAAC privacy addresses, RFC 8981: a new one costs nothing), so it cannot take
    a fresh address for every few guesses; an IPv4-mapped address is that IPv4 address."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class Attempts:
    """At most `limit` wrong codes (or PINs) per `window_s` from one address, and `total_limit`
    from all addresses together, on an injected clock: a 4-letter code from 11 letters (14,641)
    then takes days to guess, while a guest who mistypes waits a minute at most."""

    def __init__(self, clock: Callable[[], float], limit: int = 5, total_limit: int = 30,
                 window_s: float = 60.0) -> None:
        self.clock, self.limit, self.total_limit, self.window_s = clock, limit, total_limit, window_s
        self._wrong: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()

    def blocked(self, who: str) -> float:
        """Seconds `who` must wait before trying again (0: may try now)."""
        now = self.clock()
        waits = [0.0]
        for times, limit in ((self._wrong.get(who), self.limit), (self._all, self.total_limit)):
            if times is None:
                continue
            while times and times[0] <= now - self.window_s:
                times.popleft()
            if len(times) >= limit:
                waits.append(times[0] + self.window_s - now)
        if who in self._wrong and not self._wrong[who]:
            del self._wrong[who]
        return max(waits)

    def wrong(self, who: str) -> None:
        now = self.clock()
        if who not in self._wrong and len(self._wrong) >= MAX_ADDRESSES:
            del self._wrong[next(iter(self._wrong))]  # the oldest address: memory stays bounded
        self._wrong.setdefault(who, deque()).append(now)
        self._all.append(now)
        while len(self._all) > self.total_limit:
            self._all.popleft()

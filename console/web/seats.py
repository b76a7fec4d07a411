"""Who sits where: the room code a phone types to join and the seat tokens phones keep (the limit
on guessing the code is `limits.Attempts`).

A seat is a pawn colour (its index in the configured colours). Taking one gives the phone a
random 128-bit token that it keeps in localStorage and sends over the websocket, never in a URL;
the console keeps only each token's SHA-256 (in the store, so a restart keeps the seats), so the
store does not hold what would let someone else take a seat. The host is whoever took the first
seat still held, or any phone that gives the configured PIN.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Callable

# Letters that neither the panel's 3x5 font nor a phone keyboard lets anyone confuse: no O/Q/D
# (0), I/J/L (1), S (5), Z (2), B (8), G (6), U/V, M/N/W.
CODE_LETTERS = "ACEFHKPRTXY"
CODE_LENGTH = 4
TOKEN_BYTES = 16  # 128 bits
SEATS_SETTING = "phone_seats"


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

"""Who sits where: the room code a phone types to join and the seat tokens phones keep (the limit
on guessing the code is `limits.Attempts`).

A seat is a pawn colour (its index in the configured colours). Taking one gives the phone a
random 128-bit token that it keeps in localStorage and sends over the websocket, never in a URL;
the console keeps only each token's SHA-256 (in the store, so a restart keeps the seats), so the
store does not hold what would let someone else take a seat. The host is whoever took the first
seat still held, or any phone that gives the configured PIN.

Mid-game a colour of the game that no phone holds is the joystick's: a phone takes it only once
the host has handed it over (`free_seat` on it opens it), and a colour a phone gives up (it left,
or the host freed it) is the joystick's from then on. Between games every free colour is open.
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
        self._opened: set[int] = set()  # the joystick's colours the host handed to a phone
        self._seating: dict[int | None, tuple] = {}  # playing -> `seating`, until the book changes
        if isinstance(saved, list):  # [[seat, digest], ...] as kept in the store; anything else is ignored
            for entry in saved:
                if (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int)
                        and 0 <= entry[0] < seats and isinstance(entry[1], str) and entry[0] not in self._holders):
                    self._holders[entry[0]] = entry[1]

    def take(self, seat: int, playing: int | None = None) -> str:
        """A new token for `seat`, which must be open; `playing`: the players of a game under way."""
        if not 0 <= seat < self.seats:
            raise SeatError(f"there is no seat {seat}: choose 0 to {self.seats - 1}", "no_such_seat")
        if seat in self._holders:
            raise SeatError("that colour is taken: choose another", "seat_taken")
        if seat not in self.open_seats(playing):
            raise SeatError("that colour plays on the joystick in this game: the host can hand it to a phone",
                            "joystick_seat")
        token = secrets.token_hex(TOKEN_BYTES)
        self._holders[seat] = token_digest(token)
        self._opened.discard(seat)
        self._seating.clear()
        return token

    def open_seats(self, playing: int | None) -> tuple[int, ...]:
        """The colours a phone may take now: every free one between games (`playing` None);
        during a game the watchers' and those the host handed over."""
        return tuple(seat for seat in range(self.seats) if seat not in self._holders and (
            playing is None or seat >= playing or seat in self._opened))

    def seating(self, playing: int | None) -> tuple[tuple[int, ...], tuple[int, ...], int | None]:
        """(taken, open_seats(playing), host_seat): what every phone's view says of the seats,
        worked out once per change of the book, not for each phone at each tap."""
        seating = self._seating.get(playing)
        if seating is None:
            seating = self._seating[playing] = (self.taken, self.open_seats(playing), self.host_seat)
        return seating

    def hand_over(self, seat: int) -> bool:
        """The host's hand-over of `seat`: a phone's goes to the joystick (True: a phone lost it),
        the joystick's is opened for the next phone to take."""
        self._seating.clear()
        if seat in self._holders:
            del self._holders[seat]
            return True
        if 0 <= seat < self.seats:
            self._opened.add(seat)
        return False

    def find(self, token: str) -> int | None:
        digest = token_digest(token)
        for seat, held in self._holders.items():
            if hmac.compare_digest(held, digest):
                return seat
        return None

    def free(self, seat: int) -> None:
        self._seating.clear()
        self._holders.pop(seat, None)

    def digest_of(self, seat: int | None) -> str | None:
        return self._holders.get(seat) if seat is not None else None

    @property
    def taken(self) -> tuple[int, ...]:
        return tuple(sorted(self._holders))

    @property
    def holders(self) -> tuple[tuple[int, str], ...]:
        """(seat, token digest) of each seat held, seat by seat."""
        return tuple(sorted(self._holders.items()))

    @property
    def host_seat(self) -> int | None:
        return next(iter(self._holders), None)

    def saved(self) -> list[list]:
        return [[seat, digest] for seat, digest in self._holders.items()]

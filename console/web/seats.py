"""How a phone proves it is in the room and which seat is its: the room code it types to join (the
limit on guessing it is `limits.Attempts`) and the seat token it keeps.

Taking a seat gives the phone a random 128-bit token that it keeps in localStorage and sends over
the websocket, never in a URL. The phone holds its seat as the token's SHA-256 (game/seating.py
decides who holds what; the store keeps the seats so, and a restart keeps them), so neither the
store nor another phone's view holds what would let someone else take a seat. The host is whoever
took the first seat still held, or any phone that gives the configured PIN.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Callable

# Letters that neither the panel's 3x5 font nor a phone keyboard lets anyone confuse: no O/Q/D
# (0), I/J/L (1), S (5), Z (2), B (8), G (6), U/V, M/N/W.
CODE_LETTERS = "ACEFHKPRTXY"
CODE_LENGTH = 4
TOKEN_BYTES = 16  # 128 bits
SEATS_SETTING = "phone_seats"


def new_room_code(choice: Callable[[str], str] = secrets.choice) -> str:
    return "".join(choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def new_token() -> str:
    return secrets.token_hex(TOKEN_BYTES)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("ascii", "replace")).hexdigest()


def is_token(value: object) -> bool:
    return isinstance(value, str) and len(value) == 2 * TOKEN_BYTES and all(c in "0123456789abcdef" for c in value)

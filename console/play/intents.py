"""What a player wants done: one vocabulary for the joystick, a phone and a computer player.

Each kind of player turns its own input into these (the controller a button on the screen shown,
the web layer a phone's message), and `table.act` alone turns an intent into rules actions, so
the same move is the same intent whoever makes it. A `Player` says who asks: the holder of a seat
(see game/seating.py) and the seat it speaks for; `act` checks that the holder holds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from console.game.board import Cell, RuleError
from console.game.seating import PANEL


@dataclass(frozen=True)
class Player:
    """Who asks: `holder` (PANEL for the joystick, a phone's token digest, a computer player's
    name), the seat it speaks for (None: a phone without a colour), and whether it is the host by
    proof (the joystick, a phone that gave the host PIN); the host's phone by seat is the seating's
    to say (`Seating.is_host`), in the app's thread, where the seats are never out of date."""

    holder: str
    seat: int | None
    host: bool = False


def joystick(seat: int | None = None) -> Player:
    """The joystick at the box, acting for `seat`: it is always the host."""
    return Player(PANEL, seat, host=True)


# --- seats ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TakeSeat:
    seat: int


@dataclass(frozen=True)
class LeaveSeat:
    pass


@dataclass(frozen=True)
class HandOver:
    """The host's hand-over of a seat: a phone's to the joystick, the joystick's opened for the
    next phone."""

    seat: int


# --- the round ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChooseTarget:
    cell: Cell


@dataclass(frozen=True)
class GiveClue:
    """The giver's clue: `text` as typed on their phone, in the phone's language `lang` (held to
    the clue rules in that language and in English, unless the host switched the check off), or
    None: said aloud, which the console does not hear (the joystick's A, a phone's tap)."""

    text: str | None = None
    lang: str = "en"


@dataclass(frozen=True)
class Pass:
    """The giver passes instead of the second clue."""


@dataclass(frozen=True)
class PointAt:
    """A guesser's cursor on `cell`: where the pawn would go."""

    cell: Cell


@dataclass(frozen=True)
class Place:
    cell: Cell


@dataclass(frozen=True)
class TakeBack:
    """The pawn its player just placed comes back (until anyone else acts)."""


@dataclass(frozen=True)
class Confirm:
    """The pawn its player just placed stands."""


@dataclass(frozen=True)
class Next:
    """On from the reveal to the next round, or from the tie-break notice to its hand-off."""


# --- the host's -----------------------------------------------------------------------------


@dataclass(frozen=True)
class NewGame:
    players: int
    variant: str = "cards"
    first_giver: int | None = None  # None: chosen at random
    # Computer players in the game's last seats no phone holds (at least one seat stays a
    # person's), of `level`, writing their clues in `lang`.
    computers: int = 0
    level: str = "expert"
    lang: str = "en"


@dataclass(frozen=True)
class Abandon:
    """The game under way is kept as abandoned and set-up opens."""


@dataclass(frozen=True)
class Brightness:
    step: int  # +1 brighter, -1 dimmer


@dataclass(frozen=True)
class ClueCheck:
    """The house rule: written clues held to the clue rules (`on`), or taken as written."""

    on: bool


@dataclass(frozen=True)
class ComputerPace:
    """The host's pace for the computer players: a person's (`fast` False) or quicker."""

    fast: bool


Intent = Union[TakeSeat, LeaveSeat, HandOver, ChooseTarget, GiveClue, Pass, PointAt, Place, TakeBack, Confirm,
               Next, NewGame, Abandon, Brightness, ClueCheck, ComputerPace]
SEAT_INTENTS = (TakeSeat, LeaveSeat, HandOver)
HOST_INTENTS = (HandOver, NewGame, Abandon, Brightness, ClueCheck, ComputerPace)


class Refusal(RuleError):
    """An intent refused before the engine is asked: str() is the English text (the log's, and
    the fallback); `key` and `params` what a phone shows in its own language (the engine's own
    refusals carry theirs too, so nothing is checked twice)."""

    def __init__(self, key: str, text: str, **params: Any) -> None:
        super().__init__(text, key, **params)

"""What a phone may send, checked before anything acts on it: one JSON object per websocket
message, at most MAX_MESSAGE_BYTES, with exactly the fields its verb takes, and a sequence number
`n` that grows with every message on the connection, so a message sent twice (a replay, a
double-submitted tap) is refused instead of acting twice. Every verb but the connection's own
(join, host, resume) is the phone's player's intent (`intent_of`), the same a joystick's press or a
computer player makes for the same move.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from console.game.board import Cell, RuleError, parse_cell
from console.game.record import json_value
from console.game.clue import LANGUAGES, MAX_TYPED_BYTES
from console.game.rules import COMPUTER_LEVELS, VARIANTS
from console.play import intents
from console.play.intents import Intent
from console.web.server import MAX_MESSAGE_BYTES

# verb -> {field: kind}; kinds: "text" (short string), "clue" (a clue as typed, or null), "lang" (a
# language of the phones' pages, or null), "int", "int?" (or null), "level?" (a computer player's
# level, or null), "cell", "delta", "bool"; a kind ending in "?" and the nullable "clue" and "lang"
# may be left out (the intent's own default then: new_game's computers 0, level expert, lang en)
FIELDS: dict[str, dict[str, str]] = {
    "join": {"code": "text"},
    "take": {"seat": "int"},
    "resume": {"token": "text"},
    "host": {"pin": "text"},
    "leave": {},
    "free_seat": {"seat": "int"},
    "cursor": {"cell": "cell"},
    "place": {"cell": "cell"},
    "choose": {"cell": "cell"},
    "take_back": {}, "confirm": {}, "pass": {}, "next": {},
    "clue": {"text": "clue", "lang": "lang"},  # no text: said aloud
    # computers: how many computer players, of what level, writing their clues in what language
    "new_game": {"players": "int", "variant": "variant", "first_giver": "int?",
                 "computers": "int?", "level": "level?", "lang": "lang"},
    "brightness": {"delta": "delta"},
    "clue_check": {"on": "bool"},
    "computer_pace": {"fast": "bool"},
    "abandon": {},
}
CONNECTION_VERBS = ("join", "host", "resume")  # the connection's own: its room code, the host PIN, its seat's token
# every other verb is an intent of the phone's player
INTENTS = {
    "take": lambda f: intents.TakeSeat(f["seat"]), "leave": lambda f: intents.LeaveSeat(),
    "free_seat": lambda f: intents.HandOver(f["seat"]),
    "cursor": lambda f: intents.PointAt(f["cell"]), "place": lambda f: intents.Place(f["cell"]),
    "take_back": lambda f: intents.TakeBack(), "confirm": lambda f: intents.Confirm(),
    "choose": lambda f: intents.ChooseTarget(f["cell"]),
    "clue": lambda f: intents.GiveClue(f.get("text"), f.get("lang") or "en"),
    "pass": lambda f: intents.Pass(), "next": lambda f: intents.Next(),
    "new_game": lambda f: intents.NewGame(f["players"], f["variant"], f["first_giver"], **{
        name: f[name] for name in ("computers", "level", "lang") if f.get(name) is not None}),
    "brightness": lambda f: intents.Brightness(f["delta"]), "abandon": lambda f: intents.Abandon(),
    "clue_check": lambda f: intents.ClueCheck(f["on"]),
    "computer_pace": lambda f: intents.ComputerPace(f["fast"]),
}
assert set(FIELDS) == set(INTENTS) | set(CONNECTION_VERBS), "every verb is the connection's or an intent"
MAX_TEXT = 64
MAX_CLUE = MAX_TYPED_BYTES  # a clue as typed, in characters: the check refuses more bytes as too long, by key
MAX_NUMBER = 2**53  # what a page's JavaScript counts exactly: no message of ours needs more


class MessageError(Exception):
    """A message that cannot be acted on; the text goes back to the phone."""


class Message(NamedTuple):
    """A checked message."""

    verb: str
    n: int
    fields: dict[str, Any]

    @property
    def intent(self) -> Intent:
        """The intent a verb of the phone's player is (not one of CONNECTION_VERBS)."""
        return INTENTS[self.verb](self.fields)


def message_json(text: str) -> Any:
    """A web message's JSON: strict like the record's (`json_value`), with `bounded` numbers;
    ValueError otherwise. Every page's messages (phones, panel, replay) are read so."""
    return bounded(json_value(text))


def live_view_switch(text: Any) -> bool | None:
    """WLED's live-view switch, `{"lv": true}` (on) or `{"lv": false}` (off), as WLED's own
    live-view page sends it first (wled00/data/liveviewws2D.htm; wled00/ws.cpp `wsEvent` reads
    it); None for any other message."""
    try:
        message = message_json(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if isinstance(message, dict) and list(message) == ["lv"] and isinstance(message["lv"], bool):
        return message["lv"]
    return None


def bounded(value: Any) -> Any:
    """`value` if every number in it is one a page's JavaScript can send (finite, at most 2**53
    either way), else ValueError: no check further on then meets a number it cannot compare or
    convert (a 400-digit integer made `math.isfinite` raise OverflowError on a replay page)."""
    items = [value]
    while items:  # not recursive: nesting may be as deep as the parser allows
        item = items.pop()
        if isinstance(item, dict):
            items.extend(item.values())
        elif isinstance(item, list):
            items.extend(item)
        elif isinstance(item, (int, float)) and not isinstance(item, bool) and not -MAX_NUMBER <= item <= MAX_NUMBER:
            raise ValueError("a number in the message is beyond 2**53")
    return value


def parse_message(text: Any, last_n: int) -> Message:
    """The checked message, or MessageError saying what is wrong with it."""
    if not isinstance(text, str):
        raise MessageError("messages are JSON text, not binary")
    # a character is at most 4 bytes of UTF-8: most messages are not encoded to be measured
    if len(text) > MAX_MESSAGE_BYTES // 4 and len(text.encode("utf-8", "replace")) > MAX_MESSAGE_BYTES:
        raise MessageError(f"message too large (at most {MAX_MESSAGE_BYTES} bytes)")
    try:  # not `bounded`: each field's own check below refuses a number out of its range
        data = json_value(text)
    except ValueError:
        raise MessageError("not a JSON message") from None
    if not isinstance(data, dict):
        raise MessageError("a message is a JSON object")
    verb, n = data.get("t"), data.get("n")
    if not isinstance(verb, str) or verb not in FIELDS:
        raise MessageError(f"unknown message {str(verb)[:MAX_TEXT]!r}")
    if type(n) is not int or not 0 < n <= MAX_NUMBER:  # an int, not a bool
        raise MessageError(f"{verb}: n must be a whole number from 1 up")
    if n <= last_n:
        raise MessageError(f"{verb}: message {n} was already received (replayed or sent twice)")
    if not data.keys() <= _ALLOWED[verb]:
        extra = data.keys() - _ALLOWED[verb]
        raise MessageError(f"{verb}: unexpected field {min(extra)[:MAX_TEXT]!r}")
    if not _REQUIRED[verb] <= data.keys():
        raise MessageError(f"{verb}: missing {min(_REQUIRED[verb] - data.keys())}")
    return Message(verb, n, {name: check(verb, name, data.get(name)) for name, check in _CHECKS[verb]})


_ALLOWED = {verb: frozenset(fields) | {"t", "n"} for verb, fields in FIELDS.items()}  # "t" and "n": every message's
_OPTIONAL = ("int?", "level?", "clue", "lang")
_REQUIRED = {verb: frozenset(name for name, kind in fields.items() if kind not in _OPTIONAL)
             for verb, fields in FIELDS.items()}


def _text(verb: str, name: str, value: Any) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise MessageError(f"{verb}: {name} must be text of at most {MAX_TEXT} characters")
    return value


def _int(verb: str, name: str, value: Any) -> int:
    if type(value) is not int or not 0 <= value < 100:  # an int, not a bool
        raise MessageError(f"{verb}: {name} must be a whole number from 0 to 99")
    return value


def _int_or_none(verb: str, name: str, value: Any) -> int | None:
    return None if value is None else _int(verb, name, value)  # missing: None


def _clue(verb: str, name: str, value: Any) -> str | None:
    """A clue as typed: any text up to MAX_CLUE characters (what it may say is the check's, in the
    handler, which says why in the phone's language), None when left out (said aloud). A lone
    surrogate is not text JSON can carry on: refused here."""
    if value is None:
        return None
    if not isinstance(value, str) or len(value) > MAX_CLUE:
        raise MessageError(f"{verb}: {name} must be text of at most {MAX_CLUE} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise MessageError(f"{verb}: {name} is not text (a lone surrogate)") from None
    return value


def _lang(verb: str, name: str, value: Any) -> str | None:
    if value is not None and value not in LANGUAGES:
        raise MessageError(f"{verb}: {name} must be one of {', '.join(LANGUAGES)}")
    return value


def _level(verb: str, name: str, value: Any) -> str | None:
    if value is not None and value not in COMPUTER_LEVELS:
        raise MessageError(f"{verb}: {name} must be one of {', '.join(COMPUTER_LEVELS)}")
    return value


def _bool(verb: str, name: str, value: Any) -> bool:
    if type(value) is not bool:
        raise MessageError(f"{verb}: {name} must be true or false")
    return value


def _delta(verb: str, name: str, value: Any) -> int:
    if type(value) is not int or value not in (1, -1):
        raise MessageError(f"{verb}: {name} must be 1 or -1")
    return value


def _variant(verb: str, name: str, value: Any) -> str:
    if value not in VARIANTS:
        raise MessageError(f"{verb}: {name} must be {' or '.join(VARIANTS)}")
    return value


def _cell(verb: str, name: str, value: Any) -> Cell:
    if type(value) is not str or len(value) > 3:
        raise MessageError(f"{verb}: {name} must be a cell like H15")
    try:
        return parse_cell(value)
    except RuleError as exc:
        raise MessageError(f"{verb}: {exc}") from None


# each verb's fields and their checks, from FIELDS (a field missing is refused before them, but an optional one)
_KINDS = {"text": _text, "int": _int, "int?": _int_or_none, "cell": _cell, "delta": _delta, "variant": _variant,
          "clue": _clue, "lang": _lang, "level?": _level, "bool": _bool}
_CHECKS = {verb: tuple((name, _KINDS[kind]) for name, kind in fields.items()) for verb, fields in FIELDS.items()}

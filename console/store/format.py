"""How the game store lays out, encodes and checks what it keeps in Redis (pure: no I/O, no clock),
and the store's error types.

Kept apart from `store.py` so that the rules for what counts as a readable record, and the text the
`history` command prints, can be tested and changed without a Redis connection. The key schema itself
is described in `console/store.py`.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from console.game.rules import DEFAULT_COLOR_NAMES, GameState

RECORD_VERSION = 2
"""The record format this console writes: each line is `<chain> <action JSON>`, where the chain is
the first 16 hex digits of sha256(previous chain + " " + JSON), the game id standing in for the
previous chain of line 1. A changed, dropped or reordered line breaks the chain from there on."""
READABLE_VERSIONS = ("1", "2")
"""Version 1 (plain JSON lines, no chain) is still read: games stored before the chain existed."""
CHAIN_DIGITS = 16
MAX_TEXT = 64 * 1024
"""The longest summary or setting the store reads back (a game's summary is a few hundred bytes)."""
LATEST_TIME = 32_503_680_000.0  # 3000-01-01: a stored time past it is damage, not a date

PLAYING, FINISHED, ABANDONED = "playing", "finished", "abandoned"


class StoreError(Exception):
    """Base of the store's errors; str() is one line a party host can understand."""


class NotStorableError(StoreError, ValueError):
    """The caller handed the store an action or setting it cannot keep (a bug in the caller)."""


class CorruptRecordError(StoreError):
    """A game stored in Redis cannot be read back: bad JSON, not an action, unknown format version..."""


class StoreUrlError(StoreError):
    """The store URL is not one the console can use."""


class StoreOfflineError(StoreError):
    """`export` needs Redis and Redis cannot be reached."""


class GameNotFoundError(StoreError):
    """No stored game has the asked-for id (or no game is stored at all)."""


class NoCurrentGameError(StoreError):
    """append/finish was called with no game started or resumed (a bug in the caller)."""


class JournalError(StoreError):
    """The local journal cannot be written (disk full, read-only, no state directory)."""


class StateDirInUseError(StoreError):
    """Another console runs on the same state directory (its identity, journal and games)."""


class NotDurableError(StoreError):
    """An action could be kept neither in the journal nor in Redis: it must not be shown as done."""


@dataclass(frozen=True)
class Keys:
    """Redis key names, all under one prefix so several consoles (or tests) can share a server."""

    prefix: str = "hues:"

    @property
    def current(self) -> str:
        return self.prefix + "current"

    @property
    def history(self) -> str:
        return self.prefix + "history"

    @property
    def settings(self) -> str:
        return self.prefix + "settings"

    @property
    def playing(self) -> str:
        return self.prefix + "playing"

    @property
    def order(self) -> str:
        return self.prefix + "order"

    def fixed(self) -> dict[str, str]:
        """The keys every console shares, with the Redis type each must have."""
        return {self.current: "string", self.history: "zset", self.settings: "hash",
                self.playing: "zset", self.order: "string"}

    def record(self, game_id: str) -> str:
        return f"{self.prefix}game:{game_id}:record"

    def meta(self, game_id: str) -> str:
        return f"{self.prefix}game:{game_id}:meta"

    def lease(self, game_id: str) -> str:
        return f"{self.prefix}game:{game_id}:lease"

    def quarantine(self, name: str) -> str:
        return f"{self.prefix}quarantine:{name}"


def new_game_id() -> str:
    """128 random bits in hex: made without Redis (a game played offline has an id too) and
    without the clock (a Pi without a real-time clock restores old times after a power cut), so
    two games never share one. Order comes from the store's counter, not from the id."""
    return os.urandom(16).hex()  # secrets.token_hex(16), without importing hmac and hashlib at start


def chain_next(previous: str, text: str) -> str:
    """The chain value of a record line whose JSON is `text`, after `previous`."""
    import hashlib  # here, not at start: 4 ms of the first frame

    data = f"{previous} {text}".encode("utf-8", "surrogatepass")  # a stored line may hold any bytes
    return hashlib.sha256(data).hexdigest()[:CHAIN_DIGITS]


def chained_line(previous: str, text: str) -> str:
    """A record line of version 2: its chain value, a space, the action's JSON."""
    return f"{chain_next(previous, text)} {text}"


def chain_of(line: str) -> str:
    """The chain value a version 2 line carries (the next line is chained to it)."""
    return line[:CHAIN_DIGITS]


@dataclass(frozen=True)
class DecodedRecord:
    """A stored record read back: the longest valid prefix, and why the rest (if any) was cut."""

    actions: list[dict]
    lines: list[str]  # the stored elements of that prefix, as they are in Redis
    problem: str | None = None  # what is wrong with line len(lines) + 1; None: all of it is valid


def format_date(when: float) -> str:
    """The local time with its UTC offset, e.g. `2024-05-01T19:30:12+02:00`."""
    return datetime.fromtimestamp(when).astimezone().isoformat(timespec="seconds")


def encode_action(action: Any) -> str:
    """One action dict -> its record line; NotStorableError if it is not an action or not JSON."""
    if not isinstance(action, dict) or not isinstance(action.get("action"), str):
        raise NotStorableError(f"cannot store {action!r}: an action is a dict with an \"action\" name")
    return encode_value(f"action {action['action']!r}", action)


def encode_value(what: str, value: Any) -> str:
    """Any JSON value -> its text; NotStorableError names `what` when the value is not JSON."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise NotStorableError(f"cannot store {what}: it is not plain JSON ({error})") from None


def decode_record(game_id: str, meta: dict[str, str], lines: list[str]) -> DecodedRecord:
    """A stored game's meta hash and record list -> its longest valid prefix of actions.

    CorruptRecordError when not even the new_game line can be read (the whole game is set aside);
    a damaged line further on only cuts the record there (`problem` says why).
    """
    version = meta.get("version")
    if version is None:
        raise CorruptRecordError("its meta has no record format version")
    if version not in READABLE_VERSIONS:
        raise CorruptRecordError(
            f"it is in record format version {version[:20]!r}; this console reads versions "
            f"{' and '.join(READABLE_VERSIONS)}")
    stored_time(meta, "started")
    if not lines:
        raise CorruptRecordError("its record is empty")
    actions: list[dict] = []
    previous, problem = game_id, None
    for number, line in enumerate(lines, 1):
        text = line
        if version != "1":
            text = line[CHAIN_DIGITS + 1:]
            if line[CHAIN_DIGITS:CHAIN_DIGITS + 1] != " " or chain_of(line) != chain_next(previous, text):
                problem = f"line {number} of its record fails its checksum (changed or out of order)"
                break
            previous = chain_of(line)
        problem = _action_problem(text)
        if problem:
            problem = f"line {number} of its record {problem}"
            break
        actions.append(json.loads(text))
    if not actions or actions[0]["action"] != "new_game":
        raise CorruptRecordError(problem or "its first line is not a new_game action")
    if any(a["action"] == "new_game" for a in actions[1:]):
        cut = next(i for i, a in enumerate(actions) if i and a["action"] == "new_game")
        actions, problem = actions[:cut], f"line {cut + 1} of its record starts another game"
    return DecodedRecord(actions, lines[: len(actions)], problem)


def next_line_problem(game_id: str, version: str, lines: list[str], line: str) -> str | None:
    """Why `line` cannot follow `lines` in the record of game `game_id` (None: it can). Checks
    the one line only, where `decode_record` reads a whole record: a journal of a long game is
    taken over a line at a time in linear time."""
    text = line
    if version != "1":
        previous = chain_of(lines[-1]) if lines else game_id
        text = line[CHAIN_DIGITS + 1:]
        if line[CHAIN_DIGITS:CHAIN_DIGITS + 1] != " " or chain_of(line) != chain_next(previous, text):
            return "it fails its checksum (changed or out of order)"
    problem = _action_problem(text)
    if problem is None and lines and json.loads(text)["action"] == "new_game":
        problem = "it starts another game"
    return problem


def _action_problem(text: str) -> str | None:
    """What keeps `text` from being an action line of a record, or None."""
    value = _load(text)
    if value is _BAD:
        return "is not valid JSON"
    if not isinstance(value, dict):
        return "is not a JSON object"
    if not isinstance(value.get("action"), str):
        return "has no \"action\" name"
    return None


_BAD = object()


def _load(text: str) -> Any:
    """JSON text -> its value, or _BAD: not JSON, nested too deep, or longer than MAX_TEXT."""
    if len(text) > MAX_TEXT:
        return _BAD
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _BAD


def load_setting(text: str) -> Any:
    """A stored setting's JSON -> its value; CorruptRecordError when it cannot be read."""
    value = _load(text)
    if value is _BAD:
        raise CorruptRecordError("it is not valid JSON (or too long or too deeply nested)")
    return value


def stored_time(meta: dict[str, str], field: str) -> float:
    """A time kept in a meta hash (seconds since 1970); CorruptRecordError unless it is a real date."""
    try:
        value = float(meta[field])
    except (KeyError, ValueError):
        raise CorruptRecordError(f"its meta has no valid {field} time") from None
    if not (math.isfinite(value) and 0 <= value < LATEST_TIME):
        raise CorruptRecordError(f"its {field} time {meta[field][:30]!r} is not a date")
    return value


def history_entry(game_id: str, meta: dict[str, str], actions: int) -> dict:
    """A finished or abandoned game's meta -> the dict `GameStore.history` returns.

    A finished game gives its summary (players, winners, date...) plus `game_id`, `status`, `date`
    and `actions` (how many record lines); an abandoned one gives those four and its `reason`.
    """
    entry: dict[str, Any] = {}
    if "summary" in meta:
        entry = _load(meta["summary"])
        if entry is _BAD:
            raise CorruptRecordError("its summary is not valid JSON (or too long or too deeply nested)")
        check_summary(entry)
    if "reason" in meta:
        entry["reason"] = meta["reason"][:200]
    ended = stored_time(meta, "ended")
    entry.update(game_id=game_id, status=meta.get("status", "?"), actions=actions)
    entry.setdefault("date", format_date(ended))
    return entry


def summary_of(game: GameState) -> dict:
    """What the history keeps of a finished game (`check_summary` reads it back)."""
    return {
        "players": game.players,
        "colors": list(game.colors),
        "scores": list(game.scores),
        "winners": list(game.winners),
        "winner_colors": [game.colors[w] for w in game.winners],
        "rounds": game.round,
        "variant": game.variant,
    }


def check_summary(summary: Any) -> None:
    """CorruptRecordError unless `summary` is what the app writes: colours (known names), scores
    (whole numbers) and winners that are among the players."""
    if not isinstance(summary, dict):
        raise CorruptRecordError("its summary is not a JSON object")
    colors = summary.get("colors", [])
    if not (isinstance(colors, list) and all(c in DEFAULT_COLOR_NAMES for c in colors)):
        raise CorruptRecordError("its summary's colors are not a list of pawn colours")
    for name in ("scores", "winners"):
        values = summary.get(name, [])
        if not (isinstance(values, list) and len(values) <= len(DEFAULT_COLOR_NAMES)
                and all(type(v) is int and abs(v) < 10**6 for v in values)):
            raise CorruptRecordError(f"its summary's {name} are not a list of whole numbers")
    winners = summary.get("winner_colors", [])
    if not (isinstance(winners, list) and all(isinstance(w, str) and w in (colors or DEFAULT_COLOR_NAMES)
                                              for w in winners)):
        raise CorruptRecordError("its summary's winner_colors are not colours of its players")
    if "date" in summary and not isinstance(summary["date"], str):
        raise CorruptRecordError("its summary's date is not text")


def history_line(entry: dict) -> str:
    """One line of `hues-console history`: id, date, each colour with its score, the winners.

    The summary is the app's (`{"colors": ["red", ...], "scores": [12, ...], "winner_colors":
    ["red"], ...}`); whatever is missing shows as `?` rather than failing.
    """
    date = str(entry.get("date", "?"))[:16].replace("T", " ")
    head = f"{entry.get('game_id', '?')}  {date}"
    if entry.get("status") != FINISHED:
        reason = f" ({entry['reason']})" if entry.get("reason") else ""
        return f"{head}  {entry.get('status', '?')} after {entry.get('actions', '?')} actions{reason}"
    colors, scores = _list(entry, "colors"), _list(entry, "scores")
    if len(scores) < len(colors):
        scores += ["?"] * (len(colors) - len(scores))
    players = ", ".join(f"{color} {score}" for color, score in zip(colors, scores)) or "?"
    winners = _list(entry, "winner_colors")
    label = "winner" if len(winners) == 1 else "winners"
    return f"{head}  {players}  {label}: {', '.join(str(w) for w in winners) or '?'}"


def _list(entry: dict, name: str) -> list:
    value = entry.get(name)
    return list(value) if isinstance(value, list) else []

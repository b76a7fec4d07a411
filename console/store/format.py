"""How the game store lays out, encodes and checks what it keeps in Redis (pure: no I/O, no clock),
and the store's error types.

Kept apart from `store.py` so that the rules for what counts as a readable record, and the text the
`history` command prints, can be tested and changed without a Redis connection. The key schema itself
is described in `console/store.py`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

RECORD_VERSION = 1
"""The record format this console writes and reads; a stored game with another version is set aside."""

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

    def record(self, game_id: str) -> str:
        return f"{self.prefix}game:{game_id}:record"

    def meta(self, game_id: str) -> str:
        return f"{self.prefix}game:{game_id}:meta"

    def quarantine(self, name: str) -> str:
        return f"{self.prefix}quarantine:{name}"


def new_game_id(started: float, token: str) -> str:
    """`20240501-193012-a3f0`: the local start time (sortable, readable) and a random token."""
    return time.strftime("%Y%m%d-%H%M%S", time.localtime(started)) + "-" + token


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


def decode_record(meta: dict[str, str], lines: list[str]) -> list[dict]:
    """A stored game's meta hash and record list -> its actions; CorruptRecordError says what is wrong."""
    version = meta.get("version")
    if version is None:
        raise CorruptRecordError("its meta has no record format version")
    if version != str(RECORD_VERSION):
        raise CorruptRecordError(
            f"it is in record format version {version!r}; this console reads version {RECORD_VERSION}")
    try:
        float(meta.get("started", ""))
    except ValueError:
        raise CorruptRecordError("its meta has no valid start time") from None
    if not lines:
        raise CorruptRecordError("its record is empty")
    actions = []
    for number, line in enumerate(lines, 1):
        try:
            action = json.loads(line)
        except ValueError:
            raise CorruptRecordError(f"line {number} of its record is not valid JSON") from None
        if not isinstance(action, dict):
            raise CorruptRecordError(f"line {number} of its record is not a JSON object")
        if not isinstance(action.get("action"), str):
            raise CorruptRecordError(f"line {number} of its record has no \"action\" name")
        actions.append(action)
    if actions[0]["action"] != "new_game":
        raise CorruptRecordError("its first line is not a new_game action")
    return actions


def history_entry(game_id: str, meta: dict[str, str], actions: int) -> dict:
    """A finished or abandoned game's meta -> the dict `GameStore.history` returns.

    A finished game gives its summary (players, winners, date...) plus `game_id`, `status`, `date`
    and `actions` (how many record lines); an abandoned one gives those four and its `reason`.
    """
    entry: dict[str, Any] = {}
    if "summary" in meta:
        try:
            entry = json.loads(meta["summary"])
        except ValueError:
            raise CorruptRecordError("its summary is not valid JSON") from None
        if not isinstance(entry, dict):
            raise CorruptRecordError("its summary is not a JSON object")
    if "reason" in meta:
        entry["reason"] = meta["reason"]
    try:
        ended = float(meta["ended"])
    except (KeyError, ValueError):
        raise CorruptRecordError("its meta has no valid end time") from None
    entry.update(game_id=game_id, status=meta.get("status", "?"), actions=actions)
    entry.setdefault("date", format_date(ended))
    return entry


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

"""Game records: the public JSON-lines format, and replay.

A record is one JSON object a line, exactly the vocabulary of `rules` (new_game, choose_target, redeal,
clue, place, take_back, skip_clue, next). What the store keeps, `export` prints and `replay` reads are the
same text, so a game can be moved from the box to a laptop and replayed there. A spoken clue is
`{"action": "clue"}`, as every record from before written clues has it; a written one adds its
words, language and whether it was checked.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Iterable

from console.game import rules
from console.game.board import Cell, brief_repr, parse_cell
from console.game.rules import Action, ChooseTarget, Clue, GameState, NewGame, Place, RuleError


MAX_RECORD_BYTES = 1 << 20
"""The largest record file read: a 10-player game with many tie-breaks is some 30 KB."""


class RecordError(ValueError):
    """A record that cannot be replayed; str() is `FILE:LINE: what is wrong`."""

    def __init__(self, source: str, line: int, problem: str):
        super().__init__(f"{source}:{line}: {problem}")
        self.source, self.line, self.problem = source, line, problem


def _record_fields(cls: type) -> dict[str, tuple[type, bool]]:
    """{field: (type, required)} of an action as a record line gives it, from the dataclass (a
    field without a default is required) and the type the rules check (a tuple is a JSON list)."""
    kinds = rules.FIELD_TYPES.get(cls, {})
    return {f.name: ({tuple: list}.get(kinds[f.name][0], kinds[f.name][0]), f.default is dataclasses.MISSING)
            for f in dataclasses.fields(cls)}


_FIELDS = {name: (cls, _record_fields(cls)) for cls, name in rules.ACTION_NAMES.items()}
_NAMES = rules.ACTION_NAMES


def action_from_json(obj: Any) -> Action:
    """One decoded JSON value -> Action; RuleError names the missing or wrong field."""
    if not isinstance(obj, dict):
        raise RuleError("each line must be a JSON object like {\"action\": \"clue\"}")
    name = obj.get("action")
    if not isinstance(name, str) or name not in _FIELDS:
        raise RuleError(f"unknown action {brief_repr(name)} (expected one of {', '.join(_FIELDS)})")
    cls, fields = _FIELDS[name]
    extra = sorted(set(obj) - set(fields) - {"action"})
    if extra:
        raise RuleError(f"{name} has an unknown field {brief_repr(extra[0])}")
    kwargs = {}
    for field, (kind, required) in fields.items():
        if field not in obj:
            if required:
                raise RuleError(f"{name} needs a {field!r} field")
            continue
        kwargs[field] = _field_value(name, field, kind, obj[field])
    return cls(**kwargs)


def _field_value(action: str, field: str, kind: type, value: Any) -> Any:
    if kind is Cell:
        return parse_cell(value)
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise RuleError(f"{action}: {field} must be a whole number, not {brief_repr(value)}")
    if kind is str and not isinstance(value, str):
        raise RuleError(f"{action}: {field} must be text, not {brief_repr(value)}")
    if kind is bool and not isinstance(value, bool):
        raise RuleError(f"{action}: {field} must be true or false, not {brief_repr(value)}")
    if kind is list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise RuleError(f"{action}: {field} must be {rules.LIST_NAMES[field]}")
        return tuple(value)
    return value


def action_to_json(action: Action) -> dict[str, Any]:
    """Action -> the record's JSON object, optional fields left out when they hold defaults."""
    out: dict[str, Any] = {"action": _NAMES[type(action)]}
    if isinstance(action, NewGame):
        out.update(players=action.players, seed=action.seed, first_giver=action.first_giver,
                   variant=action.variant)
        if action.colors is not None:
            out["colors"] = list(action.colors)
        if any(action.computers):
            out["computers"] = list(action.computers)
    elif isinstance(action, (ChooseTarget, Place)):
        out["cell"] = str(action.cell)
        if isinstance(action, Place) and action.player is not None:
            out["player"] = action.player
    elif isinstance(action, Clue) and action.written:
        out.update(clue_json(action))
    return out


def clue_json(clue: Clue) -> dict[str, Any]:
    """A clue as the record, the replay JSON and the phones carry it: its words (none: spoken)."""
    if not clue.written:
        return {"words": []}
    return {"words": list(clue.words), "lang": clue.lang, "checked": clue.checked}


def dumps_record(actions: Iterable[Action]) -> str:
    return "".join(json.dumps(action_to_json(a)) + "\n" for a in actions)


def parse_record(text: str, source: str = "<record>") -> list[tuple[int, Action]]:
    """Every non-blank line -> (line number, Action); RecordError at the first bad one.

    Lines end at `\n` only (JSON takes a `\r` before it as white space), so the line numbers are
    the ones an editor shows even when a line holds `\x0c`, `\x85` or `\u2028`; a leading UTF-8 BOM is
    skipped."""
    out = []
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json_value(line)
        except ValueError as exc:
            raise RecordError(source, number, str(exc)) from None
        try:
            out.append((number, action_from_json(obj)))
        except RuleError as exc:
            raise RecordError(source, number, str(exc)) from None
    return out


def json_value(line: str) -> Any:
    """One line of strict JSON; ValueError saying what is wrong. Stricter than `json.loads`:
    a key given twice, NaN or Infinity, nesting deeper than Python's recursion limit and an
    integer longer than Python's 4,300-digit limit are each refused with a one-line reason."""
    try:  # a line with no space around its value (as every writer here makes them) in one call to the scanner
        value, end = _DECODER.scan_once(line, 0)
        if end == len(line):
            return value
    except (StopIteration, ValueError, RecursionError):
        pass  # the whole decoder below says what is wrong
    try:
        return _DECODER.decode(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise ValueError("not valid JSON (nested too deeply)") from None
    except ValueError as exc:  # the int digit limit, and our own two hooks
        raise ValueError(f"not valid JSON ({str(exc).split(':')[0]})") from None


def _no_twice_given_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"the key {brief_repr(twice)} is given twice")
    return obj


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


# made once: json.loads with hooks builds a decoder and its scanner at every call, half the cost
# of a phone's small message
_DECODER = json.JSONDecoder(object_pairs_hook=_no_twice_given_keys, parse_constant=_no_constant)


def replay_record(text: str, source: str = "<record>") -> GameState:
    """Parse and fold a whole record; RecordError names the line of the first illegal action."""
    return fold_record(parse_record(text, source), source)


def fold_record(numbered: Iterable[tuple[int, Action]], source: str = "<record>") -> GameState:
    """Fold parsed (line number, action) pairs; RecordError names the line of the first illegal one."""
    state = None
    for number, action in numbered:
        try:
            state = rules.apply(state, action)
        except RuleError as exc:
            raise RecordError(source, number, str(exc)) from None
    if state is None:
        raise RecordError(source, 1, "the record is empty: it needs a new_game line")
    return state


def state_json(state: GameState) -> dict[str, Any]:
    """The replay JSON: what the table may see (the target only once the round is scored)."""
    target = state.target_revealed
    card = state.card_cells
    return {
        "phase": state.phase,
        "round": state.round,
        "tiebreak": state.tiebreak,
        "giver": state.giver,
        "scores": list(state.scores),
        "winners": list(state.winners),
        "card": None if card is None else [str(c) for c in card],
        "pawns": [{"player": p.player, "cell": str(p.cell)} for p in state.pawns],
        "target": None if target is None else str(target),
        "last_round_points": list(state.last_round_points),
        "clues": [clue_json(clue) for clue in state.clues],
        **({"computers": list(state.computers)} if state.computers else {}),
    }


def state_summary(state: GameState) -> str:
    """A readable summary for the host: round, phase, every score, the winners."""
    total = rules.regular_rounds(state.players)
    kind = f"round {state.round} (tie-break)" if state.tiebreak else f"round {state.round} of {total}"
    lines = [f"{state.players} players, {state.variant} variant: {kind}, phase {state.phase}"]
    for p, score in enumerate(state.scores):
        mark = "  <- winner" if p in state.winners else ""
        giver = " (cue giver)" if p == state.giver and state.phase != "game_over" else ""
        lines.append(f"  player {p} ({player_name(state, p)}): {score}{giver}{mark}")
    if state.winners:
        names = ", ".join(f"player {p} ({player_name(state, p)})" for p in state.winners)
        lines.append(("Joint winners: " if len(state.winners) > 1 else "Winner: ") + names)
    return "\n".join(lines)


def player_name(state: GameState, seat: int) -> str:
    """A seat as the record's readers name it: its colour, and a computer player's level."""
    computer = state.computer(seat)
    return state.colors[seat] if computer is None else f"{state.colors[seat]}, computer {computer[0]}"

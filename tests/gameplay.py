"""Helpers shared by the rules tests: play whole rounds from a few words."""

from __future__ import annotations

from console.game import rules
from console.game.board import ALL_CELLS, Cell, distance, parse_cell
from console.game.rules import ChooseTarget, Clue, GameState, Next, Place, SkipClue


def c(name: str) -> Cell:
    return parse_cell(name)


def far_cells(target: Cell, taken: set[Cell]) -> list[Cell]:
    """Cells that score nothing for a target, in board order."""
    return [x for x in ALL_CELLS if distance(x, target) > 2 and x not in taken]


def play_round(
    state: GameState,
    target: Cell | None = None,
    first: dict[int, Cell] | None = None,
    second: dict[int, Cell] | None = None,
) -> GameState:
    """Play one round to round_over. Guessers not named in `first`/`second` place far away;
    `second=None` passes on the second clue. The target defaults to the first allowed cell."""
    if target is None:
        target = rules.legal_actions(state)[0].cell
    state = rules.apply(state, ChooseTarget(target))
    state = rules.apply(state, Clue())
    state = _guesses(state, target, first or {})
    if second is None:
        return rules.apply(state, SkipClue())
    state = rules.apply(state, Clue())
    return _guesses(state, target, second)


def _guesses(state: GameState, target: Cell, chosen: dict[int, Cell]) -> GameState:
    phase = state.phase
    while state.phase == phase:
        who = rules.current_player(state)
        cell = chosen.get(who)
        if cell is None:
            cell = far_cells(target, {p.cell for p in state.pawns} | set(chosen.values()))[0]
        state = rules.apply(state, Place(cell, who))
    return state


def play_quiet_rounds(state: GameState, count: int) -> GameState:
    """`count` rounds where nobody scores (every pawn far away, second clue passed)."""
    for _ in range(count):
        state = rules.apply(play_round(state), Next())
    return state

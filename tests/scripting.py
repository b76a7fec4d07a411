"""Write input scripts for whole games, and predict where they must end.

`plan_game` plays a game through the rules engine with a policy (which target, where each
guesser goes, whether the giver passes) and writes, beside it, the joystick and button presses a
person would make for the same game on the console. The headless simulator runs the script; the
test compares its final state with the engine's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

from console import rules
from console.board import Cell
from console.controller import new_game_action
from console.rules import ChooseTarget, Clue, GameState, Next, Place, SkipClue
from console.ui import CENTRE, SetupChoices

Policy = Callable[[GameState, int], Cell]  # (state, guesser) -> where the pawn goes


@dataclass
class Script:
    lines: list[str] = field(default_factory=list)
    cursor: Cell = CENTRE
    placements: list[int] = field(default_factory=list)  # line index of each pawn's "a"

    def press(self, button: str, count: int = 1) -> None:
        if count > 0:
            self.lines.append(f"{button} {count}" if count > 1 else button)

    def move_to(self, cell: Cell) -> None:
        dr, dc = cell.row - self.cursor.row, cell.col - self.cursor.col
        self.press("down" if dr > 0 else "up", abs(dr))
        self.press("right" if dc > 0 else "left", abs(dc))
        self.cursor = cell

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def plan_game(
    players: int,
    variant: str,
    first_giver: int | None,
    seed: int,
    target: Callable[[GameState], Cell],
    guess: Policy,
    passes: Callable[[GameState], bool],
    colors: tuple[str, ...] = rules.DEFAULT_COLOR_NAMES,
) -> tuple[Script, GameState, list[rules.Action]]:
    """(input script, the final state, the game record) of one game from the idle screen to the
    winners, with set-up made from the default choices (4 players, cards, random giver)."""
    script = Script()
    defaults = SetupChoices()
    script.press("start")
    script.press("right" if players > defaults.players else "left", abs(players - defaults.players))
    script.press("down")
    script.press("right", rules.VARIANTS.index(variant))
    script.press("down")
    script.press("right", 0 if first_giver is None else first_giver + 1)
    script.press("down")
    script.press("a")
    choices = SetupChoices(players, variant, first_giver)
    action = new_game_action(choices, random.Random(seed), colors)
    state = rules.apply(None, action)
    record: list[rules.Action] = [action]

    def do(a: rules.Action) -> None:
        nonlocal state
        state = rules.apply(state, a)
        record.append(a)

    while not rules.is_terminal(state):
        script.press("a")  # the handoff: the giver has the controls
        cell = target(state)
        if variant == "cards":
            script.press("right", state.card_cells.index(cell))
        else:
            script.move_to(cell)
        script.press("a")
        script.cursor = CENTRE
        do(ChooseTarget(cell))
        script.press("a")  # first clue given
        do(Clue())
        _guesses(script, state, guess, do, lambda: state)
        if passes(state):
            script.press("right")
            script.press("a")
            do(SkipClue())
        else:
            script.press("a")
            do(Clue())
            _guesses(script, state, guess, do, lambda: state)
        script.press("a", 3)  # reveal: frame -> points -> scores -> next
        was_tiebreak = state.tiebreak
        do(Next())
        script.cursor = CENTRE
        if state.tiebreak and not was_tiebreak:
            script.press("a")  # the tie-break screen
    script.press("a")  # game over -> idle
    return script, state, record


def _guesses(script: Script, state: GameState, guess: Policy, do, current) -> None:
    phase = state.phase
    while current().phase == phase:
        who = rules.current_player(current())
        cell = guess(current(), who)
        script.move_to(cell)
        script.press("a")
        script.placements.append(len(script.lines) - 1)
        do(Place(cell, who))
    script.press("a")  # the next player (or the giver) takes the controls: the last pawn commits

"""Write input scripts for whole games (or their rest, after a resume), and predict their end.

`plan_game` plays a game through the rules engine with a policy (which target, where each
guesser goes, whether the giver passes). `script_for` turns any stretch of a game record into
the joystick and button presses a person would make for it on the console. The headless
simulator runs the script; the tests compare its final state with the engine's.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable

from console.game import rules
from console.game.clue import LANGUAGES
from console.game.board import Cell
from console.play import intents
from console.play.controller import MOVES, card_step
from console.play.table import new_game_action
from console.game.rules import Action, ChooseTarget, Clue, GameState, Next, Place, SkipClue
from console.view.ui import CENTRE, SetupChoices

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


def setup_presses(script: Script, choices: SetupChoices) -> None:
    """From the idle screen through set-up, starting from the default choices."""
    defaults = SetupChoices()
    script.press("start")
    script.press("right" if choices.players > defaults.players else "left",
                 abs(choices.players - defaults.players))
    script.press("down")
    script.press("right", choices.computers)
    if choices.computers:  # their level and language: only with computer players
        script.press("down")
        levels = rules.COMPUTER_LEVELS
        script.press("right", (levels.index(choices.level) - levels.index(defaults.level)) % len(levels))
        script.press("down")
        script.press("right", (LANGUAGES.index(choices.lang) - LANGUAGES.index(defaults.lang)) % len(LANGUAGES))
    script.press("down")
    script.press("right", rules.VARIANTS.index(choices.variant))
    script.press("down")
    script.press("right", 0 if choices.first_giver is None else choices.first_giver + 1)
    script.press("down")
    script.press("a")


def script_for(record: list[Action], start: int, script: Script | None = None,
               resumed: bool = False) -> Script:
    """Presses that make the console apply record[start:], the game standing after
    record[:start] (start >= 1). `resumed`: the console has just offered that game for resume,
    so the first press resumes it (the cursor is back at the centre, a reveal at the scoreboard)."""
    script = script or Script()
    state = rules.replay(record[:start])
    at_scoreboard = resumed and state.phase == "round_over"
    if resumed:
        script.press("a")
    for index in range(start, len(record)):
        action = record[index]
        following = record[index + 1] if index + 1 < len(record) else None
        if isinstance(action, ChooseTarget):
            script.press("a", 2)  # the handoff: the giver has the controls, A twice
            if state.variant == "cards":
                for button in card_path(state.card_cells, state.card_cells.index(action.cell)):
                    script.press(button)
            else:
                script.move_to(action.cell)
            script.press("a")
            script.cursor = CENTRE
        elif isinstance(action, Clue):
            script.press("a")
        elif isinstance(action, SkipClue):
            script.press("right")
            script.press("a")
        elif isinstance(action, Place):
            script.move_to(action.cell)
            script.press("a")
            script.placements.append(len(script.lines) - 1)
            if not isinstance(following, Place):
                script.press("a")  # the giver takes the controls (or the reveal): the pawn commits
        elif isinstance(action, Next):
            script.press("a", 1 if at_scoreboard else 3)  # reveal: frame -> points -> scores -> next
            script.cursor = CENTRE
        at_scoreboard = False
        before, state = state, rules.apply(state, action)
        if isinstance(action, Next) and state.tiebreak and not before.tiebreak:
            script.press("a")  # the tie-break screen
    if rules.is_terminal(state):
        script.press("a")  # game over -> idle
    return script


def card_path(cells: tuple[Cell, ...], goal: int) -> list[str]:
    """The fewest joystick moves from the card's first cell to cells[goal] (breadth first)."""
    paths = {0: []}
    frontier = [0]
    for _ in range(len(cells)):
        if goal in paths:
            break
        frontier = [(i, paths[i] + [b]) for i in frontier for b in MOVES]
        nxt = []
        for i, path in frontier:
            j = card_step(cells, i, path[-1])
            if j not in paths:
                paths[j] = path
                nxt.append(j)
        frontier = nxt
    return paths[goal]  # a KeyError: the joystick cannot reach that cell


def plan_game(
    players: int,
    variant: str,
    first_giver: int | None,
    seed: int,
    target: Callable[[GameState], Cell],
    guess: Policy,
    passes: Callable[[GameState], bool],
    colors: tuple[str, ...] = rules.DEFAULT_COLOR_NAMES,
) -> tuple[Script, GameState, list[Action]]:
    """(input script, final state, game record) of one game from the idle screen to the winners;
    the console must run with `--seed seed` so that it draws the same new_game."""
    choices = SetupChoices(players, variant, first_giver)
    record = plan_rest(new_game_action(intents.NewGame(players, variant, first_giver), random.Random(seed), colors),
                       target, guess, passes)
    return fresh_script(record, choices), rules.replay(record), record


def plan_rest(new_game: Action, target: Callable[[GameState], Cell], guess: Policy,
              passes: Callable[[GameState], bool]) -> list[Action]:
    """The record of a whole game from its new_game (drawn by the console, or from a seed)."""
    record: list[Action] = [new_game]
    state = rules.apply(None, new_game)

    def do(action: Action) -> None:
        nonlocal state
        state = rules.apply(state, action)
        record.append(action)

    while not rules.is_terminal(state):
        do(ChooseTarget(target(state)))
        do(Clue())
        while state.phase == "guess1":
            do(Place(guess(state, rules.current_player(state)), rules.current_player(state)))
        if passes(state):
            do(SkipClue())
        else:
            do(Clue())
            while state.phase == "guess2":
                do(Place(guess(state, rules.current_player(state)), rules.current_player(state)))
        do(Next())
    return record


def fresh_script(record: list[Action], choices: SetupChoices) -> Script:
    """Presses for a whole recorded game from the idle screen, set up with `choices` (the
    console run with the seed that draws the same new_game from them)."""
    script = Script()
    setup_presses(script, choices)
    return script_for(record, 1, script)

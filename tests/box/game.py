"""A whole game played on the box's buttons, as the guests at the table would press them.

The console in the box draws its own new game (its deck and seats come from its own random
numbers), so the game is planned with the rules engine once the console has logged that first
action (tests/scripting.py's policies and presses, the ones the headless power-cut test plays).
From any point of the record the console holds (a fresh start, or a resume after a power cut) the
presses for the rest are the same `script_for` the simulator tests use.
"""

from __future__ import annotations

import dataclasses
import time

from console.config.schema import Config
from console.game import rules
from console.game.record import action_from_json, action_to_json
from console.view.ui import SetupChoices
from hal.inputs.script import Hold, Tap, Wait, parse_script
from tests.box.machine import ConsoleLog, Presses
from tests.scripting import Script, plan_rest, script_for, setup_presses
from tests.play.test_whole_games import first_card_cell, near_guesser

VARIANT, FIRST_GIVER, POLICY_SEED = "cards", 0, 7
SETTLE_S = 0.5  # the console ignores presses for 0.4 s after a screen changes by itself (GRACE_S)


def button_pins(config: Config) -> dict[str, int]:
    return dataclasses.asdict(config.input.pins)


class BoxGame:
    """`players`: 3 make a game of about 60 actions, 6 of about 150."""

    def __init__(self, presses: Presses, players: int = 3):
        self.presses, self.players = presses, players
        self.planned: list[dict] = []  # the whole game, once the console drew its new game

    def start(self, log: ConsoleLog, since: int = 0, timeout: float = 30) -> None:
        """From the idle board: set up a game; plan it from the new game the console stores
        (the first action the log shows from `since` on)."""
        script = Script()
        setup_presses(script, SetupChoices(self.players, VARIANT, FIRST_GIVER))
        self.play(script.lines)
        stored = log.wait("the new game to be stored", lambda: log.stored[since:], timeout)
        record = plan_rest(action_from_json(stored[0]), first_card_cell, near_guesser(POLICY_SEED),
                           passes=lambda state: state.round % 4 == 0)
        self.planned = [action_to_json(action) for action in record]

    def rest(self, done: int, resumed: bool) -> list[str]:
        """The lines of presses that play the planned game on from its first `done` actions."""
        record = [action_from_json(action) for action in self.planned]
        return script_for(record, done, resumed=resumed).lines

    def play(self, lines: list[str], until=None) -> int:
        """Press `lines` (script lines); stop early, before a line, once `until()` is true.
        Returns how many lines were pressed."""
        for done, step in enumerate(parse_script("\n".join(lines) + "\n", "box game")):
            if until is not None and until():
                return done
            if isinstance(step, Tap):
                self.presses.tap(step.button, step.count)
            elif isinstance(step, Hold):
                self.presses.hold(step.button, step.seconds)
            elif isinstance(step, Wait):
                time.sleep(step.seconds)
        return len(lines)

    def finished(self, record: list[dict]) -> bool:
        state = rules.replay([action_from_json(a) for a in record]) if record else None
        return state is not None and rules.is_terminal(state)

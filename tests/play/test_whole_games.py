"""Whole games, set-up to winner, played through the headless simulator from input scripts only.

Each script is written beside a game played straight through the rules engine; the simulator,
fed nothing but the script's presses, must end in exactly the engine's state.
"""

from __future__ import annotations

import json
import random

import pytest

from console.commands import main as cli
from console.game import rules
from console.game.board import ALL_CELLS, Cell, distance
from console.game.record import state_json
from tests.scripting import plan_game


def run_sim(tmp_path, script: str, seed: int, extra: list[str] = ()) -> dict:
    path = tmp_path / "inputs.txt"
    path.write_text(script)
    out = tmp_path / "state.json"
    code = cli.main(["sim", "--headless", "--script", str(path), "--state-json", str(out),
                     "--seed", str(seed), *extra])
    assert code == 0
    return json.loads(out.read_text())


def near_guesser(seed: int):
    """Guessers land near the target (so scores vary), never on a taken cell."""
    rng = random.Random(seed)

    def guess(state: rules.GameState, who: int) -> Cell:
        taken = {p.cell for p in state.pawns}
        options = [c for c in ALL_CELLS if distance(c, state.target) <= 3 and c not in taken]
        return rng.choice(options)

    return guess


def first_card_cell(state: rules.GameState) -> Cell:
    return state.card_cells[state.round % 4]


def some_cell(state: rules.GameState) -> Cell:
    return ALL_CELLS[(state.round * 97 + 31) % len(ALL_CELLS)]


@pytest.mark.parametrize("players, variant, first_giver, seed", [
    (3, "cards", None, 1),
    (6, "free", 2, 2),
    (10, "cards", 9, 3),
    (10, "free", None, 4),
])
def test_whole_game_from_an_input_script(tmp_path, players, variant, first_giver, seed):
    script, expected, _ = plan_game(
        players, variant, first_giver, seed,
        target=first_card_cell if variant == "cards" else some_cell,
        guess=near_guesser(seed),
        passes=lambda s: s.round % 3 == 0,  # some rounds pass on the second clue
    )
    assert rules.is_terminal(expected) and expected.winners
    assert run_sim(tmp_path, script.text(), seed) == state_json(expected)


def test_whole_game_with_a_pass_and_a_tie_break(tmp_path):
    """3 players: in round 1 players 1 and 2 each touch the frame (1 point), then nobody scores:
    a tie; player 0 gives the tie-break cue and player 1 finds the target."""

    def target(state):
        return Cell(7, 14)

    def guess(state, who):
        taken = {p.cell for p in state.pawns}
        if state.round == 1 and state.phase == "guess1":
            return Cell(5, 14) if who == 1 else Cell(9, 14)
        if state.tiebreak and who == 1 and state.phase == "guess1":
            return Cell(7, 14)
        return next(c for c in ALL_CELLS if distance(c, Cell(7, 14)) > 2 and c not in taken)

    script, expected, _ = plan_game(3, "free", 0, 5, target, guess, passes=lambda s: True)
    assert expected.winners == (1,) and expected.round == 7 and expected.scores == (0, 4, 1)
    result = run_sim(tmp_path, script.text(), 5)
    assert result == state_json(expected)
    assert result["tiebreak"] is True


def test_a_mistaken_pawn_is_taken_back_with_b(tmp_path):
    """Place, take back with B, place again: the record holds the pawn once. (Were B ignored,
    the second A would hand over and the next player's press would hit an occupied cell.)"""
    script, expected, _ = plan_game(3, "free", 0, 6, some_cell, near_guesser(6), passes=lambda s: True)
    lines = list(script.lines)
    for index in reversed(script.placements[:3]):
        lines[index + 1:index + 1] = ["b", "a"]
    result = run_sim(tmp_path, "\n".join(lines) + "\n", 6)
    assert result == state_json(expected)


def test_headless_png_of_the_last_frame(tmp_path):
    script, _, _ = plan_game(3, "cards", 0, 7, first_card_cell, near_guesser(7), passes=lambda s: True)
    png = tmp_path / "last.png"
    run_sim(tmp_path, script.text(), 7, ["--png", str(png)])
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_bad_script_line_exit_2(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text("start\njump 3\n")
    assert cli.main(["sim", "--headless", "--script", str(path)]) == 2
    assert capsys.readouterr().err.strip().startswith(f"{path}:2: ")

"""The engine's Python API refuses what a record could never hold: a cell off the board cannot
exist, and every wrong action (a non-action, a field of the wrong type) is a RuleError."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from console.game import rules
from console.game.board import ALL_CELLS, COLS, ROWS, Cell, RuleError, parse_cell
from console.game.rules import ChooseTarget, Clue, NewGame, Next, Place, SkipClue, apply
from tests.gameplay import c

fuzz = settings(max_examples=200, deadline=None)


@fuzz
@given(st.integers(-2 * COLS, 2 * COLS), st.integers(-2 * COLS, 2 * COLS))
def test_a_cell_exists_exactly_on_the_board(row, col):
    if 0 <= row < ROWS and 0 <= col < COLS:
        assert Cell(row, col) is ALL_CELLS[row * COLS + col]
    else:
        with pytest.raises(RuleError, match="is not a cell on the board"):
            Cell(row, col)


@pytest.mark.parametrize("row, col", [(True, 0), (0, False), (1.0, 2), ("1", 2), (None, 0), (2**70, 0)])
def test_a_cell_of_other_types_cannot_exist(row, col):
    with pytest.raises(RuleError):
        Cell(row, col)


def test_copies_and_replace_give_checked_cells():
    cell = c("H15")
    assert copy.deepcopy(cell) is cell and pickle.loads(pickle.dumps(cell)) is cell
    assert cell._replace(col=0) == c("H1")
    with pytest.raises(RuleError):
        cell._replace(col=99)


@pytest.mark.parametrize("text", ["H²", "H١٥", "H１５", "Ｈ15", "H1\u0665", "H" + "1" * 5000, "ß1"])
def test_cell_names_are_ascii_only(text):
    with pytest.raises(RuleError, match="is not a cell on the board"):
        parse_cell(text)


def _guessing() -> rules.GameState:
    state = apply(None, NewGame(3, variant="free"))
    return apply(apply(state, ChooseTarget(c("A1"))), Clue())


@pytest.mark.parametrize("action, problem", [
    ("clue", "is not a game action"),
    (None, "is not a game action"),
    (Clue, "is not a game action"),  # the class, not an action
    ({"action": "clue"}, "is not a game action"),
    (NewGame(3, first_giver=True), "first_giver must be a whole number"),
    (NewGame("3"), "players must be a whole number"),
    (NewGame(3, seed=1.5), "seed must be a whole number"),
    (NewGame(3, variant=1), "variant must be text"),
    (NewGame(3, colors="red"), "colors must be a list of colour names"),
    (NewGame(3, colors=(1, 2, 3)), "colors must be a list of colour names"),
])
def test_wrong_new_game_or_non_action_is_a_rule_error(action, problem):
    with pytest.raises(RuleError, match=problem):
        apply(None, action)


@pytest.mark.parametrize("action, problem", [
    (Place("H15"), "cell must be a Cell"),
    (Place((1, 2)), "cell must be a Cell"),
    (Place(c("H15"), player=True), "player must be a whole number"),
    (Place(c("H15"), player="1"), "player must be a whole number"),
    (Place(c("H15"), player=7), "it is player 1's turn"),
    (ChooseTarget(c("H15")), "not possible now"),
    (object(), "is not a game action"),
])
def test_wrong_action_during_a_game_is_a_rule_error(action, problem):
    with pytest.raises(RuleError, match=problem):
        apply(_guessing(), action)


@pytest.mark.parametrize("state", ["choose_target", {"phase": "guess1"}, 0, ()])
def test_a_state_that_is_no_game_state_is_a_rule_error(state):
    with pytest.raises(RuleError, match="is not a game state"):
        apply(state, Clue())


_junk = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5),
                  st.tuples(st.integers(), st.integers()), st.lists(st.text(max_size=3), max_size=3))


@fuzz
@given(st.one_of(
    st.builds(NewGame, _junk, _junk, _junk, _junk, _junk),
    st.builds(ChooseTarget, _junk), st.builds(Place, _junk, _junk),
    st.sampled_from([Clue(), SkipClue(), Next()]), _junk))
def test_any_action_built_from_junk_is_applied_or_a_rule_error(action):
    for state in (None, _guessing()):
        try:
            after = apply(state, action)
        except RuleError:
            continue
        assert isinstance(after, rules.GameState)

"""A phone's cursor is checked by the handler (whether anyone guesses now) and then by the
engine (whose turn, which cell), each refusal with the key a guest reads it by: for every state
of any game, any seat and any cell, the request is taken exactly when the engine would take the
pawn, and a refusal says why in the order a guest reads it (nobody guesses now, not your turn,
that cell has a pawn)."""

from __future__ import annotations

import random

from hypothesis import given, strategies as st

from console.game import rules
from console.game.board import ALL_CELLS
from console.game.rules import Place, RuleError
from console.game.seating import Seating
from console.play import intents
from console.play.intents import Player
from console.play.table import act
from console.view.ui import Ui
from tests.game.test_rules_properties import common, legal_games


def expected_key(game: rules.GameState, seat: int, cell) -> str | None:
    try:
        rules.check(game, Place(cell, seat))
    except RuleError:
        if game.phase not in ("guess1", "guess2"):
            return "not_guessing"
        if seat != rules.current_player(game):
            return "not_your_turn"
        return "occupied" if game.occupied(cell) else "rule"
    return None


@common
@given(legal_games(), st.data())
def test_a_cursor_is_taken_exactly_where_the_engine_would_take_the_pawn(game, data):
    _, states = game
    for state in data.draw(st.lists(st.sampled_from([s for s in states if not rules.is_terminal(s)] or states[:1]),
                                    min_size=1, max_size=4)):
        cells = data.draw(st.lists(st.sampled_from(ALL_CELLS), min_size=1, max_size=6))
        cells += [pawn.cell for pawn in state.pawns[-2:]]  # where a tap meets a pawn
        phones = Seating(holders=tuple((seat, f"phone {seat}") for seat in range(state.players)))
        for seat in range(state.players):
            for cell in cells:
                key = expected_key(state, seat, cell)
                try:
                    step = act(state, Ui(screen="play", seating=phones), Player(f"phone {seat}", seat),
                               intents.PointAt(cell), 0.0, random.Random(0))
                except RuleError as refusal:
                    assert refusal.key == key and key is not None, (state.phase, seat, cell, str(refusal))
                    continue
                assert key is None and step.game is state and step.ui.cursor == cell

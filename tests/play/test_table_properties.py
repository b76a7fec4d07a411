"""A phone's cursor is checked by the handler (whether anyone guesses now) and then by the
engine (whose turn, which cell), each refusal with the key a guest reads it by: for every state
of any game, any seat and any cell, the request is taken exactly when the engine would take the
pawn, and a refusal says why in the order a guest reads it (nobody guesses now, not your turn,
that cell has a pawn). A new game's computer players take the last seats no phone holds and
always leave at least one seat a person's.
"""

from __future__ import annotations

import random

from hypothesis import given, strategies as st

from console.game import rules
from console.game.board import ALL_CELLS
from console.game.rules import Place, RuleError
from console.game.clue import LANGUAGES
from console.game.seating import PANEL, Seating, computer_holder, is_computer
from console.play import intents
from console.play.intents import Player
from console.play.table import act, computer_seats
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


@given(st.dictionaries(st.integers(0, 9), st.sampled_from(["a", "b", "c"]), max_size=10).map(
           lambda held: Seating(holders=tuple((seat, f"{phone} {seat}") for seat, phone in held.items()))),
       st.integers(rules.MIN_PLAYERS, rules.MAX_PLAYERS), st.integers(-1, 11),
       st.sampled_from(rules.COMPUTER_LEVELS + ("genius",)), st.sampled_from(LANGUAGES + ("xx",)))
def test_a_new_games_computer_players_take_the_last_free_seats_and_leave_a_person(phones, players, computers, level,
                                                                                    lang):
    """Whatever the phones hold and whatever set-up asks: computer players only in seats no phone
    holds, the last of them, as many as asked, and at least one seat a person's; else a refusal
    that says which (fewer computers, fewer than the phones leave room for, no such player)."""
    ui = Ui(screen="setup", seating=phones)
    intent = intents.NewGame(players, "cards", 0, computers, level, lang)
    free = [seat for seat in range(players) if phones.holder(seat) == PANEL]
    try:
        entries = computer_seats(ui, intent)
        step = act(None, ui, intents.joystick(), intent, 0.0, random.Random(0))
    except RuleError as refusal:
        assert refusal.key == ("one_person" if not 0 <= computers < players else "bad_message"
                               if level not in rules.COMPUTER_LEVELS or lang not in LANGUAGES
                               else "no_seat_for_computers")
        assert refusal.key != "no_seat_for_computers" or len(free) < computers
        return
    assert 0 <= computers < players and len(free) >= computers
    assert step.game.computers == (entries if computers else ())
    seats = [seat for seat, entry in enumerate(entries) if entry]
    assert seats == free[len(free) - computers:]  # the last seats no phone holds
    assert all(entries[seat] == rules.computer_entry(level, lang) for seat in seats)
    people = [seat for seat in range(players) if step.game.computer(seat) is None]
    assert people and len(people) == players - computers  # at least one person
    seating = step.ui.seating
    assert all(seating.holder(seat) == computer_holder(seat) for seat in seats)
    assert [entry for entry in seating.holders if not is_computer(entry[1])] == list(phones.holders)  # none moved
    assert seating.host_seat == phones.host_seat  # the host is a phone's, as before, or the joystick
    assert seating.secret == seating.holder(step.game.giver)  # dealt to the giver's seat: a computer's or a person's

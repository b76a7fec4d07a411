"""One test per rule of Hues and Cues as the console plays it (see README, "The rules")."""

from __future__ import annotations

from dataclasses import replace

import pytest

from console.game import rules
from console.game.board import ALL_CELLS, COLS, ROWS, RuleError, cells_within, distance, parse_cell
from console.game.deck import CARD_COUNT, cards
from console.game.rules import ChooseTarget, Clue, NewGame, Next, Place, apply
from tests.gameplay import c, play_quiet_rounds, play_round


def new(players=4, **kw) -> rules.GameState:
    return apply(None, NewGame(players=players, **kw))


# --- board ---------------------------------------------------------------------------------


def test_rule_board_is_16_rows_a_to_p_by_30_columns():
    assert len(ALL_CELLS) == ROWS * COLS == 480
    assert str(ALL_CELLS[0]) == "A1" and str(ALL_CELLS[-1]) == "P30"
    assert parse_cell("H15") == (7, 14) and parse_cell("O26") == (14, 25)


@pytest.mark.parametrize("text", ["h15", " H15 ", "o26"])
def test_rule_cell_names_parse_case_insensitively(text):
    assert str(parse_cell(text)) == text.strip().upper()


def test_rule_every_cell_is_found_by_its_name_however_it_is_written():
    for cell in ALL_CELLS:
        name = str(cell)
        assert all(parse_cell(text) is cell for text in (name, name.lower(), f" {name} ", f"{name}\n"))


@pytest.mark.parametrize("text", ["Q1", "A0", "A31", "H", "15H", "", "A01", "H 15", 15, None])
def test_rule_bad_cell_name_is_an_error_naming_the_text(text):
    with pytest.raises(RuleError, match=repr(text).replace("(", r"\(")):
        parse_cell(text)


# --- players and rounds --------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 11, 0])
def test_rule_three_to_ten_players(players):
    with pytest.raises(RuleError, match="3 to 10 players"):
        new(players)


@pytest.mark.parametrize("players, rounds", [(3, 6), (6, 12), (7, 7), (10, 10)])
def test_rule_rounds_twice_each_up_to_six_players_once_from_seven(players, rounds):
    state = new(players)
    givers = []
    while not rules.is_terminal(state):
        givers.append(state.giver)
        state = apply(play_round(state), Next())
    assert state.round == rounds  # nobody scored: all tie, the game ends with joint winners
    assert sorted(givers) == sorted(list(range(players)) * (rounds // players))


def test_rule_first_giver_chosen_then_role_passes_clockwise():
    state = new(5, first_giver=3)
    seen = []
    for _ in range(6):
        seen.append(state.giver)
        state = apply(play_round(state), Next())
    assert seen == [3, 4, 0, 1, 2, 3]


# --- a round -------------------------------------------------------------------------------


def test_rule_cards_variant_target_must_be_on_the_drawn_card():
    state = new(4, seed=3)
    card = state.card_cells
    assert len(card) == 4
    off_card = next(x for x in ALL_CELLS if x not in card)
    with pytest.raises(RuleError, match=f"{off_card} is not on this card"):
        apply(state, ChooseTarget(off_card))
    assert apply(state, ChooseTarget(card[2])).phase == "clue1"


def test_rule_free_variant_target_is_any_cell():
    state = new(4, variant="free")
    assert state.card is None
    assert len(rules.legal_actions(state)) == 480
    assert apply(state, ChooseTarget(c("P30"))).target == c("P30")


def test_rule_first_clue_is_needed_before_guessing():
    state = apply(new(4, variant="free"), ChooseTarget(c("H15")))
    with pytest.raises(RuleError, match="not possible now"):
        apply(state, Place(c("A1")))
    assert apply(state, Clue()).phase == "guess1"


def test_rule_first_guesses_clockwise_from_the_givers_left():
    state = apply(apply(new(5, first_giver=3, variant="free"), ChooseTarget(c("H15"))), Clue())
    order = []
    for cell in ["A1", "A2", "A3", "A4"]:
        order.append(rules.current_player(state))
        state = apply(state, Place(c(cell)))
    assert order == [4, 0, 1, 2]
    assert state.phase == "clue2" and rules.current_player(state) == 3


def test_rule_second_guesses_counter_clockwise_from_the_givers_right():
    state = apply(apply(new(5, first_giver=3, variant="free"), ChooseTarget(c("H15"))), Clue())
    for cell in ["A1", "A2", "A3", "A4"]:
        state = apply(state, Place(c(cell)))
    state = apply(state, Clue())
    order = []
    for cell in ["B1", "B2", "B3", "B4"]:
        order.append(rules.current_player(state))
        state = apply(state, Place(c(cell)))
    assert order == [2, 1, 0, 4]
    assert state.phase == "round_over"


def test_rule_one_pawn_per_cell_within_the_round():
    state = apply(apply(new(4, variant="free"), ChooseTarget(c("H15"))), Clue())
    state = apply(state, Place(c("C3")))
    with pytest.raises(RuleError, match="C3 already has a pawn"):
        apply(state, Place(c("c3")))


def test_rule_pawns_leave_the_board_between_rounds():
    state = play_round(new(4, variant="free"), target=c("H15"), first={1: c("C3")})
    state = apply(apply(apply(state, Next()), ChooseTarget(c("H15"))), Clue())
    assert state.pawns == ()
    assert apply(state, Place(c("C3"))).pawns[0].cell == c("C3")


def test_rule_pass_on_second_clue_means_nobody_guesses_again():
    state = play_round(new(4, variant="free"), target=c("H15"), first={1: c("H15")})
    assert state.phase == "round_over"
    assert len(state.pawns) == 3
    assert state.last_round_points == (1, 3, 0, 0)


# --- scoring: the published examples ---------------------------------------------------------

COLOURS_6 = ("orange", "green", "black", "yellow", "white", "red")


def test_rule_scoring_example_a_frame_holds_four_pawns():
    """Giver 4; green 3 + 2 (centre, frame corner); black and yellow 2 + 1; white and red 1 each."""
    state = new(6, variant="free", colors=COLOURS_6)
    green, black, yellow, white, red = 1, 2, 3, 4, 5
    state = play_round(
        state,
        target=c("H15"),
        first={green: c("H15"), black: c("H16"), yellow: c("I15"), white: c("F15"), red: c("H17")},
        second={green: c("G14"), black: c("F13"), yellow: c("J17"), white: c("A1"), red: c("A2")},
    )
    assert state.last_round_points == (4, 5, 3, 3, 1, 1)


def test_rule_scoring_example_b_frame_holds_seven_pawns():
    """Giver 7; red 3 + 2; green 2 + 2; yellow 2 + 1; white and black 2 each."""
    state = new(6, variant="free", colors=COLOURS_6)
    green, black, yellow, white, red = 1, 2, 3, 4, 5
    state = play_round(
        state,
        target=c("H15"),
        first={red: c("H15"), green: c("G15"), yellow: c("I14"), white: c("G16"), black: c("I16")},
        second={red: c("H16"), green: c("G14"), yellow: c("H13"), white: c("A1"), black: c("A2")},
    )
    assert state.last_round_points == (7, 4, 2, 3, 2, 5)


def test_rule_guesser_points_by_chebyshev_distance_diagonals_included():
    target = c("H15")
    expected = {c("H15"): 3, c("G14"): 2, c("I16"): 2, c("F13"): 1, c("J17"): 1, c("F17"): 1, c("E15"): 0}
    for cell, points in expected.items():
        assert rules.pawn_points(cell, target) == points, cell


@pytest.mark.parametrize("corner", ["A1", "A30", "P1", "P30"])
def test_rule_frame_is_clipped_at_the_corners(corner):
    target = c(corner)
    inside = [x for x in cells_within(target, 1) if x != target]
    assert len(inside) == 3
    state = play_round(new(4, variant="free"), target=target,
                       first={1: target, 2: inside[0], 3: inside[1]}, second={3: inside[2]})
    assert state.last_round_points == (4, 3, 2, 4)


def test_rule_frame_is_clipped_at_an_edge():
    target = c("A15")
    assert len(cells_within(target, 1)) == 6 and len(cells_within(target, 2)) == 15
    state = play_round(new(4, variant="free"), target=target,
                       first={1: c("B14"), 2: c("C17"), 3: c("A13")})
    assert state.last_round_points == (1, 2, 1, 1)


def test_rule_three_player_game_doubles_the_givers_points():
    state = play_round(new(3, variant="free"), target=c("H15"),
                       first={1: c("H15"), 2: c("H16")}, second={1: c("G16"), 2: c("J15")})
    assert state.last_round_points == (6, 5, 3)


def test_rule_scores_add_up_over_rounds():
    state = play_round(new(4, variant="free"), target=c("H15"), first={1: c("H15")})
    state = play_round(apply(state, Next()), target=c("B2"), first={2: c("B2")})
    assert state.scores == (1, 4, 3, 0)


# --- deck ----------------------------------------------------------------------------------


def test_rule_deck_has_100_cards_of_4_cells_far_apart():
    deck = cards()
    assert len(deck) == CARD_COUNT == 100
    for card in deck:
        assert len(set(card)) == 4
        assert all(distance(a, b) >= 4 for a in card for b in card if a != b)


def test_rule_deck_is_the_same_in_every_game_and_shuffled_with_the_seed():
    a, b, other = new(4, seed=1), new(4, seed=1), new(4, seed=2)
    assert set(cards()[i] for i in a.deck + (a.card,)) == set(cards())
    assert (a.card, a.deck) == (b.card, b.deck)
    assert (a.card, a.deck) != (other.card, other.deck)


def test_rule_drawn_card_is_discarded_and_empty_deck_reshuffles_from_discards():
    state = new(4, seed=5)
    assert state.discards == (state.card,) and state.card not in state.deck
    nearly_empty = replace(play_round(state), deck=())
    nxt = apply(nearly_empty, Next())
    assert nxt.reshuffles == 1
    assert nxt.card in state.discards and nxt.discards == (nxt.card,)


def test_rule_a_redeal_discards_the_card_unplayed_and_draws_the_next():
    """The console's redeal, when the giver's seat changes hands before the target is chosen:
    the card someone else saw is never the new giver's; the round and the giver stay."""
    state = new(4, seed=5)
    again = apply(state, rules.Redeal())
    assert again.card == state.deck[0] and again.discards == (state.card, again.card)
    assert (again.round, again.giver, again.phase) == (state.round, state.giver, "choose_target")
    with pytest.raises(RuleError, match="not on this card"):
        apply(again, ChooseTarget(next(x for x in state.card_cells if x not in again.card_cells)))
    with pytest.raises(RuleError, match="redeal is not possible now"):
        apply(apply(again, ChooseTarget(again.card_cells[0])), rules.Redeal())
    with pytest.raises(RuleError, match="in free there is no card"):
        apply(new(4, variant="free"), rules.Redeal())


# --- end and tie-breaks ----------------------------------------------------------------------


def _tied_game_4p() -> rules.GameState:
    """4 players; after the regular rounds players 1 and 2 tie on 1 point, 0 and 3 have 0."""
    state = new(4, variant="free")
    state = play_round(state, target=c("H15"), first={1: c("F15"), 2: c("J15")})
    assert state.scores == (0, 1, 1, 0)
    return play_quiet_rounds(apply(state, Next()), 7)


def test_rule_sole_top_scorer_wins():
    state = play_round(new(3, variant="free"), target=c("H15"), first={1: c("H15")})
    state = play_quiet_rounds(apply(state, Next()), 5)
    assert state.phase == "game_over" and state.winners == (1,)


def test_rule_tie_break_round_giver_is_next_untied_and_only_tied_players_guess():
    state = _tied_game_4p()
    assert state.phase == "choose_target" and state.tiebreak and state.tied == (1, 2)
    assert state.round == 9 and state.giver == 0  # last regular giver was 3; 0 is next and not tied
    state = apply(apply(state, ChooseTarget(c("H15"))), Clue())
    order = []
    for cell in ["H15", "A1"]:
        order.append(rules.current_player(state))
        state = apply(state, Place(c(cell)))
    assert order == [1, 2] and state.phase == "clue2"
    state = apply(state, Clue())
    assert rules.current_player(state) == 2  # counter-clockwise from the giver's right


def test_rule_tie_break_giver_scores_nothing():
    state = play_round(_tied_game_4p(), target=c("H15"), first={1: c("H15"), 2: c("H16")})
    assert state.last_round_points == (0, 3, 2, 0)
    state = apply(state, Next())
    assert state.phase == "game_over" and state.winners == (1,)


def test_rule_tie_breaks_repeat_until_one_leads_alone():
    state = apply(play_round(_tied_game_4p()), Next())
    assert state.tiebreak and state.tied == (1, 2) and state.giver == 3 and state.round == 10
    state = apply(play_round(state, target=c("H15"), first={2: c("H14")}), Next())
    assert state.phase == "game_over" and state.winners == (2,) and state.scores == (0, 1, 3, 0)


def test_rule_everyone_tied_ends_with_joint_winners():
    state = play_quiet_rounds(new(3), 6)
    assert state.phase == "game_over" and state.winners == (0, 1, 2)


# --- every class of illegal action ------------------------------------------------------------


def test_illegal_action_before_new_game():
    with pytest.raises(RuleError, match="starts with new_game"):
        apply(None, Clue())


def test_illegal_second_new_game():
    with pytest.raises(RuleError, match="already under way"):
        apply(new(), NewGame(players=4))


@pytest.mark.parametrize("kw, message", [
    (dict(first_giver=4), "first_giver"),
    (dict(variant="easy"), "variant"),
    (dict(colors=("red", "blue")), "2 colours for 4 players"),
    (dict(colors=("red", "blue", "red", "green")), "same pawn colour"),
    (dict(colors=("red", "blue", "mauve", "green")), "unknown pawn colour 'mauve'"),
])
def test_illegal_new_game_settings(kw, message):
    with pytest.raises(RuleError, match=message):
        new(4, **kw)


def test_illegal_action_in_the_wrong_phase():
    with pytest.raises(RuleError, match="next is not possible now: player 0 .*choosing the target"):
        apply(new(), Next())


def test_illegal_place_by_the_wrong_player():
    state = apply(apply(new(4, variant="free"), ChooseTarget(c("H15"))), Clue())
    with pytest.raises(RuleError, match="it is player 1's turn, not player 2's"):
        apply(state, Place(c("A1"), player=2))


def test_illegal_place_by_the_giver():
    state = apply(apply(new(4, variant="free"), ChooseTarget(c("H15"))), Clue())
    with pytest.raises(RuleError, match="player 1's turn, not player 0's"):
        apply(state, Place(c("A1"), player=0))


def test_illegal_action_after_the_game_is_over():
    state = play_quiet_rounds(new(3), 6)
    with pytest.raises(RuleError, match="the game is over"):
        apply(state, Next())
    assert rules.legal_actions(state) == []

"""A computer player's moves (console/bots/player.py) in the situations its docstring names: a clue
it cannot read, the second clue or the pass, and the target it describes best."""

from __future__ import annotations

from dataclasses import replace

from console.bots.aim import GIVER_DOUBT, aim
from console.bots.player import first_clue, free_targets, move, second_clue
from console.game import rules
from console.game.board import ALL_CELLS, Cell, distance
from console.game.rules import ChooseTarget, Clue, NewGame, Place, SkipClue
from console.game.seating import without_secret

COMPUTERS = ("", "expert:en", "expert:en", "expert:en")


def dealt(players: int = 4, variant: str = "free", seed: int = 5):
    computers = COMPUTERS[:players] if players <= 4 else ("",) + ("expert:en",) * (players - 1)
    return rules.apply(None, NewGame(players=players, seed=seed, first_giver=0, variant=variant, computers=computers))


def test_a_spoken_clue_leaves_a_guesser_beside_the_pawns_already_down():
    game = rules.apply(rules.apply(dealt(), ChooseTarget(Cell(3, 20))), Clue())  # said aloud: no words
    game = rules.apply(game, Place(Cell(8, 5), 1))
    chosen = move(without_secret(game), 2, "expert", "en")
    assert isinstance(chosen, Place) and chosen.cell != Cell(8, 5) and distance(chosen.cell, Cell(8, 5)) <= 1


def test_a_spoken_clue_and_no_pawn_yet_puts_the_first_guesser_in_the_middle_of_the_board():
    game = rules.apply(rules.apply(dealt(), ChooseTarget(Cell(3, 20))), Clue())
    chosen = move(without_secret(game), 1, "expert", "en")
    assert abs(chosen.cell.row - 7.5) <= 1.5 and abs(chosen.cell.col - 14.5) <= 1.5


def test_a_word_it_does_not_know_is_left_out_and_the_rest_read():
    game = rules.apply(dealt(), ChooseTarget(Cell(3, 20)))
    alone = rules.apply(game, Clue(("banana",), "en", True))
    with_nonsense = rules.apply(game, Clue(("banana", "qwzxv"), "en", True))
    assert move(without_secret(alone), 1, "expert", "en") == move(without_secret(with_nonsense), 1, "expert", "en")


def test_the_giver_chooses_the_card_cell_whose_best_clue_scores_most():
    game = dealt(variant="cards")
    player = aim("expert")
    chosen = move(game, 0, "expert", "en")
    expected = {cell: player.points_for(first_clue(player, cell, "en")[0], cell, GIVER_DOUBT) for cell in game.card_cells}
    assert isinstance(chosen, ChooseTarget) and expected[chosen.cell] == max(expected.values())


def test_in_the_free_variant_the_giver_weighs_cells_drawn_from_the_seed():
    game = dealt(variant="free", seed=9)
    assert move(game, 0, "expert", "en").cell in free_targets(9, 1)
    assert free_targets(9, 1) == free_targets(9, 1) != free_targets(9, 2)
    assert len(set(free_targets(9, 1))) == len(free_targets(9, 1))


def _at_second_clue(players: int, target: Cell, tied: tuple[int, ...] = ()):
    game = dealt(players)
    if tied:
        game = replace(game, tied=tied)
    game = rules.apply(game, ChooseTarget(target))
    words = first_clue(aim("expert"), game.target, "en")[1]
    game = rules.apply(game, words)
    taken = set()
    while game.phase == "guess1":
        cell = next(c for c in ALL_CELLS if c not in taken and distance(c, game.target) > 3)
        taken.add(cell)
        game = rules.apply(game, Place(cell))
    assert game.phase == "clue2"
    return game


def test_the_second_clue_is_a_new_word_the_check_lets_through_when_the_giver_gains_more_than_a_rival():
    game = _at_second_clue(6, Cell(0, 0))
    said = second_clue(aim("expert"), game, "en")
    assert isinstance(said, Clue) and said.written and said.words != game.clues[0].words


def test_in_a_tie_break_the_giver_who_cannot_score_passes():
    game = _at_second_clue(4, Cell(0, 0), tied=(1, 2))
    assert isinstance(second_clue(aim("expert"), game, "en"), SkipClue)

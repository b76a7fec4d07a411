"""A computer player's moves (console/bots/player.py) in the situations its docstring names: a clue
it cannot read, the second clue or the pass, and the target it describes best."""

from __future__ import annotations

from dataclasses import replace

from console.bots.aim import GIVER_DOUBT, aim
from console.bots.player import first_clue, free_targets, game_alone, move, read_clues, second_clue
from console.game import rules
from console.game.board import ALL_CELLS, Cell, distance
from console.game.rules import ChooseTarget, Clue, NewGame, Next, Place, SkipClue
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


def test_a_giver_never_says_a_word_written_in_an_earlier_round():
    """Whoever said it: in a game of computer players alone (seed 7 once gave *chestnut* in rounds
    3 and 5), and after a person's clue in round one."""
    for seed in (7, 11):
        game = rules.apply(None, game_alone(5, seed, "expert", "en")[0])
        heard: set[str] = set()
        for action in game_alone(5, seed, "expert", "en")[1:]:
            if game.phase == "choose_target":
                heard |= {c.id for c in read_clues(aim("expert"), game.said)}
            if isinstance(action, Clue):
                said = {c.id for c in read_clues(aim("expert"), (action,))}
                assert said and not said & heard, (seed, game.round, action.words)
            game = rules.apply(game, action)
    game = rules.apply(dealt(4), ChooseTarget(Cell(2, 3)))
    banana = first_clue(aim("expert"), Cell(2, 3), "en")[1]
    game = rules.apply(game, banana)  # the person's first clue, the computer giver's own word for that cell
    for seat in (1, 2, 3):
        game = rules.apply(game, Place(ALL_CELLS[seat], seat))
    game = rules.apply(rules.apply(game, SkipClue()), Next())
    game = rules.apply(game, ChooseTarget(Cell(2, 3)))  # the computer in seat 1 gives, for the same cell
    assert game.giver == 1 and game.said == (banana,)
    assert move(game, 1, "expert", "en").words != banana.words

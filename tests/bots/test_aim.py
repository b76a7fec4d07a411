"""The aim: known anchors land where people would put them in every language, a guesser's cells
maximise the expected points, a giver's word is the one that scores best, a child aims less well."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from console.bots.aim import (BOARD_LAB, GIVER_DOUBT, SHORTLIST_LENGTH, Aim, AimError, aim, expected_points,
                              nearest_distance, parse_shortlists, shortlist_vocabulary)
from console.bots.knowledge import LANGUAGES, KnowledgeError, knowledge
from console.game.board import ALL_CELLS, Cell, distance, parse_cell
from console.game.rules import pawn_points

EXPERT, CHILD = aim("expert"), aim("child")


def hue(cell: Cell) -> float:
    """The board's hue at a cell, OKLCH degrees (column 1 is 20, each column 12 more)."""
    _, a, b = BOARD_LAB[cell.index]
    return math.degrees(math.atan2(b, a)) % 360


ANCHORS = {  # concept -> what its first cell must be
    "banana": lambda c: 80 <= hue(c) <= 125,
    "lemon": lambda c: 80 <= hue(c) <= 125,
    "sky": lambda c: 200 <= hue(c) <= 265,
    "grass": lambda c: 120 <= hue(c) <= 160,
    "tomato": lambda c: hue(c) <= 45 or hue(c) >= 345,
    "blood": lambda c: (hue(c) <= 45 or hue(c) >= 345) and c.row >= 8,
    "orange-fruit": lambda c: 35 <= hue(c) <= 80,
    "flamingo": lambda c: (hue(c) >= 320 or hue(c) <= 30) and c.row <= 5,
    "snow": lambda c: c.row <= 1,
    "coal": lambda c: c.row >= 13,
    "lavender-plant": lambda c: 270 <= hue(c) <= 330,
    "shrek": lambda c: 100 <= hue(c) <= 160,
    "smurf": lambda c: 200 <= hue(c) <= 265,
}


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("concept", sorted(ANCHORS))
def test_known_anchors_land_where_they_should_in_every_language(lang, concept):
    word = knowledge().by_id[concept].word(lang)
    (found,) = knowledge().read(lang, word.split())
    first = EXPERT.guess([found])[0]
    assert ANCHORS[concept](first), (lang, word, str(first), hue(first))


def test_the_guess_is_the_cell_of_most_expected_points():
    banana = knowledge().by_id["banana"]
    picks = EXPERT.picks([banana])
    assert math.isclose(sum(picks), 1)
    cells = EXPERT.guess([banana])
    assert len(cells) == 480 and len(set(cells)) == 480
    by_hand = {cell: sum(pawn_points(cell, other) * picks[other.index] for other in ALL_CELLS) for cell in ALL_CELLS}
    assert by_hand[cells[0]] == pytest.approx(max(by_hand.values()))
    assert [by_hand[c] for c in cells] == sorted((by_hand[c] for c in cells), reverse=True) or \
        all(by_hand[a] >= by_hand[b] - 1e-12 for a, b in zip(cells, cells[1:]))


def test_occupied_cells_are_never_chosen():
    banana = knowledge().by_id["banana"]
    best = EXPERT.guess([banana])[:3]
    again = EXPERT.guess([banana], occupied=best)
    assert not set(best) & set(again) and len(again) == 477


def test_two_words_meet_in_between():
    k = knowledge()
    one = EXPERT.guess([k.by_id["banana"]])[0]
    two = EXPERT.guess([k.by_id["banana"], k.by_id["grass"]])[0]
    grass = EXPERT.guess([k.by_id["grass"]])[0]
    assert min(one.col, grass.col) <= two.col <= max(one.col, grass.col)


@given(st.sampled_from(ALL_CELLS))
@settings(max_examples=30, deadline=None)
def test_the_givers_word_scores_at_least_as_well_as_any_other_candidate(target):
    k = knowledge()
    candidates = [k.by_id[i] for i in ("banana", "sky", "grass", "tomato", "snow", "coal", "flamingo", "frog")]
    chosen = EXPERT.clue(candidates, target)
    assert EXPERT.points_for(chosen, target, GIVER_DOUBT) >= \
        max(EXPERT.points_for(c, target, GIVER_DOUBT) for c in candidates) - 1e-9


@given(st.sampled_from(ALL_CELLS), st.sampled_from(("child", "expert")))
@settings(max_examples=6, deadline=None)
def test_the_shortlist_starts_with_the_best_word_of_the_whole_vocabulary(target, level):
    """The shipped shortlists are what the aim computes: the giver's word from everything it knows,
    read off the list, scores as well as any word it knows, weighed one by one."""
    player = aim(level)
    vocabulary = shortlist_vocabulary(player.knowledge, level)
    chosen = player.clue(vocabulary, target)
    best = max(player.points_for(c, target, GIVER_DOUBT) for c in vocabulary)
    assert player.points_for(chosen, target, GIVER_DOUBT) == pytest.approx(best, abs=1e-9)
    assert level == "expert" or chosen.child


def test_the_shortlist_is_skipped_for_a_candidate_it_does_not_cover():
    """A colour name is no word of the shortlists: with one among the candidates, they are weighed
    one by one, and the shortlists' first word among them is not taken on trust."""
    k = knowledge()
    target = parse_cell("H12")
    listed = [k.by_id[i] for i in ("banana", "grass", "sky")]
    with_colour = listed + [k.by_id["green"]]
    assert EXPERT.clue(listed, target).id == "grass"
    chosen = EXPERT.clue(with_colour, target)
    assert EXPERT.points_for(chosen, target, GIVER_DOUBT) == \
        pytest.approx(max(EXPERT.points_for(c, target, GIVER_DOUBT) for c in with_colour))
    bare = Aim(k, "expert")  # no shortlists: the same word, weighed
    assert bare.clue(listed, target).id == "grass"


@pytest.mark.parametrize("text, problem", [
    ("child\tA1\tbanana\n", "not every cell"),
    ("adult\tA1\tbanana\n", "not a level"),
    ("child\tZ9\tbanana\n", "not a level, a cell"),
    ("child\tA1\tno-such-thing\n", "'no-such-thing' is no concept"),
])
def test_broken_shortlists_are_refused_naming_what(text, problem):
    with pytest.raises(KnowledgeError, match=problem):
        parse_shortlists(text, knowledge())


def test_each_shortlist_is_full_and_of_words_the_level_knows():
    for level in ("child", "expert"):
        player = aim(level)
        allowed = {c.id for c in shortlist_vocabulary(player.knowledge, level)}
        for cell in ALL_CELLS[::37]:
            listed = player.shortlists[cell]
            assert len(listed) == SHORTLIST_LENGTH and set(listed) <= allowed and len(set(listed)) == len(listed)


@pytest.mark.parametrize("cell, concept", [("C8", "banana"), ("H12", "grass"), ("H1", "tomato")])
def test_the_giver_names_the_anchor_for_its_own_cell(cell, concept):
    k = knowledge()
    candidates = [k.by_id[i] for i in ("banana", "sky", "grass", "tomato", "snow", "coal")]
    assert EXPERT.clue(candidates, parse_cell(cell)).id == concept


def test_a_child_aims_less_well_than_an_expert():
    """Against the expert's picks (the crowd), the child's first cell scores less on average."""
    k = knowledge()
    known = [c for c in k.concepts if c.child and c.kind != "colour"][:120]
    expert = child = 0.0
    for concept in known:
        crowd = EXPERT.picks([concept])
        points = expected_points(crowd)
        expert += points[EXPERT.guess([concept])[0].index]
        child += points[CHILD.guess([concept])[0].index]
    assert child < expert * 0.95


def test_an_unknown_level_is_refused():
    with pytest.raises(AimError, match="no level"):
        aim("genius")


def test_the_nearest_distance_is_the_board_minimum():
    for lab in [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.6, 0.1, 0.05), BOARD_LAB[17], (0.5, -0.2, 0.3)]:
        assert nearest_distance(lab) == pytest.approx(min(math.dist(lab, cell) for cell in BOARD_LAB))


def test_points_follow_the_rules():
    target = parse_cell("H15")
    snow = knowledge().by_id["snow"]
    picks = EXPERT.picks([snow])
    by_rules = sum(pawn_points(cell, target) * picks[cell.index] for cell in ALL_CELLS)
    assert EXPERT.points_for(snow, target) == pytest.approx(by_rules)
    assert all(distance(c, target) <= 2 for c in ALL_CELLS if pawn_points(c, target))

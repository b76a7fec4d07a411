"""A computer player's moves (bots/player.py) over games drawn by hypothesis (the situations its
docstring names, one example each, are tests/bots/test_player_moves.py): a guesser's pawn
depends on nothing of the round's secret, never lands on a pawn and is the same every time; the
giver's first clue passes the clue check for every cell at both levels in every language (all
of them: 480 x 2 x 6, seconds), its second clue passes the check for a second clue, and it
passes only when its docstring says: when the clue it would give is expected to bring a rival
more than it brings the giver (always in a tie-break, where the giver scores nothing)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from console.bots.aim import GIVER_DOUBT, aim
from console.bots.knowledge import knowledge
from console.bots.player import first_clue, move, read_clues
from console.game import rules
from console.game.board import ALL_CELLS, distance
from console.game.clue import LANGUAGES, check_clue
from console.game.deck import CARD_COUNT
from console.game.rules import ChooseTarget, Clue, GameState, NewGame, Next, Pawn, Place, SkipClue
from console.game.seating import without_secret
from tests.gameplay import play_quiet_rounds, play_round

LEVELS = rules.COMPUTER_LEVELS
GUESSING = ("guess1", "guess2")
WORDS = {lang: sorted({form for concept in knowledge().concepts for form in concept.words[lang]}) for lang in LANGUAGES}
some = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def clues(draw, second: bool) -> Clue:
    """A clue as a person gives it: mostly written, in any of the six languages, with words of
    the knowledge's (a known phrase counts as one) or one nobody knows; or said aloud."""
    kind = draw(st.sampled_from(("written", "written", "written", "unknown", "aloud")))
    if kind == "aloud":
        return Clue()
    lang = draw(st.sampled_from(LANGUAGES))
    words = [draw(st.sampled_from(WORDS[lang])) for _ in range(draw(st.integers(1, 2 if second else 1)))]
    if kind == "unknown":
        words[0] = draw(st.text("qxzjkv", min_size=4, max_size=9))
    return Clue(tuple(words), lang, checked=draw(st.booleans()))


@st.composite
def guessing_states(draw) -> GameState:
    """A game in a guess phase, reached by random legal actions (the clues as `clues` gives them):
    the first guess phase reached after a random number of them, or the last before its end."""
    players = draw(st.integers(rules.MIN_PLAYERS, rules.MAX_PLAYERS))
    state = rules.apply(None, NewGame(players=players, seed=draw(st.integers(0, 2**31)),
                                      first_giver=draw(st.integers(0, players - 1)),
                                      variant=draw(st.sampled_from(rules.VARIANTS))))
    reached = None
    for _ in range(draw(st.integers(0, 120))):
        if state.phase in GUESSING:
            reached = state
        if rules.is_terminal(state):
            break
        action = draw(st.sampled_from(rules.legal_actions(state)))
        if isinstance(action, Clue):
            action = draw(clues(second=state.phase == "clue2"))
        state = rules.apply(state, action)
    while state.phase not in GUESSING and reached is None:  # on to the first guess phase
        action = rules.legal_actions(state)[0]
        state = rules.apply(state, draw(clues(second=False)) if isinstance(action, Clue) else action)
    return state if state.phase in GUESSING else reached


def another_deal(state: GameState, rng) -> GameState:
    """`state` with another round's secret: another target, card, deck, discards and seed."""
    return replace(state, target=rng.choice(ALL_CELLS), card=None if state.card is None else rng.randrange(CARD_COUNT),
                   deck=tuple(rng.sample(range(CARD_COUNT), len(state.deck))),
                   discards=tuple(rng.sample(range(CARD_COUNT), len(state.discards))), seed=rng.randrange(2**32))


@some
@given(guessing_states(), st.sampled_from(LEVELS), st.sampled_from(LANGUAGES), st.randoms(use_true_random=False))
def test_a_guessers_pawn_is_the_same_whatever_the_secret_on_a_free_cell_every_time(state, level, lang, rng):
    seat = rules.current_player(state)
    seen = without_secret(state)
    placed = move(seen, seat, level, lang)
    assert isinstance(placed, Place) and placed.player == seat
    assert not state.occupied(placed.cell)
    rules.check(state, placed)  # the engine takes it
    assert move(seen, seat, level, lang) == placed  # the same again
    for _ in range(2):
        assert move(without_secret(another_deal(state, rng)), seat, level, lang) == placed
    assert all(move(seen, other, level, lang) is None for other in range(state.players) if other != seat)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("level", LEVELS)
def test_the_givers_first_clue_passes_the_check_for_every_cell(level, lang):
    """Every cell, exhaustively (about 0.3 s a language and level): one word the check lets
    through as a first clue, written in `lang`, that a guesser of the same level reads back as
    the concept the giver meant."""
    player = aim(level)
    wrong = []
    for cell in ALL_CELLS:
        concept, clue = first_clue(player, cell, lang)
        verdict = check_clue(" ".join(clue.words), lang, second=False)
        if not (verdict.ok and verdict.words == clue.words and len(clue.words) == 1 and clue.lang == lang
                and clue.checked and read_clues(player, (clue,)) == (concept,)):
            wrong.append((str(cell), clue, verdict))
    assert wrong == []


def tie_break(variant: str, seed: int) -> GameState:
    """A 3-player game at its tie-break round: orange and yellow tied on a point each (round
    one's pawns touching the frame, every other round quiet), red gives."""
    state = rules.apply(None, NewGame(players=3, seed=seed, first_giver=0, variant=variant))
    target = rules.legal_actions(state)[0].cell
    near = [cell for cell in ALL_CELLS if distance(cell, target) == 2]
    state = rules.apply(play_round(state, target=target, first={1: near[0], 2: near[1]}), Next())
    state = play_quiet_rounds(state, 5)
    assert state.tiebreak and state.phase == "choose_target" and state.giver == 0
    return state


@st.composite
def second_clue_states(draw) -> tuple[GameState, str, str]:
    """A computer giver's round at its second clue: its target chosen from the card (or any cell
    in free), its own first clue, the first pawns anywhere free; a regular round of 3 to 10
    players or a tie-break round."""
    level, lang = draw(st.sampled_from(LEVELS)), draw(st.sampled_from(LANGUAGES))
    variant, seed = draw(st.sampled_from(rules.VARIANTS)), draw(st.integers(0, 2**31))
    if draw(st.integers(0, 3)) == 0:
        state = tie_break(variant, seed)
    else:
        players = draw(st.integers(rules.MIN_PLAYERS, rules.MAX_PLAYERS))
        state = rules.apply(None, NewGame(players=players, seed=seed, first_giver=draw(st.integers(0, players - 1)),
                                          variant=variant))
    state = rules.apply(state, draw(st.sampled_from([a for a in rules.legal_actions(state)
                                                      if isinstance(a, ChooseTarget)])))
    said = move(state, state.giver, level, lang)
    assert said == first_clue(aim(level), state.target, lang)[1]  # the first clue is the giver's move
    state = rules.apply(state, said)
    while state.phase == "guess1":
        free = [cell for cell in ALL_CELLS if not state.occupied(cell)]
        state = rules.apply(state, Place(draw(st.sampled_from(free)), rules.current_player(state)))
    return state, level, lang


def expected_points(state: GameState, level: str, second: Clue) -> tuple[float, float]:
    """What the giver expects the second pawns to bring one rival and itself, by the rules'
    scoring, where people put them for both clues (the giver's doubt about their colours
    allowed for): (a rival's points for its pawn, the giver's for every guesser's pawn)."""
    player = aim(level)
    picks = player.picks(read_clues(player, state.clues + (second,)), GIVER_DOUBT)
    rival = next(seat for seat in range(state.players) if seat != state.giver)
    guessers = len(state.tied) if state.tiebreak else state.players - 1
    to_rival = math.fsum(p * rules.pawn_points(cell, state.target) for cell, p in zip(ALL_CELLS, picks))
    to_giver = guessers * math.fsum(p * rules.round_points(state.players, state.giver, state.target,
                                                           (Pawn(rival, cell),), state.tiebreak)[state.giver]
                                    for cell, p in zip(ALL_CELLS, picks))
    return to_rival, to_giver


@some
@given(second_clue_states())
def test_the_givers_second_clue_passes_the_check_and_it_passes_only_when_a_rival_gains_more(drawn):
    """The clue the giver weighs is the one that helps the guessers most, whatever the table's
    size (bots/player.py): on a table of a thousand, outside a tie-break, the giver's share of
    any clue near its target outweighs a rival's, so it says that clue there. At the real table
    it says the same clue, or passes exactly when the rules' points say a rival gains more."""
    state, level, lang = drawn
    weighed = move(replace(state, players=1000, tied=()), state.giver, level, lang)
    assert isinstance(weighed, Clue), "the clue it weighs, said where the giver's share outweighs all"
    verdict = check_clue(" ".join(weighed.words), lang, second=True)
    assert verdict.ok and verdict.words == weighed.words and len(weighed.words) <= 2
    assert weighed.lang == lang and weighed.checked
    first = {concept.id for concept in read_clues(aim(level), state.clues)}
    assert first and not first & {concept.id for concept in read_clues(aim(level), (weighed,))}  # none again
    said = move(state, state.giver, level, lang)
    assert said == move(state, state.giver, level, lang)  # the same every time
    to_rival, to_giver = expected_points(state, level, weighed)
    if abs(to_giver - to_rival) > 1e-6:  # a near tie is the arithmetic's to decide
        assert said == (weighed if to_giver > to_rival else SkipClue()), (to_rival, to_giver)
    if state.tiebreak:
        assert said == SkipClue()

"""Properties that hold for every legal game, over random games drawn by hypothesis."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from console.game import rules
from console.game.record import dumps_record, replay_record, state_json
from dataclasses import replace

from console.game.rules import NewGame, Place, TakeBack


@st.composite
def legal_games(draw):
    """A random legal game (possibly unfinished): its actions and every state along the way."""
    players = draw(st.integers(3, 10))
    action = NewGame(
        players=players,
        seed=draw(st.integers(0, 2**32)),
        first_giver=draw(st.integers(0, players - 1)),
        variant=draw(st.sampled_from(rules.VARIANTS)),
    )
    actions, states = [action], [rules.apply(None, action)]
    for _ in range(draw(st.integers(0, 400))):
        if rules.is_terminal(states[-1]):
            break
        choices = rules.legal_actions(states[-1])
        action = draw(st.sampled_from(choices), label="action")
        actions.append(action)
        states.append(rules.apply(states[-1], action))
    return actions, states


common = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@common
@given(legal_games())
def test_one_pawn_per_cell_and_at_most_two_per_guesser(game):
    _, states = game
    for s in states:
        cells = [p.cell for p in s.pawns]
        assert len(cells) == len(set(cells))
        for player in range(s.players):
            assert sum(p.player == player for p in s.pawns) <= 2


@common
@given(legal_games())
def test_the_giver_never_places(game):
    actions, states = game
    for before, action in zip(states, actions[1:]):
        if isinstance(action, Place):
            assert rules.current_player(before) != before.giver


@common
@given(legal_games())
def test_the_clues_heard_are_every_clue_given_in_order(game):
    """A state's earlier rounds' clues and its own round's are the game's clues so far, in order."""
    actions, states = game
    for count, state in enumerate(states, 1):
        given_so_far = tuple(a for a in actions[1:count] if isinstance(a, rules.Clue))
        assert state.said + state.clues == given_so_far


@common
@given(legal_games())
def test_round_points_are_bounded_and_totals_are_their_sum(game):
    actions, states = game
    totals = [0] * states[0].players
    for before, action, after in zip(states, actions[1:], states[1:]):
        if isinstance(action, TakeBack) and before.phase == "round_over":
            totals = [t - p for t, p in zip(totals, before.last_round_points)]
        elif after.phase == "round_over" and before.phase != "round_over":
            points = after.last_round_points
            assert points[after.giver] <= 9
            assert all(p <= 5 for i, p in enumerate(points) if i != after.giver)
            totals = [t + p for t, p in zip(totals, points)]
        assert list(after.scores) == totals


@common
@given(legal_games())
def test_a_take_back_restores_the_state_before_the_place(game):
    actions, states = game
    for earlier, placed, action, after in zip(states, actions[1:], actions[2:], states[2:]):
        if isinstance(action, TakeBack):
            assert isinstance(placed, Place)
            assert after == replace(earlier, can_take_back=False)


@common
@given(legal_games())
def test_replaying_a_record_twice_gives_the_same_state(game):
    actions, states = game
    text = dumps_record(actions)
    first, second = replay_record(text), replay_record(text)
    assert first == second == states[-1]
    assert state_json(first) == state_json(second)


def _refusal(do, state, action):
    try:
        do(state, action)
    except rules.RuleError as exc:
        return str(exc)
    return None


@common
@given(legal_games(), st.data())
def test_check_refuses_exactly_what_apply_refuses_with_the_same_words(game, data):
    """`check` (a phone's cursor, at every tap) is `apply` without the state it makes: for any
    state along a game and any action, legal or not, the same refusal or none."""
    _, states = game
    for state in [None] + data.draw(st.lists(st.sampled_from(states), min_size=1, max_size=6)):
        legal = rules.legal_actions(state) if state is not None else []
        actions = data.draw(st.lists(st.sampled_from(legal), max_size=24)) if legal else []
        actions += [Place(rules.Cell(r, c), p) for r, c, p in
                    data.draw(st.lists(st.tuples(st.integers(0, 15), st.integers(0, 29), st.integers(0, 9)), max_size=8))]
        actions += [TakeBack(), rules.Clue(), rules.SkipClue(), rules.Next(), "place", None,
                    NewGame(players=4, seed=1, first_giver=0, variant="free"),
                    NewGame(players=data.draw(st.integers(0, 12)), seed=1, first_giver=data.draw(st.integers(-1, 11)),
                            variant=data.draw(st.sampled_from([*rules.VARIANTS, "chess"])),
                            colors=data.draw(st.one_of(st.none(), st.lists(st.sampled_from(
                                [*rules.DEFAULT_COLOR_NAMES, "mauve"]), max_size=11).map(tuple))))]
        for action in actions:
            assert _refusal(rules.check, state, action) == _refusal(rules.apply, state, action), action

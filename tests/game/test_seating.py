"""Who holds each seat (game/seating.py): after any takes, hand-overs and leaves, every seat has
at most one holder, the joystick holds the rest, the open seats are exactly the free ones a phone
may take, and the host is whoever took the first seat still held. Computer players sit exactly in
the seats the game under way names, a phone never takes one's seat, and none is ever the host.
A guesser's view of the state (`without_secret`) is the same whatever the round's secret."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, strategies as st

from console.game import rules
from console.game.board import ALL_CELLS, RuleError
from console.game.deck import CARD_COUNT
from console.game.seating import PANEL, Seating, computer_holder, is_computer, seat_computers, without_secret
from tests.game.test_rules_properties import common, legal_games

COLORS = 10


@given(st.lists(st.tuples(st.sampled_from(["take", "hand_over", "leave"]), st.sampled_from([0, 1, 2, 3, 4, 10]),
                          st.sampled_from([None, 3]), st.sampled_from(["a", "b", "c", "d"])), max_size=30))
def test_every_seat_has_one_holder_whatever_the_changes(steps):
    seating, order = Seating(), []  # order: the seats taken and still held, oldest first
    for verb, seat, playing, holder in steps:
        if verb == "take":
            was_open = seat in seating.open_seats(COLORS, playing)
            try:
                seating = seating.take(seat, holder, COLORS, playing)
            except RuleError:
                assert not was_open  # refused exactly when it was not open
            else:
                assert was_open and seating.holder(seat) == holder
                order.append(seat)
        elif verb == "hand_over":
            held = seat in seating.taken
            seating = seating.hand_over(seat, COLORS)
            if held:
                order.remove(seat)
            elif 0 <= seat < COLORS:
                assert seat in seating.open_seats(COLORS, 3)  # opened for the next phone, mid-game too
        else:
            seating = seating.leave(seat)
            if seat in order:
                order.remove(seat)
        assert sorted(order) == list(seating.taken) and len(set(order)) == len(order)
        assert seating.host_seat == (order[0] if order else None)
        for other in range(COLORS):
            assert (seating.holder(other) != PANEL) == (other in order)
            assert other not in seating.open_seats(COLORS, playing) or other not in order


def test_a_taken_seat_the_joystick_plays_and_a_seat_off_the_table_are_refused_with_their_keys():
    seating = Seating().take(1, "a", COLORS, None)
    refusals = []
    for seat, playing in ((1, None), (0, 3), (10, None)):
        try:
            seating.take(seat, "b", COLORS, playing)
        except RuleError as refusal:
            refusals.append(refusal.key)
    assert refusals == ["seat_taken", "joystick_seat", "no_such_seat"]
    assert seating.hand_over(0, COLORS).take(0, "b", COLORS, 3).holder(0) == "b"  # opened by the host first


def test_the_seats_the_store_kept_come_back_in_their_order_and_nothing_unreadable_does():
    kept = [[3, "x"], [1, "y"], [3, "z"], ["2", "w"], [12, "v"], [4, 7], [5, "panel"], "junk"]
    seating = Seating.kept(kept, COLORS)
    assert seating.holders == ((3, "x"), (1, "y")) and seating.saved() == [[3, "x"], [1, "y"]]
    assert Seating.kept("junk", COLORS) == Seating()


# --- computer players ---------------------------------------------------------------------------

PHONES = ("a", "b", "c", "d")


@st.composite
def games_with_computers(draw):
    """A game that names computer players in some seats (never all), under way, over, or none."""
    players = draw(st.integers(rules.MIN_PLAYERS, rules.MAX_PLAYERS))
    seats = draw(st.sets(st.integers(0, players - 1), max_size=players - 1))
    entries = tuple(rules.computer_entry(draw(st.sampled_from(rules.COMPUTER_LEVELS)), "en") if seat in seats else ""
                    for seat in range(players))
    game = rules.apply(None, rules.NewGame(players=players, seed=draw(st.integers(0, 2**31)), first_giver=0,
                                           computers=entries))
    return draw(st.sampled_from([None, game, replace(game, phase="game_over")]))


seat_changes = st.lists(st.tuples(st.sampled_from(["take", "hand_over", "leave", "restart"]),
                                  st.integers(0, COLORS - 1), st.sampled_from(PHONES)), max_size=25)


def assert_seated_as_the_game_says(game, seating: Seating) -> None:
    named = {} if game is None or rules.is_terminal(game) else {
        seat: computer_holder(seat) for seat in range(game.players) if game.computer(seat) is not None}
    computers = {seat: holder for seat, holder in seating.holders if is_computer(holder)}
    assert computers == named  # every seat it names, its computer; no other computer anywhere
    assert len({seat for seat, _ in seating.holders}) == len(seating.holders)  # one holder a seat
    host = seating.host_seat
    assert host is None or not is_computer(seating.holder(host))
    assert not any(seating.is_host(holder) for holder in computers.values())
    phones = [holder for _, holder in seating.holders if not is_computer(holder)]
    assert [h for h in PHONES + tuple(computers.values()) if seating.is_host(h)] == phones[:1]


@given(games_with_computers(), seat_changes)
def test_computer_players_sit_where_the_game_names_them_and_no_phone_displaces_or_hosts_over_them(game, changes):
    """The app's way: every seat change (a phone's take, the host's hand-over, a leave, a restart
    that brings back the phones' kept seats) followed by `seat_computers` for the game."""
    playing = None if game is None or rules.is_terminal(game) else game.players
    seating = seat_computers(game, Seating())
    assert_seated_as_the_game_says(game, seating)
    for verb, seat, phone in changes:
        if verb == "take":
            computer = is_computer(seating.holder(seat))
            try:
                seating = seating.take(seat, phone, COLORS, playing)
            except RuleError as refusal:
                assert not computer or refusal.key == "seat_taken"
            else:
                assert not computer  # a computer's seat is never a phone's to take
        elif verb == "hand_over":
            seating = seating.hand_over(seat, COLORS)
        elif verb == "leave":
            seating = seating.leave(seat)
        else:
            seating = Seating.kept(seating.saved(), COLORS)
        seating = seat_computers(game, seating)
        assert_seated_as_the_game_says(game, seating)


@given(games_with_computers(), st.lists(st.tuples(st.integers(0, COLORS - 1), st.sampled_from(PHONES)), max_size=6))
def test_a_phones_hold_kept_from_before_a_restart_gives_way_to_the_computer_the_record_names(game, kept):
    """The store's seats (phones only) and a record naming computers in some of them: the
    computers sit, the phones keep every other seat in their order."""
    seating = Seating.kept([[seat, phone] for seat, phone in kept], COLORS)
    seated = seat_computers(game, seating)
    assert_seated_as_the_game_says(game, seated)
    named = {seat for seat, holder in seated.holders if is_computer(holder)}
    assert [entry for entry in seated.holders if not is_computer(entry[1])] == [
        entry for entry in seating.holders if entry[0] not in named]


@common
@given(legal_games(), st.data())
def test_without_the_secret_every_deal_of_the_round_looks_the_same(game, data):
    """`without_secret`, what a computer guesser is given: the same state whatever the round's
    target, card, deck, discards and the seed that shuffles them, until the round is scored."""
    _, states = game
    state, rng = data.draw(st.sampled_from(states)), data.draw(st.randoms(use_true_random=False))
    other = replace(state, seed=rng.randrange(2**32), deck=tuple(rng.sample(range(CARD_COUNT), len(state.deck))),
                    discards=tuple(rng.sample(range(CARD_COUNT), len(state.discards))),
                    card=None if state.card is None else rng.randrange(CARD_COUNT),
                    target=None if state.target is None else rng.choice(ALL_CELLS))
    seen, other_seen = without_secret(state), without_secret(other)
    if state.target_revealed is None:
        assert seen == other_seen and seen.target is None and seen.card is None and seen.deck == ()
    else:  # scored: the target is the table's
        assert seen.target == state.target and replace(seen, target=None) == replace(other_seen, target=None)

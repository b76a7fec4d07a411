"""Who holds each seat (game/seating.py): after any takes, hand-overs and leaves, every seat has
at most one holder, the joystick holds the rest, the open seats are exactly the free ones a phone
may take, and the host is whoever took the first seat still held."""

from __future__ import annotations

from hypothesis import given, strategies as st

from console.game.board import RuleError
from console.game.seating import PANEL, Seating

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
